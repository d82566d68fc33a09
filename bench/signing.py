"""What pbem's own DKIM signature adds to a mail: CPU per mail for an RSA-2048 and an
ed25519 key, beside building the same mail (pbem.mailout.mailer.build_message).

The mail is a turn mail's size (an 8 KB text and HTML body, thread headers, the
List-Unsubscribe pair), built as the sender builds it; each figure is the best of
`--rounds` timings of `--count` signatures (seconds on a shared machine move: compare the
rows of one run, not runs of different days). With valgrind installed, `--instructions`
adds callgrind's count per signature, by subtraction of a run of 10 from a run of 60.

    python bench/signing.py
    python bench/signing.py --instructions
"""

# ruff: noqa: E402
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT))

import argparse
import re
import shutil
import subprocess
import tempfile
import timeit
from datetime import UTC, datetime

from pbem.config import load_settings
from pbem.mailout.dkim import sign
from pbem.mailout.dkimkey import dkim_key
from pbem.mailout.mailer import build_message
from pbem.models import Outbox

KINDS = {
    "rsa-2048": ["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"],
    "ed25519": ["-algorithm", "ed25519"],
}


def turn_mail_row() -> Outbox:
    """An outbox row shaped like a Colour Bazaar turn mail."""
    line = "Léo played the 7 of Knots on the Moons market and took the Leaves chip.\n"
    return Outbox(
        id=1,
        game_id=12,
        event="your_turn",
        to_addr="ana@example.org",
        to_name="Ana",
        subject="Your move in Colour Bazaar #12",
        body_text=line * 50,
        body_html="<p>" + line * 60 + "</p>",
        message_id="<0123456789abcdef0123456789abcdef.g12@pbem.example.org>",
        thread_id="<game-12@pbem.example.org>",
        headers={
            "List-Unsubscribe": "<https://pbem.example.org/u/WzEsIjBQ.PEddw1>",
            "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
            "Reply-To": "play+12.0.3.6y2yga2l7gk7vlp3@in.pbem.example.org",
        },
        created_at=datetime(2026, 12, 5, 9, 0, tzinfo=UTC),
        next_attempt_at=datetime(2026, 12, 5, 9, 0, tzinfo=UTC),
    )


def key_settings(kind: str, folder: Path) -> dict[str, str]:
    """Settings that make pbem sign with a new key of `kind` (made by openssl)."""
    path = folder / f"{kind}.pem"
    subprocess.run(["openssl", "genpkey", *KINDS[kind], "-out", str(path)], check=True,
                   capture_output=True)  # fmt: skip
    path.chmod(0o600)
    return {
        "MAIL_FROM": "pbem@pbem.example.org",
        "DKIM_SELECTOR": "bench",
        "DKIM_KEY_FILE": str(path),
    }


def best(seconds_of: object, count: int, rounds: int) -> float:
    """The best of `rounds` timings of `count` calls, per call, in milliseconds."""
    times = timeit.repeat(seconds_of, number=count, repeat=rounds)  # type: ignore[arg-type]
    return min(times) / count * 1000


def instructions(kind: str, folder: Path) -> float | None:
    """Instructions one signature costs, by callgrind: (Ir(60) - Ir(10)) / 50."""
    if shutil.which("valgrind") is None:
        return None
    counts = []
    for n in (10, 60):
        out = folder / f"cg.{kind}.{n}"
        subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable,
             __file__, "--sign-only", kind, "--count", str(n), "--keys", str(folder)],
            check=True, capture_output=True,
        )  # fmt: skip
        summary = re.search(r"^summary:\s+(\d+)", out.read_text(), re.M)
        assert summary, out
        counts.append(int(summary.group(1)))
    return (counts[1] - counts[0]) / 50


def main() -> None:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--instructions", action="store_true")
    parser.add_argument("--sign-only", help=argparse.SUPPRESS)
    parser.add_argument("--keys", help=argparse.SUPPRESS)
    args = parser.parse_args()
    row = turn_mail_row()
    if args.sign_only:  # one run under callgrind: `--count` signatures of one key
        key = dkim_key(
            load_settings({"DEBUG": True, **key_settings(args.sign_only, Path(args.keys))})
        )
        data = build_message(row, "pbem@pbem.example.org", "pbem").data
        for _ in range(args.count):
            sign(data, key)  # type: ignore[arg-type]
        return
    data = build_message(row, "pbem@pbem.example.org", "pbem").data
    build = best(lambda: build_message(row, "pbem@pbem.example.org", "pbem"), 200, args.rounds)
    print(f"the mail: {len(data)} bytes; building it {build:.3f} ms")
    with tempfile.TemporaryDirectory() as folder:
        for kind in KINDS:
            key = dkim_key(load_settings({"DEBUG": True, **key_settings(kind, Path(folder))}))
            assert key is not None
            cost = best(lambda key=key: sign(data, key), args.count, args.rounds)
            line = f"{kind:>9}: {cost:.3f} ms a signature, {cost / build:.0f}x building the mail"
            if args.instructions:
                counted = instructions(kind, Path(folder))
                line += f", {counted / 1e6:.1f}M instructions" if counted else ", no valgrind"
            print(line)


if __name__ == "__main__":
    main()
