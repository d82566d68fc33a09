"""Fixtures for the browser tests: Debian's Chromium driven by Playwright, and a real pbem
server on a loopback port with its outbox sender running beside it, as `make run` has."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from werkzeug.serving import make_server

from pbem import create_app
from pbem.clock.scheduler import drain_outbox
from pbem.config import Settings, settings_of
from pbem.devservers import free_port
from pbem.live.serve import InThread
from tests.browser.helpers import SENDER_INTERVAL, VIEWPORTS, LiveServer
from tests.settings import app_settings

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: Any, call: Any) -> Iterator[None]:
    """Keep each phase's report on the test, so a fixture can tell whether the test failed."""
    outcome = yield
    report = outcome.get_result()
    setattr(item, f"report_{report.when}", report)


@pytest.fixture(scope="session")
def chromium() -> Iterator[Any]:
    """Debian's Chromium, headless, launched once for the whole run (never downloaded)."""
    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} is missing: install Debian's chromium package to run these")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True
        )
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture
def live_config() -> dict[str, Any]:
    """Settings a test module adds to or overrides in live_server's (by overriding this
    fixture: mail to a real SMTP server, say)."""
    return {}


@pytest.fixture
def live_server(
    database_url: str, tmp_path: Path, live_config: dict[str, Any]
) -> Iterator[LiveServer]:
    """pbem served by werkzeug on 127.0.0.1 at a free port, with the file mail backend, a
    thread that drains the outbox every 0.2 s so mail reaches the mailbox page, and the live
    pages' streams (pbem live) on a port of their own, as `pbem serve` runs them."""
    holder: dict[str, Any] = {}
    # Werkzeug logs every request at INFO; keep only its warnings and errors, so the
    # output of a failed test shows a server traceback rather than 200 request lines.
    werkzeug_log = logging.getLogger("werkzeug")
    level = werkzeug_log.level
    werkzeug_log.setLevel(logging.WARNING)

    def wsgi(environ: Any, start_response: Any) -> Any:
        return holder["app"](environ, start_response)

    # Port 0: the system picks a free port; the app is built once the port is known,
    # because the links in mail carry it.
    server = make_server("127.0.0.1", 0, wsgi, threaded=True)
    url = f"http://127.0.0.1:{server.server_port}"
    settings = app_settings(
        database_url,
        tmp_path,
        DEBUG=True,  # as `make run`: the local mailbox is served only under debug
        MAIL_BACKEND="file",
        BASE_URL=url,
    )
    app = create_app(settings | live_config)
    holder["app"] = app
    streams = None
    if settings_of(app).live_url == Settings.model_fields["live_url"].default:
        streams = InThread(app, "127.0.0.1", free_port()).start()
        settings_of(app).live_url = f"http://127.0.0.1:{streams.server.config.port}/live/"
    live = LiveServer(url=url, app=app)
    stop = threading.Event()

    def send_mail() -> None:
        while not stop.wait(SENDER_INTERVAL):
            try:
                drain_outbox(app)
            except Exception as exc:  # kept for the test to report, not lost in a thread
                live.sender_errors.append(exc)

    serving = threading.Thread(target=server.serve_forever, name="pbem-web", daemon=True)
    sending = threading.Thread(target=send_mail, name="pbem-sender", daemon=True)
    serving.start()
    sending.start()
    try:
        yield live
    finally:
        stop.set()
        sending.join(timeout=10)
        if streams is not None:
            streams.stop()
        server.shutdown()
        serving.join(timeout=10)
        server.server_close()
        app.extensions["pbem"]["engine"].dispose()
        werkzeug_log.setLevel(level)


@pytest.fixture
def artifacts() -> Path:
    """The git-ignored test-artifacts/ folder at the repository root, for screenshots."""
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


@pytest.fixture
def page(chromium: Any, viewport: str, artifacts: Path, request: Any) -> Iterator[Any]:
    """A fresh browser tab sized for `viewport` (a name in VIEWPORTS, which the test
    parametrizes); if the test fails, the tab's last state is saved as failure-<viewport>.png."""
    failure = artifacts / f"failure-{viewport}.png"
    failure.unlink(missing_ok=True)
    context = chromium.new_context(**VIEWPORTS[viewport])
    context.set_default_timeout(10_000)
    tab = context.new_page()
    try:
        yield tab
    finally:
        report = getattr(request.node, "report_call", None)
        if report is not None and report.failed:
            tab.screenshot(path=str(failure), full_page=True)
        context.close()
