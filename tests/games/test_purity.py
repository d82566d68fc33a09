"""pbem/games/ and pbem/bots/ import nothing beyond the standard library and the rules."""

import ast
import sys
from pathlib import Path

GAMES_DIR = Path(__file__).resolve().parents[2] / "pbem" / "games"
BOTS_DIR = GAMES_DIR.parent / "bots"


def _imported_roots(path: Path) -> set[str]:
    roots = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            roots.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            roots.add(node.module)
    return roots


def test_games_import_only_stdlib_and_themselves():
    files = sorted(GAMES_DIR.rglob("*.py"))
    assert files, "no game modules found"
    for path in files:
        for name in _imported_roots(path):
            top = name.split(".")[0]
            if name.startswith("pbem."):
                assert name.startswith("pbem.games"), f"{path.name} imports {name}"
            else:
                assert top in sys.stdlib_module_names or top == "__future__", (
                    f"{path.name} imports {name}, outside the standard library"
                )


def test_bots_import_only_stdlib_and_the_rules():
    files = sorted(BOTS_DIR.rglob("*.py"))
    assert files, "no bot modules found"
    for path in files:
        for name in _imported_roots(path):
            top = name.split(".")[0]
            if name.startswith("pbem."):
                assert name.startswith(("pbem.games", "pbem.bots")), f"{path.name} imports {name}"
            else:
                assert top in sys.stdlib_module_names or top == "__future__", (
                    f"{path.name} imports {name}, outside the standard library"
                )
