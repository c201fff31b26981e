"""The project summary counts the standard view tool by tool (issue 17: never held whole):
the pieces join to the view's bytes, and their token counts add up to the whole text's."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolcat import tokens
from toolcat.api import load, project
from toolcat.features.project.report import start_counting, summary_figures

SAMPLES = Path(__file__).resolve().parents[2] / "samples"
FILES = [p for p in sorted(SAMPLES.iterdir())
         if p.suffix in (".json", ".yaml") and "broken" not in p.name]


@pytest.mark.parametrize("to", ["mcp", "openwop", "openai", "anthropic"])
def test_pieces_join_to_the_standard_view_and_count_as_it(to, monkeypatch):
    monkeypatch.setattr(tokens, "_MEMO_MIN", 64)     # the piece memo on short texts too
    monkeypatch.setattr(tokens, "_PIECE_MIN", 16)
    enc = tokens.encoding("o200k_base")
    several = 0
    for f in FILES:
        try:
            cat = load(f)
        except Exception:  # noqa: BLE001 - a sample that is not a catalog for this target
            continue
        proj = project([cat], to=to)
        pieces = list(proj.standard_pieces())
        whole = proj.standard_bytes()
        assert b"".join(pieces) == whole
        several += len(pieces) > 1
        assert sum(tokens.count(p) for p in pieces) == len(enc.encode_ordinary(whole.decode()))
        fresh = project([cat], to=to)          # nothing memoized: the summary's own path
        figs = summary_figures(fresh, counter=tokens.Counter())
        assert figs["bytes_before"] == len(whole)
        assert figs["tokens_before"] == len(enc.encode_ordinary(whole.decode()))
        assert figs["tokens_after"] == len(enc.encode_ordinary(fresh.array_bytes().decode()))
    assert several >= 3


def test_the_summary_through_the_forked_counter():
    cat = load(SAMPLES / "petstore.openapi.yaml")
    proj = project([cat])
    c = tokens.counter("o200k_base")
    start_counting(proj, c)
    figs = summary_figures(proj, counter=c)
    assert figs["tokens_before"] == tokens.count(proj.standard_bytes())
    assert figs["tokens_after"] == tokens.count(proj.array_bytes())


class _Recording(tokens.Counter):
    """The in-process counter, keeping what it was given."""

    def __init__(self) -> None:
        super().__init__()
        self.texts: list[bytes] = []

    def submit(self, data):
        self.texts.append(bytes(data))
        return super().submit(data)


@pytest.mark.parametrize("to", ["mcp", "openwop", "openai", "anthropic-strict"])
def test_a_standard_view_is_counted_once_and_its_figures_are_its_own(to):
    enc = tokens.encoding("o200k_base")
    for f in FILES:
        try:
            cat = load(f)
        except Exception:  # noqa: BLE001 - a sample that is not a catalog for this target
            continue
        for view in ("standard", "compact"):
            proj = project([cat], to=to, view=view)
            pieces = list(proj.standard_pieces())      # as the summary makes them
            c = _Recording()
            figs = summary_figures(proj, counter=c)
            before, after = proj.standard_bytes(), bytes(proj.array_view())
            assert figs["tokens_before"] == len(enc.encode_ordinary(before.decode()))
            assert figs["tokens_after"] == len(enc.encode_ordinary(after.decode()))
            assert figs["bytes_after"] == len(after)
            # the standard view's text is not handed over a second time as the "after"
            twice = view == "compact" or before != after
            # then the two model-facing views (name, description, input schema)
            assert len(c.texts) == len(pieces) + twice + 2, (f, view)
            assert c.texts[len(pieces):-2] == ([after] if twice else [])
            mb, ma = c.texts[-2:]
            assert figs["model_tokens_before"] == len(enc.encode_ordinary(mb.decode()))
            assert figs["model_tokens_after"] == len(enc.encode_ordinary(ma.decode()))
            assert len(mb) <= len(before) and len(ma) <= len(after)
