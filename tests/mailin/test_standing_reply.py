"""Standing orders by mail: "standing: ..." lines under the move in a reply to a Fantasy
Business turn mail keep the seat's orders (English or French), which then play for it; a
line that sets none refuses the whole reply, and nothing is played."""

from __future__ import annotations

from typing import Any

from sqlmodel import select

from pbem import play
from pbem.models import Seat
from pbem.plans import seat_orders
from pbem.storage.db import read_session, write_session
from tests.mailin.helpers import answer, example_in, game_row, send, turn_mail
from tests.plans.orders_game import logged
from tests.web.helpers import deliver

PEOPLE = [
    play.Invitee("Ana", "ana@example.org", "en"),
    play.Invitee("Léo", "leo@example.org", "fr"),
    play.Invitee("Zoé", "zoe@example.org", "en"),
]


def three_players(app: Any, clock: Any) -> int:
    engine, site = app.extensions["pbem"]["engine"], app.extensions["pbem"]["site"]
    with write_session(engine) as session:
        game = play.create_game(
            session, site, "fantasy-business", PEOPLE, {"auction": "open"}, clock(), seed=5
        )
        game_id = game.id
    with write_session(engine) as session:
        for seat in (1, 2):
            play.join(session, site, game_id, seat, clock())
    deliver(app)
    assert game_id is not None
    return game_id


def all_orders(app: Any, game_id: int) -> list[dict[str, Any]]:
    with read_session(app.extensions["pbem"]["engine"]) as session:
        rows = session.exec(select(Seat).where(Seat.game_id == game_id).order_by(Seat.seat))
        return [seat_orders.orders_of(seat) for seat in rows.all()]


def test_a_reply_keeps_standing_orders(app, smtpd, inbound, clock) -> None:
    game_id = three_players(app, clock)
    mail = turn_mail(smtpd)
    body = f"{example_in(mail)}\nstanding: pass above 0\nordres : prix de base\n"
    code, _ = send(inbound, answer(mail, body))
    assert code == 250
    assert game_row(app, game_id).ply >= 1
    orders = all_orders(app, game_id)
    assert {"pass_above": 0, "base_prices": True} in orders
    seat = orders.index({"pass_above": 0, "base_prices": True})
    # Every lot costs more than 0: whenever the auction comes to the seat, it passes.
    mine = [m for m in logged(app, game_id) if m.source == "standing"]
    assert mine and all(m.seat == seat and m.move == {"action": "pass"} for m in mine)

    deliver(app)
    later = turn_mail(smtpd)
    code, _ = send(inbound, answer(later, f"{example_in(later)}\nstanding: none\n"))
    assert code == 250


def test_a_standing_line_that_sets_nothing_refuses_the_reply(app, smtpd, inbound, clock) -> None:
    game_id = three_players(app, clock)
    mail = turn_mail(smtpd)
    code, _ = send(inbound, answer(mail, f"{example_in(mail)}\nstanding: sometimes maybe\n"))
    assert code == 250
    assert game_row(app, game_id).ply == 0
    assert all(orders == {} for orders in all_orders(app, game_id))
