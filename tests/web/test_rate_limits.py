"""Rate limits on links and game creation, kept in the database so they hold across workers."""

from __future__ import annotations

from typing import Any

from pbem import create_app
from pbem.config import settings_of
from pbem.storage.ratelimit import BAD_LINKS, NEW_GAMES
from tests.app import FormClient
from tests.web.helpers import first_mover


def test_guessing_links_is_stopped_across_workers(
    client: Any, app: Any, smtpd: Any, clock: Any
) -> None:
    link, _, _ = first_mover(client, app, smtpd)
    # A second application on the same database stands for a second gunicorn worker.
    same = {name.upper(): value for name, value in settings_of(app).__dict__.items()}
    other_worker = create_app({**same, "CLOCK": clock})
    other_worker.test_client_class = FormClient
    workers = [client, other_worker.test_client()]
    for n in range(BAD_LINKS.count):
        assert workers[n % 2].get(f"/p/guess{n}").status_code == 404
    for worker in workers:
        assert worker.get(f"/p/guess{BAD_LINKS.count}").status_code == 429
        assert worker.get(link).status_code == 200  # a good link cannot be a guess
        assert worker.get("/w/guess").status_code == 429
        assert worker.get("/u/guess").status_code == 429
    elsewhere = app.test_client()
    elsewhere.environ_base["REMOTE_ADDR"] = "192.0.2.7"
    assert elsewhere.get("/p/guess").status_code == 404  # another address is not held back
    clock.advance(seconds=BAD_LINKS.seconds)
    assert client.get("/p/guess-again").status_code == 404  # a new window
    other_worker.extensions["pbem"]["engine"].dispose()


def test_game_creation_is_limited_per_address(client: Any, app: Any) -> None:
    form = {
        "game": "colour-bazaar",
        "name_0": "Ana",
        "email_0": "ana@example.org",
        "name_1": "Léo",
        "email_1": "leo@example.org",
    }
    for number in range(NEW_GAMES.count):  # each to another address: an address gets a few
        form["email_1"] = f"leo{number}@example.org"
        assert client.post("/games", data=form).status_code == 303
    refused = client.post("/games", data=form)
    assert refused.status_code == 429
    # The counter is per clock hour: the next one begins at 10:00 UTC.
    assert (
        "Your network has started as many games and leagues as an hour allows (20). Try "
        "again after Mon 2 Mar, 10:00 (UTC)." in refused.get_data(as_text=True)
    )
