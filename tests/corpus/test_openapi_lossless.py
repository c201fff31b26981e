"""The standard view is lossless: requests the ORIGINAL operation accepts validate against the
tool's inputSchema, and requests it rejects do not (issue 2, acceptance).

The original verdict comes from an independent judge written here: it reads the raw
OpenAPI/Swagger document (parsed without toolcat), applies the OpenAPI rules per parameter
(location, `required`, path parameters always required) and per body (`requestBody.required`,
Swagger `in: body` / `formData`), and validates each value against its own schema with
jsonschema, through a registry that holds the whole (naively converted) document so component
`$ref`s resolve in place. Each case also states the intended verdict, so a broken judge fails too.
"""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import quote

import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from support.common import corpus
from toolcat.formats import LoadOptions, load_catalogs

MISSING = object()
URN = "urn:toolcat-test:spec"


# --------------------------------------------------------------------------- the judge

def naive_convert(node, swagger: bool):
    """OpenAPI 3.0 / Swagger 2.0 Schema Object keywords to 2020-12, over a whole document.

    Deliberately simple and independent from toolcat: it rewrites every object it meets
    (data included, which is harmless for validation).
    """
    if isinstance(node, list):
        return [naive_convert(v, swagger) for v in node]
    if not isinstance(node, dict):
        return node
    out = {k: naive_convert(v, swagger) for k, v in node.items()}
    nullable = False
    if out.get("nullable") is True:
        del out["nullable"]
        nullable = True
    if swagger and out.get("x-nullable") is True:
        del out["x-nullable"]
        nullable = True
    for excl, bound in (("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")):
        if isinstance(out.get(excl), bool):
            flag = out.pop(excl)
            if flag and bound in out:
                out[excl] = out.pop(bound)
    if swagger and out.get("type") == "file":
        out["type"] = "string"
    if swagger and isinstance(out.get("items"), list):
        out["prefixItems"] = out.pop("items")
    if nullable:
        if "type" in out:
            t = out["type"]
            out["type"] = (t if isinstance(t, list) else [t]) + ["null"]
            if "enum" in out:
                out["enum"] = out["enum"] + [None]
        else:
            out = {"anyOf": [out, {"type": "null"}]}
    return out


def pointer(*tokens) -> str:
    return "".join("/" + str(t).replace("~", "~0").replace("/", "~1") for t in tokens)


def resolve(doc, ptr: str):
    node = doc
    for tok in ptr.lstrip("/").split("/") if ptr else []:
        tok = tok.replace("~1", "/").replace("~0", "~")
        node = node[int(tok)] if isinstance(node, list) else node[tok]
    return node


