"""Fantasy Business deals: a full state rebuilt from one seat's view.

Spec, What each player sees: a seat does not see the draw pile, the specials others
hold, face-down specials (in the row, at auction, or unsold and never shown), sealed
bids and prices not yet revealed. A deal puts the cards the seat has not seen into
those places at random, and draws secret bids and prices at random in their ranges,
so that the state's view for that seat is exactly the view given. Search bots play on
such states; they never need the real one.
"""

from __future__ import annotations

import random
from typing import Any

from pbem.games.base import State
from pbem.games.fantasy_business.cards import (
    ARTICLE_BY_ID,
    base_price,
    build_deck,
    card_type,
    is_special,
)

_LOT_KEYS = ("slot", "card", "mode", "winner", "price", "bids")
_AUCTION_STEPS = ("open", "sealed", "single")


def deal_state(view: dict[str, Any], seat: int, rng: random.Random) -> State:
    """A state consistent with `seat`'s view, every hidden card and number drawn with `rng`."""
    n = view["n"]
    table = view["specials_table"]
    players = view["players"]
    me = view["me"]
    history = [_record(rv) for rv in view["history"]]
    current = history[-1]
    auction_view = view["auction"]

    # Every card id the seat has seen somewhere; the rest are the unseen cards.
    seen: set[str] = set(view["discard"]) | set(me["specials"])
    for player in players:
        seen.update(player["cards"])
    for record in history:
        seen.update(c for c in record["row"] if c is not None)
        for played in record["played"]:
            seen.add(played["card"])
            seen.update(played.get("cards", []))
    if auction_view is not None:
        if auction_view["card"] is not None:
            seen.add(auction_view["card"])
        seen.update(auction_view.get("queue", []))
    unseen = [c for c in build_deck(table) if c not in seen]
    rng.shuffle(unseen)
    unseen_specials = [c for c in unseen if is_special(c)]
    pile = [c for c in unseen if not is_special(c)]

    def draw_special() -> str:
        return unseen_specials.pop()

    # Specials held by others: as many as each holds, from the unseen specials.
    specials: list[list[str]] = []
    for s in range(n):
        if s == seat:
            specials.append(list(me["specials"]))
        else:
            specials.append([draw_special() for _ in range(players[s]["specials"])])

    # Hidden slots of the row records: a seat's won specials are the ones it holds now
    # and the ones it has played; unsold ones are the never-shown pile, the current
    # round's pending and auctioned slots are specials still face down.
    played_by: list[list[str]] = [[] for _ in range(n)]
    for record in history:
        for played in record["played"]:
            if is_special(played["card"]):
                played_by[played["seat"]].append(played["card"])
    won_hidden: list[list[str]] = [list(specials[s]) + played_by[s] for s in range(n)]
    for cards in won_hidden:
        rng.shuffle(cards)
    unseen_pile: list[str] = []
    for record in history:
        lots = {lot["slot"]: lot for lot in record["lots"]}
        for slot, card in enumerate(record["row"]):
            if card is not None:
                continue
            lot = lots.get(slot)
            if lot is None:
                dealt = draw_special()  # face down in the current round's row
            elif lot["winner"] is None:
                dealt = draw_special()
                unseen_pile.append(dealt)
            else:
                dealt = won_hidden[lot["winner"]].pop()
            record["row"][slot] = dealt
            if lot is not None:
                lot["card"] = dealt
    if len(unseen_pile) != view["unseen_count"]:
        raise ValueError("the view's unsold specials do not match its count")

    # The draw pile: every unseen card not placed, in a random order.
    deck = pile + unseen_specials
    rng.shuffle(deck)
    if len(deck) != view["draw_count"]:
        raise ValueError("the view does not account for every card")

    step = view["step"]
    state: State = {
        "n": n,
        "options": dict(view["options"]),
        "table": {k: dict(v) for k, v in table.items()},
        "rounds": view["rounds"],
        "round": view["round"],
        "deck": deck,
        "money": [p["ecus"] for p in players],
        "articles": [list(p["cards"]) for p in players],
        "specials": specials,
        "discard": list(view["discard"]),
        "unseen": unseen_pile,
        "first": view["first"],
        "step": "auction" if step in _AUCTION_STEPS else step,
        "row": list(current["row"]),
        "pending": list(view["pending"]),
        "won": [lot["winner"] for lot in current["lots"] if lot["winner"] is not None],
        "auction": _auction(auction_view, current, seat, players, rng),
        "specials_order": _specials_order(view, current),
        "effects": {
            "defaulting": list(view["effects"]["defaulting"]),
            "defective": [list(pair) for pair in view["effects"]["defective"]],
        },
        "prices": _prices(view, current, seat, rng),
        "last_prices": _last_prices(history, n),
        "history": history,
        "events": [],
        "ply": view["ply"],
    }
    if "limits" in view:
        _orders_parts(state, view, current, seat, rng)
    return state


