"""The Python API (``toolcat.load``, ``project``, ``lint``, ``measure``): the same results as
the command line on corpus catalogs and samples, errors raised (never printed), README's
example run as written, and ``import toolcat`` staying light."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import toolcat
from support.common import REPO, SAMPLES, corpus, corpus_param, run_toolcat


def _catalog_paths() -> list:
    out = [p for p in sorted(SAMPLES.iterdir()) if p.suffix in (".json", ".yaml")]
    return out


def _corpus_paths() -> list:
    return [corpus("github-mcp-server"), corpus("mcp-context-cost", "github.json"),
            corpus("neo", "file-system.openapi.yaml"),
            corpus("openapi", "oai-petstore.swagger2.yaml")]


def _cli_json(*args) -> tuple[int, object]:
    r = run_toolcat(*args)
    assert r.returncode in (0, 1), r.stderr
    return r.returncode, json.loads(r.stdout)


@pytest.mark.parametrize("path", _catalog_paths(), ids=lambda p: p.name)
def test_api_equals_cli_on_samples(path, tmp_path) -> None:
    _check_equal(path, tmp_path)


def test_api_equals_cli_on_corpus(tmp_path) -> None:
    for path in _corpus_paths():
        _check_equal(path, tmp_path)


def _check_equal(path, tmp_path) -> None:
    cat = toolcat.load(path)
    # lint
    code, data = _cli_json("lint", "--format", "json", str(path))
    result = toolcat.lint(cat)
    assert result.json() == data, path
    assert result.failed() == (code == 1)
    # project: every target and view, with its handbook and report
    for to in ("mcp", "openwop", "openai", "anthropic"):
        for view in ("compact", "standard"):
            hb, rp = tmp_path / "h.json", tmp_path / "r.json"
            r = run_toolcat("-q", "project", str(path), "--to", to, "--view", view,
                            "--handbook", str(hb), "--report", str(rp))
            if r.returncode != 0:     # e.g. duplicate ids: no handbook can be written
                with pytest.raises(toolcat.ToolcatError) as e:
                    proj = toolcat.project(cat, to=to, view=view)
                    proj.catalog(), proj.handbook(), proj.report()
                assert e.value.render() == r.stderr.decode().strip()
                continue
            proj = toolcat.project(cat, to=to, view=view)
            assert proj.catalog() == json.loads(r.stdout), (path, to, view)
            assert proj.handbook() == json.loads(hb.read_bytes()), (path, to, view)
            assert proj.report() == json.loads(rp.read_bytes()), (path, to, view)
    # measure
    _code, data = _cli_json("measure", "--format", "json", str(path))
    assert toolcat.measure(cat).json() == data, path


def test_load_data_is_the_file_catalog() -> None:
    path = SAMPLES / "git.tools.json"
    data = json.loads(path.read_bytes())
    copy = json.loads(path.read_bytes())
    from_data = toolcat.load_data(data, name=str(path))
    assert data == copy                                      # never changed
    from_file = toolcat.load(path)
    assert toolcat.project(from_data).catalog() == toolcat.project(from_file).catalog()
    assert toolcat.measure(from_data).json() == toolcat.measure(from_file).json()
    # findings on in-memory data have no line and column (there is no text)
    broken = toolcat.load_data(json.loads((SAMPLES / "broken.tools.json").read_bytes()))
    findings = toolcat.lint(broken).findings
    assert {f.code for f in findings} >= {"TC101", "TC102", "SC302"}
    assert all(f.line is None and f.file == "<data>" for f in findings)
    openai = toolcat.load_data(json.loads((SAMPLES / "file-system.openai.json").read_bytes()),
                               format="openai")
    assert openai.format == "openai" and len(openai.tools) == 7


def test_errors_are_raised_never_printed(tmp_path, capsys) -> None:
    with pytest.raises(toolcat.InputError) as e:
        toolcat.load(tmp_path / "missing.json")
    assert e.value.file == str(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text('{"tools": [\n  {"name": "x",}\n]}\n')
    with pytest.raises(toolcat.InputError) as e:
        toolcat.load(bad)
    assert (e.value.file, e.value.line) == (str(bad), 2) and e.value.column is not None
    assert "invalid JSON" in e.value.message
    cat = toolcat.load(SAMPLES / "git.tools.json")
    with pytest.raises(toolcat.UsageError, match="--to must be one of"):
        toolcat.project(cat, to="nope")
    with pytest.raises(toolcat.UsageError, match="matches no rule"):
        toolcat.lint(cat, select=["XX9"])
    with pytest.raises(toolcat.UsageError, match="unknown profile .nope."):
        toolcat.lint(cat, profile="nope")
    with pytest.raises(toolcat.UsageError, match="--tokenizer must be one of"):
        toolcat.measure(cat, tokenizer="nope")
    with pytest.raises(toolcat.UsageError, match="use toolcat.load_all"):
        toolcat.load(SAMPLES)
    with pytest.raises(toolcat.UsageError):
        toolcat.project([])
    assert capsys.readouterr() == ("", "")


def test_lint_options_match_the_cli() -> None:
    path = SAMPLES / "broken.tools.json"
    cat = toolcat.load(path)
    for args, kw in (((), {}), (("--select", "TC,SC3"), {"select": ["TC", "SC3"]}),
                     (("--ignore", "CS"), {"ignore": ["CS"]}),
                     (("--profile", "openai-strict"), {"profile": "openai-strict"}),
                     (("--view", "compact"), {"view": "compact"})):
        _code, data = _cli_json("lint", "--format", "json", *args, str(path))
        assert toolcat.lint(cat, **kw).json() == data, args


def test_api_functions_survive_the_feature_imports() -> None:
    """``toolcat.project`` and the rest stay the API's functions after the feature packages
    (``toolcat.features.project``, ...) are imported: no package shadows them."""
    code = ("import toolcat; c = toolcat.load('samples/git.tools.json'); "
            "a = toolcat.project(c).catalog(); import toolcat.schema.lower; "
            "b = toolcat.project(c).catalog(); assert a == b; "
            "import toolcat.features.lint.engine, toolcat.features.measure; "
            "print(toolcat.lint(c).counts()['warning'], toolcat.measure(c).total()['tools'])")
    r = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    _code, lint_data = _cli_json("lint", "--format", "json", str(SAMPLES / "git.tools.json"))
    n_tools = len(json.loads((SAMPLES / "git.tools.json").read_text())["tools"])
    assert r.stdout.split() == [str(lint_data["summary"]["warnings"]), str(n_tools)]


def test_import_toolcat_is_light() -> None:
    """``import toolcat`` (what ``toolcat --version`` imports) loads the API shims only: no
    feature, no format, not even ``typing``."""
    code = "import sys, toolcat; print(sorted(m for m in sys.modules if m.startswith('toolcat') or m == 'typing'))"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert r.stdout.strip() == "['toolcat', 'toolcat.api', 'toolcat.errors', 'toolcat.version']"


def _readme_api_blocks() -> tuple[str, str]:
    text = (REPO / "README.md").read_text()
    section = text.split("## Python API", 1)[1].split("\n## ", 1)[0]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    out = re.search(r"```text\n(.*?)```", section, re.S).group(1)
    return code, out


def test_readme_python_api_example_runs_as_shown() -> None:
    code, shown = _readme_api_blocks()
    r = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout == shown


def _diff_pairs() -> list:
    folder = corpus_param("mcp-context-cost")
    if not isinstance(folder, Path):  # absent: the case is skipped with the reason
        return [(SAMPLES / "git.tools.json", SAMPLES / "git.v2.tools.json"),
                pytest.param((folder.values[0] / "github-legacy.json",
                              folder.values[0] / "github.json"), marks=folder.marks)]
    return [(SAMPLES / "git.tools.json", SAMPLES / "git.v2.tools.json"),
            (folder / "github-legacy.json", folder / "github.json")]


@pytest.mark.parametrize("pair", _diff_pairs(), ids=lambda p: p[1].name)
def test_diff_equals_cli(pair) -> None:
    old, new = pair
    a, b = toolcat.load(old), toolcat.load(new)
    rep = toolcat.diff(a, b)
    code, data = _cli_json("diff", "--format", "json", str(old), str(new))
    assert rep.json() == data and rep.failed() == (code == 1) and rep.counts()["breaking"] > 0
    for fmt in ("text", "markdown", "github"):
        r = run_toolcat("diff", "--format", fmt, str(old), str(new))
        assert rep.render(fmt) == r.stdout.decode(), fmt
    # options: the same keywords as the command's
    first = rep.findings()[0]
    opts = ("--ignore", first.ignore_key, "--max-checks", "3", "--fail-on", "unknown")
    code, data = _cli_json("diff", "--format", "json", *opts, str(old), str(new))
    rep2 = toolcat.diff([a], [b], ignore=[first.ignore_key], max_checks=3)
    assert rep2.json("unknown") == data and rep2.failed("unknown") == (code == 1)
    assert rep2.ignored >= 1 and rep2.json("unknown") != rep.json("unknown")
    assert isinstance(rep, toolcat.DiffReport)


def test_diff_errors_are_raised() -> None:
    cat = toolcat.load(SAMPLES / "git.tools.json")
    for kw in ({"ignore": [":/inputSchema"]}, {"ignore": [""]}, {"max_checks": 0},
               {"max_checks_total": -1}, {"max_checks": "10"}):
        with pytest.raises(toolcat.UsageError):
            toolcat.diff(cat, cat, **kw)
    with pytest.raises(toolcat.UsageError):
        toolcat.diff(cat, [])
    rep = toolcat.diff(cat, cat)
    assert rep.tools == [] and rep.unchanged == len(cat.tools) and not rep.failed("any")
    for call in (lambda: rep.failed("nothing"), lambda: rep.json("x"),
                 lambda: rep.render("html")):
        with pytest.raises(toolcat.UsageError):
            call()


def test_diff_callable_before_and_after_the_package_import() -> None:
    code = ("import toolcat; a = toolcat.load('samples/git.tools.json'); "
            "b = toolcat.load('samples/git.v2.tools.json'); x = toolcat.diff(a, b).json(); "
            "import toolcat.features.diff.catalog; y = toolcat.diff(a, b).json(); assert x == y; "
            "print(x['summary']['breaking'])")
    r = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    _code, data = _cli_json("diff", "--format", "json", str(SAMPLES / "git.tools.json"),
                            str(SAMPLES / "git.v2.tools.json"))
    assert r.stdout.split() == [str(data["summary"]["breaking"])]


# The load options: one validator for the API's keywords and the command line's options
# (the same values refused with the same message; a refused one is exit 2 on the command line
# and a UsageError from the API).
@pytest.mark.parametrize("keyword,option,value", [
    ("max_file_size", "--max-file-size", 10**30),
    ("max_file_size", "--max-file-size", 0),
    ("max_file_size", "--max-file-size", -5),
    ("max_file_size", "--max-file-size", 2**63 - 1),
    ("max_file_size", "--max-file-size", 10_000_000),
    ("max_file_size", "--max-file-size", 10),
    ("format", "--from", "nope"),
    ("format", "--from", "mcp"),
    ("view", "--view", "tiny"),
    ("view", "--view", "standard"),
])
def test_api_and_cli_refuse_and_accept_the_same_load_options(keyword, option, value):
    path = SAMPLES / "git.tools.json"
    cli = run_toolcat("lint", str(path), option, str(value), "-q", "-f", "json")
    err = cli.stderr.decode()
    try:
        toolcat.lint(toolcat.load(path, **{keyword: value}))
    except toolcat.UsageError as e:
        assert cli.returncode == 2 and err == f"{e}\n", err
    except toolcat.InputError as e:     # accepted, then the file is over the limit
        assert cli.returncode == 2 and err == f"{e}\n", err
    else:
        assert cli.returncode in (0, 1), err


# The projection options: one builder (features.project.options_from_cli) for project's,
# measure's and serve's options and the API's keywords: the same values refused with the same
# message, the same values accepted (the API did not check --eager without --defer, and took
# --for's comma-separated lists only on the command line).
@pytest.mark.parametrize("keywords,options", [
    ({"eager": ["get_*"]}, ["--eager", "get_*"]),
    ({"search": "regex"}, ["--search", "regex"]),
    ({"to": "anthropic", "defer": "some"}, ["--to", "anthropic", "--defer", "some"]),
    ({"defer": "all"}, ["--defer", "all"]),
    ({"description_max": -1}, ["--description-max", "-1"]),
    ({"for_clients": "claude-desktop,nope"}, ["--for", "claude-desktop,nope"]),
    ({"for_clients": "claude-desktop,cursor"}, ["--for", "claude-desktop,cursor"]),
    ({"to": "anthropic", "defer": "all", "eager": "git_status"},
     ["--to", "anthropic", "--defer", "all", "--eager", "git_status"]),
])
@pytest.mark.parametrize("command", ["project", "measure"])
def test_api_and_cli_refuse_and_accept_the_same_projection_options(command, keywords, options):
    path = SAMPLES / "git.tools.json"
    cli = run_toolcat(command, str(path), *options, "-q")
    err = cli.stderr.decode()
    cats = toolcat.load_all([path])
    try:
        got = getattr(toolcat, command)(cats, **keywords)
    except toolcat.UsageError as e:
        assert cli.returncode == 2 and err == f"toolcat: error: {e}\n" or err == f"{e}\n", err
    else:
        assert cli.returncode == 0, err
        if command == "project":
            assert cli.stdout == got.output_bytes()


def test_load_builds_a_spec_with_broken_refs_as_the_cli_does(tmp_path) -> None:
    """Temporal's generated Swagger spec (outside corpus) has 10 $refs that name nothing. The
    command line builds all 226 tools by default (--broken-refs widen, README); the API's
    load refused the whole catalog (its options had no broken_refs and meant "fail"). Now
    ``toolcat.load`` takes ``broken_refs=`` and ``root=`` as the commands take --broken-refs
    and --root, with the same default: the projection equals the command's, byte for byte,
    and ``broken_refs="fail"`` raises the command's error line."""
    from support.outside import entry, outside

    spec = outside("temporal-api-openapiv2")
    cat = toolcat.load(spec)
    assert len(cat.tools) == entry("temporal-api-openapiv2")["facts"]["operations"]
    rp = tmp_path / "r.json"
    r = run_toolcat("-q", "project", str(spec), "--view", "standard", "--report", str(rp))
    assert r.returncode == 0, r.stderr
    proj = toolcat.project(cat, view="standard")
    assert proj.catalog() == json.loads(r.stdout)
    assert proj.report() == json.loads(rp.read_bytes())
    assert proj.report()["broken_refs"]
    with pytest.raises(toolcat.InputError) as e:
        toolcat.load(spec, broken_refs="fail")
    r = run_toolcat("tools", str(spec), "--broken-refs", "fail")
    assert r.returncode == 2 and e.value.render() == r.stderr.decode().strip()
    assert len(toolcat.load(spec, broken_refs="omit").tools) < len(cat.tools)
    with pytest.raises(toolcat.UsageError) as u:
        toolcat.load(spec, broken_refs="nope")
    r = run_toolcat("tools", str(spec), "--broken-refs", "nope")
    assert r.returncode == 2 and r.stderr.decode() == f"{u.value}\n"
    assert len(toolcat.load(spec, root=spec.parent.parent).tools) == len(cat.tools)