class Judge:
    """Verdicts of the original OpenAPI operation on a request."""

    def __init__(self, path: Path) -> None:
        text = path.read_text(encoding="utf-8")
        if path.suffix == ".json":
            self.doc = json.loads(text)
        else:
            import yaml_rs

            self.doc = yaml_rs.loads(text, parse_datetime=False)
        self.swagger = "swagger" in self.doc
        conv = naive_convert(self.doc, self.swagger)
        self.conv = conv
        self.registry = Registry().with_resource(
            URN, Resource.from_contents(conv, default_specification=DRAFT202012))

    def _deref(self, obj, ptr):
        while isinstance(obj, dict) and "$ref" in obj:
            ptr = obj["$ref"][1:]
            obj = resolve(self.doc, ptr)
        return obj, ptr

    def valid_at(self, ptr: str, value) -> bool:
        ref = {"$ref": URN + "#" + quote(ptr, safe="/~")}
        return Draft202012Validator(ref, registry=self.registry).is_valid(value)

    def valid_schema(self, schema: dict, value) -> bool:
        return Draft202012Validator(naive_convert(schema, self.swagger),
                                    registry=self.registry).is_valid(value)

    @staticmethod
    def swagger_param_schema(p: dict) -> dict:
        keep = ("type", "format", "items", "enum", "default", "maximum", "exclusiveMaximum",
                "minimum", "exclusiveMinimum", "maxLength", "minLength", "pattern", "maxItems",
                "minItems", "uniqueItems", "multipleOf", "x-nullable")
        out = {k: p[k] for k in keep if k in p}
        if isinstance(out.get("items"), dict):
            out["items"] = Judge.swagger_param_schema(out["items"])
        return out

    def operation(self, op_id: str):
        for path, item in self.doc["paths"].items():
            for method, op in item.items():
                if isinstance(op, dict) and op.get("operationId") == op_id:
                    return path, method, item, op
        raise KeyError(op_id)

    def parameters(self, op_id: str) -> dict:
        path, method, item, op = self.operation(op_id)
        params = {}
        for base, lst in ((pointer("paths", path), item.get("parameters") or []),
                          (pointer("paths", path, method), op.get("parameters") or [])):
            for i, p in enumerate(lst):
                p, ptr = self._deref(p, f"{base}/parameters/{i}")
                params[(p["name"], p["in"])] = (p, ptr)
        return params

    def accepts(self, op_id: str, params: dict, body=MISSING) -> bool:
        path, method, _item, op = self.operation(op_id)
        declared = self.parameters(op_id)
        for key in params:
            assert key in declared, f"test bug: {key} is not a parameter of {op_id}"
        form = {}
        for (name, loc), (p, ptr) in declared.items():
            if loc in ("body", "formData"):
                if loc == "formData":
                    form[name] = p
                continue
            if not self.swagger and loc == "header" and name.lower() in (
                    "accept", "content-type", "authorization"):
                continue  # OpenAPI 3: such header parameters SHALL be ignored
            if (name, loc) not in params:
                if loc == "path" or p.get("required") is True:
                    return False
                continue
            value = params[(name, loc)]
            if self.swagger:
                if not self.valid_schema(self.swagger_param_schema(p), value):
                    return False
            elif not self.valid_at(ptr + "/schema", value):
                return False
        # the body
        if self.swagger:
            body_params = [(p, ptr) for (n, loc), (p, ptr) in declared.items() if loc == "body"]
            if body_params:
                p, ptr = body_params[0]
                if body is MISSING:
                    return p.get("required") is not True
                return self.valid_at(ptr + "/schema", body)
            if form:
                fields = {} if body is MISSING else body
                if not isinstance(fields, dict):
                    return False
                for name, p in form.items():
                    if name not in fields:
                        if p.get("required") is True:
                            return False
                        continue
                    if not self.valid_schema(self.swagger_param_schema(p), fields[name]):
                        return False
            return True
        rb = op.get("requestBody")
        if rb is None:
            return body is MISSING
        rb, rb_ptr = self._deref(rb, pointer("paths", path, method, "requestBody"))
        if body is MISSING:
            return rb.get("required") is not True
        media = next(mt for mt in rb["content"] if mt in (
            "application/json", "application/x-www-form-urlencoded", "multipart/form-data"))
        return self.valid_at(rb_ptr + pointer("content", media, "schema"), body)


# --------------------------------------------------------------------------- request -> tool call

def tool_args(tool, judge: Judge, op_id: str, params: dict, body):
    props = tool.input_schema["properties"]
    args = {}
    for (name, _loc), value in params.items():
        assert name in props, (op_id, name)
        args[name] = value
    named_body = any(n == "body" and loc not in ("body", "formData")
                     for (n, loc) in judge.parameters(op_id))
    if "body" in props and not named_body and not any(
            loc in ("formData",) for (_n, loc) in judge.parameters(op_id)):
        if body is not MISSING:
            args["body"] = body
        return args
    # merged body: the tool always sends one, so "absent" means an empty object
    if body is not MISSING:
        assert isinstance(body, dict), "test bug: a merged body case must be an object"
        args.update(body)
    return args


ACCEPT, REJECT = True, False

TW = "AC" + "a1" * 16
CA = "CA" + "0f" * 16

