"""Who listens to what in one `pbem live` process: the open streams by game (or league), and
the seats whose page is open, in this process's memory only.

Nothing here is shared between processes, nor needs to be: each process learns every
change from the database (pbem.live.watch) and tells its own streams. A topic keeps the
newest version it has heard of, so a late or repeated announcement tells nobody twice.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from pbem.storage.versions import Shown

GAME = "game"
LEAGUE = "league"
Key = tuple[str, int]  # (GAME or LEAGUE, its id)


@dataclass(eq=False)
class Listener:
    """One open stream: woken when its topic moves on; `shown` is what it is to send."""

    wake: asyncio.Event = field(default_factory=asyncio.Event)
    shown: Shown | None = None


@dataclass
class Topic:
    """A game or league with open streams: the newest version heard of, and its listeners."""

    shown: Shown | None = None
    listeners: set[Listener] = field(default_factory=set)


class Hub:
    """The open streams of this process, by topic, and the seats they look from."""

    def __init__(self) -> None:
        self.topics: dict[Key, Topic] = {}
        self.seats: Counter[tuple[int, int]] = Counter()  # (game id, seat): streams open
        self.wanted = asyncio.Event()  # set while any stream is open
        # Told of each new topic: a watcher that only hears of changes (PostgreSQL's
        # notices) reads it once, for a change made between a link's read and its stream.
        self.on_new: Callable[[Key], None] | None = None
        self.closing = False

    def subscribe(self, key: Key, seat: int | None = None) -> Listener:
        """A new listener of `key` (a seat's page names its seat: it is looking)."""
        listener = Listener()
        if key not in self.topics:
            self.topics[key] = Topic()
            if self.on_new is not None:
                self.on_new(key)
        self.topics[key].listeners.add(listener)
        if seat is not None:
            self.seats[(key[1], seat)] += 1
        self.wanted.set()
        return listener

    def unsubscribe(self, key: Key, listener: Listener, seat: int | None = None) -> None:
        """The stream closed: forget it, and its topic once nobody listens."""
        topic = self.topics.get(key)
        if topic is not None:
            topic.listeners.discard(listener)
            if not topic.listeners:
                del self.topics[key]
        if seat is not None:
            self.seats[(key[1], seat)] -= 1
            if self.seats[(key[1], seat)] <= 0:
                del self.seats[(key[1], seat)]
        if not self.topics:
            self.wanted.clear()

    def publish(self, key: Key, shown: Shown) -> int:
        """`key` is at `shown`: wake its listeners if that is newer than what they were told
        (the first thing heard of a topic only sets it); how many were woken."""
        topic = self.topics.get(key)
        if topic is None:
            return 0
        if topic.shown is not None and shown.version <= topic.shown.version:
            return 0
        first = topic.shown is None
        topic.shown = shown
        if first:
            return 0
        for listener in topic.listeners:
            listener.shown = shown
            listener.wake.set()
        return len(topic.listeners)

    def close(self) -> None:
        """The process stops: every stream is woken to end (its browser opens it again,
        here once restarted or at another process)."""
        self.closing = True
        for topic in self.topics.values():
            for listener in topic.listeners:
                listener.wake.set()

    def newest(self, key: Key) -> Shown | None:
        """The newest version heard of for `key` (None: none yet)."""
        topic = self.topics.get(key)
        return topic.shown if topic is not None else None

    def ids(self, kind: str) -> list[int]:
        """The games (or leagues) with open streams."""
        return [row_id for (k, row_id) in self.topics if k == kind]

    def known(self, kind: str, row_id: int) -> bool:
        """Whether a stream is open for that game (or league)."""
        return (kind, row_id) in self.topics

    def looking(self) -> list[tuple[int, int]]:
        """The (game id, seat) pairs with a seat's page open."""
        return list(self.seats)

    def streams(self) -> int:
        """How many streams are open."""
        return sum(len(topic.listeners) for topic in self.topics.values())
