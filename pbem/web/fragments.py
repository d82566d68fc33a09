"""Parts of pages that never change once made (a finished round, a move's log lines for one
reader), made once and reused.

In a template: ``{% call fragment(key) %}...{% endcall %}`` renders the body the first time
a key is seen and gives the same HTML after that; in Python, ``kept(key, make)``. The key
must name all the part shows: the game, the part, the reader's seat and language, the names
it prints. Kept per app, the least recently used dropped past SIZE.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

from flask import Flask, current_app
from markupsafe import Markup

SIZE = 4096  # parts kept per worker: a log entry well under 1 KB, a past round a few KB
T = TypeVar("T")


class Fragments:
    """A bounded, thread-safe map from keys to parts made once."""

    def __init__(self, size: int = SIZE) -> None:
        self.size = size
        self._kept: OrderedDict[Hashable, Any] = OrderedDict()
        self._lock = threading.Lock()

    def find(self, key: Hashable) -> Any:
        """The part kept for `key`, or None."""
        with self._lock:
            part = self._kept.get(key)
            if part is not None:
                self._kept.move_to_end(key)
            return part

    def get(self, key: Hashable, make: Callable[[], T]) -> T:
        """The part for `key`, made by `make` when it is not kept."""
        with self._lock:
            found: T | None = self._kept.get(key)
            if found is not None:
                self._kept.move_to_end(key)
                return found
        made = make()  # outside the lock: two threads may make it, alike
        with self._lock:
            self._kept[key] = made
            self._kept.move_to_end(key)
            while len(self._kept) > self.size:
                self._kept.popitem(last=False)
        return made


def kept(key: Hashable, make: Callable[[], T]) -> T:
    """The app's part for `key`, made by `make` the first time."""
    parts: Fragments = current_app.extensions["pbem"]["fragments"]
    return parts.get(key, make)


def found(key: Hashable) -> Any:
    """The app's part for `key` if one is kept, else None."""
    parts: Fragments = current_app.extensions["pbem"]["fragments"]
    return parts.find(key)


def fragment(key: Hashable, caller: Callable[[], str]) -> Markup:
    """Jinja's call block: the body rendered once per key (see the module's docstring)."""
    return kept(key, lambda: Markup(caller()))


def init_app(app: Flask) -> None:
    """Give the app its fragments and templates fragment()."""
    app.extensions["pbem"]["fragments"] = Fragments()
    app.jinja_env.globals.update(fragment=fragment)
