"""Helpers for driving pbem through its mails and pages, as a person would."""

from __future__ import annotations

import re
from email.message import EmailMessage
from html.parser import HTMLParser
from typing import Any
from urllib.parse import urlsplit

from sqlmodel import func, select

from pbem.bots import decide
from pbem.clock.scheduler import computer_moves, drain_outbox
from pbem.games import GAMES
from pbem.models import Game, Move, Outbox, Player, Seat
from pbem.moves import submit_move
from pbem.present.text import card_name
from pbem.storage.db import read_session, write_session
from pbem.storage.rounds import viewed_state
from pbem.web.signin import GENERATION, PLAYER

SIGNIN_LINK = re.compile(r"http://pbem\.test(/signin/[A-Za-z0-9_.\-]+)")

ANA, LEO, ZOE = ("Ana", "ana@example.org"), ("Léo", "leo@example.org"), ("Zoé", "zoe@example.org")

LINK = re.compile(r"http://pbem\.test(/[pw]/[A-Za-z0-9_.\-]+)")


def deliver(app: Any) -> dict[str, int]:
    """Run the outbox sender once, as the clock would."""
    return drain_outbox(app)


def sign_in_as(client: Any, app: Any, player_id: int) -> None:
    """Put the player's session in the client's cookie, as pressing a sign-in link does."""
    with read_session(app.extensions["pbem"]["engine"]) as session:
        player = session.get(Player, player_id)
        assert player is not None
        generation = player.session_generation
    with client.session_transaction() as cookie:
        cookie.permanent = True
        cookie[PLAYER], cookie[GENERATION] = player_id, generation


def forget_session(client: Any) -> None:
    """Empty the client's session cookie, as a device that never signed in."""
    with client.session_transaction() as cookie:
        cookie.clear()


def text_of(msg: EmailMessage) -> str:
    """The plain-text part of a mail."""
    part = msg.get_body(preferencelist=("plain",))
    assert part is not None
    return part.get_content()


def html_of(msg: EmailMessage) -> str:
    """The HTML part of a mail."""
    part = msg.get_body(preferencelist=("html",))
    assert part is not None
    return part.get_content()


def headline(msg: EmailMessage) -> str:
    """The first line of a mail's text, which mail clients show as its preview, lower-cased."""
    return text_of(msg).strip().splitlines()[0].lower()


class _Elements(HTMLParser):
    """Every element and attribute name of an HTML document."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.attributes: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attributes += [name for name, _ in attrs]


def injected(html: str) -> list[str]:
    """What markup in a player's name would have added to a mail: scripts, images, handlers.

    No HTML mail of ours holds a script element, an image or an on* attribute."""
    parser = _Elements()
    parser.feed(html)
    parser.close()
    return [t for t in parser.tags if t in ("script", "img")] + [
        a for a in parser.attributes if a.startswith("on")
    ]


def link_in(msg: EmailMessage, kind: str = "p") -> str:
    """The path of the first pbem link of `kind` in a mail's text part."""
    for match in LINK.finditer(text_of(msg)):
        path = match.group(1)
        if path.startswith(f"/{kind}/"):
            return urlsplit(path).path
    raise AssertionError("no link in mail:\n" + text_of(msg))


