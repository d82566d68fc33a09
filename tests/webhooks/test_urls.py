"""Which addresses a webhook may post to (issue 30): only global ones, and an IPv4 address
carried inside an IPv6 one must be global too. Checked when the webhook is added (a URL
naming an address) and at delivery on every address its name resolves to, with or
without the tests' loopback flag."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import func
from sqlmodel import select

from pbem.clock.scheduler import drain_webhooks
from pbem.models import Webhook
from pbem.storage.db import read_session
from pbem.webhooks.request import post
from pbem.webhooks.urls import WebhookError, addresses_of, check_url
from tests.web.helpers import link_in
from tests.webhooks.helpers import PLAYERS, add_hook, deliveries, engine_of, move, seat_to_act

REFUSED = [
    "100.100.100.200",  # a cloud's metadata service, in 100.64.0.0/10 (shared, carrier NAT)
    "100.64.0.1",
    "2002:c0a8:0101::1",  # 6to4 of 192.168.1.1
    "2002:7f00:1::1",  # 6to4 of 127.0.0.1
    "64:ff9b::10.0.0.1",  # NAT64 of 10.0.0.1
    "64:ff9b:1::a00:1",  # a local-use NAT64 prefix
    "::ffff:127.0.0.1",  # IPv4-mapped loopback
    "::ffff:169.254.169.254",
    "2001:0:4136:e378:8000:63bf:3fff:fdd2",  # Teredo
    "169.254.169.254",
    "10.0.0.5",
    "fc00::1",
    "fe80::1",
    "0.0.0.0",
    "::",
    "255.255.255.255",
    "224.0.0.1",
    "ff0e::1",
    "240.0.0.1",
]
PUBLIC = ["93.184.216.34", "2606:4700:4700::1111", "64:ff9b::93.184.216.34"]


def _url(address: str, path: str = "/hook") -> str:
    return f"https://[{address}]{path}" if ":" in address else f"https://{address}{path}"


@pytest.mark.parametrize("loopback", [False, True])
@pytest.mark.parametrize("address", REFUSED)
def test_an_address_outside_the_public_internet_is_refused_when_added(address, loopback):
    with pytest.raises(WebhookError) as info:
        check_url(_url(address), allow_loopback=loopback)
    assert info.value.key == "webhook.error.private"


@pytest.mark.parametrize("host", ["127.1", "2130706433", "0x7f000001", "0177.0.0.1", "10.1"])
def test_an_address_written_as_a_number_is_refused_when_added(host):
    """The forms inet_aton reads (and so the resolver answers with that address)."""
    with pytest.raises(WebhookError) as info:
        check_url(f"https://{host}/hook", allow_loopback=False)
    assert info.value.key == "webhook.error.private"


@pytest.mark.parametrize("loopback", [False, True])
@pytest.mark.parametrize("address", REFUSED)
def test_a_name_resolving_outside_the_public_internet_is_refused_at_delivery(
    address, loopback, resolver
):
    resolver.answer("hook.test", address)
    answer = post("https://hook.test/hook", b"{}", {}, 5.0, allow_loopback=loopback)
    assert answer.status == 0 and "private" in answer.error
    assert resolver.calls == ["hook.test"]  # looked up once, and no connection made


@pytest.mark.parametrize("address", PUBLIC)
def test_a_public_address_is_accepted(address, resolver):
    assert check_url(_url(address), allow_loopback=False) == _url(address)
    resolver.answer("hook.test", address)
    assert addresses_of("hook.test", 443, allow_loopback=False, seconds=5.0) == [address]


def test_one_private_address_among_public_ones_refuses_the_name(resolver):
    resolver.answer("hook.test", "93.184.216.34 100.100.100.200 2606:4700:4700::1111")
    with pytest.raises(WebhookError):
        addresses_of("hook.test", 443, allow_loopback=False, seconds=5.0)


def test_the_settings_page_refuses_those_addresses(app, client, game, smtpd):
    link = link_in(smtpd.to(PLAYERS[0].email)[0])
    for address in REFUSED:
        response = client.post(f"{link}/webhooks", data={"url": _url(address), "kind": "auto",
                                                        "scope": "mine"})  # fmt: skip
        assert response.status_code == 400, address
        assert "That address is inside a private network." in response.get_data(as_text=True)
    with read_session(engine_of(app)) as session:
        assert session.exec(select(func.count()).select_from(Webhook)).one() == 0


def test_a_webhook_whose_name_now_resolves_to_a_private_address_fails_and_waits(
    app, game, resolver
):
    """Added while its name was public; at delivery the name resolves to the metadata
    service: nothing is sent, and the event waits out its backoff like any failure."""
    add_hook(app, game, seat_to_act(app, game), "table", "https://hook.test/hook", "generic")
    resolver.answer("hook.test", "100.100.100.200")
    move(app, game)
    assert drain_webhooks(app) == {"sent": 0, "failed": 1, "disabled": 0}
    (row,) = deliveries(app)
    assert "private" in (row.last_error or "") and row.sent_at is None
    assert row.next_attempt_at == app.config["CLOCK"]() + timedelta(seconds=30)
