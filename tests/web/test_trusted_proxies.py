"""Behind a reverse proxy (PBEM_TRUSTED_PROXIES): each client has its own rate limits, and
nobody can dodge one, or pass for another address, by writing X-Forwarded-For."""

from __future__ import annotations

from typing import Any

import pytest

from pbem import create_app
from pbem.config import ConfigError
from pbem.storage.ratelimit import BAD_LINKS, SIGN_INS
from tests.app import make_test_app
from tests.settings import app_settings

PROXY = "10.0.0.5"


@pytest.fixture
def behind(database_url: str, clock: Any, smtpd: Any, tmp_path: Any) -> Any:
    """make(setting): the test app with PBEM_TRUSTED_PROXIES set so; each is disposed of."""
    made: list[Any] = []

    def make(trusted: str) -> Any:
        made.append(make_test_app(database_url, clock, smtpd, tmp_path, TRUSTED_PROXIES=trusted))
        return made[-1]

    yield make
    for app in made:
        app.extensions["pbem"]["engine"].dispose()


def ask(app: Any, peer: str, forwarded: str | None = None, **headers: str) -> int:
    """POST a sign-in ask from `peer`, with X-Forwarded-For `forwarded`; the status."""
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = peer
    if forwarded is not None:
        headers["X-Forwarded-For"] = forwarded
    return client.post("/signin", data={"email": "ana@example.org"}, headers=headers).status_code


@pytest.mark.parametrize("trusted", ["1", PROXY, "10.0.0.0/24, 2001:db8::/32"])
def test_each_client_behind_the_proxy_has_its_own_limit(behind: Any, trusted: str) -> None:
    app = behind(trusted)
    clients = [f"198.51.100.{n}" for n in range(1, 12)]
    # The issue saw [200 x 10, 429]: one limit for the whole site.
    assert [ask(app, PROXY, client) for client in clients] == [200] * 11
    for _ in range(SIGN_INS.count - 1):
        assert ask(app, PROXY, clients[0]) == 200
    assert ask(app, PROXY, clients[0]) == 429
    assert ask(app, PROXY, clients[1]) == 200  # the others are not held back


def test_off_a_forged_header_changes_nothing(app: Any) -> None:
    statuses = [ask(app, "192.0.2.7", f"198.51.100.{n}") for n in range(SIGN_INS.count + 1)]
    assert statuses == [200] * SIGN_INS.count + [429]
    assert ask(app, "192.0.2.8") == 200  # the limit is the peer's, as without a proxy


def test_with_a_count_only_the_hops_the_proxies_wrote_count(behind: Any) -> None:
    app = behind("1")
    # The client writes what it likes first; the proxy appends the address it saw.
    forged = [f"203.0.113.{n}, 198.51.100.9" for n in range(SIGN_INS.count + 1)]
    assert [ask(app, PROXY, chain) for chain in forged][-2:] == [200, 429]
    assert ask(app, PROXY, "198.51.100.9") == 429  # the same client, without the forgery
    two = behind("2")
    chains = [f"203.0.113.{n}, 198.51.100.20, 10.0.0.9" for n in range(SIGN_INS.count + 1)]
    assert [ask(two, PROXY, chain) for chain in chains][-2:] == [200, 429]
    assert ask(two, PROXY, "198.51.100.21, 10.0.0.9") == 200


def test_with_addresses_an_unlisted_peer_keeps_its_own(behind: Any) -> None:
    app = behind(PROXY)
    direct = [ask(app, "192.0.2.50", f"198.51.100.{n}") for n in range(SIGN_INS.count + 1)]
    assert direct == [200] * SIGN_INS.count + [429]
    assert ask(app, PROXY, "192.0.2.50") == 429  # the same client through the proxy
    assert ask(app, PROXY, "192.0.2.51") == 200


def test_with_networks_every_trusted_hop_is_passed_and_no_further(behind: Any) -> None:
    app = behind("10.0.0.0/8")
    # Two proxies of ours (10.0.0.9 saw the client, 10.0.0.5 saw 10.0.0.9); before them,
    # whatever the client wrote.
    chains = [f"203.0.113.{n}, 198.51.100.7, 10.0.0.9" for n in range(SIGN_INS.count + 1)]
    assert [ask(app, PROXY, chain) for chain in chains][-2:] == [200, 429]
    assert ask(app, PROXY, "198.51.100.8, 10.0.0.9") == 200


def test_bad_links_are_counted_per_client_behind_the_proxy(behind: Any) -> None:
    app = behind("1")
    guesser, other = app.test_client(), app.test_client()
    for client, address in ((guesser, "198.51.100.1"), (other, "198.51.100.2")):
        client.environ_base.update(REMOTE_ADDR=PROXY, HTTP_X_FORWARDED_FOR=address)
    for n in range(BAD_LINKS.count):
        assert guesser.get(f"/p/guess{n}").status_code == 404
    assert guesser.get("/api/v1/seat/guess").status_code == 429
    assert other.get("/api/v1/seat/guess").status_code == 404


def test_the_forwarded_scheme_and_host_are_read_from_a_trusted_proxy_only(
    behind: Any, app: Any
) -> None:
    # A proxy that forwards to 127.0.0.1:8000 under that name, and says what the browser
    # asked for in X-Forwarded-Host: the form's Origin matches the site, not the upstream.
    forwarded = {
        "Host": "127.0.0.1:8000",
        "X-Forwarded-Host": "pbem.test",
        "X-Forwarded-Proto": "https",
        "Origin": "https://pbem.test",
    }
    assert ask(behind(PROXY), PROXY, "198.51.100.3", **forwarded) == 200
    assert ask(app, PROXY, "198.51.100.3", **forwarded) == 403
    assert ask(behind(PROXY), "192.0.2.1", "198.51.100.3", **forwarded) == 403


@pytest.mark.parametrize("setting", ["nginx", "1, 10.0.0.1", "10.0.0.1/8", "-1", "10.0.0.1,"])
def test_a_malformed_setting_is_refused_at_start(
    database_url: str, tmp_path: Any, monkeypatch: Any, setting: str
) -> None:
    with pytest.raises(ConfigError, match="PBEM_TRUSTED_PROXIES"):
        create_app(app_settings(database_url, tmp_path, TRUSTED_PROXIES=setting))
    monkeypatch.setenv("PBEM_TRUSTED_PROXIES", setting)
    with pytest.raises(ConfigError, match="PBEM_TRUSTED_PROXIES"):
        create_app(app_settings(database_url, tmp_path))
