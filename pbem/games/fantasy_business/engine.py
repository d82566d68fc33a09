"""Fantasy Business round flow: reveal, lots, specials, pricing and income.

The state is a plain JSON dict (see `new_state`). A move is applied to a copy, then
`run` carries the game through every step that needs no decision, so a state handed
back always waits on at least one seat (or the game is over).
"""

from __future__ import annotations

import random
from typing import Any

from pbem.games.base import State
from pbem.games.fantasy_business import auction as auc
from pbem.games.fantasy_business import orders
from pbem.games.fantasy_business.cards import (
    ARTICLE_BY_ID,
    ARTICLE_IDS,
    CARD_TYPE,
    build_deck,
    card_type,
    specials_table,
)
from pbem.games.fantasy_business.income import settle_income
from pbem.games.fantasy_business.tally import counts, goods_value

START_MONEY = 10
event = auc.event


def rounds_for(n_players: int) -> int:
    """Spec, Components: 10 rounds, or 8 with 7 or 8 players."""
    return 8 if n_players >= 7 else 10


def new_state(n: int, options: dict[str, Any], seed: Any) -> State:
    """A new game: the shuffled pile, 10 écus each, a random first buyer; round 1 revealed."""
    rng = random.Random(seed)
    table = specials_table(options["specials"])
    deck = build_deck(table)
    # Spec, Setup: one shuffled pile, and a random first buyer, both from the seed.
    rng.shuffle(deck)
    first = rng.randrange(n)
    state: State = {
        "n": n,
        "options": options,
        "table": table,
        "rounds": rounds_for(n),
        "round": 1,
        "deck": deck,  # the draw pile; cards are turned up from the front
        "money": [START_MONEY] * n,
        "articles": [[] for _ in range(n)],
        "specials": [[] for _ in range(n)],
        "discard": [],  # face up: unsold articles and played specials
        "unseen": [],  # face-down specials nobody won: never shown to anyone
        "first": first,
        "step": "reveal",
        "row": [],  # the cards revealed this round, by slot
        "pending": [],  # slots not yet auctioned
        "won": [],  # seats that won a lot this round
        "auction": None,
        "specials_order": [],  # seats still to play specials, the current one first
        "effects": {"defaulting": [], "defective": []},
        "prices": [None] * n,  # this round's prices, secret until all are set
        "last_prices": [{} for _ in range(n)],
        # Orders mode (Spec, Playing by mail): the order of sale, each seat's limits by slot,
        # each holder's list of special plays, and the plays still to carry out.
        "order": [],
        "limits": [None] * n,
        "plays": [None] * n,
        "queue": [],
        "history": [],  # one record per round (the last is the current one)
        "events": [],  # what the last move caused, for log lines
        "ply": 0,
    }
    run(state)
    return state


def _copy(data: Any) -> Any:
    """A deep copy of plain JSON data (lists, dicts, numbers, strings)."""
    if isinstance(data, list):
        return [_copy(v) if isinstance(v, (list, dict)) else v for v in data]
    if isinstance(data, dict):
        return {k: _copy(v) if isinstance(v, (list, dict)) else v for k, v in data.items()}
    return data


def _copy_record(record: dict[str, Any]) -> dict[str, Any]:
    # The current round's record: lots, played specials and the ledger grow by appending;
    # an entry, once appended, never changes, except an Antitrust play's list of sales.
    new = dict(record)
    new["lots"] = list(record["lots"])
    new["played"] = [
        {**played, "sales": list(played["sales"])} if "sales" in played else played
        for played in record["played"]
    ]
    new["ledger"] = [list(entries) for entries in record["ledger"]]
    return new


def _copy_auction(auction: dict[str, Any] | None) -> dict[str, Any] | None:
    # Its lists change by append, remove or item; their entries never change in place.
    if auction is None:
        return None
    return {k: list(v) if isinstance(v, list) else v for k, v in auction.items()}


