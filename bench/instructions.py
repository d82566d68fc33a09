"""Instructions per unit, pbem against the floor (bench/floor.py), counted by valgrind's callgrind.

Instructions do not move with the machine's load, as CPU time does. Each unit (a move
POST, a turn mail, a seat page, a bare insert) is counted by subtraction: a small driver
(this script with --drive) is run under `valgrind --tool=callgrind` twice, doing the unit
N1 and N2 times, and (Ir(N2) - Ir(N1)) / (N2 - N1) is what one more unit costs, without
the interpreter's start, the imports, the first-call compiling and caching (all inside
both runs alike). What each unit prepares (games, queued mail) is made beforehand, without
valgrind, in a folder of its own per run (bench/units.py). Mail goes to an SMTP sink on
127.0.0.1 in a process of its own. PYTHONHASHSEED and every seed are fixed; moves carry
one fixed time. Printed: the Python, the machine, the commit, and for each row of issue
32's table pbem's and the floor's instructions per unit, their ratio and the issue's aim.
Nothing is asserted.

    python bench/instructions.py                       # every row, a few minutes on 2 cores
    python bench/instructions.py --units cb-move floor-cb-move --jobs 1
    apt-get install valgrind                           # if valgrind is missing
"""

# ruff: noqa: E402
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT))

import argparse
import os
import platform
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

VALGRIND = shutil.which("valgrind") or "/usr/bin/valgrind"
COUNTS = {"cb-mail-batch": (60, 300), "floor-mail-batch": (60, 300)}  # else DEFAULT
DEFAULT = (2, 6)
# (row, pbem unit, floor unit, the aim)
ROWS = [
    ("Colour Bazaar move POST", "cb-move", "floor-cb-move", "<= 2.8M (3x floor)"),
    ("Fantasy Business 4p move POST", "fb-move", "floor-fb-move", "<= 4.5M"),
    ("turn mail, CB, one drain per move", "cb-mail-each", "floor-mail-each", "<= 3.0M"),
    ("turn mail, CB, drain of 300", "cb-mail-batch", "floor-mail-batch", "<= 3.0M"),
    ("turn mail, FB, early (plies 1-)", "fb-mail-early", "floor-mail-each", "<= 4M, flat"),
    ("turn mail, FB, late (plies 80-)", "fb-mail-late", "floor-mail-each", "<= 4M, flat"),
    ("FB seat page, ply 0", "fb-page-0", "floor-page-0", ""),
    ("FB seat page, ply 97", "fb-page-97", "floor-page-97", "<= 6M, <= 1.2x round 1"),
    ("bare insert request", "bare-insert", "floor-insert", "(raw sqlite3 floor)"),
    # Issue 36: the move that ends a rated game also moves its players' ratings; the floor
    # is the same last move of an unrated game.
    ("CB last move, rated (floor: unrated)", "cb-last-move-rated", "cb-last-move", "<= 2x"),
    ("FB 4p last move, rated (floor: unrated)", "fb-last-move-rated", "fb-last-move", "<= 2x"),
]


def per_unit(count: Callable[[int], int], n1: int, n2: int) -> float:
    """What one more unit costs: (count(n2) - count(n1)) / (n2 - n1)."""
    if n2 <= n1:
        raise ValueError("n2 must exceed n1")
    return (count(n2) - count(n1)) / (n2 - n1)


def read_total(out_file: Path) -> int:
    """The instructions (Ir) a callgrind output file counts in all."""
    for line in out_file.read_text().splitlines():
        if line.startswith(("totals:", "summary:")):
            return int(line.split()[1])
    raise ValueError(f"no totals in {out_file}")


