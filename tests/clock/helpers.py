"""Helpers for the clock tests: games started by mail, sweeps, counting what was done."""

from __future__ import annotations

import threading
from typing import Any

from sqlmodel import select

from pbem.clock.scheduler import computer_moves
from pbem.clock.sweeps import sweep
from pbem.models import Move
from pbem.storage.db import read_session
from tests.web.helpers import deliver, headline, link_in


def run_sweep(app: Any) -> dict[str, int]:
    """One sweep at the injected clock's time, as the clock process runs it."""
    ext = app.extensions["pbem"]
    return sweep(ext["engine"], ext["site"], app.config["CLOCK"]())


def new_game(
    client: Any, app: Any, smtpd: Any, players: list[tuple[str, str]], **form: str
) -> dict[str, str]:
    """Create a Colour Bazaar game, have everyone join; return each email's seat link."""
    data = {"game": "colour-bazaar", **form}
    for row, (name, email) in enumerate(players):
        data[f"name_{row}"], data[f"email_{row}"] = name, email
    response = client.post("/games", data=data)
    assert response.status_code == 303, response.data
    created = client.get(response.headers["Location"])
    game_id = int(created.get_data(as_text=True).split("Game #")[1].split(" ")[0])
    deliver(app)
    links = {}
    for _, email in players:
        mail = [m for m in smtpd.to(email) if f"#{game_id}" in str(m["Subject"])][-1]
        links[email] = link_in(mail)
    for email in list(links)[1:]:
        assert client.post(f"{links[email]}/join").status_code == 303
    deliver(app)
    return links


def moves(app: Any, source: str | None = None) -> list[Move]:
    """The stored moves, optionally of one source."""
    with read_session(app.extensions["pbem"]["engine"]) as session:
        query = select(Move).order_by(Move.game_id, Move.ply)
        if source:
            query = query.where(Move.source == source)
        return list(session.exec(query))


def headlines(smtpd: Any, email: str | None = None) -> list[str]:
    """First lines (the previews, lower-cased) of the mail received, for one address or all."""
    msgs = smtpd.to(email) if email else smtpd.messages
    return [headline(m) for m in msgs]


def subjects(smtpd: Any, email: str | None = None) -> list[str]:
    """Subjects of the mail received, for one address or all."""
    msgs = smtpd.to(email) if email else smtpd.messages
    return [str(m["Subject"]) for m in msgs]


def parallel(target: Any, times: int = 2) -> list[Any]:
    """Run `target` in threads started together; return results or exceptions."""
    results: list[Any] = []
    barrier = threading.Barrier(times)

    def run() -> None:
        barrier.wait()
        try:
            results.append(target())
        except Exception as exc:  # noqa: BLE001 - the test inspects it
            results.append(exc)

    threads = [threading.Thread(target=run) for _ in range(times)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def race_computer_jobs(apps: list[Any]) -> list[int]:
    """Each app's computer job at once, each in its own thread: what each job made."""
    start = threading.Barrier(len(apps))
    made = [0] * len(apps)

    def work(i: int) -> None:
        start.wait()
        made[i] = computer_moves(apps[i])

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(apps))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return made
