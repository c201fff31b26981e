"""Fuzzing through every command: mutated real catalogs never crash, hang or half-write.

Seeds are small real files: the samples in ``samples/``, a few GitHub tool snapshots, small
mcp-context-cost captures, the small OpenAPI/Swagger examples of the corpus and the OpenWOP
examples. Hypothesis mutates them

* structurally, on the parsed data: swapped types, deleted keys, cyclic ``$ref`` chains, refs
  to missing targets, URLs and files outside the folder (and to a sibling file that refers
  back), huge strings, deep nesting, unicode oddities (lone surrogates, NUL, bidi controls,
  decomposed/composed twins as keys), duplicated keys, numbers at the float/int limits,
  odd keyword values, shared and recursive YAML aliases; re-serialized as JSON or YAML;
* and as bytes: flips, truncation, inserted garbage (tokens of both syntaxes, BOMs, NUL...),
  deleted and duplicated ranges;

and runs the result through ``tools``, ``lint`` (every format, ``-o``, baselines), ``project``
(``-o``, ``--handbook``, ``--report``, every ``--to``, ``--unlowerable`` mode, views),
``measure`` (every format, budgets, ``--write-baseline``) and ``diff-toolids``.

Properties (``fuzz_support.check_outcome`` / ``check_outputs``): exit code 0, 1 or 2; no
traceback and no "internal error" on stderr; exit 2 is exactly one ``toolcat: error:`` line;
no hang (a wall-clock guard) and bounded CPU time; no ``.toolcat-*.tmp`` file left; after
exit 2 every output path holds its previous content (or still does not exist); whatever is
written or printed as JSON/SARIF/JUnit is complete. One exception, by design: ``lint`` over
several inputs (a folder, ``--merge``) reports each input it cannot read (one error line
each), still writes its report for the others, and exits 2 (never a partial baseline).

Most cases run in-process through ``toolcat.cli.run`` (fast); a smaller number run as real
processes, where a crash of a native parser would show (a negative exit code).

Counts: the ``ci`` Hypothesis profile (default) keeps this module well under a minute; the
``long`` profile (``HYPOTHESIS_PROFILE=long``) runs 20x as many examples. With ``-s`` each
test prints its exit-code counts; ``TOOLCAT_FUZZ_LOG=FILE`` appends one JSON line per run
(command, exit code, mutations, end of stderr) to look at what the cases reach.
"""

from __future__ import annotations

import copy
import json
import os
import tempfile
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from support.common import CORPUS, SAMPLES
from support.fuzz_profile import examples, is_long
from support.fuzz_support import (
    Chooser,
    Outcome,
    check_outcome,
    check_outputs,
    run_child,
    run_inprocess,
    snapshot,
)

# --------------------------------------------------------------------------- seeds

SEED_FILES = [
    *(f"samples/{n}" for n in (
        "git.tools.json", "broken.tools.json", "file-system.anthropic.json",
        "file-system.openai.json", "file-system.openwop.json",
        "file-system.openwop.compact.json", "petstore.openapi.yaml", "petstore.swagger2.yaml",
        "petstore-v31.openapi.json")),
    *(f"corpus/github-mcp-server/{n}.snap" for n in (
        "get_me", "create_issue", "list_issues", "issue_write", "get_file_contents")),
    *(f"corpus/mcp-context-cost/{n}.json" for n in (
        "postgres", "time", "sqlite", "gitlab", "browserbase", "puppeteer")),
    *(f"corpus/openapi/{n}" for n in (
        "oai-petstore.openapi.json", "oai-petstore.openapi.yaml", "oai-petstore.swagger2.yaml",
        "oai-callback-example.openapi.yaml", "oai-webhook-example.openapi.yaml",
        "oai-link-example.openapi.yaml", "oai-petstore-expanded.openapi.yaml",
        "oai-api-with-examples.openapi.yaml", "oai-uspto.openapi.yaml",
        "oai-non-oauth-scopes.openapi.yaml", "swagger-petstore-v31.openapi.yaml")),
    "corpus/neo/file-system.openapi.yaml",
    "corpus/openwop/rfc-inline-examples.json",
]


