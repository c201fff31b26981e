"""measure counts each distinct piece of its views once (issue 35): the views are cut where
a BPE count cannot change (:func:`toolcat.tokens.pieces`), a piece met again is not
submitted again, and the figures are the counts of the whole texts."""

from __future__ import annotations

import pytest

from support.common import corpus
from support.counting import RecordingCounter
from toolcat import tokens
from toolcat.api import load, project
from toolcat.document import canonical
from toolcat.features.measure import measure_catalogs
from toolcat.features.project import options_from_cli


def test_pieces_join_to_the_text_and_count_as_it():
    cat = load(corpus("openapi", "box.openapi.json"))
    whole = project([cat]).standard_bytes()
    got = tokens.pieces(whole)
    assert b"".join(got) == whole
    assert len(got) > 100 and len(set(got)) < len(got)     # box repeats its schemas
    assert all(len(p) >= tokens._PIECE_MIN for p in got[:-1])
    enc = tokens.encoding()
    assert sum(len(enc.encode_ordinary(p.decode())) for p in set(got)
               for _ in range(got.count(p))) == len(enc.encode_ordinary(whole.decode()))


@pytest.mark.parametrize("name", ["box.openapi.json", "openai.openapi.yaml"])
def test_each_distinct_piece_is_submitted_once_and_the_figures_are_exact(name):
    cat = load(corpus("openapi", name))
    c = RecordingCounter()
    fig = measure_catalogs([cat], options_from_cli(), counter=c)[0]
    assert len(c.texts) == len(set(c.texts))            # no piece counted twice
    proj = project([cat])
    enc = tokens.encoding()
    assert fig.tokens_before == len(enc.encode_ordinary(proj.standard_bytes().decode()))
    assert fig.tokens_after == len(enc.encode_ordinary(canonical.dumps(
        [t.descriptor for t in proj.tools]).decode()))
    # far less is submitted than the views hold (before, after, lossless-only, model-facing)
    assert sum(map(len, c.texts)) < fig.bytes_before


def test_fine_pieces_join_to_the_piece_and_count_as_it():
    cat = load(corpus("openapi", "openai.openapi.yaml"))
    whole = project([cat]).standard_bytes()
    enc = tokens.encoding()
    several = 0
    for p in set(tokens.pieces(whole)):
        fine = tokens.fine_pieces(p)
        assert b"".join(fine) == p
        assert all(len(f) >= tokens._FINE_MIN for f in fine[:-1])
        assert sum(len(enc.encode_ordinary(f.decode())) for f in fine) == \
            len(enc.encode_ordinary(p.decode()))
        several += len(fine) > 1
    assert several > 10


def _submitted_and_distinct(path) -> tuple[int, int]:
    cat = load(str(path))
    c = RecordingCounter()
    measure_catalogs([cat], options_from_cli(), counter=c)
    distinct = set(tokens.pieces(project([cat]).standard_bytes()))
    return sum(map(len, c.texts)), sum(map(len, distinct))


def test_a_schema_node_met_in_another_piece_is_not_submitted_again():
    """The distinct pieces of the views repeat the same schema nodes in other contexts:
    measure submits less than the distinct pieces of the before view alone hold (which it
    submitted whole before)."""
    submitted, distinct = _submitted_and_distinct(corpus("openapi", "box.openapi.json"))
    assert submitted < distinct


def test_kubernetes_views_submit_a_fraction_of_their_distinct_pieces():
    from support.outside import outside

    # (14 MB of distinct pieces in the before view, 1.8 MB of distinct fine pieces)
    submitted, distinct = _submitted_and_distinct(outside("kubernetes-swagger"))
    assert submitted * 4 < distinct


def _count_dumps(monkeypatch) -> list[int]:
    """Count the bytes ``canonical.dumps`` writes from now on (the list's one item)."""
    written = [0]
    real = canonical.dumps

    def dumps(value, *a, **k):
        out = real(value, *a, **k)
        written[0] += len(out)
        return out

    monkeypatch.setattr(canonical, "dumps", dumps)
    return written


def test_shared_definitions_are_serialized_once_and_the_view_is_exact(monkeypatch):
    """The tools of an OpenAPI spec bundle the same definition objects: measure writes the
    standard view with each one serialized once (less than the view's bytes written in
    all), and the view is the same bytes (its SHA-256 and length)."""
    cat = load(corpus("openapi", "box.openapi.json"))
    whole = project([cat]).standard_bytes()
    written = _count_dumps(monkeypatch)
    fig = measure_catalogs([cat], options_from_cli(), counter=tokens.Counter())[0]
    import hashlib

    assert fig.bytes_before == len(whole)
    assert fig.sha256_before == hashlib.sha256(whole).hexdigest()
    assert written[0] < fig.bytes_before


def test_without_the_digest_the_figures_are_the_same_but_the_hash():
    """``measure``'s table does not show the SHA-256 of the standard view: measured without
    it (``digest=False``), nothing else changes."""
    cat = load(corpus("openapi", "box.openapi.json"))
    with_it = measure_catalogs([cat], options_from_cli(), counter=tokens.Counter())[0]
    without = measure_catalogs([cat], options_from_cli(), counter=tokens.Counter(),
                               digest=False)[0]
    assert without.sha256_before is None and len(with_it.sha256_before) == 64
    with_it.sha256_before = None
    assert without.to_json() == with_it.to_json()


@pytest.mark.parametrize("to", ["mcp", "openai", "anthropic"])
def test_the_parts_give_the_size_of_each_schema_field(to):
    """DescriptorParts.parts(item, sizes): the parts join to the canonical bytes of the item
    (with or without definitions maps in its schemas), and ``sizes`` holds the length of
    each schema field's canonical bytes: what measure's breakdown would size again."""
    from toolcat.features.project.parts import DescriptorParts

    proj = project([load(corpus("openapi", "box.openapi.json"))], to=to)
    env = proj.envelope
    writer = DescriptorParts(env)
    seen = 0
    for t in proj.tools:
        sizes: dict = {}
        parts = writer.parts(t.standard, sizes)
        assert tokens.parts_text(parts) == canonical.dumps(t.standard)
        body = env.body(t.standard)
        assert sizes == {k: len(canonical.dumps(body[k])) for k in env.schema_fields
                         if k in body}
        seen += len(sizes)
    assert seen >= len(proj.tools)


def test_measure_serializes_each_schema_once(monkeypatch):
    """The breakdown takes the schemas' sizes from the parts that wrote them: measure writes
    fewer bytes than the standard view holds (openai's tools do not bundle definitions: each
    schema was written again to be sized, 1.35 times the view in all)."""
    cat = load(corpus("openapi", "openai.openapi.yaml"))
    written = _count_dumps(monkeypatch)
    fig = measure_catalogs([cat], options_from_cli(), counter=tokens.Counter())[0]
    assert written[0] < fig.bytes_before
