"""Rule docs that cannot lie (issue 31 item 6): every rule's doc has the sections of
``registry.SECTIONS`` in order, and its Example is a catalog fragment that the rule really
reports when linted in-process as a user would with the settings its fence gives (its
profile's rules, no --select; a Fix's fragment, when there is one, lints clean of it). Also the section parser, ``toolcat rule``'s rendering and
the redirect table for renamed codes (``registry.REDIRECTS``)."""

from __future__ import annotations

import json

import pytest

import toolcat
from toolcat.config import Config
from toolcat.features.lint import registry
from toolcat.features.lint.registry import Example, example, fix_example, section_problems, sections

RULES = registry.all_rules()


def _tools_lists(data):
    """The tools arrays of a fragment: its own, or each server's of a setup."""
    if isinstance(data, list):
        return [data]
    if "tools" in data:
        return [data["tools"]]
    return [server["tools"] for server in data.values()]


def _expand(text: str, opts: dict) -> str:
    """``repeat=N``: each tools array's one tool N times, its name numbered;
    ``long-description=N``: each description repeated to N characters."""
    data = json.loads(text)
    for tools in _tools_lists(data):
        if "repeat" in opts:
            (one,) = tools
            copies = []
            for i in range(1, int(opts["repeat"]) + 1):
                t = json.loads(json.dumps(one))
                holder = t["function"] if "name" in t.get("function", {}) else t
                holder["name"] = f"{holder['name']}_{i}"
                copies.append(t)
            tools[:] = copies
        if "long-description" in opts:
            n = int(opts["long-description"])
            for t in tools:
                d = t["description"] + " "
                t["description"] = (d * (n // len(d) + 1))[:n]
    return json.dumps(data)


def lint_fragment(code: str, ex: Example, tmp_path) -> list:
    """The findings of rule ``code`` on the fragment, linted as its settings say."""
    from toolcat.features.lint.engine import check_selection, lint_with

    opts = dict(ex.options)
    text = ex.text
    if "repeat" in opts or "long-description" in opts:
        text = _expand(text, opts)
    cfg = Config(max_depth=int(opts.get("max-depth", 5))).merged(
        profile=opts.get("profile"), mcp_version=opts.get("mcp-version"),
        description_max=int(opts["description-max"]) if "description-max" in opts else None,
        prose_max=int(opts["prose-max"]) if "prose-max" in opts else None)
    if opts.get("setup") == "yes":
        from toolcat.features.lint.engine import lint
        from toolcat.formats import LoadOptions, load_catalogs
        from toolcat.formats.live.capture import setup_catalog

        cats = []
        for name, result in json.loads(text).items():
            f = tmp_path / name
            f.write_text(json.dumps(result))
            (cat,) = load_catalogs([str(f)], LoadOptions())
            cat.file = name                       # as a live server's catalog is named
            for t in cat.tools:
                t.file = name
            cat.meta["live"] = {"transport": "stdio", "key": name}
            cats.append(cat)
        names = check_selection(cfg)
        setup = setup_catalog(cats, opts.get("client"))
        found = lint(cats, cfg, names[0], setup=setup).findings
    else:
        f = tmp_path / opts.get("file", f"example.{ex.lang}")
        f.write_text(text)
        cat = toolcat.load(f, opts.get("from"))
        found = lint_with([cat], cfg, view=opts.get("view")).findings
    return [x for x in found if x.code == code]


@pytest.mark.parametrize("r", RULES, ids=[r.code for r in RULES])
def test_doc_has_the_sections(r):
    assert section_problems(r.markdown) == []
    assert list(r.sections)[:2] == ["What it does", "Why"]


@pytest.mark.parametrize("r", RULES, ids=[r.code for r in RULES])
def test_example_is_reported_and_fix_is_not(r, tmp_path):
    ex = example(r.markdown)
    assert ex is not None
    found = lint_fragment(r.code, ex, tmp_path)
    assert found, f"{r.code}'s Example is not reported by {r.code}"
    fix = fix_example(r.markdown)
    if fix is not None:
        fixed = Example(fix.lang, {**ex.options, **fix.options}, fix.text, fix.intro)
        (tmp_path / "fix").mkdir()
        assert lint_fragment(r.code, fixed, tmp_path / "fix") == [], \
            f"{r.code}'s Fix is reported by {r.code}"


# ----------------------------------------------------------------------------- the parser

DOC = """## What it does
Reports a thing.

## Why
It breaks clients.

## Example
A tool:
```json profile=openai repeat=3
{"tools": []}
```

## Fix
Do not.
"""


def test_sections_split_in_order_and_the_example_is_read():
    assert list(sections(DOC)) == ["What it does", "Why", "Example", "Fix"]
    assert sections(DOC)["Why"] == "It breaks clients."
    assert section_problems(DOC) == []
    ex = example(DOC)
    assert ex == Example("json", {"profile": "openai", "repeat": "3"}, '{"tools": []}\n',
                         "A tool:")
    assert fix_example(DOC) is None
    # a doc written before sections is its "What it does", and is told what it lacks
    assert sections("Checks a thing.") == {"What it does": "Checks a thing."}
    assert section_problems("Checks a thing.") == ["no 'Why' section", "no 'Example' section",
                                                   "no 'Fix' section"]


def test_section_problems_name_each_fault():
    swapped = DOC.replace("## Why", "## Sources").replace("## What it does", "## Why")
    assert "unknown section 'Whatever'" in section_problems(DOC.replace("## Fix",
                                                                        "## Whatever"))
    assert any(p.startswith("sections out of order") for p in section_problems(swapped))
    assert "the Example holds no fenced fragment, or more than one" in \
        section_problems(DOC.replace("```json profile=openai repeat=3\n", "").replace(
            '{"tools": []}\n```\n', ""))
    assert "unknown example option 'proflie'" in \
        section_problems(DOC.replace("profile=openai", "proflie=openai"))


def test_rule_doc_is_markdown_and_its_prose_one_paragraph():
    r = registry.get("CS202")
    assert r is not None and r.markdown.startswith("## What it does\n")
    assert "## Example" not in r.doc and "```" not in r.doc and "\n" not in r.doc
    assert r.doc.startswith("Checks that the input schema has an explicit `properties` map")