class Seed:
    def __init__(self, name: str, data: bytes) -> None:
        self.name = name
        self.data = data
        self.suffix = Path(name).suffix
        self._doc: Any = None

    def doc(self) -> Any:
        if self._doc is None:
            from toolcat.document.parse import load_file

            with tempfile.NamedTemporaryFile(suffix=self.suffix if self.suffix != ".snap"
                                             else ".json") as f:
                f.write(self.data)
                f.flush()
                self._doc = load_file(f.name)[0]
        return copy.deepcopy(self._doc)


@cache
def seeds() -> tuple[Seed, ...]:
    out = []
    for rel in SEED_FILES:
        base, rest = rel.split("/", 1)
        p = (SAMPLES / rest) if base == "samples" else (CORPUS / rest)
        if p.is_file():
            out.append(Seed(rel, p.read_bytes()))
    return tuple(out)


@pytest.fixture(scope="module", autouse=True)
def _have_seeds():
    if len(seeds()) < 5:
        pytest.skip("too few seed files (samples/ and ../shared/corpus)")


# --------------------------------------------------------------------------- structural mutations

ODD_NUMBERS = [2**53, 2**53 + 1, -(2**53) - 1, 2**63, 2**64, -(2**63) - 1, 10**30, 10**400,
               1e308, 1.7976931348623157e308, 5e-324, -0.0, 0.1, 1e-7, 1e21, 1.5, -1,
               0, 1, 3.0, float("inf"), float("nan")]
ODD_STRINGS = ["", " ", "\ud800", "a\udfffb", "\x00", "nul\x00byte", "\u202eevil", "\ufeffbom",
               "e\u0301", "\u00e9", "\U0001F600", "\U0001F469\u200d\U0001F469\u200d\U0001F467",
               "\u2028line\u2029", "\uffff", "\r\n", "\t", "%s%n", "../../etc/passwd", "${x}",
               "{{x}}", "<script>", "\\", '"',
               "~1~0/", "#/", "null", "true", "0x10", "1e999", "-", "x" * 300]
ODD_VALUES = [None, True, False, 0, -1, 2**64, 1.5, "", "x", [], {}, [None], {"": None},
              {"type": "object"}, {"$ref": "#"}, ["a", 1, None], "object", "string"]
KEYWORDS = ["type", "properties", "items", "prefixItems", "anyOf", "oneOf", "allOf", "not",
            "$ref", "$defs", "definitions", "enum", "const", "required", "additionalProperties",
            "patternProperties", "dependentSchemas", "dependencies", "if", "then", "else",
            "format", "pattern", "minimum", "maximum", "exclusiveMinimum", "minLength",
            "maxItems", "unevaluatedProperties", "$schema", "$id", "$anchor", "$dynamicRef",
            "nullable", "x-nullable", "discriminator", "example", "examples", "default",
            "description", "title", "name", "inputSchema", "input_schema", "parameters",
            "function", "tools", "toolId", "safetyTier", "source", "annotations",
            "outputSchema", "operationId", "paths", "components", "schemas", "requestBody",
            "responses", "content", "in", "schema", "openapi", "swagger", "result", "jsonrpc",
            "rawToolsCapture", "readOnlyHint", "get", "post"]
MISSING_REFS = ["#/components/schemas/Nope", "#/$defs/nope", "#/definitions/nope",
                "#/definitions/x~2y", "#nope", "#/paths/~1x/get", "#/", "#//", "#/tools/99",
                "#/components/schemas/%ZZ", "#%", "", "#/0/1/2", "#a/b"]
URL_REFS = ["http://example.com/s.json", "https://127.0.0.1:1/x#/a", "file:///etc/passwd",
            "urn:x:y", "//example.com/x.json", "http://[::1]/x", "ftp://x/y"]
OUTSIDE_REFS = ["../outside.json#/a", "/etc/passwd", "sub/../../x.json", "%2e%2e/x.json",
                "..%2fx.json", "sibling.json#/components/schemas/Pet", "sibling.json",
                "sibling.json#/nope", "sibling.json#/components/schemas/Loop",
                "missing.json#/a", "sibling.yaml#/x", ".", "..", "sub/", "./sibling.json#"]
DEEP_WRAPPERS = ["list", "obj", "properties", "items", "anyOf", "allOf", "not", "additional"]


class Dup:
    """A marker key: serialized as a duplicate of ``key`` (a textual replacement)."""

    counter = 0


