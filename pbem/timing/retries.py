"""How long a send that failed waits before its next try: the mail sender's and the webhook
deliverer's one rule, pure arithmetic."""

from __future__ import annotations

from datetime import timedelta

MAX_BACKOFF = timedelta(hours=2)


def backoff(attempts: int) -> timedelta:
    """Wait before retry number `attempts`: 30 s doubling, at most two hours."""
    return min(timedelta(seconds=30 * 2 ** max(attempts - 1, 0)), MAX_BACKOFF)
