"""Instructions per unit, pbem against the floor (bench/floor.py), counted by valgrind's callgrind.

Instructions do not move with the machine's load, as CPU time does. Each group of units
(pbem's Colour Bazaar units, its Fantasy Business units, the floor's) runs in one process
under `valgrind --tool=callgrind --instr-atstart=no`: the interpreter's start, the imports
and the building of each app run uncounted. For each unit the driver opens it (its app
built on the database prepared for it), does WARM units uncounted (the first request's
compiling and caching, the connection made), collects the garbage, switches counting on
and zeroes it, does N units and dumps the count under the unit's name (callgrind's client
requests, bench/counting.py): instructions per unit = that count / N. Requests are raw WSGI
environs with a phone browser's headers (bench/raw_wsgi.py), on both sides; mail goes to an
SMTP sink on 127.0.0.1 in a process of its own. What each unit needs (games, queued mail)
is prepared natively beforehand, in a folder of its own (bench/units.py). PYTHONHASHSEED
and every seed are fixed; moves carry one fixed time. Printed: the Python, the machine, the
commit, and for each row pbem's and the floor's instructions per unit, their ratio and
issue 50's aim. Nothing is asserted.

    python bench/instructions.py                        # every row, about 10 min on 2 cores
    python bench/instructions.py --units cb-move floor-cb-move
    python bench/instructions.py --natively             # the same steps, no valgrind: a check
    apt-get install valgrind gcc                        # if either is missing
"""

# ruff: noqa: E402
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT))

import argparse
import gc
import json
import os
import platform
import shutil
import subprocess
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

VALGRIND = shutil.which("valgrind") or "/usr/bin/valgrind"
WARM = 3  # units done before counting: every cache a request fills, filled
COUNTED = {"watch-minute": 4, "floor-watch-minute": 4, "stream-minute": 1}  # else DEFAULT
DEFAULT = 10
WARMS = {"stream-minute": 0}  # its opening waits for the streams: else WARM
PER = {"stream-minute": 50}  # the figure is per watcher (bench.units.STREAMS): else 1
# (row, pbem unit, floor unit, issue 50's aim)
ROWS = [
    ("CB 2p move, page form", "cb-move", "floor-cb-move", "<= 3.6M (3x)"),
    ("CB 2p move, JSON API", "cb-api-move", "floor-cb-move", "<= 1.2x form move"),
    ("CB 2p move, JSON API, ply 10", "cb-api-move-10", "floor-cb-move", "<= 1.2x form move"),
    ("FB 4p move, page form", "fb-move", "floor-fb-move", "<= 5M"),
    ("CB turn mail (one a drain)", "cb-mail", "floor-mail", "<= 5.4M (3x)"),
    ("FB turn mail, early (plies 1-)", "fb-mail-early", "floor-mail", "<= 6M"),
    ("FB turn mail, late (plies 80-)", "fb-mail-late", "floor-mail", "<= 6M, late/early <= 1.1"),
    ("CB seat page, ply 20, to act", "cb-page-20", "floor-cb-page-20", "<= 10M"),
    ("CB seat page, ply 20, waiting", "cb-page-20-waiting", "floor-cb-page-20", "<= 10M"),
    ("FB seat page, ply 0", "fb-page-0", "floor-fb-page-0", ""),
    ("FB seat page, ply 97", "fb-page-97", "floor-fb-page-97", "<= 10M"),
    ("idle watcher-minute, 24 polls", "watch-minute", "floor-watch-minute", ""),
    # The floor column of this row is the 24 polls above: the stream's share of them.
    ("idle watcher-minute, stream, 1 of 50", "stream-minute", "watch-minute", "<= 0.1x"),
    # Issue 36: the move that ends a rated game also moves its players' ratings; the floor
    # is the same last move of an unrated game.
    ("CB last move, rated (floor: unrated)", "cb-last-move-rated", "cb-last-move", "<= 2x"),
    ("FB 4p last move, rated (floor: unrated)", "fb-last-move-rated", "fb-last-move", "<= 2x"),
]
# One process a group: its units share the interpreter's start and imports.
GROUPS = {
    "cb": ["cb-move", "cb-api-move", "cb-api-move-10", "cb-mail", "cb-page-20",
           "cb-page-20-waiting", "watch-minute"],
    "live": ["stream-minute"],
    "fb": ["fb-move", "fb-mail-early", "fb-mail-late", "fb-page-0", "fb-page-97"],
    "ends": ["cb-last-move", "cb-last-move-rated", "fb-last-move", "fb-last-move-rated"],
    "floor": ["floor-cb-move", "floor-fb-move", "floor-mail", "floor-cb-page-20",
              "floor-fb-page-0", "floor-fb-page-97", "floor-watch-minute"],
}  # fmt: skip


def counted(unit: str) -> int:
    """How many units are counted (after the uncounted warm ones)."""
    return COUNTED.get(unit, DEFAULT)


def warm(unit: str) -> int:
    """How many units are done uncounted first."""
    return WARMS.get(unit, WARM)


