"""Fixtures: an app on a fresh database (SQLite, or PostgreSQL from PBEM_TEST_DATABASE_URL),
an injected clock, and a real SMTP server on loopback that collects what it receives."""

from __future__ import annotations

import random
import shutil
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jinja2
import pytest
from aiosmtpd.controller import Controller
from jinja2.bccache import Bucket, BytecodeCache
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url
from sqlmodel import SQLModel
from werkzeug.routing import Rule

from pbem import play
from pbem.games import fairdeal
from pbem.storage.db import migrate
from tests.app import Clock, Inbox, make_test_app
from tests.settings import PG_URL, SHARED_PG_URL

# Files whose tests share a costly module fixture (the wheel built in the checkout, a Postfix
# instance): under pytest-xdist (--dist loadgroup) each runs whole on one worker, so the
# fixture is made once and two builds never write the checkout's build/ at the same time.
ONE_WORKER = (
    "tests/test_wheel.py",
    "tests/live/test_postfix.py",
    "tests/bounces/test_postfix_bounce.py",
)

# What `make check` leaves out, by category: each test named (a folder, a file or a test)
# gets the category's marker and `slow`. `make test` and CI run them all.
SLOW: dict[str, tuple[str, ...]] = {
    # Chromium through every page: about 16 minutes.
    "browser": ("tests/browser/",),
    # Processes the test starts and waits for: gunicorn, `pbem serve`, `pbem live`, `pbem
    # clock`, `pbem computers`, `pbem inbound`, Postfix, PgBouncer, a PostgreSQL server.
    "servers": (
        "tests/live/test_concurrent_posts.py",
        "tests/live/test_gunicorn_facing.py::test_the_served_site_logs_no_token_and_reads_no_huge_body",
        "tests/live/test_gunicorn_facing.py::test_behind_a_trusted_proxy_the_log_names_the_client_and_no_token",
        "tests/live/test_live_across_hosts.py",
        "tests/live/test_live_settings.py::test_serve_runs_the_streams_on_a_port_of_their_own",
        "tests/live/test_postfix.py",
        "tests/live/test_several_hosts.py",
        "tests/bounces/test_postfix_bounce.py",
        "tests/watch/test_multiprocess.py",
        "tests/faults/test_crashes.py",
        "tests/faults/test_database_restart.py",
        "tests/clock/test_workers.py::test_two_pbem_computers_processes_share_the_moves",
        "tests/clock/test_scheduler.py::test_the_pbem_clock_process_says_what_it_sent",
        "tests/mailin/test_server.py::test_the_pbem_inbound_process_writes_each_verdict_to_its_log",
        "tests/storage/test_pooler.py::test_every_process_stops_at_its_start_saying_why",
        "tests/deploy/test_systemd_units.py::test_the_operators_pbem_runs_pbem_with_the_settings_file",
        "tests/deploy/test_systemd_units.py::test_the_backup_service_writes_a_dated_backup_and_prunes_old_ones",
    ),
    # The wheel built and installed in a fresh virtualenv: a minute or more.
    "install": ("tests/test_wheel.py",),
    # Whole games and many random examples, 4 s to 36 s each here: 250 s of a loaded run.
    "long": (
        "tests/web/test_hidden_information.py",
        "tests/games/fantasy_business/test_properties.py::test_random_games",
        "tests/games/fantasy_business/test_properties.py::test_every_size_and_mode_once",
        "tests/games/test_colour_bazaar_properties.py::test_random_games_keep_every_promise",
        "tests/web/test_api_schema.py::test_api_answers_fit_the_document",
        "tests/web/test_fantasy_business_web.py::test_whole_game_open_auctions_no_specials",
        "tests/web/test_fantasy_business_web.py::test_whole_game_sealed_bids_with_specials_in_french",
        "tests/web/test_fantasy_business_web.py::test_whole_game_by_mail_orders_with_specials",
        "tests/web/test_fantasy_business_web.py::test_whole_game_by_mail_orders_in_french",
        "tests/mailin/test_fuzz.py::test_fuzzed_replies_never_crash_and_never_apply_twice",
        "tests/mailin/test_whole_games.py::test_fantasy_business_in_french_by_replies_only",
        "tests/mailin/test_whole_games.py::test_fantasy_business_in_english_orders_by_replies_only_over_lmtp",
        "tests/web/test_bad_input.py::test_seat_forms_fuzz",
        "tests/test_cli_and_config.py::test_help_without_settings_lists_the_commands",
    ),
    # The bench scripts' smoke runs: each a process, hosts.py a PostgreSQL of its own.
    "bench": (
        "tests/bench/test_scripts.py::test_hosts_quick_handles_each_mail_once_with_one_and_two_clocks",
        "tests/bench/test_scripts.py::test_waits_quick_prints_the_waits_plans_ahead_save",
        "tests/bench/test_scripts.py::test_dkim_prints_a_figure_for_each_key_that_signs_the_mail",
        "tests/bench/test_scripts.py::test_instructions_runs_its_units_natively_and_prints_each_row",
        "tests/bench/test_retention_bench.py",
        "tests/bench/test_bots_bench.py::test_the_quick_round_robin_prints_shares_aims_ratings_and_times",
    ),
}


