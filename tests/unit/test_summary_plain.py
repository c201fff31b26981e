"""project's summary on a stderr that is no terminal and has no colour is written without
Rich (report.print_summary, ui.plain_err): the same bytes as Rich's console prints there,
the table laid out as Rich lays it out; anything else (a label outside printable ASCII, a
terminal, colour) still goes through Rich."""

from __future__ import annotations

import io
import random

import pytest

from support.common import corpus
from toolcat import tokens, ui
from toolcat.api import load_all
from toolcat.features.project import options_from_cli, project_catalogs
from toolcat.features.project.report import _table_lines, print_summary, rich_table


def _rich_table(columns: tuple, rows: list[tuple]) -> str:
    from rich.console import Console

    buf = io.StringIO()
    con = Console(file=buf, no_color=True, color_system=None, highlight=False, markup=False,
                  soft_wrap=True, emoji=False, width=10_000)
    con.print(rich_table(columns, rows))
    return buf.getvalue()


def test_the_table_is_laid_out_as_rich_lays_it_out():
    rng = random.Random(35)
    for _ in range(300):
        view = rng.choice(["compact", "standard", "x", "a-long-view-name"])
        rows = [(label, *(f"{rng.choice([0, 7, 999, 1000, 10 ** rng.randint(0, 12)]):,}"
                          for _ in range(2)), rng.choice(["-", "0.0%", "31.3%", "1234.5%"]))
                for label in ("bytes", "tokens (o200k)", "model-facing tokens")]
        columns = ("", "standard", view, "ratio")
        assert "".join(x + "\n" for x in _table_lines(columns, rows)) == \
            _rich_table(columns, rows)


def _summary(proj, label: str, written: bool, capsys, rich: bool, monkeypatch) -> str:
    ui.reset()
    proj._memo.pop("counted", None)       # (counted again with this counter)
    with monkeypatch.context() as m:
        if rich:
            m.setattr(ui, "plain_err", lambda: None)
        print_summary(proj, label, tokens.Counter(), written=written)
    return capsys.readouterr().err


@pytest.mark.parametrize("opts", [{}, {"to": "openwop", "unlowerable": "fail"},
                                  {"view": "standard"}, {"to": "anthropic", "defer": "all"}])
@pytest.mark.parametrize("label", ["out.json", "ütf-8 out.json", "tab\tout.json"])
def test_the_summary_without_rich_is_the_summary_with_rich(opts, label, capsys, monkeypatch):
    path = corpus("openapi", "box.openapi.json")
    if not path.exists():
        pytest.skip("no corpus")
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    proj = project_catalogs(load_all([str(path)]), options_from_cli(**opts))
    written = not proj.exit_code()
    plain = _summary(proj, label, written, capsys, False, monkeypatch)
    assert "model-facing tokens" in plain and (label.split()[-1] in plain)
    assert plain == _summary(proj, label, written, capsys, True, monkeypatch)


def test_a_terminal_or_colour_gets_rich(monkeypatch):
    monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.delenv("NO_COLOR", raising=False)
    ui.reset()
    assert ui.plain_err() is None
    monkeypatch.delenv("FORCE_COLOR")
    monkeypatch.setattr(ui, "terminal_width", lambda stream=None: 80)
    assert ui.plain_err() is None
