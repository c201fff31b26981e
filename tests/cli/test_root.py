"""`--root DIR` (and the configuration's `root`) names the folder an OpenAPI spec's `$ref`s
may reach (issue 36 item 2): Azure's resource-manager specs share
``../../../../../common-types/...`` above their own folder. Default unchanged (the spec's
folder); the error that refuses a reference names --root. The layout below is Azure's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from support.common import run_toolcat

COMMON = "../../../../../common-types/resource-management/v5/types.json"


@pytest.fixture
def azure(tmp_path) -> tuple[Path, Path]:
    spec_root = tmp_path / "specification"
    common = spec_root / "common-types" / "resource-management" / "v5" / "types.json"
    common.parent.mkdir(parents=True)
    common.write_text(json.dumps({"parameters": {"SubscriptionIdParameter": {
        "name": "subscriptionId", "in": "path", "required": True, "type": "string",
        "description": "The ID of the target subscription."}}}))
    spec = (spec_root / "foo" / "resource-manager" / "Microsoft.Foo" / "stable" / "2023-01-01"
            / "foo.json")
    spec.parent.mkdir(parents=True)
    spec.write_text(json.dumps({
        "swagger": "2.0", "info": {"title": "Foo", "version": "2023-01-01"},
        "paths": {"/subscriptions/{subscriptionId}/providers/Microsoft.Foo/bars": {"get": {
            "operationId": "Bars_List",
            "parameters": [{"$ref": COMMON + "#/parameters/SubscriptionIdParameter"}],
            "responses": {"200": {"description": "ok"}}}}}}))
    (tmp_path / "outside.json").write_text("{}")
    return spec_root, spec


def _params(r) -> dict:
    assert r.returncode == 0, r.stderr
    (t,) = json.loads(r.stdout)["tools"]
    return t["inputSchema"]["properties"]


def test_refused_by_default_and_the_error_names_root(azure):
    _root, spec = azure
    r = run_toolcat("project", "--broken-refs", "fail", spec)
    err = r.stderr.decode()
    assert r.returncode == 2 and err.count("\n") == 1 and "--root" in err, err
    assert "subscriptionId" not in _params(run_toolcat("-q", "project", "--view", "standard",
                                                       spec))


@pytest.mark.parametrize("cmd", ["project", "tools", "measure", "diff-toolids", "lint"])
def test_root_lets_refs_reach_the_shared_folder(azure, cmd):
    root, spec = azure
    if cmd == "project":
        p = _params(run_toolcat("project", "--view", "standard", "--root", root, spec))
        assert p["subscriptionId"]["description"] == "The ID of the target subscription."
        return
    r = run_toolcat(cmd, "--root", root, spec)
    assert r.returncode in (0, 1) and b"does not resolve" not in r.stderr, r.stderr
    assert b"outside" not in r.stdout + r.stderr


def test_root_still_bounds_refs(azure):
    root, spec = azure
    doc = json.loads(spec.read_text())
    doc["paths"]["/subscriptions/{subscriptionId}/providers/Microsoft.Foo/bars"]["get"][
        "parameters"].append({"$ref": "../../../../../../outside.json#/x"})
    spec.write_text(json.dumps(doc))
    r = run_toolcat("project", "--broken-refs", "fail", "--root", root, spec)
    err = r.stderr.decode()
    assert r.returncode == 2 and "outside the --root folder" in err, err


def test_config_root_for_lint_and_measure(azure, tmp_path):
    root, spec = azure
    (tmp_path / "toolcat.toml").write_text('root = "specification"\n')
    r = run_toolcat("lint", "--format", "json", "--config", tmp_path / "toolcat.toml", spec)
    assert not [f for f in json.loads(r.stdout)["findings"] if f["code"] == "SC302"]
    r = run_toolcat("measure", "--config", tmp_path / "toolcat.toml", spec)
    assert r.returncode == 0 and b"does not resolve" not in r.stderr, r.stderr
    (tmp_path / "toolcat.toml").write_text('root = "nope"\n')
    r = run_toolcat("lint", "--config", tmp_path / "toolcat.toml", spec)
    assert r.returncode == 2 and b"not a folder" in r.stderr


def test_root_must_be_a_folder(azure):
    _root, spec = azure
    r = run_toolcat("tools", "--root", spec.parent / "missing", spec)
    assert r.returncode == 2 and b"--root must be a folder" in r.stderr
