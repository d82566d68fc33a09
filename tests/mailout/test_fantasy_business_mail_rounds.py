"""A Fantasy Business mail views only the rounds it shows, and shows what the whole game's
view gave: the same subject, text and HTML, for every mail of a whole seeded game."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlmodel import col, select

from pbem.games import GAMES
from pbem.mailout.mailer import make_templates
from pbem.mailout.notify import OutboxMail
from pbem.mailout.render import Rendered, render_row
from pbem.models import Outbox
from pbem.moves import submit_move
from pbem.play import Invitee, create_game, join
from pbem.present import fantasy_business
from pbem.site import Site
from pbem.storage.db import make_engine, read_session, write_session

SLUG = "fantasy-business"
START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def _rendered(engine: Any, site: Site, rows: list[int]) -> dict[int, Rendered]:
    """The mails of these rows, rendered now, as the sender renders them."""
    with read_session(engine) as session:
        found = session.exec(select(Outbox).where(col(Outbox.id).in_(rows))).all()
        return {row.id or 0: render_row(session, site, row) for row in found}


def _both(
    engine: Any, site: Site, rows: list[int], monkeypatch: pytest.MonkeyPatch
) -> tuple[dict[int, Rendered], dict[int, Rendered]]:
    """The rows' mails rendered with the rounds a mail shows, and with the whole game viewed."""
    lean = _rendered(engine, site, rows)
    with monkeypatch.context() as whole:
        # Without it the sender views every round, as it did before.
        whole.delattr(fantasy_business, "mail_rounds_then")
        full = _rendered(engine, site, rows)
    return lean, full


def test_a_fantasy_business_mail_shows_what_the_whole_games_view_gave(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    rules = GAMES[SLUG]
    seed = 11
    state = rules.setup(4, rules.check_options(4, {}), seed)
    rng = random.Random(seed)
    engine = make_engine(database_url)
    site = Site(
        secret="test-rounds",
        base_url="http://pbem.test",
        mail_templates=make_templates(),
        mail=OutboxMail(),
    )
    with write_session(engine) as session:
        people = [Invitee(name, f"{name.lower()}@example.org") for name in ("Ana", "Léo", "Zoé")]
        people.append(Invitee("Inès", "ines@example.org"))
        game = create_game(session, site, SLUG, people, {}, START, seed=seed)
        game_id = game.id or 0
        for seat in range(1, 4):
            join(session, site, game_id, seat, START)
    checked: set[int] = set()
    first: dict[int, Rendered] = {}  # each mail as first rendered, at its ply
    reports = 0  # mails that report a finished round
    ply = 0
    try:
        while rules.to_act(state):
            seat = rules.to_act(state)[0]
            move = rng.choice(rules.legal_moves(state, seat))
            token = rules.turn_token(state, seat)
            ply += 1
            with write_session(engine) as session:
                submit_move(session, site, game_id, seat, move, token, START + timedelta(ply))
            state = rules.apply(state, seat, move)
            with read_session(engine) as session:
                new = [i for i in session.exec(select(Outbox.id)) if i and i not in checked]
            # Each mail as one drain a move renders it: the game at the mail's ply.
            lean, full = _both(engine, site, new, monkeypatch)
            assert lean == full
            first.update(lean)
            reports += sum(": the sale" in mail.body_text for mail in lean.values())
            checked.update(new)
        # Every mail again at the end, as a drain long after renders it: the game moved on,
        # and the rounds it reports left the stored state for their rows (pbem.storage.rounds).
        lean, full = _both(engine, site, sorted(checked), monkeypatch)
        assert lean == full
        assert lean == first
    finally:
        engine.dispose()
    assert ply > 60 and len(checked) > 60  # a whole game, and its mails
    assert reports > 10  # the parts the view's rounds make were in what was compared
