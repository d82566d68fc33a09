"""Without PBEM_REPLY_DOMAIN, turn mails have no Reply-To and do not offer moves by mail."""

from __future__ import annotations

from pbem.config import settings_of
from tests.web.helpers import headline, start_game, text_of


def test_no_reply_domain_no_reply_to(client, app, smtpd):
    assert settings_of(app).reply_domain == ""
    start_game(client, app, smtpd)
    turn_mails = [m for m in smtpd.messages if headline(m).startswith("your move")]
    assert turn_mails
    for mail in smtpd.messages:
        assert mail["Reply-To"] is None
        assert "answer this mail" not in text_of(mail)


def test_pbem_inbound_needs_a_reply_domain(runner):
    result = runner.invoke(args=["inbound"])
    assert result.exit_code != 0 and "PBEM_REPLY_DOMAIN" in result.output
