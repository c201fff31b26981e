"""TC105 and vendors' published placeholder keys (issue 36 item 9): AWS documents
AKIAIOSFODNN7EXAMPLE and wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY as example keys that are
no one's; specs that show them (in examples, in prose) are not leaking a secret, and lint
must not exit 1 on them. A token of the same shape without the placeholder marks is still an
error, also beside a placeholder in the same text."""

from __future__ import annotations

import json

from support.common import run_toolcat


def _tc105(tmp_path, props: dict, description: str = "") -> list[tuple[str, str]]:
    doc = {"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": {"/a": {"post": {
        "operationId": "a", "description": description or "Store a key.",
        "requestBody": {"content": {"application/json": {"schema": {
            "type": "object", "properties": props}}}},
        "responses": {"200": {"description": "ok"}}}}}}
    f = tmp_path / "api.json"
    f.write_text(json.dumps(doc))
    r = run_toolcat("lint", "--format", "json", "--select", "TC105", f)
    return [(x["pointer"], x["severity"]) for x in json.loads(r.stdout)["findings"]]


def test_published_example_keys_are_not_secrets(tmp_path):
    assert _tc105(tmp_path, {
        "access_key_id": {"type": "string", "example": "AKIAIOSFODNN7EXAMPLE"},
        "secret_access_key": {"type": "string",
                              "example": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"},
        "service_key": {"type": "string", "default": "0123456789abcdef0123456789abcdef"},
    }, "Send an access key id such as AKIAIOSFODNN7EXAMPLE.") == []


def test_a_real_shaped_key_is_still_an_error(tmp_path):
    got = _tc105(tmp_path, {"k": {"type": "string", "example": "AKIA2E0A8F3B244C9986"}},
                 "Keys look like AKIAIOSFODNN7EXAMPLE; ours is AKIA2E0A8F3B244C9987.")
    assert ("/description", "error") in got
    assert ("/inputSchema/properties/k/example", "error") in got
