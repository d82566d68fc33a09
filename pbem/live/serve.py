"""Running the streams: `pbem live` as a process of its own (uvicorn), or in a thread of
`pbem serve`, for local use, on a port of its own.

The process is built from the Flask app of the same settings (its database engine, secret,
trusted proxies and clock), and runs beside the streams the watchers of pbem.live.watch: on
PostgreSQL the LISTEN connection, made straight to the server (PBEM_LIVE_DATABASE_URL,
else PBEM_DATABASE_URL: a transaction pooler passes no notice, and the process refuses to
start through one); on SQLite the reads of the versions.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import AsyncIterator, Callable, Coroutine
from contextlib import asynccontextmanager
from typing import Any

import uvicorn
from flask import Flask
from starlette.applications import Starlette

from pbem.config import ConfigError, Settings, settings_of
from pbem.live.hub import Hub
from pbem.live.streams import Live, routes
from pbem.live.watch import Notices, mark_looking, poll_versions
from pbem.players.presence import SEEN_EVERY
from pbem.storage.pooler import is_postgres, probe

log = logging.getLogger(__name__)
STOP_WAIT = 2  # seconds uvicorn waits for open streams at a stop (they never end by themselves)
POOLED = (
    "pbem live LISTENs for the moves on PostgreSQL, and {url} is a transaction pooler"
    " (PgBouncer with pool_mode=transaction), which passes no notice: set"
    " PBEM_LIVE_DATABASE_URL to an address that reaches PostgreSQL straight (or PgBouncer in"
    " pool_mode=session). Its other reads may go through the pooler (PBEM_DATABASE_URL)."
)


def listen_database(settings: Settings) -> str:
    """Where the process LISTENs: PBEM_LIVE_DATABASE_URL, else PBEM_DATABASE_URL."""
    return settings.live_database_url or settings.database_url


def refuse_pooler(settings: Settings) -> None:
    """ConfigError, with the reason, when the LISTEN address is a transaction pooler: the
    settings say so (the database URL named as pooled and no live URL of its own), or the
    probe of pbem.storage.pooler finds one."""
    url = listen_database(settings)
    if not is_postgres(url):
        return
    own = bool(settings.live_database_url)
    named = not own and settings.database_pooler == "transaction"
    if named or probe(url).pooled:
        which = "PBEM_LIVE_DATABASE_URL" if own else "PBEM_DATABASE_URL"
        raise ConfigError(POOLED.format(url=which))


def build(app: Flask) -> tuple[Starlette, Hub]:
    """The streams' ASGI app for the Flask app's settings, its watchers started with it;
    its hub."""
    settings = settings_of(app)
    engine = app.extensions["pbem"]["engine"]
    hub = Hub()
    live = Live(
        hub,
        engine,
        settings.secret_key.get_secret_value(),
        settings.trusted_proxies,
        app.config["CLOCK"],
        keepalive=settings.live_keepalive,
    )
    url = listen_database(settings)
    jobs: list[Callable[[], Coroutine[Any, Any, None]]] = []
    listening: Callable[[], bool | None] = lambda: None  # noqa: E731
    if is_postgres(url):
        notices = Notices(hub, engine, url)
        jobs += [notices.listen, notices.read_due]
        listening = notices.connected.is_set
    else:
        jobs.append(lambda: poll_versions(hub, engine))
    every = SEEN_EVERY.total_seconds()
    jobs.append(lambda: mark_looking(hub, engine, live.now, every))

    @asynccontextmanager
    async def running(_: Starlette) -> AsyncIterator[None]:
        tasks = [asyncio.create_task(job()) for job in jobs]
        try:
            yield
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    return Starlette(routes=routes(live, lambda: listening()), lifespan=running), hub


class Server(uvicorn.Server):
    """uvicorn's server, ending the open streams as it stops (they never end by themselves,
    and uvicorn waits for its connections to end)."""

    def __init__(self, config: uvicorn.Config, hub: Hub) -> None:
        super().__init__(config)
        self.hub = hub

    async def shutdown(self, sockets: Any = None) -> None:
        """End every stream, then stop as uvicorn does."""
        self.hub.close()
        await super().shutdown(sockets)


def server(app: Flask, host: str, port: int) -> Server:
    """A uvicorn server of the streams (no access log: its lines would hold the links)."""
    refuse_pooler(settings_of(app))
    streams, hub = build(app)
    config = uvicorn.Config(
        streams,
        host=host,
        port=port,
        access_log=False,
        log_level="info",
        timeout_graceful_shutdown=STOP_WAIT,
        lifespan="on",
    )
    # Off for good, whatever configures logging later: each line would name a link.
    logging.getLogger("uvicorn.access").disabled = True
    return Server(config, hub)


def serve(app: Flask, host: str, port: int) -> None:
    """Run the streams until stopped (SIGTERM or SIGINT: uvicorn's own handlers)."""
    server(app, host, port).run()


class InThread:
    """The streams in a thread of this process (`pbem serve`, the browser tests)."""

    def __init__(self, app: Flask, host: str, port: int) -> None:
        self.server = server(app, host, port)
        self.thread = threading.Thread(target=self.server.run, name="pbem-live", daemon=True)

    def start(self, wait: float = 10.0) -> InThread:
        """Start, and return once the port takes connections (or `wait` seconds passed)."""
        self.thread.start()
        give_up = time.monotonic() + wait
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > give_up:
                raise RuntimeError("pbem live did not start: see its log lines")
            time.sleep(0.02)
        return self

    def stop(self) -> None:
        """Stop: the open streams are ended within STOP_WAIT seconds."""
        self.server.should_exit = True
        self.thread.join(STOP_WAIT + 10)
