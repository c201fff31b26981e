"""The reference checker of an OpenAPI document (formats/openapi/check.py): a JSON document
whose every ``$ref`` is a local reference that resolves, with no chain of references that
loops, has nothing for the walk over its operations, responses and components to report
(local_refs_resolve: Kubernetes' 9,852 references are 819 distinct ones); any other document
is walked, and each reference that does not resolve is still an SC302 problem where it is
written, however its key is spelled."""

from __future__ import annotations

import copy
import json

from toolcat import api
from toolcat.formats.openapi import check

_SPEC = {
    "openapi": "3.0.3", "info": {"title": "t", "version": "1"},
    "paths": {"/a": {"get": {
        "operationId": "getA",
        "parameters": [{"$ref": "#/components/parameters/Q"}],
        "responses": {
            "200": {"description": "ok", "content": {"application/json": {
                "schema": {"$ref": "#/components/schemas/Thing"}}}},
            "404": {"$ref": "#/components/responses/NotFound"}}}}},
    "components": {
        "parameters": {"Q": {"name": "q", "in": "query", "schema": {"type": "string"}}},
        "responses": {"NotFound": {"description": "nf", "headers": {
            "X-Rate": {"$ref": "#/components/headers/Rate"}}}},
        "headers": {"Rate": {"schema": {"type": "integer"}}},
        "schemas": {"Thing": {"type": "object", "properties": {
            "t": {"$ref": "#/components/schemas/Thing"}}},
            "Unused": {"type": "object", "properties": {
                "x": {"$ref": "#/components/schemas/Thing"}}}},
    },
}


def _problems(tmp_path, spec: dict, text: str | None = None) -> list[tuple[str, str]]:
    path = tmp_path / "spec.json"
    path.write_text(text if text is not None else json.dumps(spec, indent=2))
    cat = api.load(str(path), broken_refs="fail")
    return sorted((p.pointer, p.message) for p in cat.problems if p.code == "SC302")


def test_a_json_spec_whose_references_resolve_is_not_walked(tmp_path, monkeypatch):
    walked: list[str] = []
    real = check.RefChecker._children

    def counted(self, node, doc, ptr, kind, push):
        walked.append(ptr)
        return real(self, node, doc, ptr, kind, push)

    monkeypatch.setattr(check.RefChecker, "_children", counted)
    assert _problems(tmp_path, _SPEC) == []
    assert walked == []
    # the same spec as YAML (its references read from the parsed document): not walked
    path = tmp_path / "spec.yaml"
    path.write_text(json.dumps(_SPEC))      # JSON is YAML; the name makes it read as YAML
    api.load(str(path))
    assert walked == []
    # one reference into another file: walked
    (tmp_path / "other.yaml").write_text("Rate:\n  schema: {type: integer}\n")
    other = copy.deepcopy(_SPEC)
    other["components"]["responses"]["NotFound"]["headers"]["X-Rate"]["$ref"] = \
        "other.yaml#/Rate"
    path.write_text(json.dumps(other))
    api.load(str(path))
    assert walked


def _yaml_problems(tmp_path, text: str) -> list[tuple[str, str]]:
    path = tmp_path / "spec.yaml"
    path.write_text(text)
    cat = api.load(str(path), broken_refs="fail")
    return sorted((p.pointer, p.message) for p in cat.problems if p.code == "SC302")


_YAML = """\
openapi: 3.0.3
info: {title: t, version: '1'}
paths:
  /a:
    get:
      operationId: getA
      responses:
        '200': {description: ok}
        '404': {$ref: '#/components/responses/NotFound'}
components:
  responses:
    NotFound:
      description: nf
      headers:
        X-Rate:
          KEY: REF
  headers:
    Rate:
      schema: &int {type: integer}
    Other:
      schema: *int
  schemas:
    Unused:
      properties:
        x: &shared
          KEY: REF
        y: *shared
"""


