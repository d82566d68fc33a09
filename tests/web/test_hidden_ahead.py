"""A seat's plan ahead stays its own: walking a whole two-player Colour Bazaar in which the
seat not to move always leaves a plan (some triggered, some cancelled), the other seat's
pages, polls, API answers (its view and its own plan), exports, the onlooker's page and
export, every mail and every log record never name a card a kept plan would play from its
maker's hand, nor show its words."""

from __future__ import annotations

import logging
import random
from typing import Any

from sqlmodel import select

from pbem.games import ahead
from pbem.models import Outbox
from pbem.present.text import card_name
from pbem.storage.db import read_session
from tests.plans.ahead_game import RULES, game_of, plan_kept, started
from tests.web.helpers import deliver, links, text_of

SEED = 11


def secrets_of(app: Any, game_id: int, seat: int, hand: list[str]) -> set[str]:
    """The cards `seat`'s kept plan would play from its hand, as ids and names."""
    kept = plan_kept(app, game_id, seat) or {}
    cards: set[str] = set()
    todo = list(kept.get("tree") or [])
    while todo:
        branch = todo.pop()
        todo.extend(branch.get("next") or [])
        card = branch["then"].get("card")
        if card in hand:
            cards.add(card)
    # Words that only name the card (a one-word name such as "Market" is also a heading).
    names = {card_name(c, lang) for c in cards for lang in ("en", "fr")}
    return {c for c in cards if "-" in c} | {n for n in names if " " in n}


def outputs(client: Any, app: Any, game_id: int, seat: int, watch: str) -> dict[str, str]:
    """What `seat` and an onlooker can read now."""
    api = links(app, game_id)[seat]
    page = api.replace("/api/v1/seat/", "/p/")
    get = client.get
    found = {
        "table": get(page).get_data(as_text=True),
        "table, its plan opened": get(page, query_string={"plan": "1"}).get_data(as_text=True),
        "poll": get(f"{page}/ply").get_data(as_text=True),
        "API view": get(api).get_data(as_text=True),
        "API plan": get(f"{api}/plan").get_data(as_text=True),
        "export json": get(f"{page}/export.json").get_data(as_text=True),
        "export txt": get(f"{page}/export.txt").get_data(as_text=True),
        "spectator": get(f"/w/{watch}").get_data(as_text=True),
        "spectator export": get(f"/w/{watch}/export.json").get_data(as_text=True),
    }
    return found


def test_a_plan_never_reaches_the_other_seat(
    client: Any, app: Any, clock: Any, smtpd: Any, caplog: Any
) -> None:
    caplog.set_level(logging.DEBUG, logger="pbem")
    rng = random.Random(SEED)
    game_id = started(app, clock, seed=SEED)
    page = links(app, game_id)[0].replace("/api/v1/seat/", "/p/")
    watch = client.get(page).get_data(as_text=True).split('href="http://pbem.test/w/')[1]
    watch = watch.split('"')[0]
    triggered = cancelled = checked = 0
    for _ in range(60):
        game = game_of(app, game_id)
        state = game.state
        assert state is not None
        if game.status != "active":
            break
        them = state["turn"]
        me = 1 - them
        # The seat not to move leaves a plan: a few of their moves, each with an answer
        # from its hand, and one level more on the first.
        theirs = ahead.their_moves(state, me)
        tree = []
        for their in rng.sample(theirs, min(3, len(theirs))):
            try:
                answers = ahead.my_answers(state, me, their)
            except Exception:
                continue
            mine = [m for m in answers if m.get("card") in state["hands"][me]]
            if mine:
                tree.append({"if": their, "then": rng.choice(mine)})
        path = links(app, game_id)[me] + "/plan"
        assert client.put(path, json={"plan": tree}).status_code == 200
        secret = secrets_of(app, game_id, me, state["hands"][me])
        checked += len(secret)
        records = len(caplog.records)
        deliver(app)
        for name, text in outputs(client, app, game_id, them, watch).items():
            for word in secret:
                assert word not in text, (name, word)
        # Their move: one the plan names half of the time (played ahead), else another.
        legal = RULES.legal_moves(state, them)
        named = [b["if"] for b in tree if b["if"] in legal]
        move = rng.choice(named) if named and rng.random() < 0.5 else rng.choice(legal)
        view = client.get(links(app, game_id)[them]).get_json()
        answer = client.post(
            links(app, game_id)[them] + "/move",
            json={"turn": view["turn"], "move": move},
            raw=True,
        )
        assert answer.status_code == 200, answer.get_data(as_text=True)
        note = (plan_kept(app, game_id, me) or {}).get("note")
        triggered += note == "used"
        cancelled += note == "cancelled"
        deliver(app)
        after = game_of(app, game_id).state
        assert after is not None
        # What the plan would still have played, and was not, stays secret.
        still = secrets_of(app, game_id, me, after["hands"][me])
        for name, text in outputs(client, app, game_id, them, watch).items():
            for word in still:
                assert word not in text, (name, word)
        for record in caplog.records[records:]:
            if not record.name.startswith("pbem"):
                continue  # the test's own SMTP server logs the mails it receives
            for word in secret:
                assert word not in record.getMessage(), record.getMessage()
    # Every mail the walk sent, to the one who did not make a plan at that time: the
    # plan's words (the page's and the reply's) are never in a mail.
    for mail in smtpd.messages:
        assert "If their move is" not in text_of(mail)
    # The outbox's rows (what each mail is rendered from) hold no plan either.
    with read_session(app.extensions["pbem"]["engine"]) as session:
        for row in session.exec(select(Outbox)).all():
            assert '"tree"' not in row.model_dump_json()
    assert triggered and cancelled and checked
