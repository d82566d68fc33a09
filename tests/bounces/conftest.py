"""Fixtures for mail that bounces: an app with a reply domain (so each mail goes out from its
bounce address), and `pbem inbound` on loopback to take the reports."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from pbem.mailin.server import InboundController, make_controller
from tests.app import make_test_app
from tests.bounces.helpers import MAIL_FROM, REPLY_DOMAIN
from tests.mailin.helpers import free_port


@pytest.fixture
def app(database_url: str, clock: Any, smtpd: Any, tmp_path: Any) -> Any:
    """The test app of tests/conftest.py, with a reply domain: bounces come back there."""
    app = make_test_app(
        database_url, clock, smtpd, tmp_path, MAIL_FROM=MAIL_FROM, REPLY_DOMAIN=REPLY_DOMAIN
    )
    yield app
    app.extensions["pbem"]["engine"].dispose()


@pytest.fixture
def inbound(app: Any) -> Iterator[InboundController]:
    """`pbem inbound` speaking SMTP on a free loopback port."""
    ext = app.extensions["pbem"]
    controller = make_controller(
        ext["engine"],
        ext["site"],
        ext["settings"],
        "127.0.0.1",
        free_port(),
        False,
        app.config["CLOCK"],
    )
    controller.start()
    try:
        yield controller
    finally:
        controller.stop()
