"""Invitations are no mail cannon (issue 48): a player sends at most 40 a day, an address gets
at most 3 a day from all leagues and games together, none from a player it said no to and
none once its mail is off; the refused sender is told why with a 429, never a 500."""

from __future__ import annotations

import threading
from typing import Any

from sqlmodel import select

from pbem.leagues import setup
from pbem.models import League, Player
from pbem.storage.allowance import INVITES_RECEIVED, INVITES_SENT
from pbem.storage.db import read_session, write_session
from tests.leagues.helpers import add_players, engine_site, post
from tests.web.helpers import deliver, sign_in_as


def outside(count: int, start: int = 0) -> list[str]:
    """Addresses nobody here plays with."""
    return [f"out{n}@elsewhere.example" for n in range(start, start + count)]


def make(client: Any, addresses: list[str], name: str = "Spam cup") -> Any:
    """The signed-in player's new league, inviting `addresses`."""
    return post(
        client, "/leagues", "", name=name, game="colour-bazaar", format="round_robin",
        most_players="32", invites="\n".join(addresses), days_per_move="3", takeover="casual",
    )  # fmt: skip


def leagues(app: Any) -> int:
    engine, _ = engine_site(app)
    with read_session(engine) as session:
        return len(list(session.exec(select(League))))


def mails_to(smtpd: Any, address: str) -> int:
    return len(smtpd.to(address))


def test_one_account_cannot_fire_leagues_of_invitations(
    app: Any, client: Any, smtpd: Any, clock: Any
) -> None:
    (ana,) = add_players(app, 1)
    sign_in_as(client, app, ana)
    assert make(client, outside(31)).status_code == 303
    over = make(client, outside(31, start=31), name="Spam cup 2")  # 62 would pass 40
    assert over.status_code == 429
    page = over.get_data(as_text=True)
    assert (
        f"These invitations would take you past {INVITES_SENT.count} in 24 hours, the most a "
        "player may send. Try again after Tue 3 Mar, 09:00 (UTC)." in page
    )
    assert make(client, outside(9, start=31)).status_code == 303  # 40 in all
    assert make(client, outside(1, start=40)).status_code == 429
    assert leagues(app) == 2
    deliver(app)
    assert all(mails_to(smtpd, a) == 1 for a in outside(40))
    assert mails_to(smtpd, "out40@elsewhere.example") == 0
    clock.advance(hours=24, seconds=1)  # the last 24 hours: the first invitations are done
    assert make(client, outside(31, start=41)).status_code == 303


def test_an_address_gets_a_few_invitations_a_day_from_everyone(
    app: Any, client: Any, smtpd: Any, clock: Any
) -> None:
    ids = add_players(app, INVITES_RECEIVED.count + 2)
    target = "target@elsewhere.example"
    for organiser in ids[: INVITES_RECEIVED.count]:
        sign_in_as(client, app, organiser)
        assert make(client, [target]).status_code == 303
    sign_in_as(client, app, ids[-2])
    refused = make(client, [target, "fine@elsewhere.example"])
    assert refused.status_code == 429
    page = refused.get_data(as_text=True)
    assert "cannot be invited just now: target@elsewhere.example." in page
    assert "fine@elsewhere.example." not in page.split("cannot be invited just now")[1][:60]
    # A game from the lobby counts with the leagues.
    game = {"game": "colour-bazaar", "name_0": "Eve", "email_0": "eve@example.org",
            "name_1": "T", "email_1": target}  # fmt: skip
    lobby = client.post("/games", data=game)
    assert lobby.status_code == 429
    assert "cannot be invited just now" in lobby.get_data(as_text=True)
    deliver(app)
    assert mails_to(smtpd, target) == INVITES_RECEIVED.count
    clock.advance(hours=24, seconds=1)
    assert make(client, [target]).status_code == 303


def test_no_invitation_after_a_no_or_with_mail_turned_off(app: Any, client: Any) -> None:
    ana, bea, cleo, dan = add_players(app, 4)
    engine, _ = engine_site(app)
    sign_in_as(client, app, ana)
    assert make(client, ["bea@example.org"]).status_code == 303
    with write_session(engine) as session:
        (league,) = session.exec(select(League))
        setup.decline(session, league.id or 0, bea)  # Bea says no to Ana
    again = make(client, ["bea@example.org"], name="Again")
    assert again.status_code == 429
    assert "cannot be invited just now: bea@example.org" in again.get_data(as_text=True)
    sign_in_as(client, app, cleo)
    assert make(client, ["bea@example.org"]).status_code == 303  # others still may
    with write_session(engine) as session:
        player = session.get(Player, dan)
        assert player is not None
        player.notify = "none"  # Dan turned his mail off (unsubscribed)
    assert make(client, ["dan@example.org"]).status_code == 429