def _named(nodeid: str, where: str) -> bool:
    """Whether the test `nodeid` is `where`: a folder (ending in /), a file or a test."""
    if where.endswith("/"):
        return nodeid.startswith(where)
    return nodeid == where or nodeid.startswith((where + "::", where + "["))


def pytest_collection_modifyitems(items: list[Any]) -> None:
    """Mark every test that needs a database, so CI can rerun just those on PostgreSQL, the
    slow ones by category (SLOW), so `make check` can leave them out, and the ONE_WORKER
    files' tests with a group of their own."""
    for item in items:
        if "database_url" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.db)
        for category, names in SLOW.items():
            if any(_named(item.nodeid, where) for where in names):
                item.add_marker(getattr(pytest.mark, category))
                item.add_marker(pytest.mark.slow)
        for where in ONE_WORKER:
            if _named(item.nodeid, where):
                item.add_marker(pytest.mark.xdist_group(where))


class SharedBytecode(BytecodeCache):
    """Compiled templates kept for the whole run: every test builds an app, with Jinja
    environments of its own, and compiled each template it used again (0.3 s a test). The
    key holds what compiling depends on besides the source (the escaping, the whitespace
    rules, the extensions); a changed source is compiled again (the bucket's checksum)."""

    def __init__(self) -> None:
        self.code: dict[str, bytes] = {}

    def get_bucket(
        self, environment: jinja2.Environment, name: str, filename: str | None, source: str
    ) -> Bucket:
        escape = environment.autoescape
        how = (
            "by name" if callable(escape) else bool(escape),
            environment.trim_blocks,
            environment.lstrip_blocks,
            environment.keep_trailing_newline,
            sorted(environment.extensions),
            environment.finalize is not None,
            environment.is_async,
        )
        bucket = Bucket(environment, f"{how!r} {name} {filename}", self.get_source_checksum(source))
        self.load_bytecode(bucket)
        return bucket

    def load_bytecode(self, bucket: Bucket) -> None:
        code = self.code.get(bucket.key)
        if code is not None:
            bucket.bytecode_from_string(code)

    def dump_bytecode(self, bucket: Bucket) -> None:
        self.code[bucket.key] = bucket.bytecode_to_string()


@pytest.fixture(scope="session", autouse=True)
def shared_bytecode() -> Iterator[None]:
    """Every Jinja environment made in the run uses one SharedBytecode unless given one."""
    cache = SharedBytecode()
    init = jinja2.Environment.__init__

    def with_cache(self: jinja2.Environment, *args: Any, **kwargs: Any) -> None:
        init(self, *args, **kwargs)
        if self.bytecode_cache is None:
            self.bytecode_cache = cache

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(jinja2.Environment, "__init__", with_cache)
        yield


