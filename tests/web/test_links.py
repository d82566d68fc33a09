"""Signed links: GET and HEAD never change anything; bad links get a 404 and change nothing."""

from __future__ import annotations

from typing import Any

from sqlmodel import select

from pbem.models import Seat
from pbem.site import make_token
from pbem.storage.db import write_session
from tests.web.helpers import PLAYERS, deliver, first_mover, link_in, snapshot


def test_get_and_head_on_every_link_change_nothing(client: Any, app: Any, smtpd: Any) -> None:
    form = {"game": "colour-bazaar"}
    for row, (name, email) in enumerate(PLAYERS):
        form[f"name_{row}"], form[f"email_{row}"] = name, email
    client.post("/games", data=form)
    deliver(app)
    invitation = link_in(smtpd.to(PLAYERS[1][1])[0])
    before = snapshot(app)
    for _ in range(3):  # a mail scanner opening the link repeatedly
        assert client.get(invitation).status_code == 200
        assert client.head(invitation).status_code == 200
    assert client.get(f"{invitation}/join").status_code == 405
    assert snapshot(app) == before
    assert "not answered yet" in client.get(link_in(smtpd.to(PLAYERS[0][1])[0])).get_data(
        as_text=True
    )


def test_links_on_a_running_game_are_read_only(client: Any, app: Any, smtpd: Any) -> None:
    link, _, links = first_mover(client, app, smtpd)
    page = client.get(link).get_data(as_text=True)
    watch = page.split('href="http://pbem.test')[-1].split('"')[0]
    assert watch.startswith("/w/")
    before = snapshot(app)
    for path in [*links.values(), watch, f"{link}/move"]:
        client.get(path)
        client.head(path)
    assert snapshot(app) == before


def _mangled(token: str) -> list[str]:
    flipped = token[:-3] + ("A" if token[-3] != "A" else "B") + token[-2:]
    return [
        token.upper(),
        token.lower(),
        token + "x",
        token[:-1],
        token[: len(token) // 2],
        token.replace(".", ""),
        flipped,
        "x" + token[1:],
    ]


def test_tampered_links_get_404_and_change_nothing(client: Any, app: Any, smtpd: Any) -> None:
    link, data, links = first_mover(client, app, smtpd)
    token = link.rsplit("/", 1)[1]
    before = snapshot(app)
    for bad in _mangled(token):
        if bad == token:
            continue
        assert client.get(f"/p/{bad}").status_code == 404, bad
        # The form's token was made for the real link, so the CSRF check may refuse first.
        assert client.post(f"/p/{bad}/move", data=data).status_code in (400, 404), bad
        fresh = {k: v for k, v in data.items() if k != "csrf"}
        assert client.post(f"/p/{bad}/move", data=fresh).status_code == 404, bad
    secret = app.config["SECRET_KEY"]
    with write_session(app.extensions["pbem"]["engine"]) as session:
        seats = {s.seat: s for s in session.exec(select(Seat))}
    key0 = seats[0].link_key
    forged = [
        make_token(secret, "seat", [1, 1, key0]),  # another seat with seat 0's key
        make_token(secret, "seat", [2, 0, key0]),  # another game
        make_token(secret, "watch", [1, 0, key0]),  # signed for another purpose
        make_token("another-secret", "seat", [1, 0, key0]),
        make_token(secret, "seat", ["1", 0, key0]),
        make_token(secret, "seat", {"g": 1}),  # type: ignore[arg-type]
    ]
    for bad in forged:
        assert client.get(f"/p/{bad}").status_code == 404
        fresh = {k: v for k, v in data.items() if k != "csrf"}
        assert client.post(f"/p/{bad}/move", data=fresh).status_code == 404
    assert client.get(f"/w/{token}").status_code == 404  # a seat link is not a watch link
    assert snapshot(app) == before


def test_rotating_a_seat_key_revokes_its_old_links(client: Any, app: Any, smtpd: Any) -> None:
    link, data, _ = first_mover(client, app, smtpd)
    token = link.rsplit("/", 1)[1]
    from pbem.site import read_token

    game_id, seat_no, _ = read_token(app.config["SECRET_KEY"], "seat", token)
    with write_session(app.extensions["pbem"]["engine"]) as session:
        seat = session.exec(select(Seat).where(Seat.game_id == game_id, Seat.seat == seat_no)).one()
        seat.link_key = "rotated-key"
        session.add(seat)
    assert client.get(link).status_code == 404
    assert (
        client.post(f"{link}/move", data={k: v for k, v in data.items() if k != "csrf"}).status_code
        == 404
    )
    fresh = make_token(app.config["SECRET_KEY"], "seat", [game_id, seat_no, "rotated-key"])
    assert client.get(f"/p/{fresh}").status_code == 200


B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"


def same_bits_spellings(token: str) -> list[str]:
    """The token with its last character swapped for the others that decode to the same bytes:
    a 20-byte signature is 27 base64 characters, whose last two bits are unused."""
    last = B64.index(token[-1])
    return [token[:-1] + B64[(last & ~3) | low] for low in range(4) if (last & ~3) | low != last]


def test_only_the_canonical_spelling_of_a_signature_opens_a_link(
    client: Any, app: Any, smtpd: Any
) -> None:
    link, _, links = first_mover(client, app, smtpd)
    page = client.get(link).get_data(as_text=True)
    watch = page.split('href="http://pbem.test')[-1].split('"')[0]
    header = next(str(m["List-Unsubscribe"]) for m in smtpd.messages if m["List-Unsubscribe"])
    unsubscribe = header.split("/u/")[1].split(">")[0]
    assert client.get(f"/u/{unsubscribe}").status_code == 200
    before = snapshot(app)
    for path in [*links.values(), watch, f"/u/{unsubscribe}"]:
        variants = same_bits_spellings(path)
        assert len(variants) == 3
        for variant in variants:
            assert client.get(variant).status_code == 404, variant
    assert client.get(link).status_code == 200
    assert snapshot(app) == before