def test_parallel_leagues_send_no_more_than_the_day_allows(app: Any) -> None:
    """Six leagues of 31 posted at once by one account: one gets through, no more."""
    (ana,) = add_players(app, 1)
    clients = [app.test_client() for _ in range(6)]
    for client in clients:
        sign_in_as(client, app, ana)
    barrier = threading.Barrier(len(clients))
    codes: list[int] = []

    def press(number: int, client: Any) -> None:
        barrier.wait()
        codes.append(make(client, outside(31, start=31 * number)).status_code)

    threads = [threading.Thread(target=press, args=pair) for pair in enumerate(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert sorted(codes) == [303] + [429] * 5
    assert leagues(app) == 1


def test_players_who_played_together_are_not_held_by_an_address_s_day(
    app: Any, client: Any
) -> None:
    """The cap on an address is for strangers: a stranger's flood does not stop the player
    who already plays with them."""
    ana, bea, cleo, dan, eli = add_players(app, 5)
    engine, site = engine_site(app)
    sign_in_as(client, app, ana)
    assert make(client, ["eli@example.org"], name="Friends").status_code == 303
    with write_session(engine) as session:
        (league,) = session.exec(select(League))
        setup.join(session, site, league.id or 0, eli, app.config["CLOCK"]())
    for stranger in (bea, cleo):
        sign_in_as(client, app, stranger)
        assert make(client, ["eli@example.org"]).status_code == 303
    sign_in_as(client, app, dan)
    assert make(client, ["eli@example.org"]).status_code == 429  # 3 today: no more
    sign_in_as(client, app, ana)  # Eli is in Ana's league
    assert make(client, ["eli@example.org"], name="Friends 2").status_code == 303


def lobby_game(client: Any, creator: str, guests: list[str]) -> Any:
    """The new-game form sent with `creator`'s address in the first row, inviting `guests`
    (at most 7: the form's rows)."""
    game = "colour-bazaar" if len(guests) < 2 else "fantasy-business"  # 2-3 and 3-8 players
    form = {"game": game, "name_0": "Me", "email_0": creator}
    for row, address in enumerate(guests, start=1):
        form |= {f"name_{row}": f"Guest {row}", f"email_{row}": address}
    return client.post("/games", data=form)


def test_a_stranger_typing_an_address_spends_none_of_its_owners_invitations(
    app: Any, client: Any, smtpd: Any
) -> None:
    """Signed out, the new-game form proves nobody's address: its invitations count against
    the network it came from, and the owner of the typed address keeps all 40 of theirs."""
    (ana,) = add_players(app, 1)
    stranger = app.test_client()
    sent = 0
    while sent < INVITES_SENT.count:
        guests = outside(min(5, INVITES_SENT.count - sent), start=100 + sent)
        assert lobby_game(stranger, "ana@example.org", guests).status_code == 303
        sent += len(guests)
    over = lobby_game(stranger, "ana@example.org", outside(1, start=99))
    assert over.status_code == 429  # the network's 40 are spent, not Ana's
    assert "Sign in to send them as yourself" in over.get_data(as_text=True)
    sign_in_as(client, app, ana)
    for start in range(0, INVITES_SENT.count, 5):
        assert lobby_game(client, "ana@example.org", outside(5, start=start)).status_code == 303
    assert lobby_game(client, "ana@example.org", outside(1, start=40)).status_code == 429
    deliver(app)
    assert all(mails_to(smtpd, a) == 1 for a in outside(40) + outside(40, start=100))


def test_a_typed_address_borrows_no_friendship(app: Any, client: Any) -> None:
    """An address's cap is waived for players it has played with, but only for the player
    signed in: a stranger typing a friend's address as the creator is still capped."""
    ana, eli = add_players(app, 5)[0::4]
    engine, site = engine_site(app)
    sign_in_as(client, app, ana)
    assert make(client, ["eli@example.org"], name="Friends").status_code == 303
    with write_session(engine) as session:
        (league,) = session.exec(select(League))
        setup.join(session, site, league.id or 0, eli, app.config["CLOCK"]())
    # Ana's league invitation was Eli's first of the day (they had not played yet then).
    stranger = app.test_client()
    codes = [
        lobby_game(stranger, "ana@example.org", ["eli@example.org"]).status_code
        for _ in range(INVITES_RECEIVED.count)
    ]
    assert codes == [303] * (INVITES_RECEIVED.count - 1) + [429]
    assert lobby_game(client, "ana@example.org", ["eli@example.org"]).status_code == 303
