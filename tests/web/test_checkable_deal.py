"""A deal anyone can check, through the pages, the mails and `pbem verify`: the seal is
shown before anyone joins, the shares given when joining fix the seed, the seed's commitment
is on the first page and in the first mail, nothing secret shows before the end, and at the
end everything is shown and an export checks out (and a tampered one does not)."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from sqlmodel import select

from pbem import play
from pbem.games import fairdeal
from pbem.models import Game, Seat
from pbem.storage.db import read_session, write_session
from tests.web.helpers import deliver, link_in, play_turn, text_of

ANA, LEO = ("Ana", "ana@example.org"), ("Léo", "leo@example.org")


def stored(app: Any, game_id: int = 1) -> Game:
    with read_session(app.extensions["pbem"]["engine"]) as session:
        game = session.get(Game, game_id)
        assert game is not None
        return game


def new_game(client: Any, app: Any, smtpd: Any) -> dict[str, str]:
    """Ana starts a two-player game giving her share; Léo is invited. Each one's link."""
    form = {"game": "colour-bazaar", "share": "  Ana's lucky phrase  "}
    for row, (name, email) in enumerate((ANA, LEO)):
        form[f"name_{row}"], form[f"email_{row}"] = name, email
    assert client.post("/games", data=form).status_code == 303
    deliver(app)
    return {email: link_in(smtpd.to(email)[0]) for _, email in (ANA, LEO)}


def secrets_of(app: Any) -> list[str]:
    game = stored(app)
    assert game.deal_secret and game.deal_salt
    return [game.deal_secret, game.deal_salt, "Ana's lucky phrase", "Léo's own words"]


def play_to_the_end(client: Any, app: Any, links: dict[str, str]) -> None:
    order = [links[ANA[1]], links[LEO[1]]]
    for _ in range(60):
        game = stored(app)
        if game.status == "over":
            return
        play_turn(client, order[game.state["turn"]])
        deliver(app)
    raise AssertionError("the game did not end")


