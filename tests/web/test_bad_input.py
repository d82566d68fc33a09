"""Bad input never gives a 5xx, and cannot inject mail headers."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlmodel import select

from pbem.config import settings_of
from pbem.models import Outbox
from pbem.storage.db import read_session, write_session
from tests.web.helpers import deliver, first_mover, form_with, headline, hidden, link_in, snapshot

FUZZ = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
junk = st.text(max_size=60)
maybe_junk = st.one_of(st.none(), junk, st.sampled_from(["", "0", "-1", "99", "none", "12abc"]))


def _form(values: dict[str, Any]) -> dict[str, str]:
    return {k: v for k, v in values.items() if v is not None}


EVIL_NAMES = [
    "Ana\r\nBcc: evil@example.org",
    "Ana\nX-Evil: 1",
    "Ana\rX-Evil: 1",
    "=?utf-8?q?Ana=0D=0ABcc=3A_evil=40example=2Eorg?=",
    "=?utf-8?b?QW5hDQpCY2M6IGV2aWxAZXhhbXBsZS5vcmc=?=",
    "Ana\x00Bcc: evil@example.org",
    "Ana\u2028Bcc: evil@example.org",
]
EXPECTED_HEADERS = {
    "From",
    "To",
    "Subject",
    "Date",
    "Message-ID",
    "In-Reply-To",
    "References",
    "Auto-Submitted",
    "Content-Type",
    "MIME-Version",
}


def test_names_cannot_inject_mail_headers(client: Any, app: Any, smtpd: Any) -> None:
    for n, evil in enumerate(EVIL_NAMES):
        form = {
            "game": "colour-bazaar",
            "name_0": evil,
            "email_0": f"a{n}@example.org",
            "name_1": "Léo" + evil,
            "email_1": f"l{n}@example.org",
        }
        assert client.post("/games", data=form).status_code == 303, evil
    deliver(app)
    assert len(smtpd.messages) == 2 * len(EVIL_NAMES)
    for msg in smtpd.messages:
        names = {name for name in msg.keys()}
        assert names <= EXPECTED_HEADERS | {"List-Unsubscribe", "List-Unsubscribe-Post"}, names
        assert msg["Bcc"] is None and msg["X-Evil"] is None
        for value in msg.values():
            assert "\n" not in str(value) and "\r" not in str(value) and "\x00" not in str(value)
        (address,) = msg["To"].addresses  # one recipient, whatever the name holds
        assert address.addr_spec.endswith("@example.org") and "evil" not in address.addr_spec


ENCODED_WORD_NAMES = [
    "=?utf-8?q?R=0D=0AReply-To:_x@evil.test?=",
    "=?utf-8?b?UkNcclxuUmVwbHktVG86IHhAZXZpbC50ZXN0?=",
    "=?utf-8?b?Ug0KUmVwbHktVG86IHhAZXZpbC50ZXN0?=",
    "=?UTF-8?Q?R=0AReply-To:_x@evil.test?=",
]


def header_block(raw: bytes) -> list[str]:
    """The header lines of a delivered message, exactly as the server received them."""
    head = raw.replace(b"\r\n", b"\n").split(b"\n\n", 1)[0].decode("ascii", "replace")
    return head.split("\n")


def test_encoded_words_in_names_reach_no_header(client: Any, app: Any, smtpd: Any) -> None:
    """CVE-2024-6923: the email package decodes an encoded word and writes its CR LF raw."""
    for n, evil in enumerate(ENCODED_WORD_NAMES):
        form = {
            "game": "colour-bazaar",
            "name_0": evil,
            "email_0": f"a{n}@example.org",
            "name_1": evil[:20],
            "email_1": f"l{n}@example.org",
        }
        assert client.post("/games", data=form).status_code == 303, evil
    deliver(app)
    assert len(smtpd.raw) == 2 * len(ENCODED_WORD_NAMES)
    for raw in smtpd.raw:
        lines = header_block(raw)
        starts = [line.split(":", 1)[0].lower() for line in lines if not line[:1].isspace()]
        assert "reply-to" not in starts, lines
        assert not any(
            "evil.test" in line
            and line.lower().startswith(("to:", "reply-to:", "cc:", "bcc:"))
            and "<" not in line
            for line in lines
        )
        assert sorted(set(starts)) == sorted(
            set(starts)
            & {
                h.lower()
                for h in EXPECTED_HEADERS
                | {"List-Unsubscribe", "List-Unsubscribe-Post", "Content-Transfer-Encoding"}
            }
        ), starts
    for msg in smtpd.messages:
        assert msg["Reply-To"] is None
        (address,) = msg["To"].addresses
        assert address.addr_spec.endswith("@example.org")


def test_a_mail_whose_headers_would_change_is_never_sent(
    client: Any, app: Any, smtpd: Any, caplog: Any
) -> None:
    """Whatever slips past the input checks, a mail is sent only if its bytes parse back
    to the headers it was built with."""
    form = {"game": "colour-bazaar", "name_0": "Ana", "email_0": "ana@example.org"}
    form |= {"name_1": "Léo", "email_1": "leo@example.org"}
    assert client.post("/games", data=form).status_code == 303
    engine = app.extensions["pbem"]["engine"]
    # Rendered and stored by the sender, which then found its SMTP server down (each drain
    # stops at the first mail it cannot send): both wait to be tried again.
    port, clock = smtpd.port, app.config["CLOCK"]
    settings_of(app).smtp_port = 1  # nothing listens there: connection refused
    assert deliver(app) == {"sent": 0, "failed": 1}
    assert deliver(app) == {"sent": 0, "failed": 1}  # the other, the first waiting
    settings_of(app).smtp_port = port
    with read_session(engine) as session:
        queued = list(session.exec(select(Outbox)))
    assert len(queued) == 2 and all(r.rendered_at and r.sent_at is None for r in queued)
    clock.advance(minutes=1)  # past their backoff
    with write_session(engine) as session:
        row = session.exec(select(Outbox).where(Outbox.to_addr == "leo@example.org")).one()
        # A header that does not survive serialisation as built (say, from an old row).
        row.headers = {**row.headers, "X-Game: 1\r\nReply-To": "x@evil.test"}
        session.add(row)
    caplog.clear()  # the log says why now, not what the failed drains said
    with caplog.at_level("ERROR", logger="pbem"):
        result = deliver(app)
    assert result == {"sent": 1, "failed": 1}
    assert [str(m["To"]) for m in smtpd.messages] == ["Ana <ana@example.org>"]
    assert "refused, not sent" in caplog.text and "leo@example.org" in caplog.text
    clock.advance(days=30)
    deliver(app)
    assert len(smtpd.messages) == 1  # never retried
    with read_session(engine) as session:
        row = session.exec(select(Outbox).where(Outbox.to_addr == "leo@example.org")).one()
        assert row.sent_at is None and row.last_error.startswith("refused")


@FUZZ
@given(
    game=st.one_of(st.sampled_from(["colour-bazaar", "fantasy-business"]), junk),
    name=junk,
    email=junk,
    courts=maybe_junk,
    first=maybe_junk,
    days=maybe_junk,
    reminders=maybe_junk,
    absent=maybe_junk,
)
def test_lobby_form_fuzz(
    client: Any,
    game: str,
    name: str,
    email: str,
    courts: Any,
    first: Any,
    days: Any,
    reminders: Any,
    absent: Any,
) -> None:
    form = _form(
        {
            "game": game,
            "name_0": name,
            "email_0": email,
            "name_1": "Léo",
            "email_1": "leo@example.org",
            "opt_colour-bazaar_courts": courts,
            "opt_colour-bazaar_first": first,
            "days_per_move": days,
            "reminders": reminders,
            "absent_after": absent,
        }
    )
    assert client.post("/games", data=form).status_code < 500


@FUZZ
@given(
    path=st.one_of(junk, st.text(alphabet="ABCDEFabcdef0123456789._-", max_size=120)),
    prefix=st.sampled_from(["/p/", "/w/", "/u/", "/mailbox/", "/p/x/", "/static/"]),
    suffix=st.sampled_from(["", "/move", "/join", "/settings", "/html"]),
    lang=maybe_junk,
)
def test_url_fuzz(client: Any, path: str, prefix: str, suffix: str, lang: Any) -> None:
    url = prefix + quote(path, safe="") + suffix + (f"?lang={quote(lang)}" if lang else "")
    assert client.get(url).status_code < 500
    assert client.post(url, data={"x": "1"}).status_code < 500


@FUZZ
@given(data=st.data())
def test_seat_forms_fuzz(client: Any, app: Any, smtpd: Any, data: Any) -> None:
    if not smtpd.messages:
        first_mover(client, app, smtpd)
    mover = next(m for m in smtpd.messages if "your move" in headline(m))
    link = link_in(mover)
    page = client.get(link).get_data(as_text=True)
    base = hidden(form_with(page, "/move"))
    before = snapshot(app)
    fields = data.draw(
        st.fixed_dictionaries(
            {},
            optional={
                "turn": maybe_junk,
                "play": maybe_junk,
                "chip": maybe_junk,
                "confirm": maybe_junk,
                "suit": maybe_junk,
            },
        )
    )
    response = client.post(f"{link}/move", data={**base, **_form(fields), "confirm": "1"})
    assert response.status_code < 500
    if response.status_code != 303:
        assert snapshot(app) == before
    settings_form = data.draw(
        st.fixed_dictionaries(
            {
                "lang": st.one_of(st.sampled_from(["en", "fr"]), junk),
                "tz": st.one_of(st.sampled_from(["UTC", "Europe/Paris"]), junk),
                "notify": st.one_of(st.sampled_from(["every", "digest"]), junk),
            }
        )
    )
    assert client.post(f"{link}/settings", data=settings_form).status_code < 500
    assert (
        client.post(f"{link}/vacation", data=_form({"days": data.draw(maybe_junk)})).status_code
        < 500
    )
    assert (
        client.post(
            f"{link}/extend",
            data=_form({"seat": data.draw(maybe_junk), "days": data.draw(maybe_junk)}),
        ).status_code
        < 500
    )
    for action in ("join", "decline", "cancel", "back", "vacation/end"):
        assert client.post(f"{link}/{action}").status_code < 500


def fantasy_business_mover(client: Any, app: Any) -> str:
    """A started 3-player Fantasy Business game; the link of a seat due to act."""
    from pbem.games import GAMES
    from pbem.models import Game
    from pbem.play import Invitee, create_game, join
    from pbem.storage.db import read_session, write_session
    from pbem.storage.store import seats_of

    ext = app.extensions["pbem"]
    now = app.config["CLOCK"]()
    with write_session(ext["engine"]) as session:
        people = [Invitee(n, f"{n}@example.org") for n in ("ana", "leo", "zoe")]
        game = create_game(session, ext["site"], "fantasy-business", people, {}, now, seed=9)
        for seat in (1, 2):
            join(session, ext["site"], game.id, seat, now)
        links = [ext["site"].seat_url(s).split("pbem.test")[1] for s in seats_of(session, game)]
    with read_session(ext["engine"]) as session:
        state = session.get(Game, 1).state
    return links[GAMES["fantasy-business"].to_act(state)[0]]


@FUZZ
@given(data=st.data())
def test_fantasy_business_forms_fuzz(client: Any, app: Any, data: Any) -> None:
    if not hasattr(app, "_fb_link"):
        app._fb_link = fantasy_business_mover(client, app)
    link = app._fb_link
    base = hidden(form_with(client.get(link).get_data(as_text=True), "/move"))
    action = data.draw(
        st.one_of(
            st.sampled_from(
                [
                    "choose",
                    "bid",
                    "pass",
                    "take",
                    "done",
                    "prices",
                    "play:theft-1",
                    "play:",
                    "play:x",
                ]
            ),
            junk,
        )
    )
    fields = data.draw(
        st.fixed_dictionaries(
            {},
            optional={
                "slot": maybe_junk,
                "amount": maybe_junk,
                "price_herbs": maybe_junk,
                "price_swords": maybe_junk,
                "pick_theft-1": maybe_junk,
                "turn": maybe_junk,
            },
        )
    )
    before = snapshot(app)
    for confirm in ("", "1"):
        sent = {**base, **_form(fields), "action": action, "confirm": confirm}
        response = client.post(f"{link}/move", data=sent)
        assert response.status_code < 500
        if response.status_code != 303:
            assert snapshot(app) == before
