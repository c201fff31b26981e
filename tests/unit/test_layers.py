"""The import contracts of issue 11: the layers (import-linter, configured in pyproject.toml)
and no module importing a private name (``_x``) of another package."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from support.common import REPO

SRC = REPO / "src" / "toolcat"


def test_layers_contract_holds() -> None:
    """``lint-imports`` (import-linter) keeps every contract of ``[tool.importlinter]``."""
    exe = shutil.which("lint-imports", path=str(Path(sys.executable).parent)) or \
        shutil.which("lint-imports")
    if exe is None:
        pytest.fail("lint-imports is not installed (it is in the test extra: "
                    "pip install '.[test]')")
    r = subprocess.run([exe], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "0 broken" in r.stdout, r.stdout


def _module_name(path: Path) -> str:
    rel = path.relative_to(SRC.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _package(module: str) -> str:
    """The package a module belongs to (a package belongs to itself)."""
    path = SRC.parent.joinpath(*module.split("."))
    return module if path.is_dir() else module.rsplit(".", 1)[0]


def _private_imports(path: Path, me: str | None = None) -> list[str]:
    me = me or _module_name(path)
    mine = _package(me)
    tree = ast.parse(path.read_text(), str(path))
    out = []
    aliases: dict[str, str] = {}       # local name -> toolcat module it is bound to
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0 \
                and node.module.startswith("toolcat"):
            target = node.module
            for a in node.names:
                full = f"{target}.{a.name}"
                if SRC.parent.joinpath(*full.split(".")).with_suffix(".py").exists() or \
                        SRC.parent.joinpath(*full.split(".")).is_dir():
                    aliases[a.asname or a.name] = full       # a module
                    continue
                if a.name.startswith("_") and not a.name.startswith("__") \
                        and _package(target) != mine:
                    out.append(f"{me}: from {target} import {a.name}")
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith("toolcat") and a.asname:
                    aliases[a.asname] = a.name
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                and node.value.id in aliases and node.attr.startswith("_") \
                and not node.attr.startswith("__"):
            target = aliases[node.value.id]
            if _package(target) != mine:
                out.append(f"{me}: {target}.{node.attr}")
    return out


def test_no_module_imports_a_private_name_of_another_package() -> None:
    found = [x for p in sorted(SRC.rglob("*.py")) for x in _private_imports(p)]
    assert found == []


def test_the_private_name_check_sees_a_violation(tmp_path) -> None:
    """The check above finds what it looks for (a module written for the purpose)."""
    bad = tmp_path / "probe.py"      # read as if it were toolcat/schema/probe.py
    bad.write_text("from toolcat.features.lint.engine import _walk\nfrom toolcat.document import "
                   "canonical as c\nX = c._slow\n")
    found = _private_imports(bad, "toolcat.schema._probe_private_import")
    assert found == ["toolcat.schema._probe_private_import: from toolcat.features.lint.engine import "
                     "_walk", "toolcat.schema._probe_private_import: "
                     "toolcat.document.canonical._slow"]


def _dynamic_imports(path: Path) -> list[str]:
    """Calls that import a module by a name the import contract cannot see:
    ``importlib.import_module(...)``, ``import_module(...)``, ``__import__(...)``."""
    tree = ast.parse(path.read_text(), str(path))
    out = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
        if name in ("import_module", "__import__"):
            out.append(f"{_module_name(path) if path.is_relative_to(SRC) else path.name}:"
                       f"{node.lineno}: {name}")
    return out


def test_no_module_is_imported_through_importlib() -> None:
    """Every import in the package is an ordinary one, which the layer contract sees (the
    feature packages do not shadow the API's functions, so nothing needs importlib)."""
    found = [x for p in sorted(SRC.rglob("*.py")) for x in _dynamic_imports(p)]
    assert found == []


def test_the_importlib_check_sees_a_violation(tmp_path) -> None:
    bad = tmp_path / "probe.py"
    bad.write_text("import importlib\nfrom importlib import import_module\n"
                   "a = importlib.import_module('toolcat.api')\nb = import_module('x')\n"
                   "c = __import__('toolcat.cli')\n")
    assert [x.split(": ")[1] for x in _dynamic_imports(bad)] == \
        ["import_module", "import_module", "__import__"]