def fresh(x: Any) -> Any:
    """A picked constant, copied when it is one of the shared mutable ones (later mutations
    would change the module's constants, and Hypothesis' replays with them)."""
    if isinstance(x, (list, dict)) and any(x is v for v in ODD_VALUES):
        return copy.deepcopy(x)
    return x


def _positions(doc: Any, limit: int = 3000) -> list[tuple[Any, Any, tuple]]:
    """(container, key, path) of nodes, breadth first, bounded."""
    out: list = []
    todo = [(doc, ())]
    while todo and len(out) < limit:
        node, path = todo.pop(0)
        if isinstance(node, dict):
            for k, v in list(node.items()):
                out.append((node, k, path + (k,)))
                todo.append((v, path + (k,)))
        elif isinstance(node, list):
            for i, v in enumerate(node):
                out.append((node, i, path + (i,)))
                todo.append((v, path + (i,)))
    return out


def _pointer(path: tuple) -> str:
    return "".join("/" + str(t).replace("~", "~0").replace("/", "~1") for t in path)


def _wrap_deep(c: Chooser, node: Any) -> Any:
    depth = c.pick([10, 60, 120, 127, 130, 200, 260, 400])
    kind = c.pick(DEEP_WRAPPERS)
    for _ in range(depth):
        if kind == "list":
            node = [node]
        elif kind == "obj":
            node = {"a": node}
        elif kind == "properties":
            node = {"type": "object", "properties": {"a": node}}
        elif kind == "items":
            node = {"type": "array", "items": node}
        elif kind in ("anyOf", "allOf"):
            node = {kind: [node, {"type": "null"}]}
        elif kind == "not":
            node = {"not": node}
        else:
            node = {"additionalProperties": node}
    return node


