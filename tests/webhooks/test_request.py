"""One webhook request over TLS, against a real HTTPS server on loopback with a test
certificate for hook.test (issue 30): the name is resolved once, the connection goes to
the address that was checked, and the name is kept for SNI, the certificate check and the
Host header."""

from __future__ import annotations

from pbem.clock.scheduler import drain_webhooks
from pbem.webhooks.request import post
from tests.webhooks.helpers import add_hook, move, seat_to_act


def test_the_request_goes_to_the_address_that_was_checked(app, tls_hooks, game, resolver):
    """DNS rebinding: the name answers a loopback address (allowed in tests) when checked,
    then a private one. The connection used to look the name up again and went there."""
    resolver.answer("hook.test", "127.0.0.1", "10.255.255.1")
    add_hook(app, game, seat_to_act(app, game), "table", tls_hooks.url("/tls"), "generic")
    move(app, game)
    assert drain_webhooks(app) == {"sent": 1, "failed": 0, "disabled": 0}
    assert resolver.calls == ["hook.test"]  # one lookup, at delivery
    (request,) = tls_hooks.to("/tls")
    port = tls_hooks.base.rsplit(":", 1)[1]
    assert request["headers"]["Host"] == f"hook.test:{port}"
    assert tls_hooks.names == ["hook.test"]  # SNI


def test_the_certificate_must_be_the_names_not_the_addresses(tls_hooks, resolver):
    """other.test resolves to the same server, whose certificate is for hook.test only."""
    resolver.answer("other.test", "127.0.0.1")
    port = tls_hooks.base.rsplit(":", 1)[1]
    answer = post(f"https://other.test:{port}/tls", b"{}", {}, 5.0, allow_loopback=True)
    assert answer.status == 0 and "CERTIFICATE_VERIFY_FAILED" in answer.error
    assert tls_hooks.to("/tls") == []
