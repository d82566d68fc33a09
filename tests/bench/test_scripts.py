"""The bench scripts run from bench/ without hiding the standard library or needing tests/,
and bench/hosts.py runs its quick round on PostgreSQL."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from collections import Counter
from importlib.metadata import packages_distributions
from pathlib import Path

import pytest

from pbem.devservers import pg_bin

BENCH = Path(__file__).resolve().parents[2] / "bench"


def test_no_bench_script_is_named_like_a_module_pbem_imports() -> None:
    # `python bench/x.py` puts bench/ first on the path: bench/http.py hid the standard
    # http package from every script there (python bench/sweep.py died on http.client), and
    # bench/dkim.py hid dkimpy's `dkim` the same way.
    installed = {name for names in packages_distributions().values() for name in names}
    taken = set(sys.stdlib_module_names) | set(packages_distributions()) | installed
    shadowing = [p.name for p in BENCH.glob("*.py") if p.stem in taken]
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


@pytest.mark.skipif(pg_bin() is None, reason="PostgreSQL's programs are not installed")
def test_hosts_quick_handles_each_mail_once_with_one_and_two_clocks() -> None:
    # A smoke test of bench/hosts.py on its own throwaway PostgreSQL: 1 and 2 clock
    # processes empty the same prepared mail, and its own counts say nothing went twice
    # or was lost. The speeds it prints are not looked at. One kind, two runs: every kind
    # with 1, 2 and 3 processes took 425 s in CI. That each mail, timeout and computer move
    # is handled once by several at once is the suite's to check: tests/mailout/
    # test_several_senders.py (2 and 3 senders), tests/clock/test_sweeps_share_out.py and
    # test_sweeps_are_safe.py (two sweeps), tests/clock/test_workers.py (two
    # workers, two `pbem computers` processes), tests/live/test_several_hosts.py (all of it).
    done = subprocess.run(
        [
            sys.executable,
            str(BENCH / "hosts.py"),
            "--quick",
            "--kinds",
            "mails",
            "--processes",
            "1,2",
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    rows = [line for line in done.stdout.splitlines() if line.endswith(": once ok")]
    runs = Counter((line.split()[0], line.split()[1]) for line in rows)
    assert runs == {("mails", "1"): 1, ("mails", "2"): 1}, done.stdout[-3000:]


def test_waits_quick_prints_the_waits_plans_ahead_save() -> None:
    # A smoke run of bench/waits.py: its plan-ahead rows play seeded games through the
    # rules of pbem.games.ahead; with both players planning, fewer waits remain.
    done = subprocess.run(
        [sys.executable, str(BENCH / "waits.py"), "--quick"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    rows = {line.split("  ")[0].strip(): line.split() for line in done.stdout.splitlines()}
    assert float(rows["both, next 2 plies"][-2]) < float(rows["none"][-2])
    assert "waits saved:" in done.stdout


def test_dkim_prints_a_figure_for_each_key_that_signs_the_mail() -> None:
    # A smoke run of bench/signing.py: each key kind signs the turn mail (a signature that
    # failed would stop it) and gets its line.
    done = subprocess.run(
        [sys.executable, str(BENCH / "signing.py"), "--count", "2", "--rounds", "1"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert re.search(r"rsa-2048: [\d.]+ ms a signature", done.stdout), done.stdout
    assert re.search(r"ed25519: [\d.]+ ms a signature", done.stdout), done.stdout


def test_instructions_runs_its_units_natively_and_prints_each_row() -> None:
    # A smoke run of bench/instructions.py without valgrind: each unit prepared, opened and
    # stepped in a process of its own group (its steps assert the answers: a 303 after a
    # form move, a 200 from the API, one mail a drain, 304 to every idle poll), the table
    # printed with a figure on both sides of each row asked for.
    units = ["cb-move", "cb-api-move", "cb-mail", "watch-minute"]
    floors = ["floor-cb-move", "floor-mail", "floor-watch-minute"]
    done = subprocess.run(
        [sys.executable, str(BENCH / "instructions.py"), "--natively", "--units", *units, *floors],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "failed" not in done.stdout, done.stdout[-3000:]
    # The stream's row names the polls' unit as its floor: the polls' row is named whole.
    rows = (
        "CB 2p move, page form",
        "CB 2p move, JSON API ",
        "CB turn mail",
        "idle watcher-minute, 24",
    )
    for row in rows:
        (line,) = [line for line in done.stdout.splitlines() if line.startswith(row)]
        ours, floor = line[40:].split()[:2]
        assert ours.endswith("ms") and floor.endswith("ms"), line
