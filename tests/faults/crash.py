"""Run the sender or the clock sweep in this process, and kill it with SIGKILL at a set point.

Used by the fault tests as a subprocess: `python -m tests.faults.crash sender|sweep`.
The configuration comes from PBEM_* variables, as for the real clock process.
"""

from __future__ import annotations

import os
import signal
import sys
from typing import Any

from pbem import create_app, moves
from pbem.clock.scheduler import drain_outbox, sweep_due
from pbem.mailout import claims, notify


def die(*_args: Any, **_kwargs: Any) -> None:
    """Be killed at once, as by the OOM killer or a power cut: no cleanup runs."""
    os.kill(os.getpid(), signal.SIGKILL)


def main() -> None:
    """Kill the sender after the SMTP server accepted a mail, or the sweep on its third game."""
    app = create_app()
    if sys.argv[1] == "sender":
        claims.mark_sent = die  # the mail was accepted, but is not yet marked sent
        drain_outbox(app)
    else:
        real_queue = notify.queue

        def queue_or_die(tell: Any, *args: Any, **kwargs: Any) -> Any:
            if tell.game.id == 3:
                die()
            return real_queue(tell, *args, **kwargs)

        moves.queue = queue_or_die  # type: ignore[assignment]
        sweep_due(app)
    sys.exit(3)  # not reached: the process was killed


if __name__ == "__main__":
    main()