# (spec, operationId, [(intended verdict, params {(name, in): value}, body)])
CASES = [
    ("openapi/swagger-petstore-v3.openapi.yaml", "addPet", [
        (ACCEPT, {}, {"name": "doggie", "photoUrls": ["u"]}),
        (ACCEPT, {}, {"id": 10, "name": "d", "category": {"id": 1, "name": "Dogs"},
                      "photoUrls": [], "tags": [{"id": 1, "name": "t"}], "status": "sold"}),
        (REJECT, {}, {"photoUrls": ["u"]}),
        (REJECT, {}, {"name": "d", "photoUrls": "u"}),
        (REJECT, {}, {"name": "d", "photoUrls": [], "status": "dead"}),
        (REJECT, {}, {"name": "d", "photoUrls": [], "id": "x"}),
        (REJECT, {}, {"name": "d", "photoUrls": [], "category": {"id": "one"}}),
        (REJECT, {}, {"name": "d", "photoUrls": [], "tags": [{"name": 5}]}),
    ]),
    ("openapi/swagger-petstore-v3.openapi.yaml", "findPetsByStatus", [
        (ACCEPT, {}, MISSING),
        (ACCEPT, {("status", "query"): "sold"}, MISSING),
        (REJECT, {("status", "query"): "bad"}, MISSING),
        (REJECT, {("status", "query"): 3}, MISSING),
    ]),
    ("openapi/swagger-petstore-v3.openapi.yaml", "updatePetWithForm", [
        (ACCEPT, {("petId", "path"): 1}, MISSING),
        (ACCEPT, {("petId", "path"): 1, ("name", "query"): "x", ("status", "query"): "y"}, MISSING),
        (REJECT, {}, MISSING),
        (REJECT, {("petId", "path"): "one"}, MISSING),
    ]),
    ("openapi/oai-petstore.swagger2.yaml", "listPets", [
        (ACCEPT, {}, MISSING),
        (ACCEPT, {("limit", "query"): 5}, MISSING),
        (REJECT, {("limit", "query"): "five"}, MISSING),
    ]),
    ("openapi/oai-petstore.swagger2.yaml", "showPetById", [
        (ACCEPT, {("petId", "path"): "1"}, MISSING),
        (REJECT, {}, MISSING),
        (REJECT, {("petId", "path"): 1}, MISSING),
    ]),
    # Twilio: many parameters (path pattern and lengths, enum $ref, bounds)
    ("openapi/twilio-api-v2010.openapi.yaml", "ListCall", [
        (ACCEPT, {("AccountSid", "path"): TW}, MISSING),
        (ACCEPT, {("AccountSid", "path"): TW, ("To", "query"): "+1555", ("Status", "query"): "busy",
                  ("PageSize", "query"): 1000, ("Page", "query"): 0,
                  ("ParentCallSid", "query"): CA, ("StartTime<", "query"): "2024-01-01"}, MISSING),
        (REJECT, {("To", "query"): "+1555"}, MISSING),
        (REJECT, {("AccountSid", "path"): "AC123"}, MISSING),
        (REJECT, {("AccountSid", "path"): "XX" + "a1" * 16}, MISSING),
        (REJECT, {("AccountSid", "path"): TW, ("Status", "query"): "exploded"}, MISSING),
        (REJECT, {("AccountSid", "path"): TW, ("PageSize", "query"): 1001}, MISSING),
        (REJECT, {("AccountSid", "path"): TW, ("PageSize", "query"): 0}, MISSING),
        (REJECT, {("AccountSid", "path"): TW, ("Page", "query"): -1}, MISSING),
        (REJECT, {("AccountSid", "path"): TW, ("ParentCallSid", "query"): CA + "0"}, MISSING),
    ]),
    # Twilio: an optional form body with required fields stays whole under `body`
    ("openapi/twilio-api-v2010.openapi.yaml", "CreateCall", [
        (ACCEPT, {("AccountSid", "path"): TW}, MISSING),
        (ACCEPT, {("AccountSid", "path"): TW}, {"To": "+1", "From": "+2", "Url": "https://a.b/c",
                                                "Method": "GET", "Timeout": 30, "Record": True}),
        (REJECT, {("AccountSid", "path"): TW}, {"To": "+1"}),
        (REJECT, {("AccountSid", "path"): TW}, {"To": "+1", "From": "+2", "Method": "BREW"}),
        (REJECT, {("AccountSid", "path"): TW}, {"To": "+1", "From": "+2", "Timeout": "30"}),
        (REJECT, {("AccountSid", "path"): TW}, "To=+1"),
    ]),
    # Box: a body with allOf (kept whole)
    ("openapi/box.openapi.json", "post_file_requests_id_copy", [
        (ACCEPT, {("file_request_id", "path"): "123"}, MISSING),
        (ACCEPT, {("file_request_id", "path"): "123"}, {"folder": {"id": "42"}}),
        (ACCEPT, {("file_request_id", "path"): "123"}, {"folder": {"id": "42", "type": "folder"},
                                                         "status": "active", "title": "t"}),
        (REJECT, {}, {"folder": {"id": "42"}}),
        (REJECT, {("file_request_id", "path"): "123"}, {}),
        (REJECT, {("file_request_id", "path"): "123"}, {"folder": {}}),
        (REJECT, {("file_request_id", "path"): "123"}, {"folder": {"id": "1", "type": "file"}}),
        (REJECT, {("file_request_id", "path"): "123"}, {"folder": {"id": "1"}, "status": "bogus"}),
        (REJECT, {("file_request_id", "path"): "123"}, {"folder": {"id": "1"},
                                                         "is_email_required": "yes"}),
    ]),
    # Box: a merged optional body with a nullable allOf property and a header parameter
    ("openapi/box.openapi.json", "put_files_id", [
        (ACCEPT, {("file_id", "path"): "12345"}, {}),
        (ACCEPT, {("file_id", "path"): "12345", ("if-match", "header"): "1"},
         {"name": "new.txt", "shared_link": None}),
        (ACCEPT, {("file_id", "path"): "12345"}, {"shared_link": {"access": "open",
                                                                   "password": None}}),
        (REJECT, {("file_id", "path"): "12345"}, {"shared_link": {"access": "everyone"}}),
        (REJECT, {("file_id", "path"): "12345"}, {"name": 5}),
        (REJECT, {("file_id", "path"): "12345", ("if-match", "header"): 1}, {}),
        (REJECT, {}, {"name": "x"}),
    ]),
    # SendGrid: `in: body` (optional, with required fields) and a header parameter by $ref
    ("openapi/sendgrid-v3.swagger2.yaml", "POST_v3-teammates", [
        (ACCEPT, {}, MISSING),
        (ACCEPT, {}, {"email": "a@b.co", "scopes": [], "is_admin": False}),
        (ACCEPT, {("on-behalf-of", "header"): "sub"}, {"email": "a@b.co", "scopes": ["x"],
                                                       "is_admin": True}),
        (REJECT, {}, {"email": "a@b.co", "scopes": []}),
        (REJECT, {}, {"email": "a@b", "scopes": [], "is_admin": False}),
        (REJECT, {}, {"email": "a@b.co", "scopes": [], "is_admin": "no"}),
        (REJECT, {("on-behalf-of", "header"): 5}, MISSING),
    ]),
    # SendGrid: `nullable` in a Swagger 2.0 body, an `Authorization` header parameter (2.0 keeps it)
    ("openapi/sendgrid-v3.swagger2.yaml", "POST_alerts", [
        (ACCEPT, {}, {"type": "usage_limit", "email_to": None}),
        (ACCEPT, {("Authorization", "header"): "Bearer x"},
         {"type": "stats_notification", "email_to": "a@b.co", "percentage": 90}),
        (REJECT, {}, {"type": "x", "email_to": None}),
        (REJECT, {}, {"type": "usage_limit"}),
        (REJECT, {}, {"type": "usage_limit", "email_to": None, "percentage": "90"}),
    ]),
    # Slack: formData parameters (merged) and a required header parameter
    ("openapi/slack-web-api.swagger2.json", "chat_postMessage", [
        (ACCEPT, {("token", "header"): "xoxb"}, {"channel": "C1"}),
        (ACCEPT, {("token", "header"): "xoxb"}, {"channel": "C1", "text": "hi", "mrkdwn": True,
                                                 "link_names": False}),
        (REJECT, {}, {"channel": "C1"}),
        (REJECT, {("token", "header"): "xoxb"}, {}),
        (REJECT, {("token", "header"): "xoxb"}, {"channel": "C1", "mrkdwn": "yes"}),
        (REJECT, {("token", "header"): 7}, {"channel": "C1"}),
    ]),
    # OpenAI (3.1 with 3.0 `nullable`): nullable anyOf, nullable enum, nullable bounded integer
    ("openapi/openai.openapi.yaml", "createImage", [
        (ACCEPT, {}, {"prompt": "otter"}),
        (ACCEPT, {}, {"prompt": "otter", "model": None, "n": None, "quality": None, "size": None}),
        (ACCEPT, {}, {"prompt": "otter", "model": "dall-e-3", "n": 10, "quality": "hd",
                      "size": "1024x1024", "response_format": "b64_json"}),
        (REJECT, {}, {}),
        (REJECT, {}, {"prompt": 1}),
        (REJECT, {}, {"prompt": "otter", "n": 11}),
        (REJECT, {}, {"prompt": "otter", "n": 0}),
        (REJECT, {}, {"prompt": "otter", "n": 1.5}),
        (REJECT, {}, {"prompt": "otter", "quality": "ultra"}),
        (REJECT, {}, {"prompt": "otter", "model": 3}),
        (REJECT, {}, {"prompt": "otter", "response_format": "gif"}),
    ]),
    # OpenAI: boolean exclusiveMinimum inside a oneOf
    ("openapi/openai.openapi.yaml", "createFineTuningJob", [
        (ACCEPT, {}, {"model": "gpt-4o-mini", "training_file": "file-1"}),
        (ACCEPT, {}, {"model": "gpt-4o-mini", "training_file": "file-1",
                      "hyperparameters": {"learning_rate_multiplier": 0.5, "n_epochs": "auto"}}),
        (REJECT, {}, {"model": "gpt-4o-mini"}),
        (REJECT, {}, {"model": "gpt-4o-mini", "training_file": "file-1",
                      "hyperparameters": {"learning_rate_multiplier": 0}}),
        (REJECT, {}, {"model": "gpt-4o-mini", "training_file": "file-1",
                      "hyperparameters": {"n_epochs": 51}}),
    ]),
    # OpenAI: path and query parameters (GET)
    ("openapi/openai.openapi.yaml", "listFineTuningEvents", [
        (ACCEPT, {("fine_tuning_job_id", "path"): "ft-1"}, MISSING),
        (ACCEPT, {("fine_tuning_job_id", "path"): "ft-1", ("limit", "query"): 5,
                  ("after", "query"): "e"}, MISSING),
        (REJECT, {}, MISSING),
        (REJECT, {("fine_tuning_job_id", "path"): "ft-1", ("limit", "query"): "5"}, MISSING),
    ]),
]

