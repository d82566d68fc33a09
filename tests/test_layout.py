"""tests/ keeps its own layout: no module imports a test module or a conftest (what tests share
lives in a helper module, fixtures are used by name), and every test SLOW names exists."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent


def is_test_module(dotted: str) -> bool:
    """Whether `dotted` names a test module or a conftest (pytest's, not to be imported)."""
    last = dotted.rsplit(".", 1)[-1]
    return last.startswith("test_") or last == "conftest"


def imported(path: Path) -> set[str]:
    """Every module `path` imports, by dotted name (a name imported from a package counts as
    the module of that name, since `from tests.web import test_api` imports one)."""
    here = ".".join(path.relative_to(ROOT).with_suffix("").parts)
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = here.split(".")[: -node.level]
                base = ".".join(parent + ([base] if base else []))
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)
    return names


def test_no_module_imports_a_test_module_or_a_conftest() -> None:
    found = [
        f"{path.relative_to(ROOT)} imports {name}"
        for path in sorted(TESTS.rglob("*.py"))
        for name in sorted(imported(path))
        if name.startswith("tests.") and is_test_module(name)
    ]
    assert not found, (
        "move what is shared to the folder's helpers.py (or a module named for what it holds); "
        "fixtures stay in conftest.py and are asked for by name:\n" + "\n".join(found)
    )


def slow_names() -> list[str]:
    """What SLOW in tests/conftest.py names, read from its source (not imported)."""
    tree = ast.parse((TESTS / "conftest.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.AnnAssign | ast.Assign):
            targets = [node.target] if isinstance(node, ast.AnnAssign) else node.targets
            if any(isinstance(t, ast.Name) and t.id == "SLOW" for t in targets):
                assert node.value is not None
                slow: dict[str, tuple[str, ...]] = ast.literal_eval(node.value)
                return [where for names in slow.values() for where in names]
    raise AssertionError("tests/conftest.py holds no SLOW")


def test_every_slow_name_is_a_test_that_exists() -> None:
    # A renamed file or test would lose its marker without a word: `make check` would run it.
    missing = []
    for where in slow_names():
        file, _, test = where.partition("::")
        path = ROOT / file
        if not path.exists():
            missing.append(where)
        elif test:
            defined = {
                node.name
                for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                if isinstance(node, ast.FunctionDef)
            }
            if test not in defined:
                missing.append(where)
    assert not missing, "SLOW in tests/conftest.py names what is not there: " + ", ".join(missing)