def test_the_deal_is_sealed_fixed_by_the_shares_kept_secret_then_checked(
    client: Any, app: Any, smtpd: Any, runner: Any, tmp_path: Path
) -> None:
    links = new_game(client, app, smtpd)
    game = stored(app)
    sealed = fairdeal.sealed(game.deal_secret or "", game.deal_salt or "")
    # Before anyone joins: the seal is on the invitation page and in the invitation mail.
    invitation = client.get(links[LEO[1]]).get_data(as_text=True)
    assert sealed in invitation and 'name="share"' in invitation
    # Its script (static/deal.js) is in the page's body, not in the window's title.
    title = invitation.split("<title>", 1)[1].split("</title>", 1)[0]
    assert "<script" not in title and 'src="/static/deal.js"' in invitation
    assert sealed in text_of(smtpd.to(LEO[1])[0])
    assert (
        client.post(f"{links[LEO[1]]}/join", data={"share": "Léo's own words"}).status_code == 303
    )
    deliver(app)
    game = stored(app)
    with read_session(app.extensions["pbem"]["engine"]) as session:
        shares = [s.share for s in session.exec(select(Seat).order_by(Seat.seat))]
    assert shares == ["Ana's lucky phrase", "Léo's own words"]
    assert game.seed == fairdeal.seed_of(game.deal_secret or "", shares)
    committed = fairdeal.committed(game.seed, game.deal_salt or "")
    assert committed in client.get(links[ANA[1]]).get_data(as_text=True)
    api = client.get(links[LEO[1]].replace("/p/", "/api/v1/seat/")).get_json()["game"]["deal"]
    # Everyone gave a share: nobody is named as giving none (tests/players/test_seek_shares.py).
    assert api == {"sealed": sealed, "committed": committed, "unshared": []}
    first_mails = [m for m in smtpd.messages if committed in text_of(m)]
    assert {m["To"].addresses[0].addr_spec for m in first_mails} == {ANA[1], LEO[1]}

    # Until the end: no secret, salt, share or seed in any page, export, API answer or mail.
    watch = client.get(links[ANA[1]]).get_data(as_text=True).split('href="http://pbem.test/w/')
    watch_link = "/w/" + watch[1].split('"')[0]
    hidden = [*secrets_of(app), str(game.seed)]
    for _ in range(3):
        for link in (links[ANA[1]], links[LEO[1]], watch_link):
            api = link.replace("/p/", "/api/v1/seat/").replace("/w/", "/api/v1/watch/")
            for path in (link, f"{link}/export.json", f"{link}/export.txt", f"{link}/replay", api):
                page = client.get(path).get_data(as_text=True)
                assert not [h for h in hidden if h in page], path
        play_turn(client, [links[ANA[1]], links[LEO[1]]][stored(app).state["turn"]])
        deliver(app)
    play_to_the_end(client, app, links)
    for mail in smtpd.messages:  # the results mail included: the page shows the values
        assert not [h for h in hidden if h in text_of(mail)]

    # At the end: everything is shown, and the export checks out.
    results = client.get(links[LEO[1]]).get_data(as_text=True)
    for value in secrets_of(app):
        assert value.replace("'", "&#39;") in results
    export = client.get(f"{links[LEO[1]]}/export.json").get_data(as_text=True)
    api = client.get(links[LEO[1]].replace("/p/", "/api/v1/seat/")).get_json()["game"]["deal"]
    assert api["shares"] == ["Ana's lucky phrase", "Léo's own words"]
    checked = client.post("/verify", data={"export": export})
    assert checked.status_code == 200
    assert "This game checks out." in checked.get_data(as_text=True)
    uploaded = client.post(
        "/verify", data={"file": (io.BytesIO(export.encode()), "game.json")},
        content_type="multipart/form-data",
    )  # fmt: skip
    assert uploaded.status_code == 200
    good = tmp_path / "good.json"
    good.write_text(export)
    assert runner.invoke(args=["verify", str(good)]).exit_code == 0

    # Tampered: a share changed after the fact. The page and the command both say so.
    data = json.loads(export)
    data["deal"]["shares"][1] = "Léo's other words"
    tampered = client.post("/verify?lang=fr", data={"export": json.dumps(data)})
    assert tampered.status_code == 400
    page = tampered.get_data(as_text=True)
    assert "Cette partie ne se vérifie pas." in page and "ne donnent pas la graine" in page
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    result = runner.invoke(args=["verify", str(bad)])
    assert result.exit_code == 1
    assert "NO The secret and the players' shares do not give the seed" in result.output


def test_a_game_given_its_seed_has_no_checkable_deal(client: Any, app: Any, smtpd: Any) -> None:
    ext = app.extensions["pbem"]
    with write_session(ext["engine"]) as session:
        people = [play.Invitee(*ANA), play.Invitee("Casual", "", "en", "casual")]
        game = play.create_game(session, ext["site"], "colour-bazaar", people, {}, app.config[
            "CLOCK"](), seed=42)  # fmt: skip
        link = ext["site"].seat_url(session.exec(select(Seat).where(Seat.seat == 0)).one())
    assert stored(app).seed == 42 and game.deal_secret is None
    page = client.get(link.removeprefix("http://pbem.test")).get_data(as_text=True)
    assert 'id="deal"' not in page


def test_too_long_a_share_is_refused_and_so_is_too_big_an_export(
    client: Any, app: Any, smtpd: Any
) -> None:
    links = new_game(client, app, smtpd)
    long = client.post(f"{links[LEO[1]]}/join", data={"share": "x" * 201})
    assert long.status_code == 400
    assert "Your share of the deal holds at most 200 characters." in long.get_data(as_text=True)
    assert stored(app).status == "forming"
    junk = client.post("/verify", data={"export": "not json"})
    assert junk.status_code == 400
    assert "This is not the JSON export of a pbem game." in junk.get_data(as_text=True)
    huge = client.post("/verify", data={"export": "x" * (3 * 1024 * 1024)})
    assert huge.status_code == 413
