"""The Python API is safe across threads: ``toolcat.load``, ``lint``, ``project``,
``measure`` and ``diff`` run in a thread pool give what the same calls give one after
another (results, and errors naming the file they are about), and leave the interpreter as
they found it; the per-run UI options (``--quiet``, ``--no-color``) are per thread."""

from __future__ import annotations

import json
import subprocess
import sys
import threading

import pytest

from support.common import REPO, SAMPLES, corpus
from support.outside import outside

#: threads x rounds of the same calls (8 threads: every call of a round overlaps others)
THREADS, ROUNDS = 8, 3


def _optional(where, *parts: str):
    """``where(*parts)`` (a corpus path), or None where that corpus is absent: the samples'
    calls run anywhere, the corpus catalogs join them where they are."""
    try:
        return where(*parts)
    except pytest.skip.Exception:
        return None


def _with_blank_run(src, dst, n: int = 600_000) -> None:
    """``src`` (an MCP tools list) with a run of ``n`` spaces in its first tool's
    description: more than tiktoken can encode, so measure refuses it in one line naming
    the file (toolcat.tokens.TokenizerLimit) from deep inside the counting, where the file
    is known only as the input being worked on (toolcat.errors.about)."""
    doc = json.loads(src.read_text(encoding="utf-8"))
    tool = doc["tools"][0]
    tool["description"] = tool["description"] + " " * n + "(end)"
    dst.write_text(json.dumps(doc, indent=1), encoding="utf-8")


def _nested(src, dst, depth: int) -> None:
    """``src`` with its first tool's input schema nested ``depth`` levels deeper (``items``
    within ``items``): past toolcat's depth limit (256) loading it is an error naming the
    file; the JSON parser bounds its nesting by the interpreter's recursion limit."""
    doc = json.loads(src.read_text(encoding="utf-8"))
    node: dict = {"type": "string"}
    for _ in range(depth):
        node = {"type": "array", "items": node}
    doc["tools"][0]["inputSchema"]["properties"]["deep"] = node
    dst.write_text(json.dumps(doc), encoding="utf-8")


def test_api_calls_in_threads_equal_the_calls_one_after_another(tmp_path) -> None:
    """8 threads x 3 rounds of lint, project and measure on samples, shared and outside
    corpus catalogs (MCP, OpenAPI 3 and Swagger 2, OpenWOP, Anthropic, Docker tools), diffs
    of real version pairs, and bad input among them (each its own file: a tokenizer limit
    found deep in measure, a nesting too deep to load): every threaded result equals the
    sequential one. Before per-call state, measure's forked token counters deadlocked in
    threads (each child held the others' pipes), errors named another thread's file
    (errors._current was one list), and the parser's lowering of the recursion limit,
    restored out of order, left the interpreter at ~290 for good. Run in a process of its
    own, with a bound on its wall time that only a deadlock reaches."""
    git = SAMPLES / "git.tools.json"
    blanks = []
    for i in range(4):
        blanks.append(tmp_path / f"blank-{i}.tools.json")
        _with_blank_run(git, blanks[-1])
    deep = tmp_path / "deep.tools.json"
    _nested(git, deep, 300)
    spotify, okta = _optional(outside, "spotify"), _optional(outside, "docker-okta-mcp-server")
    old, new = _optional(outside, "pair-spotify", "old"), _optional(outside, "pair-spotify", "new")
    catalogs = [git, SAMPLES / "petstore.openapi.yaml", SAMPLES / "petstore.swagger2.yaml",
                SAMPLES / "file-system.openwop.json", SAMPLES / "file-system.anthropic.json",
                SAMPLES / "broken.tools.json",
                _optional(corpus, "mcp-context-cost", "notion.json"),
                _optional(corpus, "mcp-context-cost", "airtable.json"),
                _optional(corpus, "openapi", "oai-petstore-expanded.openapi.yaml"),
                spotify, okta]
    catalogs = [c for c in catalogs if c is not None]
    jobs: list[list[str]] = []
    for i, cat in enumerate(catalogs):
        jobs += [[kind, str(cat)] for kind in ("measure", "lint", "project")]
        if i < len(blanks):           # (bad input among the others, not all at once)
            jobs.append(["measure", str(blanks[i])])
    jobs += [["lint", str(deep)], ["measure", str(deep)],
             ["diff", str(git), str(SAMPLES / "git.v2.tools.json")]]
    if old is not None and new is not None:
        jobs.append(["diff", str(old), str(new)])
    spec = tmp_path / "jobs.json"
    spec.write_text(json.dumps(jobs), encoding="utf-8")

    r = subprocess.run([sys.executable, str(REPO / "tests" / "support" / "api_threads.py"),
                        str(spec), str(THREADS), str(ROUNDS)],
                       capture_output=True, text=True, cwd=tmp_path, timeout=1200)
    assert r.returncode == 0, r.stderr[-3000:]
    got = json.loads(r.stdout)
    seq = dict(zip(map(tuple, jobs), got["sequential"]))

    # the sequential results are real ones: figures, findings, views, and each bad input's
    # error naming its own file
    for blank in blanks:
        said = seq[("measure", str(blank))]
        assert said.startswith(f"toolcat: error: {blank}: cannot count tokens: a run of ",
                               len("error: ")), said
    for kind in ("lint", "measure"):
        said = seq[(kind, str(deep))]
        assert said.startswith(f"error: toolcat: error: {deep}:") and \
            "nesting deeper than 256 levels" in said, said
    assert json.loads(seq[("lint", str(SAMPLES / "broken.tools.json"))])["findings"]
    assert "duplicate tool id" in seq[("project", str(SAMPLES / "broken.tools.json"))]
    git_diff = json.loads(seq[("diff", str(git), str(SAMPLES / "git.v2.tools.json"))])
    assert git_diff["tools"]
    git_figures = json.loads(seq[("measure", str(git))])
    assert git_figures["total"]["tools"] == 12 and git_figures["total"]["tokens_after"] > 0
    if spotify is not None:
        figures = json.loads(seq[("measure", str(spotify))])
        assert figures["total"]["tools"] == 97 and figures["total"]["tokens_after"] > 0
    if okta is not None:
        assert len(json.loads(seq[("project", str(okta))])[0]["tools"]) == 108
    if old is not None and new is not None:
        assert json.loads(seq[("diff", str(old), str(new))])["tools"]

    assert got["mismatches"] == []
    assert got["limit"][0] == got["limit"][1]