class Forms(HTMLParser):
    """Collect the forms of a page with their inputs."""

    def __init__(self) -> None:
        super().__init__()
        self.forms: list[dict[str, Any]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "form":
            self.forms.append({"action": a.get("action"), "inputs": []})
        elif tag in ("input", "select", "button") and self.forms:
            self.forms[-1]["inputs"].append({"tag": tag, **a})


def forms_of(html: str) -> list[dict[str, Any]]:
    """Every form on the page."""
    parser = Forms()
    parser.feed(html)
    return parser.forms


def form_with(html: str, action_end: str) -> dict[str, Any]:
    """The form whose action ends with `action_end`."""
    for form in forms_of(html):
        if (form["action"] or "").endswith(action_end):
            return form
    raise AssertionError(f"no form posting to …{action_end}")


def radio_values(form: dict[str, Any], name: str) -> list[str]:
    """The values offered by a radio group."""
    return [
        i["value"] for i in form["inputs"] if i.get("type") == "radio" and i.get("name") == name
    ]


def hidden(form: dict[str, Any]) -> dict[str, str]:
    """The hidden fields of a form."""
    return {i["name"]: i.get("value", "") for i in form["inputs"] if i.get("type") == "hidden"}


PLAYERS = [("Ana", "ana@example.org"), ("Léo", "leo@example.org"), ("Zoé", "zoe@example.org")]


def start_game(
    client: Any, app: Any, smtpd: Any, courts: bool = False
) -> tuple[dict[str, str], int]:
    """Create a game from the lobby form and have everyone join by their mailed link;
    return each player's link and the index of the first mail sent at the start."""
    form = {"game": "colour-bazaar"}
    if courts:
        form["opt_colour-bazaar_courts"] = "1"
    for row, (name, email) in enumerate(PLAYERS):
        form[f"name_{row}"] = name
        form[f"email_{row}"] = email
    response = client.post("/games", data=form)
    assert response.status_code == 303
    deliver(app)
    links = {}
    for name, email in PLAYERS:
        (mail,) = smtpd.to(email)
        links[email] = link_in(mail)
        if name != "Ana":
            assert "invites you" in headline(mail)
            page = client.get(links[email])
            assert page.status_code == 200 and b"Join the game" in page.data
            assert client.post(f"{links[email]}/join").status_code == 303
    first = len(smtpd.messages)
    deliver(app)
    return links, first


def review_page(client: Any, link: str, data: dict[str, str]) -> Any:
    """Post a turn form for review: the answer is a redirect to the review page (POST,
    redirect, GET), which is fetched and returned."""
    posted = client.post(f"{link}/move", data=data)
    if posted.status_code != 303:
        return posted  # a refusal is answered in place
    location = posted.headers["Location"]
    assert location.endswith("review=1#confirm"), location
    return client.get(location.split("#")[0])


def play_turn(client: Any, link: str) -> None:
    """Open the page, pick the first offered card and chip, review, confirm."""
    page = client.get(link)
    assert page.status_code == 200, page.data
    html = page.get_data(as_text=True)
    form = form_with(html, "/move")
    data = hidden(form)
    data["play"] = radio_values(form, "play")[0]
    data["chip"] = radio_values(form, "chip")[0]
    reviewed = review_page(client, link, data)
    assert reviewed.status_code == 200
    confirm = form_with(reviewed.get_data(as_text=True), "/move")
    data = hidden(confirm)
    assert data["confirm"] == "1"
    sent = client.post(f"{link}/move", data=data)
    assert sent.status_code == 303, sent.data


def hidden_from(state: dict[str, Any], viewer: int | None) -> set[str]:
    """Cards `viewer` may not see: others' unrevealed hand cards and others' discards."""
    secret = set()
    for seat, hand in enumerate(state["hands"]):
        if seat != viewer:
            secret |= set(hand) - set(state["known"][seat])
    secret |= {card for seat, card in state["discards"] if seat != viewer}
    return secret


def assert_hides(text: str, cards: set[str], where: str) -> None:
    """No hidden card by name in either language, nor as a form value."""
    for card in cards:
        for lang in ("en", "fr"):
            assert card_name(card, lang) not in text, f"{card} shown in {where}"
        assert f'value="{card}@' not in text and f"discard:{card}" not in text, where


def new_game(client: Any, app: Any, smtpd: Any, players: list[Any], join: bool = True,
             **form: str) -> dict[str, str]:  # fmt: skip
    """Start a Colour Bazaar game (the first player moves first); return each seat link."""
    data = {"game": "colour-bazaar", "opt_colour-bazaar_first": "0", **form}
    for row, (name, email) in enumerate(players):
        data[f"name_{row}"], data[f"email_{row}"] = name, email
    response = client.post("/games", data=data)
    assert response.status_code == 303
    created = client.get(response.headers["Location"]).get_data(as_text=True)
    game_id = int(re.search(r"Game #(\d+)", created).group(1))
    deliver(app)
    links = {}
    for _, email in players:
        mail = [m for m in smtpd.to(email) if f"#{game_id} " in str(m["Subject"])][-1]
        links[email] = link_in(mail)
    if join:
        for email in list(links)[1:]:
            assert client.post(f"{links[email]}/join").status_code == 303
        deliver(app)
    return links


def sign_in(client: Any, app: Any, smtpd: Any, email: str) -> None:
    client.post("/signin", data={"email": email})
    deliver(app)
    mail = smtpd.to(email)[-1]
    link = re.search(r"http://pbem\.test(/signin/\S+)", text_of(mail)).group(1)
    assert client.post(link).status_code == 303


def snapshot(app: Any) -> tuple[Any, ...]:
    """What a request must not change when it is refused: the game, the log, the outbox."""
    with read_session(app.extensions["pbem"]["engine"]) as session:
        game = session.get(Game, 1)
        moves = session.exec(select(func.count()).select_from(Move)).one()
        mails = session.exec(select(func.count()).select_from(Outbox)).one()
        return (game.ply, game.status, repr(game.state), moves, mails)


def first_mover(client: Any, app: Any, smtpd: Any) -> tuple[str, dict[str, str], dict[str, str]]:
    """Start a game; return the link of the seat to move and a confirmed legal move for it."""
    links, first = start_game(client, app, smtpd)
    (mail,) = [m for m in smtpd.messages[first:] if "your move" in headline(m)]
    link = link_in(mail)
    form = form_with(client.get(link).get_data(as_text=True), "/move")
    data = hidden(form)
    data.update(play=radio_values(form, "play")[0], chip=radio_values(form, "chip")[0], confirm="1")
    return link, data, links


def finish(client: Any, app: Any, smtpd: Any, links: dict[str, str], game_id: int = 1) -> None:
    """Play the game to its end from each seat's page, the server playing computer seats
    and seats left (`links`: the people's seat links, in seat order)."""
    seat_links = list(links.values())
    for _ in range(60):
        game = state_of(app, game_id)
        if game.status == "over":
            deliver(app)
            return
        (seat,) = GAMES[game.slug].to_act(game.state)
        if seat_row(app, game_id, seat).computer:
            app.config["CLOCK"].advance(seconds=5)  # the computer's short delay
            computer_moves(app)
        else:
            play_turn(client, seat_links[seat])
    raise AssertionError("the game did not end")


def signin_link(mail: Any) -> str:
    match = SIGNIN_LINK.search(text_of(mail))
    assert match, text_of(mail)
    return match.group(1)


def ask(client: Any, email: str) -> Any:
    return client.post("/signin", data={"email": email})


def signed_in(client: Any) -> bool:
    return "Sign out" in client.get("/signin").get_data(as_text=True)


def press(client: Any, link: str) -> Any:
    page = client.get(link)
    form = form_with(page.get_data(as_text=True), link)
    return client.post(link, data=hidden(form))


def api(link: str) -> str:
    """The API path of a seat's page link /p/<token>."""
    return "/api/v1/seat/" + link.rsplit("/", 1)[-1]


def post_move(client: Any, link: str, body: Any, **kwargs: Any) -> Any:
    return client.post(f"{api(link)}/move", json=body, raw=True, **kwargs)


def acting(client: Any, links: dict[str, str]) -> str:
    """The link of the seat whose turn it is."""
    seat_links = list(links.values())
    (seat,) = client.get(api(seat_links[0])).get_json()["game"]["to_act"]
    return seat_links[seat]


def counts(app: Any) -> tuple[int, int]:
    with read_session(app.extensions["pbem"]["engine"]) as session:
        moves = session.exec(select(func.count()).select_from(Move)).one()
        mails = session.exec(select(func.count()).select_from(Outbox)).one()
    return moves, mails


def computer_form(first: str, **extra: str) -> dict[str, str]:
    """Ana against two computers; `first`: the seat that plays first."""
    return {
        "game": "colour-bazaar",
        "name_0": ANA[0],
        "email_0": ANA[1],
        "computer_1": "casual",
        "computer_2": "beginner",
        "opt_colour-bazaar_first": first,
        **extra,
    }


def links(app: Any, game_id: int) -> list[str]:
    """Each seat's API path."""
    site = app.extensions["pbem"]["site"]
    with read_session(app.extensions["pbem"]["engine"]) as session:
        seats = session.exec(select(Seat).where(Seat.game_id == game_id).order_by(Seat.seat))
        return ["/api/v1/seat/" + site.seat_url(s).rsplit("/", 1)[1] for s in seats.all()]


def state_of(app: Any, game_id: int = 1) -> Game:
    """The stored game."""
    with read_session(app.extensions["pbem"]["engine"]) as session:
        game = session.get(Game, game_id)
        assert game is not None
        return game


def seat_row(app: Any, game_id: int, seat: int) -> Seat:
    """One stored seat."""
    with read_session(app.extensions["pbem"]["engine"]) as session:
        return session.exec(select(Seat).where(Seat.game_id == game_id, Seat.seat == seat)).one()


def whole_state(app: Any, game_id: int = 1) -> dict[str, Any]:
    """The stored game's state with the rounds it released read back: every round, as the
    rules made it (pbem.storage.rounds)."""
    with read_session(app.extensions["pbem"]["engine"]) as session:
        game = session.get(Game, game_id)
        assert game is not None and game.state is not None
        return viewed_state(session, game)


def play_out(app: Any, game_id: int = 1, stop_before: int | None = None) -> None:
    """Play the game on with casual moves made for each seat to act (as if sent from its page),
    to its end, or until `stop_before` moves are in the log."""
    ext = app.extensions["pbem"]
    while True:
        with write_session(ext["engine"]) as session:
            game = session.get(Game, game_id)
            assert game is not None
            if game.status != "active" or (stop_before is not None and game.ply >= stop_before):
                return
            state = viewed_state(session, game)
            rules = GAMES[game.slug]
            seat = rules.to_act(state)[0]
            move = decide(rules, state, seat, "casual", game.seed)
            token = rules.turn_token(state, seat)
            submit_move(session, ext["site"], game_id, seat, move, token, app.config["CLOCK"]())