def clone(state: State) -> State:
    """A copy safe to change, copying only what a move may change in place.

    Speed matters (computer players play thousands of games a decision): instead of a deep
    copy, each part is copied as deep as moves change it. The draw pile, the row and last
    round's prices are only ever replaced, the options and the specials table never change,
    nor do finished rounds, so they are shared. Entries appended to a list (log lines, ledger
    lines, lots, listed plays) are never changed afterwards.
    """
    new: State = dict(state)
    for key in ("money", "discard", "unseen", "pending", "won", "specials_order", "order"):
        if key in state:
            new[key] = list(state[key])
    new["articles"] = [list(cards) for cards in state["articles"]]
    new["specials"] = [list(cards) for cards in state["specials"]]
    # A seat's prices, limits and list are replaced whole when set, never changed in place.
    new["prices"] = list(state["prices"])
    effects = state["effects"]
    new["effects"] = {
        "defaulting": list(effects["defaulting"]),
        "defective": list(effects["defective"]),
    }
    new["auction"] = _copy_auction(state["auction"])
    if "limits" in state:
        new["limits"] = list(state["limits"])
        new["plays"] = list(state["plays"])
        new["queue"] = list(state["queue"])
    history = state["history"]
    new["history"] = history[:-1] + [_copy_record(history[-1])] if history else []
    new["events"] = []
    return new


def run(state: State) -> None:
    """Go through every step that needs no decision, until one does or the game ends."""
    while True:
        step = state["step"]
        if step == "reveal":
            _reveal(state)
        elif step == "lots" and state["options"]["auction"] == "orders":
            orders.start_round(state)
        elif step == "limits_start":
            orders.start_limits(state)
        elif step == "specials_start" and state["options"]["auction"] == "orders":
            orders.start_plays(state)
        elif step == "carry_out":
            orders.carry_on(state)
        elif step == "lots":
            if not state["pending"]:
                state["step"] = "specials_start"
            elif len(state["pending"]) == 1:
                # Only one card left: there is nothing for the first buyer to choose.
                auc.start_lot(state, state["pending"][0], auto=True)
            else:
                state["step"] = "choose"
        elif step == "antitrust_next":
            if state["auction"]["queue"]:
                auc.start_antitrust_card(state)
            else:
                state["auction"] = None
                state["step"] = "specials_next"
        elif step == "specials_start":
            # Spec, A round, 3: clockwise from the first buyer, holders only.
            state["specials_order"] = auc.clockwise(state, state["first"])
            state["step"] = "specials_next"
        elif step == "specials_next":
            order = state["specials_order"]
            while order and not state["specials"][order[0]]:
                order.pop(0)
            if order:
                state["step"] = "specials"
                event(state, "specials_turn", seat=order[0])
            else:
                state["step"] = "pricing_start"
        elif step == "pricing_start":
            # The sellers cannot change while prices are set: noted once, read on every move.
            state["asked"] = must_price(state)
            state["step"] = "pricing" if state["asked"] else "income"
            if state["step"] == "pricing":
                event(state, "pricing")
        elif step == "income":
            _income(state)
        else:
            return


def _reveal(state: State) -> None:
    # Spec, A round, 1: as many cards as players, fewer if the pile runs short.
    n = state["n"]
    row = state["deck"][:n]
    state["deck"] = state["deck"][n:]
    state.update(
        row=row,
        pending=list(range(len(row))),
        won=[],
        auction=None,
        specials_order=[],
        effects={"defaulting": [], "defective": []},
        prices=[None] * n,
        step="lots",
    )
    state["history"].append(
        {
            "round": state["round"],
            "first": state["first"],
            "row": list(row),
            "lots": [],
            "played": [],
            "prices": None,
            "income": None,
            "ledger": [[] for _ in range(n)],
        }
    )
    event(state, "round", round=state["round"], rounds=state["rounds"], seat=state["first"])
    event(state, "revealed", row=list(row))


def on_sale(state: State, seat: int) -> list[str]:
    """The articles `seat` owns and sells this round (not hit by defective goods)."""
    held = state["articles"][seat]
    if not held:
        return []
    owned = {CARD_TYPE[card] if card in CARD_TYPE else card_type(card) for card in held}
    for target, article in state["effects"]["defective"]:
        if target == seat:
            owned.discard(article)
    return [article for article in ARTICLE_IDS if article in owned]


