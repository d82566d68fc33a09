"""French subjects fold without losing a space: a long subject with U+00A0 is sent as built."""

from __future__ import annotations

from datetime import UTC, datetime
from email import policy
from email.parser import BytesParser

import pytest

from pbem.mailer import UnsafeMessage, build_message, check_headers
from pbem.models import Outbox

SUBJECTS = [
    "Fantasy Business #1 avec Léo, Zoé et Inès\u00a0: à vous de jouer (coup 1)",
    "Colour Bazaar #12 avec Ana et Léo\u00a0: à vous de jouer (2\u00a0jours restants) (urgent)",
    "Fantasy Business #3 avec Ana, Léo, Zoé, Inès, Théo, Noé et Maël\u00a0: manche 4, vos limites",
]


def _turn_mail(subject: str) -> Outbox:
    """A rendered turn mail to Léo with this subject."""
    now = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
    return Outbox(
        event="your_turn",
        to_addr="leo@example.org",
        to_name="Léo",
        subject=subject,
        body_text="Bonjour Léo\u00a0: c'est à vous.\n",
        body_html="<p>Bonjour Léo\u00a0: c'est à vous.</p>",
        message_id="<m1@pbem.test>",
        created_at=now,
        next_attempt_at=now,
    )


@pytest.mark.parametrize("subject", SUBJECTS)
def test_a_long_french_subject_reaches_the_reader_as_written(subject: str) -> None:
    row = _turn_mail(subject)
    msg = build_message(row, "pbem@example.org", "pbem")
    check_headers(msg)  # would raise UnsafeMessage if a space were lost in folding
    back = BytesParser(policy=policy.default).parsebytes(msg.as_bytes())
    assert back["Subject"] == subject
    assert back.get_body(("plain",)).get_content() == row.body_text


@pytest.mark.parametrize(
    "subject",
    ["=?utf-8?q?R=0D=0AReply-To:_x@evil.test?=", "=?utf-8?b?Ug0KUmVwbHktVG86IHhAZXZpbC50ZXN0?="],
)
def test_a_header_that_would_write_a_new_header_is_refused(subject: str) -> None:
    """The last guard: a header value Python's email package would write out with CR LF
    inside (an encoded word, CVE-2024-6923) is caught before sending, whatever let it in."""
    msg = build_message(_turn_mail("placeholder"), "pbem@example.org", "pbem")
    msg.replace_header("Subject", subject)  # past build_message's own cleaning
    with pytest.raises(UnsafeMessage, match="reply-to"):
        check_headers(msg)
