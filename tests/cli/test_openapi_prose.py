"""Everything an OpenAPI spec says about an operation's inputs reaches the tool's standard
descriptor, so the handbook keeps it (issue 12 item 8): the requestBody's description, the
body schema's own description and title (also when the body is merged into the inputSchema,
where no schema of the body is left), a merged body's other annotations, and the
descriptions of the parameters the tool leaves out (Accept / Content-Type / Authorization
headers, cookies without --cookies). On the corpus: /work/notes/formats-repro/prose_count.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import toolcat
from support.common import run_toolcat

RB = "The pet to add; its name must be unique."
BODY = "A new pet."
ACCEPT = "Ask for application/xml to get XML back."
COOKIE = "The session of the signed-in user."
PLAIN_RB = "Raw bytes of the picture."
PIC = "A picture, at most 1 MB."

SPEC = {
    "openapi": "3.0.3", "info": {"title": "t", "version": "1"},
    "paths": {
        "/pets/{id}": {
            "parameters": [{"name": "id", "in": "path", "required": True,
                            "schema": {"type": "integer"}}],
            "put": {
                "operationId": "addPet",
                "parameters": [
                    {"name": "Accept", "in": "header", "description": ACCEPT,
                     "schema": {"type": "string"}},
                    {"name": "Content-Type", "in": "header", "schema": {"type": "string"}},
                    {"name": "session", "in": "cookie", "description": COOKIE,
                     "schema": {"type": "string"}},
                ],
                "requestBody": {"description": RB, "required": True, "content": {
                    "application/json": {"schema": {"$ref": "#/components/schemas/NewPet"}}}},
                "responses": {"204": {"description": "added"}},
            },
            "post": {
                "operationId": "putPicture",
                "requestBody": {"description": PLAIN_RB, "content": {
                    "application/json": {"schema": {
                        "description": PIC, "type": "string", "maxLength": 10}}}},
                "responses": {"204": {"description": "stored"}},
            },
            "patch": {
                "operationId": "touchPet",
                "requestBody": {"description": "Nothing is sent.", "content": {}},
                "responses": {"204": {"description": "ok"}},
            },
        },
    },
    "components": {"schemas": {"NewPet": {
        "type": "object", "title": "New pet", "description": BODY,
        "example": {"name": "Rex"}, "x-internal-note": "kept as written",
        "required": ["name"], "properties": {"name": {"type": "string"}}}}},
}

SWAGGER = {
    "swagger": "2.0", "info": {"title": "t", "version": "1"},
    "paths": {"/pets": {"post": {
        "operationId": "addPet",
        "parameters": [{"name": "pet", "in": "body", "required": True, "description": RB,
                        "schema": {"type": "object", "description": BODY,
                                   "properties": {"name": {"type": "string"}}}}],
        "responses": {"204": {"description": "added"}}}}},
}


def _standard(path: Path, *args: str) -> dict[str, dict]:
    r = run_toolcat("-q", "project", "--view", "standard", *args, str(path))
    assert r.returncode == 0, r.stderr
    return {t["name"]: t for t in json.loads(r.stdout)["tools"]}


def test_merged_body_prose_is_the_input_schemas(tmp_path: Path) -> None:
    p = tmp_path / "spec.json"
    p.write_text(json.dumps(SPEC, indent=1))
    tools = _standard(p)
    s = tools["addPet"]["inputSchema"]
    # the body's properties are merged in: no schema of the body is left, its prose describes
    # the input (the requestBody's first)
    assert set(s["properties"]) == {"id", "name"}
    assert s["description"] == f"{RB}\n\n{BODY}"
    assert s["title"] == "New pet"
    assert s["x-toolcat-request-body"] == {"examples": [{"name": "Rex"}],
                                           "x-internal-note": "kept as written"}
    # the parameters left out of the tool, with what the spec says of them (not the ones
    # that say nothing)
    assert s["x-toolcat-omitted-parameters"] == [
        {"name": "Accept", "in": "header", "description": ACCEPT},
        {"name": "session", "in": "cookie", "description": COOKIE}]
    # an unmerged body: the requestBody's description, then the schema's own
    assert tools["putPicture"]["inputSchema"]["properties"]["body"]["description"] == \
        f"{PLAIN_RB}\n\n{PIC}"
    # a body without a media type
    assert tools["touchPet"]["inputSchema"]["description"] == "Nothing is sent."
    # --cookies: the cookie is a parameter, so it is no longer listed as left out
    s = _standard(p, "--cookies")["addPet"]["inputSchema"]
    assert "session" in s["properties"]
    assert [o["name"] for o in s["x-toolcat-omitted-parameters"]] == ["Accept"]


def test_swagger_body_parameter_prose(tmp_path: Path) -> None:
    p = tmp_path / "swagger.json"
    p.write_text(json.dumps(SWAGGER))
    s = _standard(p)["addPet"]["inputSchema"]
    assert set(s["properties"]) == {"name"}
    assert s["description"] == f"{RB}\n\n{BODY}"


def test_prose_is_in_the_handbook_not_the_compact_view(tmp_path: Path) -> None:
    p = tmp_path / "spec.json"
    p.write_text(json.dumps(SPEC))
    out, hb = tmp_path / "c.json", tmp_path / "hb.json"
    r = run_toolcat("-q", "project", str(p), "-o", str(out), "--handbook", str(hb))
    assert r.returncode == 0, r.stderr
    compact = out.read_text()
    for text in (RB, BODY, ACCEPT, COOKIE, "x-toolcat"):
        assert text not in compact
    book = json.loads(hb.read_text())["tools"]
    s = book["addPet"]["inputSchema"]
    assert s["description"] == f"{RB}\n\n{BODY}"
    assert s["x-toolcat-omitted-parameters"][0]["description"] == ACCEPT


def test_each_text_points_at_where_it_is_written(tmp_path: Path) -> None:
    p = tmp_path / "spec.json"
    p.write_text(json.dumps(SPEC, indent=1))
    tools = {t.id: t for t in toolcat.load(p).tools}
    add = tools["addPet"]
    assert add.source_pointer("/inputSchema/x-toolcat-omitted-parameters/0/description") == \
        (str(p), "/paths/~1pets~1{id}/put/parameters/0/description")
    assert add.source_pointer("/inputSchema/x-toolcat-omitted-parameters/1") == \
        (str(p), "/paths/~1pets~1{id}/put/parameters/2")
    assert add.source_pointer("/inputSchema/description") == \
        (str(p), "/paths/~1pets~1{id}/put/requestBody/description")
    assert add.source_pointer("/inputSchema/title") == \
        (str(p), "/components/schemas/NewPet/title")
    pic = tools["putPicture"]
    assert pic.source_pointer("/inputSchema/properties/body") == \
        (str(p), "/paths/~1pets~1{id}/post/requestBody/content/application~1json/schema")


def test_a_secret_in_left_out_prose_is_found_where_it_is_written(tmp_path: Path) -> None:
    spec = json.loads(json.dumps(SPEC))
    key = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    spec["paths"]["/pets/{id}"]["put"]["parameters"][0]["description"] = f"e.g. token {key}"
    p = tmp_path / "spec.json"
    text = json.dumps(spec, indent=1)
    p.write_text(text)
    r = run_toolcat("lint", "--select", "TC105", "--format", "json", str(p))
    assert r.returncode == 1, r.stdout + r.stderr
    (f,) = json.loads(r.stdout)["findings"]
    line = next(i for i, ln in enumerate(text.splitlines(), 1) if key in ln)
    assert f["line"] == line