def _lot(lot: dict[str, Any]) -> dict[str, Any]:
    result = {k: lot[k] for k in _LOT_KEYS}
    result["bids"] = [list(entry) for entry in lot["bids"]]
    if lot.get("held"):
        # An Antitrust sale's lots note the écus each bidder held (orders.antitrust_sale).
        result["held"] = [list(entry) for entry in lot["held"]]
    return result


def _record(rv: dict[str, Any]) -> dict[str, Any]:
    """A round record from its view; hidden cards are left as None for the deal to fill."""
    played = []
    for p in rv["played"]:
        entry = {k: v for k, v in p.items() if k != "sales"}
        if "sales" in p:
            entry["sales"] = [_lot(sale) for sale in p["sales"]]
        played.append(entry)
    record: dict[str, Any] = {
        "round": rv["round"],
        "first": rv["first"],
        "row": [slot["card"] for slot in rv["row"]],
        "lots": [_lot(lot) for lot in rv["lots"]],
        "played": played,
        "prices": rv["prices"],
        "income": rv["income"],
        "ledger": rv["ledger"],
    }
    if rv["effects"] is not None:
        record["effects"] = rv["effects"]
    if rv.get("order") is not None:
        record["order"] = list(rv["order"])  # orders mode: the order of sale
    return record


def _random_bid(money: int, base: int, rng: random.Random) -> int:
    """A secret sealed bid: 0, or any amount from the base price to the money held."""
    if money < base:
        return 0
    bid: int = rng.choice([0, *range(base, money + 1)])
    return bid


def _auction(
    av: dict[str, Any] | None,
    current: dict[str, Any],
    seat: int,
    players: list[dict[str, Any]],
    rng: random.Random,
) -> dict[str, Any] | None:
    if av is None:
        return None
    if av["mode"] == "limits":
        # Spec, Playing by mail, 6: an Antitrust sale by limits, the others' limits secret.
        limits: list[int | None] = [None] * len(players)
        for s in av["limit_in"]:
            limits[s] = (
                av["my_limit"] if s == seat else _random_bid(players[s]["ecus"], av["base"], rng)
            )
        return {
            "kind": "antitrust",
            "mode": "limits",
            "owner": av["owner"],
            "article": av["article"],
            "cards": list(av["cards"]),
            "base": av["base"],
            "eligible": list(av["eligible"]),
            "limits": limits,
            "total": av["total"],
            "slot": None,
        }
    card = av["card"] if av["card"] is not None else current["row"][av["slot"]]
    auction: dict[str, Any] = {
        "kind": av["kind"],
        "mode": av["mode"],
        "slot": av["slot"],
        "card": card,
        "base": av["base"],
        "eligible": list(av["eligible"]),
    }
    if av["mode"] == "sealed":
        bids: list[int | None] = [None] * len(players)
        for s in av["bid_in"]:
            if s == seat:
                bids[s] = av["my_bid"]
            else:
                bids[s] = _random_bid(players[s]["ecus"], av["base"], rng)
        auction.update(
            {"in": list(av["eligible"]), "bid": None, "bidder": None, "bids": bids, "log": []}
        )
        auction["turn"] = av["eligible"][0] if av["eligible"] else None
    else:
        auction.update(
            {
                "in": list(av["still_in"]),
                "bid": av["bid"],
                "bidder": av["bidder"],
                "turn": av["turn"],
                "log": [list(entry) for entry in av["bids"]],
            }
        )
    if av["kind"] == "lot":
        if av["mode"] != "sealed":
            auction["bids"] = None
    else:
        auction.update(
            {
                "owner": av["owner"],
                "article": av["article"],
                "queue": list(av["queue"]),
                "number": av["number"],
                "total": av["total"],
            }
        )
    return auction


def _specials_order(view: dict[str, Any], current: dict[str, Any]) -> list[int]:
    """The seats still to play specials: the rest of the clockwise round from the first buyer."""
    order = [(view["first"] + i) % view["n"] for i in range(view["n"])]
    if view["step"] == "specials":
        at = view["specials_turn"]
    elif view["step"] in _AUCTION_STEPS and view["auction"]["kind"] == "antitrust":
        at = current["played"][-1]["seat"]  # the antitrust player keeps the turn
    else:
        return []
    return order[order.index(at) :]


