"""TC105 precision and recall (issue 12 item 13), each shape with its near-misses: prose that
names a PEM header is not a key (material must follow it); key-name heuristics apply only
where a model is given the value (a `secret` in a response example or an output schema is
documentation; a real token shape there is still reported); an UPPER_SNAKE name or one plain
word is a placeholder, not a credential; placeholder words count as words ("abc" inside a
random key is no placeholder), so the classic `sk-` + 48 alphanumerics key is found."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import toolcat

PEM = ("-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7"
       "\n-----END PRIVATE KEY-----")
SK48 = "sk-abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKL"
GHP = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


def _findings(tmp_path: Path, doc: dict, name: str = "t.json") -> list[tuple[str, str]]:
    p = tmp_path / name
    p.write_text(json.dumps(doc, indent=1))
    res = toolcat.lint(toolcat.load(p), select=["TC105"])
    return sorted((f.pointer, f.message) for f in res.findings)


def _mcp(props: dict, **extra) -> dict:
    return {"tools": [{"name": "t", "description": "d",
                       "inputSchema": {"type": "object", "properties": props}, **extra}]}


@pytest.mark.parametrize("value,found", [
    (PEM, True),                                           # a key block
    (PEM.replace("\n", "\r\n"), True),
    ("Path to a file that must start with -----BEGIN PRIVATE KEY-----.", False),
    ("-----BEGIN RSA PRIVATE KEY----- ... -----END RSA PRIVATE KEY-----", False),
    ("-----BEGIN PRIVATE KEY-----\n<your key here>\n-----END PRIVATE KEY-----", False),
])
def test_private_key_needs_material(tmp_path: Path, value: str, found: bool) -> None:
    got = _findings(tmp_path, _mcp({"f": {"type": "string", "description": value}}))
    assert bool(got) is found, got
    # the same in YAML (a block scalar: real line breaks in the source)
    import yaml

    p = tmp_path / "t.yaml"
    p.write_text(yaml.safe_dump(_mcp({"f": {"type": "string", "description": value}})))
    res = toolcat.lint(toolcat.load(p), select=["TC105"])
    assert bool(res.findings) is found


@pytest.mark.parametrize("value,found", [
    (SK48, True),                                  # the classic OpenAI key: sk- + 48
    ("sk-" + "Ab1" * 16, True),
    ("sk-" + "a" * 47, False),                     # 47: not that shape (and one letter)
    ("sk-" + "Ab1" * 17, False),                   # 51: longer than the shape, no boundary
    ("task-" + "Ab1" * 16, False),                 # "sk-" inside a word
])
def test_openai_legacy_key_shape(tmp_path: Path, value: str, found: bool) -> None:
    # under a neutral name, so only the shape can find it
    got = _findings(tmp_path, _mcp({"q": {"type": "string", "default": value}}))
    assert bool(got) is found, got
    if found:
        assert "OpenAI API key" in got[0][1]


@pytest.mark.parametrize("value,found", [
    (SK48, True),                         # "abc" and "123" inside a key are not placeholders
    ("Zq8v0LmN4pR2sT6uW1xY3zA5", True),
    ("abc-123", False), ("test_key_value", False), ("your-api-key", False),
    ("KEY_PASSPHRASE", False), ("API_TOKEN", False),   # environment variable names
    ("nocheck", False), ("NOCHECK", False),            # one plain word
    ("no-check", True),                                # not one plain word: reported
])
def test_key_names_and_placeholders(tmp_path: Path, value: str, found: bool) -> None:
    got = _findings(tmp_path, _mcp({"apiKey": {"type": "string", "default": value}}))
    assert bool(got) is found, got


def test_key_names_only_where_a_model_is_given_the_value(tmp_path: Path) -> None:
    spec = {
        "openapi": "3.0.3", "info": {"title": "t", "version": "1"},
        "paths": {"/a": {"post": {
            "operationId": "a",
            "requestBody": {"content": {"application/json": {"schema": {
                "type": "object", "properties": {
                    "password": {"type": "string", "default": "hunter2x"}}}}}},
            "responses": {"200": {"description": "ok", "content": {"application/json": {
                "schema": {"type": "object", "properties": {
                    "secret": {"type": "string", "example": "s3cr3tValue9"}}},
                "example": {"token": "Zq8v0LmN4pR2sT6uW1xY3zA5",
                            "leaked": GHP}}}}}}}},
        "components": {"examples": {"Login": {"value": {"passphrase": "Xy7pQ2rT9wE4"}}}},
    }
    got = _findings(tmp_path, spec)
    ptrs = [p for p, _m in got]
    # the request body's default is given to a model: reported by its name
    assert any(p.endswith("/properties/password/default") for p in ptrs), got
    # response examples, the output schema and unused components: names say nothing there...
    assert not any(p.endswith(("/secret/examples/0", "/example/token", "/passphrase"))
                   or "/secret/" in p for p in ptrs), got
    # ...but a real token shape is still one
    assert any(p.endswith("/example/leaked") for p in ptrs), got
    # an MCP tool's outputSchema likewise
    doc = _mcp({}, outputSchema={"type": "object", "properties": {
        "token": {"type": "string", "default": "Zq8v0LmN4pR2sT6uW1xY3zA5"},
        "k": {"type": "string", "default": GHP}}})
    got = _findings(tmp_path, doc, "o.json")
    assert [p for p, _m in got] == ["/outputSchema/properties/k/default"]


def test_a_schema_reference_under_a_secret_like_name_is_no_secret(tmp_path: Path) -> None:
    """A discriminator's mapping names a schema for each value; a value called like a
    credential (Okta's `yubikey_token`) maps to a reference, not to a secret. The compact
    view's references (`#/$defs/...`) and the source's (`#/components/schemas/...`) alike."""
    for ref in ("#/components/schemas/AuthenticatorKeyYubikey", "#/$defs/KeyYubikey"):
        doc = _mcp({"body": {"type": "object", "discriminator": {
            "propertyName": "key", "mapping": {"yubikey_token": ref, "api_token": ref}}}})
        assert _findings(tmp_path, doc) == [], ref
    # a literal under such a name still is one
    doc = _mcp({"body": {"type": "object", "discriminator": {
        "propertyName": "key", "mapping": {"api_token": "Zq8v0LmN4pR2sT6uW1xY3zA5"}}}})
    assert [p for p, _m in _findings(tmp_path, doc)] == [
        "/inputSchema/properties/body/discriminator/mapping/api_token"]


def _two_operations(first: str, schema_of_password: dict, components: dict) -> dict:
    """``getA`` returns a Creds component, ``postB`` is sent one; ``first`` says which is
    written first in the document (and so linted first)."""
    ops = {
        "a": ("/a", {"get": {"operationId": "getA", "responses": {"200": {
            "description": "ok", "content": {"application/json": {
                "schema": {"$ref": "#/components/schemas/Creds"}}}}}}}),
        "b": ("/b", {"post": {"operationId": "postB", "requestBody": {"content": {
            "application/json": {"schema": {"$ref": "#/components/schemas/Creds"}}}},
            "responses": {"200": {"description": "ok"}}}}),
    }
    order = "ab" if first == "a" else "ba"
    return {"openapi": "3.0.3", "info": {"title": "t", "version": "1"},
            "paths": dict(ops[k] for k in order),
            "components": {"schemas": {"Creds": {"type": "object", "properties": {
                "password": schema_of_password}}, **components}}}


@pytest.mark.parametrize("first", ["a", "b"])
def test_a_component_a_response_shares_with_a_later_request_is_scanned_for_names(
        tmp_path: Path, first: str) -> None:
    """What a response's scan (token shapes only) saw first is still scanned for key names
    when a request is given it: the order of the operations does not decide a finding."""
    spec = _two_operations(first, {"type": "string", "default": "Q7mhR2vKp9zL"}, {})
    res = toolcat.lint(toolcat.load(_dump(tmp_path, spec)), select=["TC105"])
    got = [(f.tool, f.message) for f in res.findings]
    assert got == [("postB", "'password' holds a literal secret value")], got


@pytest.mark.parametrize("first", ["a", "b"])
def test_a_token_shape_in_a_shared_component_is_reported_once(tmp_path: Path,
                                                              first: str) -> None:
    spec = _two_operations(first, {"type": "string", "description": "e.g. " + GHP}, {})
    res = toolcat.lint(toolcat.load(_dump(tmp_path, spec)), select=["TC105"])
    got = [f.message for f in res.findings]
    assert got == ["value looks like a GitHub token"], got


def _dump(tmp_path: Path, doc: dict) -> Path:
    p = tmp_path / "spec.json"
    p.write_text(json.dumps(doc, indent=1))
    return p


@pytest.mark.parametrize("defs_name", ["SandboxOverridePassword", "Override"])
def test_a_secret_named_property_holding_a_reference_counts_its_target(
        tmp_path: Path, defs_name: str) -> None:
    """A property named like a secret whose schema is a `$ref`: the default of the schema it
    leads to is the property's own (the compact view inlines it there, and would report what
    the source did not), reported once under the property's name, where it is written; the
    name of a schema in `$defs`/`components` is not a property name."""
    body = {"type": "object", "properties": {
        "override_password": {"$ref": f"#/components/schemas/{defs_name}"},
        "other": {"$ref": f"#/components/schemas/{defs_name}"}}}
    spec = {"openapi": "3.0.3", "info": {"title": "t", "version": "1"},
            "paths": {"/s": {"post": {"operationId": "sandbox", "requestBody": {"content": {
                "application/json": {"schema": body}}},
                "responses": {"200": {"description": "ok"}}}}},
            "components": {"schemas": {defs_name: {"$ref": "#/components/schemas/Chained"},
                                       "Chained": {"type": "string",
                                                   "default": "Q7mhR2vKp9zL"}}}}
    cat = toolcat.load(_dump(tmp_path, spec))
    got = [(f.message, f.pointer) for f in toolcat.lint(cat, select=["TC105"]).findings]
    assert got == [("'override_password' holds a literal secret value",
                    "/inputSchema/$defs/Chained/default")], got
    # the compact view (the reference inlined) says the same of its own copy
    view = toolcat.project([cat]).output_bytes()
    out = tmp_path / "view.json"
    out.write_bytes(view)
    got = {f.message for f in toolcat.lint(toolcat.load(out), select=["TC105"]).findings}
    assert got == {"'override_password' holds a literal secret value"}, got
    # an MCP tool's own $defs, likewise
    doc = _mcp({"api_token": {"$ref": "#/$defs/T"}},)
    doc["tools"][0]["inputSchema"]["$defs"] = {"T": {"type": "string",
                                                      "examples": ["Zq8v0LmN4pR2sT6uW1xY3zA5"]}}
    assert _findings(tmp_path, doc, "m.json") == [
        ("/inputSchema/$defs/T/examples/0", "'api_token' holds a literal secret value")]


def test_a_spec_without_token_shapes_is_not_walked_for_them(monkeypatch,
                                                            tmp_path: Path) -> None:
    """Kubernetes' source holds no token shape: the token-shapes scans of its output schemas
    found nothing and only marked what they reached (2,244 walks over the bundled
    definitions, one per schema), which no scan then reads: they are left out. A spec with
    a token shape is still walked, and its findings stay."""
    from support.outside import outside
    from toolcat.features.lint.rules import secrets

    walks = [0]
    mark = secrets._mark

    def counting(*a, **k):
        walks[0] += 1
        return mark(*a, **k)

    monkeypatch.setattr(secrets, "_mark", counting)
    res = toolcat.lint(toolcat.load(outside("kubernetes-swagger")), select=["TC105"])
    assert (walks[0], res.findings, res.tools) == (0, [], 1123)
    # names are still read where no token shape is (a literal password), and token shapes
    # where one is (the same spec with a GitHub token in a component: then every scan runs)
    spec = _two_operations("a", {"type": "string", "default": "Q7mhR2vKp9zL"}, {})
    res = toolcat.lint(toolcat.load(_dump(tmp_path, spec)), select=["TC105"])
    assert [f.message for f in res.findings] == ["'password' holds a literal secret value"]
    spec = _two_operations("a", {"type": "string", "description": "e.g. " + GHP}, {})
    res = toolcat.lint(toolcat.load(_dump(tmp_path, spec)), select=["TC105"])
    assert [f.message for f in res.findings] == ["value looks like a GitHub token"]


def test_a_long_text_is_searched_for_literals_by_the_anchor_passes() -> None:
    """secrets._holds_literal (what token_spans and shape test first) says what the
    alternation of every literal says, whichever search it makes: each literal at the start,
    inside and at the end of short and long texts, each cut short by one character at the
    end (no literal), and the long lines of the Kubernetes spec."""
    from support.outside import outside
    from toolcat.features.lint.rules import secrets

    lits = sorted(secrets._BY_LITERAL)
    texts = ["", "x" * 300, "AKI" + "A" * 200]
    for lit in lits:
        for pad in (5, secrets._LONG, 3 * secrets._LONG):
            filler = ("word_and-more.text J x " * 50)[:pad]
            texts += [lit + filler, filler + lit + filler, filler + lit, filler + lit[:-1],
                      lit[1:] + filler]
    texts += [line for line in outside("kubernetes-swagger").read_text().split("\n")
              if len(line) >= secrets._LONG]
    long_ones = 0
    for t in texts:
        assert secrets._holds_literal(t) == (secrets._ANY_LITERAL.search(t) is not None), t
        long_ones += len(t) >= secrets._LONG
    assert long_ones > 3000


def test_objects_of_plain_keys_are_read_on_below(tmp_path: Path) -> None:
    """An object whose keys all name no secret (secrets._PLAIN_KEYS, after the first tool)
    is not read member by member, but what is below it is: a secret-named key deeper down,
    the default of a secret-named property, and a value a secret's name holds under plain
    keys are all reported in the second tool as in the first."""
    inner = {"type": "object", "properties": {
        "password": {"type": "string", "default": "hunter2x"},
        "apiKey": {"type": "string", "enum": ["q8Zr4tLm2Xv"]},
        "nested": {"type": "object", "properties": {"token": {"type": "string"}},
                   "default": {"token": "Zx81kQmr02"}}}}
    doc = {"tools": [{"name": f"t{i}", "description": "d",
                      "inputSchema": {"type": "object", "properties": {
                          "a": {"type": "object", "properties": {"b": json.loads(
                              json.dumps(inner))}}}}}
                     for i in range(2)]}
    p = tmp_path / "t.json"
    p.write_text(json.dumps(doc, indent=1))
    res = toolcat.lint(toolcat.load(p), select=["TC105"])
    got = sorted((f.tool, f.pointer) for f in res.findings)
    per_tool = {t: sorted(ptr for tt, ptr in got if tt == t) for t in ("t0", "t1")}
    assert per_tool["t0"] == per_tool["t1"] and len(per_tool["t0"]) == 3, got
