"""samples/: every file is listed in samples/README.md, loads as the format the README names
with the number of tools the file itself holds, and broken.tools.json fails lint with exactly
the codes its README row names (all other samples pass lint)."""

from __future__ import annotations

import json
import re

import pytest

from support.common import SAMPLES, run_toolcat

HTTP_METHODS = {"get", "put", "post", "delete", "options", "head", "patch", "trace"}
# words of README's "format" column -> (toolcat's format name, OpenAPI version prefix)
FORMAT_WORDS = [("OpenAPI 3.0", "openapi", "3.0"), ("OpenAPI 3.1", "openapi", "3.1"),
                ("Swagger 2.0", "swagger", "2.0"), ("MCP", "mcp", None),
                ("OpenWOP", "openwop", None), ("OpenAI", "openai", None),
                ("Anthropic", "anthropic", None)]
MAX_SAMPLE_BYTES = 16 * 1024  # "a few KB"


def readme_table() -> dict[str, tuple[str, str]]:
    """file -> (format column, what-it-shows column) of samples/README.md's first table."""
    text = (SAMPLES / "README.md").read_text()
    first = text.split("| file | format |", 1)[1].split("\n\n", 1)[0]
    rows = {}
    for line in first.splitlines()[2:]:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        rows[cells[0].strip("`")] = (cells[1], cells[2])
    return rows


def expected_format(column: str) -> tuple[str, str | None]:
    for words, name, version in FORMAT_WORDS:
        if words in column:
            return name, version
    raise AssertionError(f"samples/README.md: unknown format {column!r}")


def count_tools(path) -> int:
    """Tools in a sample, counted from the file itself (not by toolcat)."""
    text = path.read_text()
    if path.suffix == ".yaml":
        from ruamel.yaml import YAML

        doc = YAML(typ="safe", pure=True).load(text)
    else:
        doc = json.loads(text)
    if isinstance(doc, list):
        return len(doc)
    if "paths" in doc:
        return sum(1 for item in doc["paths"].values() for m in item if m in HTTP_METHODS)
    return len(doc["tools"])


def test_readme_lists_every_sample():
    on_disk = {p.name for p in SAMPLES.iterdir() if p.name != "README.md"}
    assert set(readme_table()) == on_disk


def test_samples_are_small():
    for p in SAMPLES.iterdir():
        assert p.stat().st_size <= MAX_SAMPLE_BYTES, p.name


def test_every_sample_loads_as_its_format():
    table = readme_table()
    names = sorted(table)
    r = run_toolcat("tools", "--format", "json", *(f"samples/{n}" for n in names),
                    cwd=SAMPLES.parent)
    assert r.returncode == 0, r.stderr.decode()
    cats = {c["file"]: c for c in json.loads(r.stdout)["catalogs"]}
    text = run_toolcat("tools", *(f"samples/{n}" for n in names), cwd=SAMPLES.parent)
    headers = [line for line in text.stdout.decode().splitlines()
               if line.startswith("samples/")]
    for name in names:
        fmt, version = expected_format(table[name][0])
        cat = cats[f"samples/{name}"]
        assert cat["format"] == fmt, name
        assert len(cat["tools"]) == count_tools(SAMPLES / name) > 0, name
        if version:
            header = next(h for h in headers if h.split()[0] == f"samples/{name}")
            assert f" {fmt} {version}" in header, header


def broken_codes() -> set[str]:
    what = readme_table()["broken.tools.json"][1]
    return set(re.findall(r"\b[A-Z]{2}\d{3}\b", what))


def test_broken_sample_fails_lint_with_the_codes_readme_names():
    codes = broken_codes()
    assert len(codes) >= 3
    r = run_toolcat("lint", "--format", "json", "samples/broken.tools.json", cwd=SAMPLES.parent)
    assert r.returncode == 1, r.stderr.decode()
    found = {f["code"] for f in json.loads(r.stdout)["findings"]}
    assert found == codes


@pytest.mark.parametrize("name", sorted(set(readme_table()) - {"broken.tools.json"}))
def test_other_samples_pass_lint(name):
    r = run_toolcat("lint", "--quiet", f"samples/{name}", cwd=SAMPLES.parent)
    assert r.returncode == 0, r.stdout.decode() + r.stderr.decode()