def test_ui_options_are_per_thread() -> None:
    """``--quiet`` and ``--no-color`` set for one run (``ui.configure``) are that run's:
    a run in another thread sees its own, and starting it (``ui.reset``) does not undo the
    first's (before, ``ui.state`` was one object for the process: a quiet run silenced
    every other, and the next run's reset made the first one loud again)."""
    from toolcat import ui

    ui.reset()
    seen: dict[str, tuple[bool, bool]] = {}
    first_configured, second_done = threading.Event(), threading.Event()

    def first() -> None:
        ui.reset()
        ui.configure(no_color=True, quiet=True)
        first_configured.set()
        second_done.wait()
        seen["first run, after the second"] = (ui.state.quiet, ui.state.no_color)

    def second() -> None:
        first_configured.wait()
        seen["second thread, before its run"] = (ui.state.quiet, ui.state.no_color)
        ui.reset()
        ui.configure()
        seen["second run"] = (ui.state.quiet, ui.state.no_color)
        second_done.set()

    threads = [threading.Thread(target=f) for f in (first, second)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert seen == {"first run, after the second": (True, True),
                    "second thread, before its run": (False, False),
                    "second run": (False, False)}
    assert (ui.state.quiet, ui.state.no_color) == (False, False)


@pytest.mark.parametrize("depth", [250, 300])
def test_parsing_in_a_thread_keeps_the_recursion_limit(tmp_path, depth) -> None:
    """Loading a catalog while another thread runs never lowers the interpreter's
    recursion limit (the other thread may be deep in its own work) and gives what loading
    it alone gives: the same catalog, or the same error at the same nesting."""
    import toolcat
    from toolcat.errors import InputError

    f = tmp_path / "nested.tools.json"
    _nested(SAMPLES / "git.tools.json", f, depth)

    def load() -> str:
        try:
            return json.dumps([t.input_schema for t in toolcat.load(f).tools])
        except InputError as e:
            return e.render()

    alone = load()
    limit = sys.getrecursionlimit()
    seen: list[int] = []
    stop = threading.Event()

    def watch() -> None:
        while not stop.is_set():
            seen.append(sys.getrecursionlimit())

    watcher = threading.Thread(target=watch)
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)        # (the threads take turns often: the watcher sees)
    watcher.start()
    try:
        got = [load() for _ in range(20)]
    finally:
        stop.set()
        watcher.join()
        sys.setswitchinterval(interval)
    assert got == [alone] * 20
    assert min(seen) >= limit and sys.getrecursionlimit() == limit
    assert ("nesting deeper than 256 levels" in alone) == (depth > 256)