def must_price(state: State) -> list[int]:
    """Spec, A round, 4: the seats that set prices this round."""
    return [seat for seat in range(state["n"]) if on_sale(state, seat)]


def default_prices(state: State, seat: int) -> dict[str, int]:
    """Spec, Timeouts: last round's price for each article, the base price for a new one."""
    last = state["last_prices"][seat]
    return {a: last.get(a, ARTICLE_BY_ID[a].base) for a in on_sale(state, seat)}


def scores(state: State) -> list[dict[str, int]]:
    """Spec, End of game: écus plus the base prices of the articles held, per seat."""
    result = []
    for seat in range(state["n"]):
        goods = goods_value(state, seat)
        money = state["money"][seat]
        result.append({"ecus": money, "goods": goods, "score": money + goods})
    return result


def _income(state: State) -> None:
    # Spec, A round, 5: all prices revealed at once, then income per article.
    record = state["history"][-1]
    prices = state["prices"]
    effects = state["effects"]
    income = settle_income(counts(state), prices, effects["defaulting"], effects["defective"])
    event(state, "prices_revealed", prices=[dict(p) if p else None for p in prices])
    for seat, per_article in enumerate(income):
        total = sum(entry["amount"] for entry in per_article.values())
        state["money"][seat] += total
        for article, entry in per_article.items():
            record["ledger"][seat].append(
                {"what": "income", "amount": entry["amount"], "article": article}
            )
            event(state, "income", seat=seat, article=article, **entry)
    record["prices"] = [dict(p) if p else None for p in prices]
    record["income"] = income
    record["effects"] = _copy(effects)
    state["last_prices"] = [dict(p) if p else {} for p in prices]
    # Spec, A round, 6: the first buyer role passes to the left.
    state["first"] = (state["first"] + 1) % state["n"]
    if state["round"] >= state["rounds"]:
        state["step"] = "over"
        event(state, "over", scores=scores(state))
    else:
        state["round"] += 1
        state["step"] = "reveal"


def step_name(state: State) -> str:
    """The waiting step: choose, open, sealed, single, specials, pricing; in orders mode
    order, limits, lists and antitrust_limits."""
    step: str = state["auction"]["mode"] if state["step"] == "auction" else state["step"]
    return step


def to_act(state: State) -> list[int]:
    """The seats the game waits on."""
    step = step_name(state)
    if step == "choose":
        return [state["first"]]
    if step in ("open", "single"):
        return [state["auction"]["turn"]]
    if step == "sealed":
        bids = state["auction"]["bids"]
        return [seat for seat in state["auction"]["eligible"] if bids[seat] is None]
    if step == "specials":
        return [state["specials_order"][0]]
    if step == "pricing":
        return [seat for seat in asked(state) if state["prices"][seat] is None]
    if step == "order":
        return [state["first"]]
    if step == "limits":
        return [seat for seat in state["asked"] if state["limits"][seat] is None]
    if step == "lists":
        return [seat for seat in state["asked"] if state["plays"][seat] is None]
    if step == "antitrust_limits":
        limits = state["auction"]["limits"]
        return [seat for seat in state["asked"] if limits[seat] is None]
    return []


def may_act(state: State, seat: int) -> bool:
    """Whether `seat` may move now; in pricing, also to revise prices already set."""
    step = state["step"]
    if step == "pricing":
        # Spec, A round, 4: prices may be changed until the last player has set theirs.
        return seat in asked(state)
    # Spec, Playing by mail, 3, 5 and 6: limits and lists too, until the last one is in.
    if step in ("limits", "lists", "antitrust_limits"):
        return seat in state["asked"]
    return seat in to_act(state)


def asked(state: State) -> list[int]:
    """The seats asked to act in the simultaneous step under way (pricing, limits, lists)."""
    if state["step"] == "pricing" and "asked" not in state:
        return must_price(state)  # a state saved before "asked" was noted
    return list(state["asked"])
