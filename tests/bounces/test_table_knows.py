"""The table knows whose mail no longer goes out (issue 46): the other seats' pages and turn
mails say so (the spectator's page too, without the report's text), the API says `mail` per
seat, the game's creator gets one mail and the table's webhooks one event, however often
the table is told; no clock changes; and none of it names a card or an address.

An address is made bouncing here by writing its MailAddress row, as the scoring sweep does,
and the table is told by calling told_bouncing, as the sweep does when the state turns."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from html import unescape
from typing import Any

import pytest
from sqlmodel import select

from pbem import play
from pbem.games import GAMES
from pbem.models import MailAddress, Outbox, Player, Seat, Webhook, WebhookDelivery
from pbem.present.text import card_name
from pbem.storage.db import read_session, write_session
from pbem.webhooks.events import body_of
from tests.bounces.helpers import engine_of
from tests.bounces.table import (
    ANA,
    LEO,
    ZOE,
    mark,
    notices,
    page,
    set_player,
    tell,
    three_players,
    watch_link,
)
from tests.clock.helpers import moves, run_sweep
from tests.web.helpers import deliver, html_of, play_turn, state_of, text_of

SHOWN_REASON = "550 5.1.1 …: Recipient address rejected: User unknown"
NOTICE = {
    "en": "Mail to Léo has bounced since Monday 2 March: they may not know when it is their turn.",
    "fr": "Les mails à Léo reviennent depuis le lundi 2 mars : Léo ne sait peut-être pas quand "
    "c'est son tour.",
}


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_the_other_seats_and_a_spectator_see_the_notice_and_no_report(
    client: Any, app: Any, smtpd: Any, lang: str
) -> None:
    links = three_players(client, app, smtpd)
    set_player(app, ANA[1], lang=lang)
    set_player(app, ZOE[1], lang=lang)
    for link in (links[ANA[1]], links[ZOE[1]]):
        assert notices(page(client, link)) == []
    mark(app, LEO[1])
    for link in (links[ANA[1]], links[ZOE[1]]):
        (notice,) = notices(page(client, link))
        assert NOTICE[lang] in notice
        assert "550" not in notice and "Recipient" not in notice  # the report: its owner's
        assert LEO[1] not in page(client, link)
    # Léo himself gets the prompt, not the notice about himself.
    own = page(client, links[LEO[1]])
    assert notices(own) == [] and 'id="mail-prompt"' in own
    # The spectator is told, in words that name no report and no address.
    (notice,) = notices(page(client, watch_link(app)))
    assert NOTICE["en"] in notice
    assert "550" not in page(client, watch_link(app)) and LEO[1] not in page(
        client, watch_link(app)
    )
    # A complaint reads as mail stopped, with no reason given to anyone.
    mark(app, LEO[1], state="complained", reason="")
    (notice,) = notices(page(client, links[ANA[1]]))
    stopped = {"en": "pbem has stopped mailing Léo since Monday 2 March", "fr": "pbem n'écrit plus"}
    assert stopped[lang] in notice and "550" not in notice


def test_the_day_is_the_viewers_own(client: Any, app: Any, smtpd: Any) -> None:
    links = three_players(client, app, smtpd)
    set_player(app, ANA[1], tz="Pacific/Auckland")
    mark(app, LEO[1], since=datetime(2026, 3, 2, 20, 0, tzinfo=UTC))  # Tuesday morning there
    assert "since Tuesday 3 March" in notices(page(client, links[ANA[1]]))[0]
    assert "since Monday 2 March" in notices(page(client, links[ZOE[1]]))[0]


def api_mail(client: Any, path: str) -> list[str]:
    answer = client.get(path)
    assert answer.status_code == 200
    return [seat["mail"] for seat in answer.get_json()["game"]["seats"]]


def test_the_api_says_ok_bouncing_or_off_per_seat(client: Any, app: Any, smtpd: Any) -> None:
    links = three_players(client, app, smtpd)
    ana_api = "/api/v1/seat/" + links[ANA[1]].rsplit("/", 1)[1]
    watch_api = "/api/v1/watch/" + watch_link(app).rsplit("/", 1)[1]
    assert api_mail(client, ana_api) == ["ok", "ok", "ok"]
    mark(app, LEO[1])
    set_player(app, ZOE[1], notify="none")  # she asked for no turn mails
    assert api_mail(client, ana_api) == ["ok", "bouncing", "off"]
    assert api_mail(client, watch_api) == ["ok", "bouncing", "off"]
    mark(app, LEO[1], state="complained")
    assert api_mail(client, watch_api) == ["ok", "off", "off"]
    # No report's text or address in the answer, to a seat or a spectator.
    for path in (ana_api, watch_api):
        assert "550" not in client.get(path).get_data(as_text=True)
        assert LEO[1] not in client.get(path).get_data(as_text=True)


def test_a_computer_seat_is_off_and_never_bounces(app: Any, client: Any) -> None:
    ext = app.extensions["pbem"]
    invitees = [play.Invitee("Ana", ANA[1]), play.Invitee("Casual", "", "en", "casual")]
    with write_session(ext["engine"]) as session:
        now = app.config["CLOCK"]()
        game = play.create_game(session, ext["site"], "colour-bazaar", invitees, {"first": 0}, now)
        seats = session.exec(select(Seat).where(Seat.game_id == game.id).order_by(Seat.seat))
        ana, casual = seats.all()
        link = ext["site"].seat_url(ana).removeprefix("http://pbem.test")
        computer = session.get(Player, casual.player_id)
        assert computer is not None and casual.computer
    mark(app, computer.email)  # even a row for its address changes nothing
    api = "/api/v1/seat/" + link.rsplit("/", 1)[1]
    assert api_mail(client, api) == ["ok", "off"]
    assert notices(page(client, link)) == []


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_the_other_seats_turn_mails_say_it(client: Any, app: Any, smtpd: Any, lang: str) -> None:
    links = three_players(client, app, smtpd)
    set_player(app, ZOE[1], lang=lang)
    mark(app, LEO[1])
    play_turn(client, links[ANA[1]])  # Léo's turn: his mail bounces
    play_turn(client, links[LEO[1]])  # he moved all the same: Zoé's turn
    smtpd.clear()
    deliver(app)
    (mail,) = smtpd.to(ZOE[1])
    text = text_of(mail).replace("\u00a0", " ")
    assert NOTICE[lang] in text
    assert NOTICE[lang] in unescape(html_of(mail)).replace("\u00a0", " ")
    assert SHOWN_REASON not in text and LEO[1] not in text  # no report in a turn mail
    # Mail comes back on: the next turn mail says nothing of it.
    with write_session(engine_of(app)) as session:
        row = session.get(MailAddress, LEO[1])
        assert row is not None
        row.state = "ok"
        session.add(row)
    play_turn(client, links[ZOE[1]])
    play_turn(client, links[ANA[1]])
    play_turn(client, links[LEO[1]])
    smtpd.clear()
    deliver(app)
    (mail,) = smtpd.to(ZOE[1])
    assert "bounced" not in text_of(mail) and "reviennent" not in text_of(mail)


def add_hooks(app: Any) -> None:
    """The table's webhook (Ana's, the creator's) and Léo's own webhook."""
    now = app.config["CLOCK"]()
    with write_session(engine_of(app)) as session:
        ana = session.exec(select(Player).where(Player.email == ANA[1])).one()
        leo = session.exec(select(Player).where(Player.email == LEO[1])).one()
        for owner, game_id, kind in ((ana, 1, "generic"), (leo, None, "generic")):
            session.add(
                Webhook(
                    player_id=owner.id or 0,
                    game_id=game_id,
                    kind=kind,
                    url="https://hooks.example.org/in",
                    secret="s" * 32,
                    created_at=now,
                )
            )


def bouncing_mails(app: Any) -> list[Outbox]:
    with read_session(engine_of(app)) as session:
        return list(session.exec(select(Outbox).where(Outbox.event == "mail_bouncing")))


def hook_events(app: Any) -> list[tuple[WebhookDelivery, Webhook]]:
    with read_session(engine_of(app)) as session:
        rows = session.exec(
            select(WebhookDelivery, Webhook)
            .join(Webhook, Webhook.id == WebhookDelivery.webhook_id)  # type: ignore[arg-type]
            .where(WebhookDelivery.event == "mail_bouncing")
        )
        return list(rows.all())


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_the_creator_gets_one_mail_and_the_table_webhook_one_event(
    client: Any, app: Any, smtpd: Any, lang: str
) -> None:
    three_players(client, app, smtpd)
    set_player(app, ANA[1], lang=lang)
    add_hooks(app)
    mark(app, LEO[1])
    tell(app, LEO[1])
    tell(app, LEO[1])  # told twice for the same turn of the address: told once
    smtpd.clear()
    deliver(app)
    (mail,) = smtpd.messages
    assert mail["To"].addresses[0].addr_spec == ANA[1]  # the creator; not Léo, not Zoé
    text = text_of(mail).replace("\u00a0", " ")
    first = {
        "en": "Mail to Léo has bounced since Monday 2 March.",
        "fr": "Les mails à Léo reviennent depuis le lundi 2 mars.",
    }
    assert text.startswith(first[lang]), text
    assert "550" not in text  # the report's words are Léo's to see, and the operator's
    assert LEO[1] not in text and LEO[1] not in html_of(mail)
    assert "/p/" in text  # her own seat's link
    ((event, hook),) = hook_events(app)
    assert hook.game_id == 1  # the table's, not Léo's own webhook
    with write_session(engine_of(app)) as session:
        body = json.loads(body_of(session, session.get(WebhookDelivery, event.id), hook))
    assert body["event"] == "mail_bouncing" and body["player"] == "Léo" and body["seat"] == 1
    said = {"en": "pbem can no longer reach Léo by mail", "fr": "pbem ne peut plus joindre Léo"}
    assert said[lang] in body["text"] and "/w/" in body["link"]
    assert LEO[1] not in json.dumps(body) and "550" not in json.dumps(body)
    # Mail back on, then bouncing again later: a new turn of the address is told again.
    mark(app, LEO[1], since=datetime(2026, 3, 9, 8, 0, tzinfo=UTC))
    tell(app, LEO[1])
    assert len(bouncing_mails(app)) == 2 and len(hook_events(app)) == 2


def test_nobody_is_mailed_when_the_creator_is_the_one_whose_mail_fails(
    client: Any, app: Any, smtpd: Any
) -> None:
    three_players(client, app, smtpd)
    add_hooks(app)
    mark(app, ANA[1], reason="552 5.2.2 mailbox full")
    tell(app, ANA[1])
    # Her mail would not reach her, and the others read it on their pages and turn mails.
    assert bouncing_mails(app) == []
    assert len(hook_events(app)) == 1  # the table's chat room still hears it
    # A creator whose own mail does not go out is not mailed either.
    mark(app, LEO[1])
    tell(app, LEO[1])
    assert bouncing_mails(app) == []


def test_a_complaint_is_told_without_a_reason_and_an_invitation_as_such(
    client: Any, app: Any, smtpd: Any
) -> None:
    data = {"game": "colour-bazaar"}
    for row, (name, email) in enumerate([ANA, LEO]):
        data[f"name_{row}"], data[f"email_{row}"] = name, email
    assert client.post("/games", data=data).status_code == 303  # Léo has not joined yet
    deliver(app)
    mark(app, LEO[1], state="complained", reason="")
    tell(app, LEO[1])
    smtpd.clear()
    deliver(app)
    (mail,) = smtpd.to(ANA[1])
    text = text_of(mail)
    assert text.startswith("pbem has stopped mailing Léo since Monday 2 March.")
    assert "may not have seen their invitation" in text and "clock" not in text


def test_a_bouncing_seats_turn_still_times_out(
    client: Any, app: Any, smtpd: Any, clock: Any
) -> None:
    links = three_players(client, app, smtpd)
    play_turn(client, links[ANA[1]])  # Léo's turn, 3 days
    mark(app, LEO[1])
    tell(app, LEO[1])
    expected = GAMES["colour-bazaar"].timeout_move(state_of(app).state, 1)
    clock.advance(days=3)
    assert run_sweep(app)["timeouts"] == 1
    (_, timeout) = moves(app)
    assert (timeout.source, timeout.seat, timeout.move) == ("timeout", 1, expected)


def test_the_notice_and_the_mails_name_no_hidden_card(client: Any, app: Any, smtpd: Any) -> None:
    links = three_players(client, app, smtpd)
    play_turn(client, links[ANA[1]])
    play_turn(client, links[LEO[1]])
    mark(app, LEO[1])
    tell(app, LEO[1])
    smtpd.clear()
    play_turn(client, links[ZOE[1]])  # Ana's turn: her turn mail carries the line
    deliver(app)
    state = state_of(app).state
    assert state is not None
    for number, email in ((0, ANA[1]), (2, ZOE[1])):
        hidden = {
            card for other, hand in enumerate(state["hands"]) if other != number for card in hand
        }
        hidden |= {card for who, card in state["discards"] if who != number}
        texts = notices(page(client, links[email]))
        texts += [text_of(m) + html_of(m) for m in smtpd.to(email)]
        assert texts, email
        for text in texts:
            for card in hidden:
                for lang in ("en", "fr"):
                    assert card_name(card, lang) not in unescape(text), (card, email)
    (told,) = [m for m in smtpd.to(ANA[1]) if "bounced since" in text_of(m).splitlines()[0]]
    assert told is not None
