"""A table of three (Ana, Léo, Zoé) whose seats' mail the tests of issue 46 turn bouncing,
as the scoring sweep leaves an address, and what its pages show of it."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from html import unescape
from typing import Any

from sqlmodel import select

from pbem.mailfix.tell import told_bouncing
from pbem.models import Game, MailAddress, Player
from pbem.storage.db import read_session, write_session
from tests.bounces.helpers import engine_of
from tests.clock.helpers import new_game

ANA, LEO, ZOE = ("Ana", "ana@example.org"), ("Léo", "leo@example.org"), ("Zoé", "zoe@example.org")
# Monday 2 March 2026, 08:00 UTC: the test clock starts at 09:00 that day.
SINCE = datetime(2026, 3, 2, 8, 0, tzinfo=UTC)
REASON = "550 5.1.1 <leo@example.org>: Recipient address rejected: User unknown"


def three_players(client: Any, app: Any, smtpd: Any) -> dict[str, str]:
    """Ana (the creator, first to move), Léo and Zoé at a Colour Bazaar table; their links."""
    return new_game(client, app, smtpd, [ANA, LEO, ZOE], **{"opt_colour-bazaar_first": "0"})


def mark(
    app: Any,
    address: str,
    state: str = "bouncing",
    since: datetime = SINCE,
    reason: str = REASON,
) -> None:
    """Write the address's row as the scoring sweep leaves it when it turns."""
    with write_session(engine_of(app)) as session:
        row = session.get(MailAddress, address) or MailAddress(address=address, updated_at=since)
        row.state, row.since, row.last_reason, row.score = state, since, reason, 4
        row.last_kind, row.last_bounce_at, row.updated_at = "hard", since, since
        session.add(row)


def tell(app: Any, address: str) -> None:
    """Tell the table, as the scoring sweep does in the transaction that turns the address."""
    with write_session(engine_of(app)) as session:
        row = session.get(MailAddress, address)
        assert row is not None
        told_bouncing(session, app.extensions["pbem"]["site"], row, app.config["CLOCK"]())


def set_player(app: Any, who: str, **fields: Any) -> None:
    """Change the player of address `who` (their language, zone, mail choice...)."""
    with write_session(engine_of(app)) as session:
        player = session.exec(select(Player).where(Player.email == who)).one()
        for name, value in fields.items():
            setattr(player, name, value)
        session.add(player)


def watch_link(app: Any, game_id: int = 1) -> str:
    with read_session(engine_of(app)) as session:
        game = session.get(Game, game_id)
        assert game is not None
        return str(app.extensions["pbem"]["site"].watch_url(game)).removeprefix("http://pbem.test")


def notices(html: str) -> list[str]:
    """The text of the page's notices about other seats' mail, one per seat."""
    found = re.findall(r'<section class="notice mail-note">(.*?)</section>', html, re.S)
    return [" ".join(unescape(re.sub(r"<[^>]+>", " ", n)).split()) for n in found]


def page(client: Any, link: str) -> str:
    answer = client.get(link)
    assert answer.status_code == 200
    return str(answer.get_data(as_text=True))
