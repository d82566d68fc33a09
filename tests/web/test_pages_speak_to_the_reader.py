"""The pages speak to the reader and ask before anything irreversible: "You must move by"
with every seat's time left, what changed since your last move, "You win"; calling a game off
asks first; the EN/FR switch sets the player's language for pages and mail; a favicon; and
`make run PORT=5001` serves elsewhere with mailed links that follow."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

from pbem.config import settings_of
from tests.web.helpers import (
    ANA,
    LEO,
    ZOE,
    deliver,
    finish,
    form_with,
    hidden,
    link_in,
    new_game,
    play_turn,
    state_of,
    text_of,
)

ROOT = Path(__file__).resolve().parents[2]


def test_the_page_says_you_must_move_by_and_everyones_time(
    client: Any, app: Any, smtpd: Any
) -> None:
    links = new_game(client, app, smtpd, [ANA, LEO, ZOE])
    page = client.get(links[ANA[1]]).get_data(as_text=True)
    assert "Your move. You must move by Thursday 5 March 2026, 09:00 (UTC) (3 days left)." in page
    # Once a page (issue 31): the status line says it, the clocks box does not again.
    assert page.count("must move by") == 1 and page.count("Thursday 5 March 2026") == 1
    play_turn(client, links[ANA[1]])
    page = client.get(links[LEO[1]]).get_data(as_text=True)
    assert "Léo" not in page.split("must move by")[0][-20:]  # Léo is told "You must"
    ana_page = client.get(links[ANA[1]]).get_data(as_text=True)
    assert "Léo must move by Thursday 5 March 2026, 09:00 (UTC) (3 days left)." in ana_page
    # What changed since Ana's last move, at the top of her page.
    play_turn(client, links[LEO[1]])
    page = client.get(links[ANA[1]]).get_data(as_text=True)
    since = re.search(r'<section class="since".*?</section>', page, re.S)
    assert since and "Léo played" in since.group(0)
    assert page.index('class="since"') < page.index(">Markets</h2>")


def test_no_move_by_mail_is_offered_when_replies_are_not_set_up(
    client: Any, app: Any, smtpd: Any
) -> None:
    """Without a reply domain a reply to the turn mail reaches nothing: the page does not
    invite one (tests/mailin/test_refusals.py has the fold when replies are set up)."""
    assert not settings_of(app).reply_domain
    links = new_game(client, app, smtpd, [ANA, LEO])
    page = client.get(links[ANA[1]]).get_data(as_text=True)
    assert "Your move." in page
    assert 'id="by-mail"' not in page and "Move by mail" not in page


def test_the_winner_reads_you_win(client: Any, app: Any, smtpd: Any, monkeypatch: Any) -> None:
    # A deal with one winner (a shared win is worded otherwise: "You share the win").
    monkeypatch.setattr("pbem.games.fairdeal.seed_of", lambda secret, shares: 7)
    links = new_game(client, app, smtpd, [ANA, LEO])
    finish(client, app, smtpd, links)
    game = state_of(app, 1)
    assert game.seed == 7 and game.outcome["ranks"].count(1) == 1
    winner = game.outcome["ranks"].index(1)
    loser = 1 - winner
    seat_links = list(links.values())
    assert "You win." in client.get(seat_links[winner]).get_data(as_text=True)
    assert "You win." not in client.get(seat_links[loser]).get_data(as_text=True)


def test_calling_a_game_off_asks_first(client: Any, app: Any, smtpd: Any) -> None:
    links = new_game(client, app, smtpd, [ANA, LEO], join=False)
    page = client.get(links[ANA[1]]).get_data(as_text=True)
    assert f'href="{links[ANA[1]]}/cancel"' in page  # a link to a question, not a button
    ask = client.get(f"{links[ANA[1]]}/cancel")
    assert ask.status_code == 200 and "This cannot be undone" in ask.get_data(as_text=True)
    assert state_of(app, 1).status == "forming"
    form = form_with(ask.get_data(as_text=True), "/cancel")
    assert client.post(form["action"], data=hidden(form)).status_code == 303
    assert state_of(app, 1).status == "cancelled"


def test_the_language_switch_sets_pages_and_mail(client: Any, app: Any, smtpd: Any) -> None:
    links = new_game(client, app, smtpd, [ANA, LEO])
    assert '<html lang="fr">' in client.get(links[LEO[1]] + "?lang=fr").get_data(as_text=True)
    assert '<html lang="fr">' in client.get(links[LEO[1]]).get_data(as_text=True)  # kept
    smtpd.clear()
    play_turn(client, links[ANA[1]])
    deliver(app)
    (turn,) = smtpd.to(LEO[1])
    assert text_of(turn).startswith("À vous de jouer, Léo")
    assert link_in(turn) == links[LEO[1]]


def test_a_favicon(client: Any) -> None:
    response = client.get("/favicon.ico")
    assert response.status_code == 301
    icon = client.get(response.headers["Location"])
    assert icon.status_code == 200 and icon.mimetype == "image/svg+xml"
    assert 'rel="icon"' in client.get("/").get_data(as_text=True)


def test_make_run_port_serves_elsewhere_and_links_follow() -> None:
    plan = subprocess.run(
        ["make", "-n", "run", "PORT=5001"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    assert "--port 5001" in plan and "http://127.0.0.1:5001" in plan