@pytest.fixture(scope="session", autouse=True)
def shared_url_builders() -> Iterator[None]:
    """Every app in the run shares the URL builders of its routes: werkzeug writes and
    compiles a Python function for each route of each new app (130 routes, 35 ms of the
    40 ms create_app takes in a test). A builder's code depends only on what the key holds
    (the route, its defaults, the domain part); it is called with the rule it builds for."""
    compile_builder = Rule._compile_builder
    built: dict[tuple[Any, ...], Any] = {}

    def shared(self: Rule, append_unknown: bool = True) -> Any:
        assert self.map is not None
        key = (
            self.rule,
            self.host if self.map.host_matching else self.subdomain,
            self.merge_slashes,
            tuple(self._trace),
            repr(sorted((self.defaults or {}).items())),
            append_unknown,
        )
        if key not in built:
            built[key] = compile_builder(self, append_unknown)
        return built[key]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Rule, "_compile_builder", shared)
        yield


@pytest.fixture(autouse=True)
def fixed_seeds(monkeypatch: pytest.MonkeyPatch) -> None:
    """Games made without a seed (the lobby, rematches) get seeds from a seeded generator,
    the same in every run of a test: it deals the same cards each time. (As large as real
    seeds, so a test that looks for the seed in a page does not find it by chance.)"""
    rng = random.Random(15)
    monkeypatch.setattr(play, "new_seed", lambda: rng.getrandbits(62))
    # A checkable deal's seed comes from the server's secret (and the players' shares):
    # the secret and salt come from the seeded generator too.
    monkeypatch.setattr(
        fairdeal,
        "new_secret",
        lambda: (f"{rng.getrandbits(256):064x}", f"{rng.getrandbits(256):064x}"),
    )


@pytest.fixture
def smtpd() -> Iterator[Inbox]:
    """A real SMTP server on 127.0.0.1 at a free port."""
    inbox = Inbox()
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    inbox.port = port  # type: ignore[attr-defined]
    try:
        yield inbox
    finally:
        controller.stop()


def _recreate(name: str, create: bool) -> None:
    """Drop the database `name` on the shared server, even with connections left open, and
    create it again empty (create=True)."""
    admin = create_engine(SHARED_PG_URL, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as connection:
            connection.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            if create:
                connection.exec_driver_sql(f'CREATE DATABASE "{name}"')
    finally:
        admin.dispose()


@pytest.fixture(scope="session", autouse=True)
def pg_migrated() -> Iterator[bool]:
    """Migrate the PostgreSQL test database once per run (per worker: its own database,
    made here and dropped at the end; the user in PBEM_TEST_DATABASE_URL needs CREATEDB)."""
    own = PG_URL != SHARED_PG_URL
    name = make_url(PG_URL).database if own else None
    if name:
        _recreate(name, create=True)
    if PG_URL:
        migrate(PG_URL)
    yield bool(PG_URL)
    if name:
        _recreate(name, create=False)


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite database migrated once per run: each test gets a copy (a copy costs ~0.2 ms,
    running every migration ~0.4 s). tests/storage/test_migrations.py runs them for real."""
    path = tmp_path_factory.mktemp("template") / "migrated.sqlite3"
    migrate(f"sqlite:///{path}")
    return path


@pytest.fixture
def database_url(tmp_path: Any, pg_migrated: bool, request: pytest.FixtureRequest) -> str:
    """A fresh, migrated database for one test."""
    if PG_URL:
        engine = create_engine(PG_URL)
        with engine.begin() as conn:
            tables = ", ".join(t.name for t in SQLModel.metadata.sorted_tables)
            conn.execute(text(f"TRUNCATE {tables} RESTART IDENTITY CASCADE"))
        engine.dispose()
        return PG_URL
    path = tmp_path / "test.sqlite3"
    shutil.copyfile(request.getfixturevalue("sqlite_template"), path)
    return f"sqlite:///{path}"


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def app(database_url: str, clock: Clock, smtpd: Inbox, tmp_path: Any) -> Any:
    app = make_test_app(database_url, clock, smtpd, tmp_path)
    yield app
    app.extensions["pbem"]["engine"].dispose()


@pytest.fixture
def client(app: Any) -> Any:
    return app.test_client()


@pytest.fixture
def runner(app: Any) -> Any:
    return app.test_cli_runner()