def test_a_yaml_spec_reports_each_broken_reference_however_written(tmp_path):
    good = "'#/components/headers/Rate'"
    bad = "'#/components/headers/nope'"
    header = "/components/responses/NotFound/headers/X-Rate/$ref"
    prop = "/components/schemas/Unused/properties/x/$ref"
    for key in ("$ref", '"$ref"', "'$ref'", '"\\x24ref"', '"\\u0024r\\u0065f"'):
        def text(h: str, p: str) -> str:
            return _YAML.replace("KEY: REF", f"{key}: {h}", 1).replace(
                "KEY: REF", f"{key}: {p}", 1)
        assert _yaml_problems(tmp_path, text(good, good)) == [], key
        assert [p for p, _m in _yaml_problems(tmp_path, text(bad, good))] == [header], key
        # an unused schema's, behind an anchor (its alias is another property: the same node)
        got = [p for p, _m in _yaml_problems(tmp_path, text(good, bad))]
        assert prop in got, key
        # the key as an explicit mapping key, the value as a block scalar
        explicit = _YAML.replace("KEY: REF", f"? {key}\n          : >-\n            "
                                 "#/components/headers/nope", 1).replace(
            "KEY: REF", f"$ref: {good}", 1)
        assert [p for p, _m in _yaml_problems(tmp_path, explicit)] == [header], key


def test_a_yaml_cycle_of_references_is_still_reported(tmp_path):
    text = _YAML.replace("KEY: REF", "$ref: '#/components/headers/Rate'").replace(
        "    NotFound:\n      description: nf\n",
        "    NotFound:\n      $ref: '#/components/responses/Gone'\n"
        "    Gone:\n      $ref: '#/components/responses/NotFound'\n"
        "    Spare:\n      description: nf\n")
    got = _yaml_problems(tmp_path, text)
    assert got and all("cycle" in m for _p, m in got)


def test_every_broken_reference_is_still_reported(tmp_path):
    where = "/components/responses/NotFound/headers/X-Rate/$ref"
    broken = copy.deepcopy(_SPEC)
    broken["components"]["responses"]["NotFound"]["headers"]["X-Rate"]["$ref"] = \
        "#/components/headers/nope"
    got = _problems(tmp_path, broken)
    assert [p for p, _m in got] == [where]
    # the key spelled with escapes: the same member of the parsed document
    text = json.dumps(broken, indent=2)
    spelled = text.replace('"$ref": "#/components/headers/nope"',
                           '"\\u0024r\\u0065f": "#/components/headers/nope"')
    assert spelled != text
    assert _problems(tmp_path, broken, spelled) == got
    # an unused schema's reference, and one in an escaped value
    unused = copy.deepcopy(_SPEC)
    unused["components"]["schemas"]["Unused"]["properties"]["x"]["$ref"] = "#/nope/\u00e9"
    assert [p for p, _m in _problems(tmp_path, unused)] == [
        "/components/schemas/Unused/properties/x/$ref"]


def test_a_cycle_of_references_is_still_reported(tmp_path):
    looped = copy.deepcopy(_SPEC)
    looped["components"]["responses"] = {
        "NotFound": {"$ref": "#/components/responses/Gone"},
        "Gone": {"$ref": "#/components/responses/NotFound"}}
    got = _problems(tmp_path, looped)
    assert got and all("cycle" in m for _p, m in got)


def test_yaml_references_are_read_from_the_data_written_as_json_or_walked():
    """A YAML document's ``$ref`` strings are read from its data written as JSON (orjson: one
    search); the data orjson cannot write (an integer beyond 64 bits) is walked. Both read
    the same references: a ``$ref`` written inside a string, or holding no string, is none."""

    class Doc:
        def __init__(self, data):
            self.data = data
            self.src = type("Src", (), {"syntax": "yaml", "text": ""})()

    data = {"paths": {"/a": {"get": {"parameters": [{"$ref": "#/p/Q"}, {"$ref": 5}],
                                      "description": 'write "$ref": "#/not/one" here'}}},
            "components": {"x": {"$ref": "#/c/\u00e9 \"q\""}, "y": [[{"$ref": "#/c/y"}]],
                           "$ref": "#/top"}}
    want = {"#/p/Q", "#/c/\u00e9 \"q\"", "#/c/y", "#/top"}
    assert check._as_json(data) is not None
    assert check._ref_strings(Doc(data)) == want
    big = copy.deepcopy(data)
    big["components"]["n"] = 10 ** 30
    assert check._as_json(big) is None          # walked instead
    assert check._ref_strings(Doc(big)) == want
