"""Fuzzed replies through real SMTP: the listener always answers with an SMTP code, never
applies more than one move per mail, and a second copy of any mail changes nothing."""

from __future__ import annotations

from collections import Counter
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlmodel import select

from pbem.models import Game
from pbem.storage.db import read_session
from tests.mailin.helpers import EXAMPLE, PLAYERS, addr, answer, example_in, send
from tests.web.helpers import deliver, text_of

WORDS = st.sampled_from(
    "play jouer discard défausser chip jeton castle château knots nœuds moons lunes ace as "
    "of de the le 1 2 3 4 5 0 99 -- > On wrote: bid pass take done swords 6 market marché "
    "\u00a0 é œ ☃ \x00 \r \t".split(" ")
)
BODIES = st.one_of(
    st.text(max_size=300),
    st.lists(WORDS, max_size=25).map(" ".join),
    st.lists(st.lists(WORDS, max_size=8).map(" ".join), max_size=6).map("\n".join),
)
HEADERS = st.dictionaries(
    st.sampled_from(
        [
            "Auto-Submitted",
            "Precedence",
            "List-Id",
            "X-Autoreply",
            "Subject",
            "Content-Type",
            "Message-ID",
            "From",
        ]
    ),  # fmt: skip
    st.text(alphabet=st.characters(blacklist_categories=["Cs"]), max_size=60),
    max_size=3,
)
TALLY: Counter[str] = Counter()


def _ply(app: Any) -> int:
    with read_session(app.extensions["pbem"]["engine"]) as session:
        return session.exec(select(Game)).one().ply


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    derandomize=True,
)
@given(
    body=BODIES,
    headers=st.one_of(st.just({}), HEADERS),
    raw=st.booleans(),
    junk=st.binary(max_size=400),
    lead=st.sampled_from(["", "move", "move", "move-after"]),
)
def test_fuzzed_replies_never_crash_and_never_apply_twice(
    app,
    smtpd,
    inbound,
    game,
    clock,
    body,
    headers,
    raw,
    junk,
    lead,
):
    deliver(app)
    mail = [m for m in smtpd.messages if EXAMPLE.search(text_of(m))][-1]  # the newest turn mail
    if raw:
        # Bytes that may not even be a mail, addressed to a real reply address.
        payload = b"From: " + addr(mail["To"]).encode() + b"\r\n" + junk
    else:
        if lead == "move":  # a real move with junk after it, or junk then the move
            body = example_in(mail) + "\n" + body
        elif lead == "move-after":
            body = body + "\n" + example_in(mail)
        reply = answer(mail, body)
        for name, value in headers.items():
            try:
                del reply[name]
                reply[name] = value
            except (ValueError, TypeError, IndexError):
                pass  # the email package refuses this header value: skip it
        try:
            payload = reply.as_bytes()
        except Exception:  # the email package cannot write this message: nothing to send
            return
    before = _ply(app)
    handler = inbound.handler
    seen = len(handler.verdicts)
    to, sender = addr(mail["Reply-To"]), addr(mail["To"])
    first = send(inbound, payload, to=to, envelope_from=sender)
    after = _ply(app)
    second = send(inbound, payload, to=to, envelope_from=sender)
    assert first[0] in (250, 451, 550, 552) and second[0] in (250, 451, 550, 552)
    assert after - before in (0, 1)  # at most one move per mail
    assert _ply(app) == after  # the second copy changes nothing
    if lead == "move" and not raw and not headers and first[0] == 250 and before < 30:
        assert after == before + 1, body  # a move in the first line, whatever follows, plays
    for verdict in handler.verdicts[seen:]:
        TALLY[f"{verdict.status}:{verdict.reason}" if verdict.reason else verdict.status] += 1
    if first[0] == 552:
        TALLY["rejected:too_big"] += 1
    clock.advance(minutes=2)


def test_fuzz_tally_is_reported(capsys):
    """Print what the listener did with the fuzzed mails (for the report), if they ran."""
    with capsys.disabled():
        print("\ninbound fuzz verdicts:", dict(sorted(TALLY.items())))


def test_a_good_move_still_plays_after_junk(app, smtpd, inbound, game):
    mail = [m for m in smtpd.messages if m["Reply-To"] is not None][-1]
    assert send(inbound, b"\x00" * 50, to=addr(mail["Reply-To"]), envelope_from=PLAYERS[0].email)
    assert send(inbound, answer(mail, example_in(mail)))[0] == 250
    assert _ply(app) == 1
