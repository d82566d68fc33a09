"""Callgrind's client requests from Python: count only the work between two marks.

Callgrind counts every instruction of a process unless told otherwise. Run with
`--instr-atstart=no`, the interpreter's start, the imports and the warm-up cost nothing;
`start()` switches instrumentation on, `zero()` forgets what was counted so far, and
`dump(label)` writes what was counted since to a file of its own (callgrind.out.<pid>.<n>,
its "desc: Trigger: Client Request: <label>" line naming it) and counts again from zero.

The requests are the macros of valgrind/callgrind.h, compiled here once into a small
shared library (a C compiler and valgrind's headers: Debian's gcc and valgrind). Outside
valgrind each request is a handful of instructions that do nothing, so the same driver runs
natively as well (the tests run it so).
"""

from __future__ import annotations

import ctypes
import hashlib
import shutil
import subprocess
import tempfile
from pathlib import Path

SOURCE = """
#include <valgrind/callgrind.h>
void bench_start(void) { CALLGRIND_START_INSTRUMENTATION; }
void bench_zero(void) { CALLGRIND_ZERO_STATS; }
void bench_dump(const char *label) { CALLGRIND_DUMP_STATS_AT(label); }
"""
HEADER = Path("/usr/include/valgrind/callgrind.h")


class Marks:
    """The three client requests, loaded from the compiled shim."""

    def __init__(self, library: Path) -> None:
        self._lib = ctypes.CDLL(str(library))
        self._lib.bench_dump.argtypes = [ctypes.c_char_p]

    def start(self) -> None:
        """Switch instrumentation on (a no-op when it is on, or outside valgrind)."""
        self._lib.bench_start()

    def zero(self) -> None:
        """Forget what was counted so far."""
        self._lib.bench_zero()

    def dump(self, label: str) -> None:
        """Write what was counted since the last zero or dump, under `label`; zero again."""
        self._lib.bench_dump(label.encode())


def build(folder: Path | None = None) -> Path:
    """The shim compiled (once per source) into `folder`; its path. SystemExit with the
    package to install when the compiler or the header is missing."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None or not HEADER.exists():
        raise SystemExit("a C compiler and valgrind's headers are needed: apt-get install gcc")
    folder = folder or Path(tempfile.gettempdir())
    digest = hashlib.sha256(SOURCE.encode()).hexdigest()[:12]
    library = folder / f"pbem-bench-marks-{digest}.so"
    if not library.exists():
        source = folder / f"pbem-bench-marks-{digest}.c"
        source.write_text(SOURCE)
        partial = library.with_suffix(".tmp")
        subprocess.run(
            [compiler, "-O1", "-shared", "-fPIC", "-o", str(partial), str(source)], check=True
        )
        partial.replace(library)
    return library


def read_dumps(folder: Path, prefix: str) -> dict[str, int]:
    """The instructions of each labelled dump in `folder` (files `prefix`.<n>): by label."""
    found: dict[str, int] = {}
    for path in sorted(folder.glob(f"{prefix}.*")):
        label, total = None, None
        with path.open() as lines:
            for line in lines:
                if line.startswith("desc: Trigger: Client Request: "):
                    label = line.rstrip("\n").rsplit("Client Request: ", 1)[1]
                elif line.startswith(("totals:", "summary:")):
                    total = int(line.split()[1])
                    break
        if label is not None and total is not None:
            found[label] = total
    return found
