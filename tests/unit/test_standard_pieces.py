"""The project summary counts the standard view in distinct pieces (issues 17 and 35: never
held whole, each definitions entry its tools bundle counted once): the figures are the
whole texts' counts (tests/unit/test_tally.py checks the pieces themselves)."""

from __future__ import annotations

from pathlib import Path

import pytest

from support.counting import RecordingCounter
from toolcat import tokens
from toolcat.api import load, project
from toolcat.document.canonical import dumps
from toolcat.features.project.prose import model_facing
from toolcat.features.project.report import start_counting, summary_figures

SAMPLES = Path(__file__).resolve().parents[2] / "samples"
FILES = [p for p in sorted(SAMPLES.iterdir())
         if p.suffix in (".json", ".yaml") and "broken" not in p.name]


@pytest.mark.parametrize("to", ["mcp", "openwop", "openai", "anthropic"])
def test_the_summary_counts_the_standard_view_as_a_whole(to, monkeypatch):
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
        whole = proj.standard_bytes()
        several += len(proj.tools) > 1
        figs = summary_figures(proj, counter=tokens.Counter())
        assert figs["bytes_before"] == len(whole)
        assert figs["tokens_before"] == len(enc.encode_ordinary(whole.decode()))
        assert figs["tokens_after"] == len(enc.encode_ordinary(proj.array_bytes().decode()))
    assert several >= 3


def test_the_summary_through_the_forked_counter():
    cat = load(SAMPLES / "petstore.openapi.yaml")
    proj = project([cat])
    c = tokens.counter("o200k_base")
    start_counting(proj, c)
    figs = summary_figures(proj, counter=c)
    assert figs["tokens_before"] == tokens.count(proj.standard_bytes())
    assert figs["tokens_after"] == tokens.count(proj.array_bytes())


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
            c = RecordingCounter()
            figs = summary_figures(proj, counter=c)
            env = proj.envelope
            before, after = proj.standard_bytes(), bytes(proj.array_view())
            assert figs["tokens_before"] == len(enc.encode_ordinary(before.decode()))
            assert figs["tokens_after"] == len(enc.encode_ordinary(after.decode()))
            assert figs["bytes_after"] == len(after)
            # the standard view's text is not handed over a second time as the "after"
            same = view == "standard" and all(t.descriptor is t.standard for t in proj.tools)
            # last the compact view (unless it is the standard one) and its model-facing part
            ma = dumps([model_facing(env, t.descriptor) for t in proj.tools])
            assert c.texts[-1] == ma
            pieces = c.texts[:-1 if same else -2]
            assert same or c.texts[-2] == after
            assert len(pieces) == len(set(pieces)), (f, view)     # each distinct piece once
            mb = dumps([model_facing(env, t.standard) for t in proj.tools])
            assert figs["model_tokens_before"] == len(enc.encode_ordinary(mb.decode()))
            assert figs["model_tokens_after"] == len(enc.encode_ordinary(ma.decode()))
            assert len(mb) <= len(before) and len(ma) <= len(after)
