"""Fixtures for moves by mail: an app with a reply domain, and `pbem inbound` on loopback."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from pbem import play
from pbem.mailin.server import InboundController, make_controller
from pbem.storage.db import write_session
from tests.app import make_test_app
from tests.mailin.helpers import PLAYERS, REPLY_DOMAIN, free_port
from tests.web.helpers import deliver


@pytest.fixture
def app(database_url: str, clock: Any, smtpd: Any, tmp_path: Any) -> Any:
    """The test app of tests/conftest.py, with replies to turn mails going to REPLY_DOMAIN."""
    app = make_test_app(
        database_url, clock, smtpd, tmp_path,
        MAIL_FROM="pbem@pbem.test", REPLY_DOMAIN=REPLY_DOMAIN, INBOUND_MAX_BYTES=64 * 1024,
    )  # fmt: skip
    yield app
    app.extensions["pbem"]["engine"].dispose()


def _start(app: Any, lmtp: bool) -> Iterator[InboundController]:
    controller = make_controller(
        app.extensions["pbem"]["engine"],
        app.extensions["pbem"]["site"],
        app.extensions["pbem"]["settings"],
        "127.0.0.1",
        free_port(),
        lmtp=lmtp,
        clock=app.config["CLOCK"],
    )
    controller.start()
    try:
        yield controller
    finally:
        controller.stop()


@pytest.fixture
def inbound(app: Any) -> Iterator[InboundController]:
    """`pbem inbound` speaking SMTP on a free loopback port."""
    yield from _start(app, lmtp=False)


@pytest.fixture
def inbound_lmtp(app: Any) -> Iterator[InboundController]:
    """`pbem inbound --lmtp` on a free loopback port."""
    yield from _start(app, lmtp=True)


@pytest.fixture
def game(app: Any, smtpd: Any, clock: Any) -> int:
    """A Colour Bazaar game with a fixed seed, everyone joined, the first turn mail sent."""
    engine, site = app.extensions["pbem"]["engine"], app.extensions["pbem"]["site"]
    invitees = [play.Invitee(p.name, p.email, p.lang) for p in PLAYERS]
    with write_session(engine) as session:
        game_id = play.create_game(session, site, "colour-bazaar", invitees, {}, clock(), seed=7).id
    with write_session(engine) as session:
        for seat in (1, 2):
            play.join(session, site, game_id, seat, clock())
    deliver(app)
    return game_id