def drive(units: list[str], scratch: Path, smtp_port: int, marks_library: str) -> None:
    """In the counting process: each unit opened, warmed, then N of it counted and dumped."""
    from bench.counting import Marks
    from bench.units import UNITS

    marks = Marks(Path(marks_library)) if marks_library else None
    for unit in units:
        step = UNITS[unit][1](scratch / unit, smtp_port)
        for i in range(warm(unit)):
            step(i)
        gc.collect()  # the garbage of the warm-up and the unit before is not this unit's
        if marks:
            marks.start()
            marks.zero()
        started = time.process_time()
        for i in range(warm(unit), warm(unit) + counted(unit)):
            step(i)
        if marks:
            marks.dump(unit)
        else:
            used = (time.process_time() - started) / counted(unit) / PER.get(unit, 1)
            print(json.dumps({unit: used}), flush=True)


def run_group(
    name: str, units: list[str], scratch: Path, port: int, library: str, natively: bool
) -> tuple[dict[str, float], str]:
    """One group's process (under callgrind unless `natively`): per unit, instructions (or
    CPU seconds natively); and the error it printed, if it failed."""
    prefix = f"callgrind.{name}"
    command = [
        sys.executable, str(Path(__file__).resolve()), "--drive", *units,
        "--scratch", str(scratch), "--smtp-port", str(port), "--marks", "" if natively else library,
    ]  # fmt: skip
    if not natively:
        command = [
            VALGRIND, "--tool=callgrind", "--instr-atstart=no",
            f"--callgrind-out-file={scratch / prefix}", *command,
        ]  # fmt: skip
    env = {**os.environ, "PYTHONHASHSEED": "0", "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run(command, env=env, capture_output=True, text=True, cwd=ROOT)
    if done.returncode != 0:
        return {}, f"group {name} failed:\n{done.stderr[-3000:]}"
    if natively:
        found: dict[str, float] = {}
        for line in done.stdout.splitlines():
            if line.startswith("{"):
                found.update(json.loads(line))
        return found, ""
    from bench.counting import read_dumps

    totals = read_dumps(scratch, prefix)
    return {
        unit: totals[unit] / counted(unit) / PER.get(unit, 1) for unit in units if unit in totals
    }, ""


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


def print_table(found: dict[str, float], natively: bool) -> None:
    """The rows whose units were counted: pbem, floor, ratio, aim."""
    show = (lambda v: "-" if v is None else f"{v * 1e3:.2f}ms") if natively else mega
    print(f"{'unit':40} {'pbem':>8} {'floor':>8} {'ratio':>7}  aim")
    for label, ours, theirs, aim in ROWS:
        if ours not in found and theirs not in found:
            continue
        mine, floor = found.get(ours), found.get(theirs)
        ratio = "-" if not (mine and floor) else f"{mine / floor:6.{1 if mine > floor else 2}f}x"
        print(f"{label:40} {show(mine):>8} {show(floor):>8} {ratio:>7}  {aim}")
    pairs = [
        ("API move / form move", "cb-api-move", "cb-move"),
        ("FB mail, late / early", "fb-mail-late", "fb-mail-early"),
        ("FB page, ply 97 / ply 0", "fb-page-97", "fb-page-0"),
    ]
    for label, top, bottom in pairs:
        if top in found and bottom in found:
            print(f"{label}: {found[top] / found[bottom]:.2f}")


def main() -> None:
    """Prepare, count under callgrind, print the table; or, with --drive, count units."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--units", nargs="*", help="default: every unit of the table")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--natively", action="store_true", help="CPU time, no valgrind")
    parser.add_argument("--drive", nargs="*", help=argparse.SUPPRESS)
    parser.add_argument("--scratch", help=argparse.SUPPRESS)
    parser.add_argument("--smtp-port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--marks", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.drive:
        drive(args.drive, Path(args.scratch), args.smtp_port, args.marks)
        return
    from bench.counting import build
    from bench.units import UNITS

    library = ""
    if not args.natively:
        if not Path(VALGRIND).exists():
            sys.exit("valgrind is missing: apt-get install valgrind")
        library = str(build())
    wanted = set(args.units or UNITS)
    unknown = wanted - UNITS.keys()
    if unknown:
        sys.exit(f"no such unit: {', '.join(sorted(unknown))}")
    groups = {name: [u for u in units if u in wanted] for name, units in GROUPS.items()}
    server, port = start_sink()
    scratch = Path(tempfile.mkdtemp(prefix="pbem-bench-instructions-"))
    started = time.monotonic()
    found: dict[str, float] = {}
    try:
        for unit in sorted(wanted):
            (scratch / unit).mkdir()
            UNITS[unit][0](scratch / unit, warm(unit) + counted(unit), port)  # uncounted
        prepared = time.monotonic() - started
        jobs = [(name, units) for name, units in groups.items() if units]
        with ThreadPoolExecutor(max(1, args.jobs)) as pool:
            results = pool.map(
                lambda job: run_group(job[0], job[1], scratch, port, library, args.natively),
                jobs,
            )
            for values, error in results:
                found.update(values)
                if error:
                    print(error, flush=True)
    finally:
        server.stop()
        shutil.rmtree(scratch, ignore_errors=True)
    how = "CPU time natively" if args.natively else "callgrind, counted after warm-up"
    print(f"Python {platform.python_version()}, {machine()}, pbem at {commit()}")
    print(
        f"{how}; {WARM} units warm, {DEFAULT} counted (a watcher-minute: 4); "
        f"{prepared:.0f} s preparing, {time.monotonic() - started:.0f} s in all"
    )
    print_table(found, args.natively)


if __name__ == "__main__":
    main()