_CATALOGS: dict[str, object] = {}
_JUDGES: dict[str, Judge] = {}


def _setup(spec: str):
    if spec not in _CATALOGS:
        path = corpus(*spec.split("/"))
        _CATALOGS[spec] = load_catalogs([str(path)], LoadOptions())[0]
        _JUDGES[spec] = Judge(path)
    return _CATALOGS[spec], _JUDGES[spec]


@pytest.mark.parametrize("spec, op_id, cases", CASES, ids=[c[1] for c in CASES])
def test_standard_view_is_lossless(spec, op_id, cases):
    cat, judge = _setup(spec)
    (tool,) = [t for t in cat.tools if t.id == op_id]
    validator = Draft202012Validator(tool.input_schema)
    assert any(intended for intended, *_ in cases) and not all(intended for intended, *_ in cases)
    for intended, params, body in cases:
        verdict = judge.accepts(op_id, params, body)
        assert verdict == intended, f"judge disagrees with the case's intent: {params} {body!r}"
        args = tool_args(tool, judge, op_id, params, body)
        got = validator.is_valid(args)
        assert got == verdict, (f"{op_id}: original {'accepts' if verdict else 'rejects'} "
                                f"{params} body={body!r}; tool args {args}")


def test_cases_cover_the_body_shapes():
    """The handful of operations exercise merged, whole and form bodies."""
    shapes = set()
    for spec, op_id, _cases in CASES:
        cat, judge = _setup(spec)
        (tool,) = [t for t in cat.tools if t.id == op_id]
        props = tool.input_schema["properties"]
        locs = {loc for (_n, loc) in judge.parameters(op_id)}
        if "body" in props:
            shapes.add("whole")
        elif "formData" in locs:
            shapes.add("form")
        elif len(props) > len(judge.parameters(op_id)):
            shapes.add("merged")
    assert shapes == {"whole", "form", "merged"}
