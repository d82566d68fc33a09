"""Fantasy Business: what a seat's position is worth, and what a card adds to it.

Spec, Income: an article earns every round it is held. A lone seller asks up to twice
the base price and earns price + 2 a card; sellers who share an article undercut each
other down to the base price (base + 2 a card when tied lowest), and the highest earns
nothing. Spec, End of game: each card then counts its base price. So a seat's worth is
its écus, plus its cards' base prices, plus the income its cards should still bring;
a card is worth what it adds to its buyer's standing against the others.
"""

from __future__ import annotations

from pbem.games.base import State
from pbem.games.fantasy_business.cards import ARTICLE_BY_ID, KIND_BY_ID, card_type, is_special
from pbem.games.fantasy_business.income import LOW_BONUS

# Income a card is expected to earn in a later round: a monopoly may be broken, and shared
# sellers do not always tie at the base price.
MONOPOLY_KEEP = 0.8
SHARED_LOSS = 0.5
# Part of the Antitrust cards a rival holds that would be played on a given monopoly.
ANTITRUST_AIM = 0.5
# Spec, Special cards: what a face-down special is worth, by kind, before it is seen.
KIND_WORTH = {"theft": 6.0, "defaulting": 3.0, "defective": 2.0, "antitrust": 2.5}


def counts_by_article(state: State) -> list[dict[str, int]]:
    """Each seat's article cards, counted by article (as `engine.counts`, quicker)."""
    result = []
    for held in state["articles"]:
        count: dict[str, int] = {}
        for card in held:
            article = card[: card.rindex("-")]
            count[article] = count.get(article, 0) + 1
        result.append(count)
    return result


def _future_rounds(state: State) -> tuple[bool, int]:
    """Whether this round's income is still to come, and how many whole rounds follow."""
    if state["step"] == "over":
        return False, 0
    pending = state["history"][-1]["income"] is None
    return pending, state["rounds"] - state["round"]


def specials_live(state: State) -> bool:
    """Whether a special card may still be played in this game."""
    if state["step"] == "over":
        return False
    if state["round"] < state["rounds"]:
        return True
    return state["step"] in ("reveal", "lots", "choose", "auction", "specials")


def worth(
    state: State, counts: list[dict[str, int]] | None = None, specials: bool = True
) -> list[float]:
    """Each seat's expected final score: écus, base prices, and the income still to come."""
    n = state["n"]
    held = counts if counts is not None else counts_by_article(state)
    pending, later = _future_rounds(state)
    effects = state["effects"]
    defective = {(pair[0], pair[1]) for pair in effects["defective"]}
    defaulting = effects["defaulting"]
    prices = state["prices"]
    result = [float(m) for m in state["money"]]
    owners_of: dict[str, list[int]] = {}
    threats: dict[int, float] = {}
    for s in range(n):
        for article in held[s]:
            owners_of.setdefault(article, []).append(s)
    for article, owners in owners_of.items():
        base = ARTICLE_BY_ID[article].base
        if len(owners) == 1:
            if owners[0] not in threats:
                threats[owners[0]] = antitrust_threat(state, owners[0])
            keep = MONOPOLY_KEEP * (1 - threats[owners[0]])
            per = keep * (2 * base + LOW_BONUS) + (1 - keep) * (base + LOW_BONUS)
        else:
            per = max(base + LOW_BONUS - SHARED_LOSS * (len(owners) - 2), base)
        card_worth = base + per * later
        if pending:
            sellers = [s for s in owners if (s, article) not in defective]
            alone = len(sellers) == 1
        for s in owners:
            k = held[s][article]
            total = k * card_worth
            if pending and s not in defaulting and (s, article) not in defective:
                # Spec, A round, 5: this round's income, unless defaulted or defective.
                if alone:
                    price = (prices[s] or {}).get(article)
                    total += k * ((price if price is not None else 2 * base) + LOW_BONUS)
                else:
                    total += k * (base + LOW_BONUS)
            result[s] += total
    if specials and specials_live(state):
        for s in range(n):
            for card in state["specials"][s]:
                result[s] += held_special_worth(state, s, card)
    return result


def antitrust_threat(state: State, seat: int) -> float:
    """The chance in a round that a monopoly of `seat` is sold off by an Antitrust card
    (Spec, Special cards): the specials the other seats hold, and the cards they should
    win next round, each an Antitrust as often as the cards not yet seen hold one; aimed
    at this seat's monopoly about half the time."""
    table = state["table"]
    seen = [card_type(c) for c in state["discard"] if is_special(c)]
    left = table["antitrust"]["copies"] - seen.count("antitrust")
    unknown = sum(table[kind]["copies"] for kind in KIND_BY_ID) - len(seen)
    if left <= 0 or unknown <= 0:
        return 0.0
    held = sum(len(state["specials"][s]) for s in range(state["n"]) if s != seat)
    coming = (state["n"] - 1) * left / max(len(state["deck"]), 1)
    aim: float = ANTITRUST_AIM * min(1.0, held * left / unknown + coming)
    return aim


def held_special_worth(state: State, seat: int, card: str) -> float:
    kind = card_type(card)
    if kind == "subsidy":
        return float(state["table"]["subsidy"]["amount"])
    return KIND_WORTH[kind]


def standing(values: list[float], seat: int) -> float:
    """A seat's standing: its worth less the mean of the others' and the best other's."""
    others = [v for s, v in enumerate(values) if s != seat]
    return values[seat] - 0.5 * (sum(others) / len(others)) - 0.5 * max(others)


def _unseen_special_worth(state: State) -> float:
    """What a face-down special should be worth, from the kinds not yet seen."""
    remaining: dict[str, int] = {k: state["table"][k]["copies"] for k in KIND_BY_ID}
    for card in state["discard"]:
        if is_special(card):
            remaining[card_type(card)] -= 1
    total = sum(max(v, 0) for v in remaining.values())
    if total == 0:
        return 0.0
    amount = float(state["table"]["subsidy"]["amount"])
    return (
        sum(max(v, 0) * (amount if k == "subsidy" else KIND_WORTH[k]) for k, v in remaining.items())
        / total
    )


def card_values(state: State, seat: int, cards: list[str]) -> list[float]:
    """How much owning each of `cards` would raise `seat`'s standing (before paying)."""
    held = counts_by_article(state)
    before: float | None = None
    result = []
    for card in cards:
        if is_special(card):
            result.append(_unseen_special_worth(state) if specials_live(state) else 0.0)
            continue
        if before is None:
            before = standing(worth(state, held, specials=False), seat)
        article = card_type(card)
        with_card = list(held)
        with_card[seat] = {**held[seat], article: held[seat].get(article, 0) + 1}
        result.append(standing(worth(state, with_card, specials=False), seat) - before)
    return result