def mutate_structure(c: Chooser, doc: Any, notes: list) -> Any:
    """One structural mutation of ``doc`` (in place where possible; returns the new root)."""
    pos = _positions(doc)
    op = c.pick(["swap", "delete", "cyclic", "missing", "url", "outside", "huge", "deep",
                 "unicode", "number", "dup", "keyword", "oddkey", "alias", "recursive",
                 "root"])
    notes.append(op)
    if op == "root" or not pos:
        return fresh(c.pick(ODD_VALUES + [[doc], {"tools": doc}, {"tools": [doc]},
                                          {"result": {"tools": doc}}]))
    container, key, path = c.pick(pos)
    node = container[key]
    if op == "swap":
        container[key] = fresh(c.pick(ODD_VALUES + [[node], {"x": node}]))
    elif op == "delete":
        del container[key]
    elif op == "cyclic":
        anc = path[:c.int(0, len(path))]
        choice = c.int(0, 2)
        if choice == 0:
            container[key] = {"$ref": "#" + _pointer(anc)}
        elif choice == 1 and isinstance(node, dict):
            node["$defs"] = {"a": {"$ref": "#" + _pointer(path + ("$defs", "b"))},
                             "b": {"$ref": "#" + _pointer(path + ("$defs", "a"))}}
            node["$ref"] = "#" + _pointer(path + ("$defs", "a"))
        elif isinstance(doc, dict) and isinstance(doc.get("components"), dict):
            schemas = doc["components"].setdefault("schemas", {})
            if isinstance(schemas, dict):
                schemas["LoopA"] = {"$ref": "#/components/schemas/LoopB"}
                schemas["LoopB"] = {"allOf": [{"$ref": "#/components/schemas/LoopA"}]}
                schemas["Self"] = {"$ref": "#/components/schemas/Self"}
            container[key] = {"$ref": "#/components/schemas/" + c.pick(["LoopA", "Self"])}
        else:
            container[key] = {"$ref": "#"}
    elif op == "missing":
        container[key] = {"$ref": c.pick(MISSING_REFS)}
    elif op == "url":
        container[key] = {"$ref": c.pick(URL_REFS)}
    elif op == "outside":
        container[key] = {"$ref": c.pick(OUTSIDE_REFS)}
    elif op == "huge":
        n = c.pick([10_000, 100_000, 400_000])
        unit = c.pick(["x", "ab ", "é", "😀", "\u0301", "word, "])
        text = (unit * (n // len(unit) + 1))[:n]
        if isinstance(container, dict) and c.bool(0.3):
            del container[key]
            container[text[:c.pick([1000, 70_000])]] = node
        else:
            container[key] = text
    elif op == "deep":
        container[key] = _wrap_deep(c, node)
    elif op == "unicode":
        s = c.pick(ODD_STRINGS)
        if isinstance(container, dict) and c.bool(0.5):
            container[s] = node
            if s == "e\u0301":
                container["\u00e9"] = node   # NFD and NFC twins
        else:
            container[key] = s if not isinstance(node, str) else node + s
    elif op == "number":
        container[key] = c.pick(ODD_NUMBERS)
    elif op == "dup":
        target = node if isinstance(node, dict) and node else container
        if isinstance(target, dict) and target:
            k = c.pick(list(target))
            if isinstance(k, str):
                Dup.counter += 1
                target[f"__DUP{Dup.counter}__"] = (k, fresh(c.pick(ODD_VALUES)))
    elif op == "keyword":
        target = node if isinstance(node, dict) else container
        if isinstance(target, dict):
            target[c.pick(KEYWORDS)] = fresh(c.pick(ODD_VALUES + ODD_STRINGS[:6] + ODD_NUMBERS[:6]))
    elif op == "oddkey":
        if isinstance(container, dict):
            container[c.pick([1, True, None, 1.5])] = node   # YAML keeps it; JSON stringifies
    elif op == "alias":
        other = c.pick(pos)
        if other[0] is not container or other[1] != key:
            other[0][other[1]] = node   # the same object twice: YAML anchor + alias
    elif op == "recursive":
        if isinstance(node, list):
            node.append(node)
        elif isinstance(node, dict):
            node["self"] = node
    return doc


# --------------------------------------------------------------------------- serialization

_DUP_NAMES: dict[str, str] = {}


def _prepare_dups(doc: Any) -> tuple[Any, bool]:
    """Replace the Dup markers by placeholder keys and remember the duplicated names."""
    found = False
    seen: set[int] = set()
    todo = [doc]
    while todo:
        node = todo.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, dict):
            for k in list(node):
                if isinstance(k, str) and k.startswith("__DUP") and isinstance(node[k], tuple):
                    name, value = node[k]
                    node[k] = value
                    _DUP_NAMES[k] = name
                    found = True
            todo.extend(node.values())
        elif isinstance(node, list):
            todo.extend(node)
    return doc, found


def serialize(c: Chooser, doc: Any, want: str) -> tuple[bytes, str]:
    """``doc`` as JSON or YAML bytes; returns (bytes, syntax actually used).

    Every choice is drawn first, and the writers run with a high recursion limit: whether a
    writer fails must not depend on the stack depth Hypothesis happens to run at (that would
    make the generation inconsistent between a run and its replay)."""
    import sys

    flow, unicode, ascii_, indent = (c.pick([False, None, True]), c.bool(), c.bool(),
                                     c.pick([None, 2]))
    doc, dups = _prepare_dups(doc)
    saved = sys.getrecursionlimit()
    sys.setrecursionlimit(max(saved, 20000))
    try:
        if want == "yaml":
            try:
                import io

                from ruamel.yaml import YAML

                y = YAML(typ="safe", pure=True)
                y.default_flow_style = flow
                y.allow_unicode = unicode
                buf = io.StringIO()
                y.dump(doc, buf)
                text = buf.getvalue()
                if dups:
                    text = _dup_names(text, "yaml")
                return text.encode("utf-8", "surrogatepass"), "yaml"
            except Exception:  # noqa: BLE001 - ruamel cannot write it: JSON instead
                pass
        try:
            text = json.dumps(doc, ensure_ascii=ascii_, indent=indent, allow_nan=True)
        except (ValueError, RecursionError, TypeError):
            return json.dumps({"tools": "unserializable"}).encode(), "json"
    finally:
        sys.setrecursionlimit(saved)
    if dups:
        text = _dup_names(text, "json")
    return text.encode("utf-8", "surrogatepass"), "json"


def _dup_names(text: str, syntax: str) -> str:
    import re

    def repl(m):
        name = _DUP_NAMES.get(m.group(0))
        if name is None:
            return m.group(0)
        if syntax == "json":
            return json.dumps(name)[1:-1]
        return name if re.fullmatch(r"[A-Za-z_$][\w$-]*", name) else m.group(0)

    return re.sub(r"__DUP\d+__", repl, text)


# --------------------------------------------------------------------------- byte mutations

GARBAGE = [b"\x00", b"\xff\xfe", b"\xef\xbb\xbf", b"\xc3", b"\xed\xa0\x80", b"{", b"}", b"[",
           b"]", b",", b":", b'"', b"\\", b"&a ", b"*a", b"!!python/object:os.system ",
           b"!!binary ", b"<<: *a\n", b"\t", b"\n---\n", b"%YAML 1.1\n", b"? ", b"- ", b"|\n",
           b"\\ud800", b"1e999", b"\r", b"#", b"'", b"\n  ", b"null", b"\x1b[31m", b"\x7f"]


def mutate_bytes(c: Chooser, data: bytes, notes: list) -> bytes:
    if not data:
        return c.pick(GARBAGE)
    op = c.pick(["flip", "truncate", "insert", "delete", "duplicate"])
    notes.append(op)
    i = c.int(0, len(data))
    if op == "flip":
        j = min(i, len(data) - 1)
        b = bytearray(data)
        b[j] ^= 1 << c.int(0, 7)
        return bytes(b)
    if op == "truncate":
        return data[:i]
    if op == "insert":
        g = c.pick(GARBAGE) if c.bool(0.8) else c.draw(st.binary(min_size=1, max_size=8))
        return data[:i] + g * c.pick([1, 1, 2, 50]) + data[i:]
    j = min(len(data), i + c.pick([1, 3, 20, 200]))
    if op == "delete":
        return data[:i] + data[j:]
    return data[:j] + data[i:j] + data[j:]


# --------------------------------------------------------------------------- a case

SUFFIXES = {"json": [".json", ".json", ".snap", ".yaml", ".txt", ""],
            "yaml": [".yaml", ".yaml", ".yml", ".json", ".txt", ""]}
SIBLING = {
    "openapi": "3.0.3", "info": {"title": "s", "version": "1"}, "paths": {},
    "components": {"schemas": {
        "Pet": {"type": "object", "properties": {"name": {"type": "string"}}},
        "Loop": {"$ref": "fuzzed-main#/components/schemas/Pet"}}},
}


def make_input(c: Chooser, folder: Path, notes: list) -> tuple[Path, Seed]:
    """Write one mutated seed (or, sometimes, a folder of them) into ``folder``."""
    seed = c.pick(seeds())
    notes.append(seed.name)
    syntax = "yaml" if seed.suffix in (".yaml", ".yml") else "json"
    data = seed.data
    n_struct = c.pick([0, 1, 1, 1, 1, 2, 3])
    if n_struct:
        doc = seed.doc()
        for _ in range(n_struct):
            doc = mutate_structure(c, doc, notes)
        syntax = c.pick(["json", "yaml"]) if c.bool(0.5) else syntax
        data, syntax = serialize(c, doc, syntax)
    for _ in range(c.pick([0, 0, 0, 0, 0, 1, 2]) if n_struct else c.pick([0, 1, 1, 2, 3])):
        data = mutate_bytes(c, data, notes)
    name = "fuzzed-main" + c.pick(SUFFIXES[syntax])
    sib = json.dumps(SIBLING).replace("fuzzed-main", name)
    (folder / "sibling.json").write_text(sib)
    (folder / "sibling.yaml").write_text(sib)
    (folder.parent / "outside.json").write_text('{"a": {"type": "string"}}')
    if c.bool(0.1):
        sub = folder / "cat"
        sub.mkdir()
        (sub / ("a" + (seed.suffix or ".json"))).write_bytes(data)
        (sub / ("b" + (seed.suffix or ".json"))).write_bytes(seed.data)
        notes.append("folder")
        return sub, seed
    p = folder / name
    p.write_bytes(data)
    return p, seed


def _formats() -> list[str]:
    from toolcat.formats.registry import keys as format_keys

    return list(format_keys())


def make_args(c: Chooser, command: str, inp: Path, seed_path: Path,
              out: Path) -> tuple[list, dict[str, str], list[str]]:
    """Arguments of one run, the output files it may write (relative path -> kind) and the
    streams whose stdout must be complete JSON when the run succeeds."""
    args: list = [command]
    outputs: dict[str, str] = {}
    json_stdout = False

    def o(name: str, kind: str) -> str:
        outputs[f"out/{name}"] = kind
        return str(out / name)

    if command == "tools":
        fmt = c.pick(["text", "json"])
        args += ["--format", fmt]
        json_stdout = fmt == "json"
    elif command == "lint":
        fmt = c.pick(["text", "json", "sarif", "github", "junit"])
        args += ["-f", fmt]
        if c.bool(0.5):
            args += ["-o", o("lint." + fmt, {"json": "json", "sarif": "json",
                                              "junit": "xml"}.get(fmt, "text"))]
        else:
            json_stdout = fmt in ("json", "sarif")
        if c.bool(0.3):
            args += ["--profile", c.pick(["mcp", "openwop-compact", "openai-strict",
                                          "anthropic", "gemini"])]
        if c.bool(0.3):
            args += ["--fail-on", c.pick(["error", "warning", "info", "never"])]
        r = c.int(0, 5)
        if r == 0:
            args += ["--write-baseline", o("lint-baseline.json", "json")]
        elif r == 1 and (out / "lint-baseline.json").exists():
            args += ["--baseline", str(out / "lint-baseline.json")]
    elif command == "project":
        if c.bool(0.7):
            args += ["-o", o("project.json", "json")]
        else:
            json_stdout = True
        if c.bool(0.4):
            args += ["--handbook", o("handbook.json", "json")]
        if c.bool(0.4):
            args += ["--report", o("report.json", "json")]
        if c.bool(0.7):
            args += ["--to", c.pick(["mcp", "openwop", "openai", "anthropic"])]
        if c.bool(0.5):
            args += ["--unlowerable", c.pick(["widen", "omit", "keep", "fail"])]
        if c.bool(0.15):
            args += ["--view", "standard"]
        if c.bool(0.2):
            args += [c.pick(["--subset", "--no-subset"])]
        if c.bool(0.15):
            args += ["--indent", "2"]
        if c.bool(0.1):
            args += ["--sort"]
        if c.bool(0.1):
            args += ["--no-output-schema"]
        if c.bool(0.1):
            args += ["--source", "host-extension"]
        if c.bool(0.1):
            args += ["--description-max", str(c.pick([0, 1, 5, 10_000]))]
    elif command == "measure":
        fmt = c.pick(["json", "markdown", "csv", "table"])
        args += ["-f", fmt]
        json_stdout = fmt == "json"
        if c.bool(0.4):
            args += ["--to", c.pick(["mcp", "openwop", "openai", "anthropic"])]
        if c.bool(0.3):
            args += ["--unlowerable", c.pick(["widen", "omit", "keep", "fail"])]
        if c.bool(0.2):
            args += ["--top", "3"]
        if c.bool(0.2):
            args += ["--max-tokens", str(c.pick([0, 10, 100_000]))]
        if c.bool(0.2):
            args += ["--write-baseline", o("measure-baseline.json", "json")]
        if c.bool(0.1):
            args += ["--tokenizer", "cl100k_base"]
    elif command == "diff-toolids":
        fmt = c.pick(["text", "json"])
        args += ["--format", fmt]
        json_stdout = fmt == "json"
        second = c.int(0, 2)
        if second == 0:
            args += [inp, seed_path]
        elif second == 1:
            args += [seed_path, inp]
        else:
            args += [inp]
            if c.bool(0.3):
                args += ["--to", c.pick(["mcp", "openwop", "openai", "anthropic"])]
        inp = None  # already placed
    if c.bool(0.08):
        args += ["--from", c.pick(_formats())]
    if c.bool(0.05) and command != "diff-toolids":
        args += [c.pick(["--webhooks", "--cookies"])]
    if c.bool(0.05):
        args += ["--max-file-size", str(c.pick([1, 100, 10_000, 10**9]))]
    if inp is not None:
        args.append(inp)
        if c.bool(0.05) and command != "diff-toolids":
            args += ["--merge", seed_path]
    return args, outputs, (["stdout"] if json_stdout else [])


def prepare_outputs(c: Chooser, out: Path) -> None:
    """Some output paths already exist (previous content must survive a failed run)."""
    out.mkdir(exist_ok=True)
    for name in ("project.json", "handbook.json", "report.json", "lint.json", "lint.sarif",
                 "lint.text", "lint.junit", "lint.github", "measure-baseline.json"):
        if c.bool(0.3):
            (out / name).write_bytes(b'{"previous": "content"}\n')


def check_case(r: Outcome, folder: Path, before: dict, outputs: dict, streams: list,
               args: list) -> None:
    # lint over several inputs (a folder, --merge) reports each one it cannot read
    several = args[0] == "lint" and ("--merge" in args or any(
        isinstance(a, Path) and a.is_dir() for a in args))
    check_outcome(r, one_line=not several)
    check_outputs(str(folder), before, r, outputs, partial_inputs=several)
    if r.code in (0, 1) and "stdout" in streams and r.out:
        try:
            json.loads(r.out)
        except ValueError as e:
            raise AssertionError(f"stdout is not complete JSON ({e})\n" + r.describe()) from None
    if r.code == 0 and args[0] == "project":
        for rel in outputs:   # a successful project writes every file it was given
            assert (folder / rel).exists(), (rel, r.describe())


def one_case(data, command: str | None, runner) -> None:
    c = Chooser(data)
    notes: list = []
    with tempfile.TemporaryDirectory(prefix="toolcat-fuzz-") as tmp:
        root = Path(tmp)
        folder = root / "work"
        folder.mkdir()
        inp, seed = make_input(c, folder, notes)
        seed_path = folder / ("seed" + (seed.suffix or ".json"))
        seed_path.write_bytes(seed.data)
        out = folder / "out"
        prepare_outputs(c, out)
        cmd = command or c.pick(["tools", "lint", "project", "measure", "diff-toolids"])
        args, outputs, streams = make_args(c, cmd, inp, seed_path, out)
        stdin = None
        if c.bool(0.05) and inp.is_file() and cmd in ("tools", "lint", "project"):
            stdin = inp.read_bytes()
            args = ["-" if a == inp else a for a in args]
        before = snapshot(str(folder))
        r = runner(args, cwd=str(folder), input=stdin)
        r.extra["mutations"] = notes
        STATS.setdefault(cmd, {}).setdefault(r.code, 0)
        STATS[cmd][r.code] += 1
        if os.environ.get("TOOLCAT_FUZZ_LOG"):
            with open(os.environ["TOOLCAT_FUZZ_LOG"], "a") as log:
                log.write(json.dumps({"cmd": cmd, "code": r.code, "notes": notes,
                                      "err": r.err[-300:].decode("utf-8", "replace")}) + "\n")
        try:
            check_case(r, folder, before, outputs, streams, args)
        except AssertionError as e:
            raise AssertionError(f"mutations: {notes}\n{e}") from None


STATS: dict[str, dict[int, int]] = {}   # command -> exit code -> runs (printed with -s)
COMMANDS = ["tools", "lint", "project", "measure", "diff-toolids"]
CI_EXAMPLES = {"tools": 50, "lint": 60, "project": 90, "measure": 45, "diff-toolids": 40}
CI_SUBPROCESS = 16

FUZZ = dict(deadline=None, database=None, derandomize=not is_long(),
            suppress_health_check=list(HealthCheck))


@pytest.mark.parametrize("command", COMMANDS)
def test_fuzz_in_process(command):
    @settings(max_examples=examples(CI_EXAMPLES[command]), **FUZZ)
    @given(st.data())
    def run(data):
        one_case(data, command, run_inprocess)

    run()
    print(f"\n{command}: exit codes {STATS.get(command)}")


def test_fuzz_in_fresh_processes():
    """Fewer cases, each in a new interpreter: a crash of a native parser (yaml-rs, orjson,
    tiktoken) shows as a negative exit code; the tokenizer runs in its forked child."""
    @settings(max_examples=examples(CI_SUBPROCESS), **FUZZ)
    @given(st.data())
    def run(data):
        one_case(data, None, run_child)

    STATS.clear()
    run()
    print(f"\nfresh processes: exit codes {STATS}")


# --------------------------------------------------------------------------- output paths

WRITERS = [
    (["project", "-o", "{out}"], "out"),
    (["project", "-o", "{ok}", "--handbook", "{out}"], "handbook"),
    (["project", "-o", "{ok}", "--report", "{out}"], "report"),
    (["lint", "-f", "json", "-o", "{out}"], "lint -o"),
    (["lint", "--write-baseline", "{out}"], "lint baseline"),
    (["measure", "-f", "json", "--write-baseline", "{out}"], "measure baseline"),
]
BAD_OUTPUTS = {
    "missing-folder": "nope/deeper/out.json",
    "a-folder": "existing-folder",
    "trailing-slash": "existing-folder/",
}


@pytest.mark.parametrize("kind", sorted(BAD_OUTPUTS))
@pytest.mark.parametrize("argv,label", WRITERS, ids=[w[1] for w in WRITERS])
def test_unwritable_output_is_one_error_line(argv, label, kind, tmp_path):
    """An output path that cannot be written: one line naming it, exit 2, and no other
    output replaced (project writes all its files or none)."""
    (tmp_path / "existing-folder").mkdir()
    (tmp_path / "ok.json").write_bytes(b"previous\n")
    sample = SAMPLES / "git.tools.json"
    bad = BAD_OUTPUTS[kind]
    args = [a.format(out=bad, ok="ok.json") for a in argv] + [str(sample)]
    r = run_inprocess(args, cwd=str(tmp_path))
    check_outcome(r)
    assert r.code == 2, r.describe()
    assert bad.rstrip("/") in r.err.decode(), r.describe()
    assert (tmp_path / "ok.json").read_bytes() == b"previous\n"
    assert not [p for p in os.listdir(tmp_path) if p.startswith(".toolcat-")]
    assert not [p for p in os.listdir(tmp_path / "existing-folder")]


def test_same_file_for_two_outputs(tmp_path):
    (tmp_path / "x.json").write_bytes(b"previous\n")
    r = run_inprocess(["project", "-o", "x.json", "--report", "./x.json",
                       str(SAMPLES / "git.tools.json")], cwd=str(tmp_path))
    check_outcome(r)
    assert r.code == 2 and b"two outputs" in r.err, r.describe()
    assert (tmp_path / "x.json").read_bytes() == b"previous\n"


def test_outputs_written_together(tmp_path):
    r = run_inprocess(["project", "-o", "p.json", "--handbook", "h.json", "--report", "r.json",
                       str(SAMPLES / "git.tools.json")], cwd=str(tmp_path))
    check_outcome(r)
    assert r.code == 0, r.describe()
    for n in ("p.json", "h.json", "r.json"):
        json.loads((tmp_path / n).read_bytes())
    assert sorted(os.listdir(tmp_path)) == ["h.json", "p.json", "r.json"]


def test_dash_output_is_stdout(tmp_path):
    r = run_inprocess(["project", "-o", "p.json", "--report", "-", "-q",
                       str(SAMPLES / "git.tools.json")], cwd=str(tmp_path))
    check_outcome(r)
    assert r.code == 0, r.describe()
    assert json.loads(r.out)["digest"].startswith("sha256:")
    assert sorted(os.listdir(tmp_path)) == ["p.json"]


# --------------------------------------------------------------------------- swapped field types

TOOL = {"name": "t", "title": "T", "description": "Does t.",
        "annotations": {"title": "T", "readOnlyHint": True},
        "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}},
        "outputSchema": {"type": "object"}}
FIELDS = ["name", "title", "description", "inputSchema", "outputSchema", "annotations",
          "annotations/title", "annotations/readOnlyHint", "inputSchema/properties"]
SWAPS = [5, {"a": 1}, ["x"], None, True]
RUNS = [["tools", "--format", "json"], ["lint", "-f", "sarif"], ["project"],
        ["project", "--to", "openwop"], ["project", "--to", "openai"], ["measure", "-f", "json"],
        ["diff-toolids"]]


@pytest.mark.parametrize("field", FIELDS)
def test_swapped_field_types(field, tmp_path):
    """Every known MCP tool field holding another type, through every command (found: a
    non-string annotations.title crashed project's title/description comparison)."""
    for value in SWAPS:
        tool = copy.deepcopy(TOOL)
        node = tool
        *parents, last = field.split("/")
        for p in parents:
            node = node[p]
        node[last] = value
        f = tmp_path / "tools.json"
        f.write_text(json.dumps({"tools": [tool]}))
        for args in RUNS:
            r = run_inprocess([*args, f], cwd=str(tmp_path))
            check_outcome(r)