def _prices(
    view: dict[str, Any], current: dict[str, Any], seat: int, rng: random.Random
) -> list[dict[str, int] | None]:
    """This round's prices: own ones as set, others' secret ones drawn in their ranges."""
    n = view["n"]
    if view["step"] == "over":
        return [dict(p) if p else None for p in current["prices"]]
    prices: list[dict[str, int] | None] = [None] * n
    if view["step"] != "pricing":
        return prices
    for s in view["pricing"]["set"]:
        if s == seat:
            prices[s] = dict(view["me"]["prices"])
        else:
            prices[s] = {
                a: rng.randint(ARTICLE_BY_ID[a].base, 2 * ARTICLE_BY_ID[a].base)
                for a in view["players"][s]["on_sale"]
            }
    return prices


def _last_prices(history: list[dict[str, Any]], n: int) -> list[dict[str, int]]:
    """Spec, Timeouts: the prices of the last round whose income was paid."""
    for record in reversed(history):
        if record["income"] is not None:
            return [dict(p) if p else {} for p in record["prices"]]
    return [{} for _ in range(n)]


def _orders_parts(
    state: State, view: dict[str, Any], current: dict[str, Any], seat: int, rng: random.Random
) -> None:
    """The orders auction's parts (Spec, Playing by mail): order of sale, the seats asked,
    limits and lists of plays (others' secret ones drawn at random), plays still to come."""
    n, step, me = view["n"], view["step"], view["me"]
    row = state["row"]
    orders = state["options"]["auction"] == "orders"
    given = current.get("order")
    state["order"] = list(given) if given else (list(range(len(row))) if orders else [])
    if orders:
        state["shown_row"] = ["special" if is_special(c) else c for c in row]
    asked = {
        "pricing": (view.get("pricing") or {}).get("sellers"),
        "limits": (view.get("limits") or {}).get("seats"),
        "lists": (view.get("lists") or {}).get("holders"),
        "antitrust_limits": (view.get("auction") or {}).get("limit_seats"),
    }.get(step)
    if asked is not None:
        state["asked"] = list(asked)
    limits: list[list[int] | None] = [None] * n
    plays: list[list[dict[str, Any]] | None] = [None] * n
    if step in ("limits", "lists", "antitrust_limits"):
        limits[seat] = me.get("limits")
        plays[seat] = me.get("plays")
    if step == "limits":
        for s in view["limits"]["set"]:
            if s != seat:
                money = view["players"][s]["ecus"]
                limits[s] = [_random_bid(money, base_price(c), rng) for c in row]
    if step == "lists":
        for s in view["lists"]["set"]:
            if s != seat:
                plays[s] = _random_plays(state, s, rng)
    state["limits"] = limits
    state["plays"] = plays
    state["queue"] = _queue(state, view, current, seat, rng) if step == "antitrust_limits" else []


def _random_plays(state: State, seat: int, rng: random.Random) -> list[dict[str, Any]]:
    """A list of plays another seat may have made: each of its specials, or not, at random."""
    n = state["n"]
    others = [s for s in range(n) if s != seat]
    owned = [sorted({card_type(c) for c in state["articles"][s]}) for s in range(n)]
    alone: dict[int, list[str]] = {}
    for article in sorted({a for arts in owned for a in arts}):
        owners = [s for s in range(n) if article in owned[s]]
        if len(owners) == 1 and owners[0] != seat:
            alone.setdefault(owners[0], []).append(article)
    plays = []
    for card in state["specials"][seat]:
        if rng.random() < 0.5:
            continue
        kind = card_type(card)
        play: dict[str, Any] = {"seat": seat, "card": card, "kind": kind}
        play.update(target=None, article=None)
        if kind == "defaulting":
            play["target"] = rng.choice(others)
        elif kind in ("theft", "defective"):
            pairs = [(t, a) for t in others for a in owned[t]]
            if not pairs:
                continue
            play["target"], play["article"] = rng.choice(pairs)
        elif kind == "antitrust" and alone:
            target = rng.choice(sorted(alone))
            play["target"], play["article"] = target, rng.choice(alone[target])
        plays.append(play)
    return plays


def _queue(
    state: State, view: dict[str, Any], current: dict[str, Any], seat: int, rng: random.Random
) -> list[dict[str, Any]]:
    """The listed plays still to carry out after the Antitrust sale under way: this seat's
    own remaining ones, and for the others, plays drawn at random from their specials."""
    n, first = view["n"], view["first"]
    done = {p["card"] for p in current["played"]}
    played_seats = {p["seat"] for p in current["played"]}
    holders = [
        s for s in ((first + i) % n for i in range(n)) if state["specials"][s] or s in played_seats
    ]
    now = current["played"][-1]["seat"]
    queue: list[dict[str, Any]] = []
    for s in holders[holders.index(now) :]:
        if s == seat:
            queue.extend(p for p in (view["me"].get("plays") or []) if p["card"] not in done)
        else:
            queue.extend(_random_plays(state, s, rng))
    return queue
