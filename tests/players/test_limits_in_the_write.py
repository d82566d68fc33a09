"""Per-player limits are counted in the write that does the act (issue 48): parallel posts
cannot pass one, and a day is the last 24 hours, not the calendar day."""

from __future__ import annotations

import threading
from datetime import timedelta
from typing import Any

from sqlmodel import func, select

from pbem.models import Game, OpenTable, Player, PlayerSeek
from pbem.storage.db import read_session, write_session
from tests.opentables.helpers import engine_of, players
from tests.web.helpers import sign_in_as

TABLE = {"game": "colour-bazaar", "seats": "2", "lang": "en"}
SEEK = {"game": "colour-bazaar", "lang": "en"}


def at_once(app: Any, player_id: int, path: str, data: dict[str, str], times: int) -> list[int]:
    """`times` posts of the signed-in player sent together from as many threads: statuses."""
    clients = [app.test_client() for _ in range(times)]
    for client in clients:
        sign_in_as(client, app, player_id)
    barrier = threading.Barrier(times)
    codes: list[int] = []

    def press(client: Any) -> None:
        barrier.wait()
        codes.append(client.post(path, data=data).status_code)

    threads = [threading.Thread(target=press, args=(client,)) for client in clients]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    return sorted(codes)


def waiting(app: Any, player_id: int) -> int:
    with read_session(engine_of(app)) as session:
        query = (
            select(func.count())
            .select_from(OpenTable)
            .join(Game, Game.id == OpenTable.game_id)  # type: ignore[arg-type]
            .where(OpenTable.player_id == player_id, Game.status == "forming")
        )
        return int(session.exec(query).one())


def test_parallel_posts_leave_at_most_five_tables_waiting(app: Any) -> None:
    (ana,) = players(app, "Ana")
    codes = at_once(app, ana, "/games/open", TABLE, 12)
    assert codes == [303] * 5 + [429] * 7
    assert waiting(app, ana) == 5


def test_parallel_seeks_keep_at_most_three(app: Any) -> None:
    (ana,) = players(app, "Ana")
    codes = at_once(app, ana, "/games/open/seeks", SEEK, 8)
    assert codes.count(303) == 3 and codes.count(400) == 5
    with read_session(engine_of(app)) as session:
        assert len(list(session.exec(select(PlayerSeek)))) == 3


def test_parallel_joins_stop_at_the_day_s_allowance(app: Any) -> None:
    (leo,) = players(app, "Leo")
    assert at_once(app, leo, "/games/open/999/join", {}, 34) == [404] * 30 + [429] * 4


def test_the_day_is_the_last_24_hours_not_the_calendar_day(
    app: Any, client: Any, clock: Any
) -> None:
    """Ten posts just before midnight: none more just after it, nor until the first one is
    24 hours old."""
    (ana,) = players(app, "Ana")
    sign_in_as(client, app, ana)
    clock.now = clock.now.replace(hour=23, minute=0)
    for _ in range(10):
        assert client.post("/games/open", data=TABLE).status_code == 303
        with read_session(engine_of(app)) as session:
            (game_id,) = session.exec(select(Game.id).where(Game.status == "forming"))
        assert client.post(f"/games/open/{game_id}/withdraw").status_code == 303
        clock.advance(minutes=1)
    clock.now = clock.now.replace(hour=23, minute=30)
    first = clock.now - timedelta(minutes=30)
    clock.advance(hours=1)  # past midnight: a new calendar day
    over = client.post("/games/open", data=TABLE)
    assert over.status_code == 429
    # Not "tomorrow": the moment the first post leaves the 24 hours, in the player's zone
    # and language.
    assert (
        "You have posted as many open tables and seeks as 24 hours allow (10). Try again "
        "after Tue 3 Mar, 23:00 (UTC)." in over.get_data(as_text=True)
    )
    with write_session(engine_of(app)) as session:
        player = session.get(Player, ana)
        assert player is not None
        player.tz = "Europe/Paris"
    french = client.post("/games/open", data=TABLE, headers={"Accept-Language": "fr"})
    assert "Réessayez après le mer. 4 mars à 00:00 (Europe/Paris)." in french.get_data(as_text=True)
    clock.now = first + timedelta(hours=24, seconds=-1)
    assert client.post("/games/open", data=TABLE).status_code == 429  # not quite 24 hours on
    clock.advance(seconds=1)
    assert client.post("/games/open", data=TABLE).status_code == 303