def callgrind(unit: str, count: int, folder: Path, smtp_port: int) -> int:
    """Run the driver for `count` units under callgrind; the instructions it took (-1 and
    the error printed when it failed)."""
    out = folder / "callgrind.out"
    command = [
        VALGRIND, "--tool=callgrind", f"--callgrind-out-file={out}",
        sys.executable, str(Path(__file__).resolve()),
        "--drive", unit, "--count", str(count), "--folder", str(folder),
        "--smtp-port", str(smtp_port),
    ]  # fmt: skip
    env = {**os.environ, "PYTHONHASHSEED": "0", "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run(command, env=env, capture_output=True, text=True, cwd=ROOT)
    if done.returncode != 0:
        print(f"{unit} x{count} failed:\n{done.stderr[-3000:]}", flush=True)
        return -1
    return read_total(out)


class Null:
    """An aiosmtpd handler that takes every mail and keeps none."""

    async def handle_DATA(self, server, session, envelope):  # noqa: ANN001, ANN201, N802
        return "250 OK"


def start_sink() -> tuple[Any, int]:
    """An SMTP sink on 127.0.0.1, in threads of this process (the drivers run in others):
    its controller, started, and its port."""
    from aiosmtpd.controller import Controller

    from pbem.devservers import free_port

    port = free_port()
    controller = Controller(Null(), hostname="127.0.0.1", port=port)
    controller.start()
    return controller, port


def machine() -> str:
    """The processor's model and the core count."""
    model = platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{model}, {os.cpu_count()} cores"


def commit() -> str:
    """The checked-out commit (and whether the tree has changes)."""
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True)
    dirty = subprocess.run(["git", "status", "--porcelain", "pbem"], cwd=ROOT, capture_output=True)
    return head.stdout.decode().strip() + (" (pbem/ changed)" if dirty.stdout.strip() else "")


def mega(value: float | None) -> str:
    """Instructions in millions."""
    return "-" if value is None else f"{value / 1e6:.2f}M"


def main() -> None:
    """Prepare, count under callgrind, print the table; or, with --drive, run one unit."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--units", nargs="*", help="default: every unit of the table")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--drive", help=argparse.SUPPRESS)
    parser.add_argument("--count", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--folder", help=argparse.SUPPRESS)
    parser.add_argument("--smtp-port", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    from bench.units import UNITS

    if args.drive:
        UNITS[args.drive][1](Path(args.folder), args.count, args.smtp_port)
        return
    if not Path(VALGRIND).exists():
        sys.exit("valgrind is missing: apt-get install valgrind")
    wanted = args.units or sorted({u for _, p, f, _ in ROWS for u in (p, f)})
    server, port = start_sink()
    scratch = Path(tempfile.mkdtemp(prefix="pbem-bench-instructions-"))
    found: dict[str, float] = {}
    started = time.monotonic()
    try:
        jobs = []
        for unit in wanted:
            for count in COUNTS.get(unit, DEFAULT):
                folder = scratch / f"{unit}-{count}"
                folder.mkdir()
                UNITS[unit][0](folder, count, port)  # natively, before any counting
                jobs.append((unit, count, folder))
        with ThreadPoolExecutor(max(1, args.jobs)) as pool:
            totals = dict(
                zip(
                    [(unit, count) for unit, count, _ in jobs],
                    pool.map(lambda job: callgrind(job[0], job[1], job[2], port), jobs),
                    strict=True,
                )
            )
        for unit in wanted:
            n1, n2 = COUNTS.get(unit, DEFAULT)
            if totals[(unit, n1)] < 0 or totals[(unit, n2)] < 0:
                continue  # its failure is printed above
            found[unit] = per_unit(lambda n, unit=unit: totals[(unit, n)], n1, n2)
            print(f"  {unit:18} Ir({n1})={totals[(unit, n1)]:,} Ir({n2})={totals[(unit, n2)]:,}")
    finally:
        server.stop()
        shutil.rmtree(scratch, ignore_errors=True)
    print(f"Python {platform.python_version()}, {machine()}, pbem at {commit()}")
    print(f"callgrind, by subtraction; {time.monotonic() - started:.0f} s in all")
    print(f"{'unit':36} {'pbem':>8} {'floor':>8} {'ratio':>7}  aim")
    for label, ours, theirs, aim in ROWS:
        if ours not in found and theirs not in found:
            continue
        mine, floor = found.get(ours), found.get(theirs)
        ratio = f"{mine / floor:6.1f}x" if mine and floor else "-"
        print(f"{label:36} {mega(mine):>8} {mega(floor):>8} {ratio:>7}  {aim}")
    if {"cb-move", "cb-mail-each", "floor-cb-move", "floor-mail-each"} <= found.keys():
        mine = found["cb-move"] + found["cb-mail-each"]
        floor = found["floor-cb-move"] + found["floor-mail-each"]
        print(f"{'CB move and its mail':36} {mega(mine):>8} {mega(floor):>8} {mine / floor:6.1f}x")
    if {"fb-page-0", "fb-page-97"} <= found.keys():
        print(f"FB page, ply 97 / ply 0: {found['fb-page-97'] / found['fb-page-0']:.2f}")


if __name__ == "__main__":
    main()
