"""The bench scripts run from bench/ without hiding the standard library or needing tests/."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench"


def test_no_bench_script_is_named_like_a_standard_module() -> None:
    # `python bench/x.py` puts bench/ first on the path: bench/http.py hid the standard
    # http package from every script there (python bench/sweep.py died on http.client).
    shadowing = [p.name for p in BENCH.glob("*.py") if p.stem in sys.stdlib_module_names]
    assert shadowing == []


def test_bench_imports_nothing_from_tests() -> None:
    found = []
    for path in sorted(BENCH.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            found += [f"{path.name}: {n}" for n in names if n == "tests" or n.startswith("tests.")]
    assert found == []
