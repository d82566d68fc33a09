"""Fantasy Business income: who earns what for each article once prices are revealed."""

from __future__ import annotations

from typing import Any

from pbem.games.fantasy_business.cards import ARTICLE_IDS

# Spec, Income: the bonus per card for the lowest price (and for all-equal prices).
LOW_BONUS = 2


def price_position(price: int, low: int, high: int) -> str:
    """Spec, Income: where a price falls among those asked for one article."""
    if low == high:
        return "all_equal"  # all at the same price (a lone owner too) count as lowest
    if price == low:
        return "lowest"
    return "highest" if price == high else "middle"


def earned(price: int, low: int, high: int, cards: int) -> int:
    """Spec, Income: what `cards` cards at `price` earn, the lowest and highest asked being
    `low` and `high`: the lowest (or all equal) price + 2 a card, the highest nothing."""
    if price == low:
        return (price + LOW_BONUS) * cards
    return 0 if price == high else price * cards


def settle_income(
    counts: list[dict[str, int]],
    prices: list[dict[str, int] | None],
    defaulting: list[int],
    defective: list[list[Any]],
) -> list[dict[str, dict[str, Any]]]:
    """Income per seat and article: {"cards", "price", "position", "reason", "owners", "amount"}.

    `counts` gives each seat's article cards by article, `prices` the revealed prices,
    `defaulting` the seats hit by a defaulting buyer, `defective` the [seat, article] pairs
    off the market. `position` is where the price fell (lowest, middle, highest, all_equal);
    `reason` is the position, or "defaulting"/"defective" when that overrides it.
    """
    off = {(seat, article) for seat, article in defective}
    result: list[dict[str, dict[str, Any]]] = [{} for _ in counts]
    for article in ARTICLE_IDS:
        owners = [seat for seat, held in enumerate(counts) if held.get(article, 0)]
        if not owners:
            continue
        # Spec, Income: only owners whose article is on sale this round are compared;
        # a defective article's price is left out (Spec, Special cards: defective goods).
        on_sale = [seat for seat in owners if (seat, article) not in off]
        asked = {seat: (prices[seat] or {})[article] for seat in on_sale}
        low = min(asked.values(), default=0)
        high = max(asked.values(), default=0)
        for seat in owners:
            cards = counts[seat][article]
            if seat not in asked:
                result[seat][article] = {
                    "cards": cards,
                    "price": None,
                    "position": None,
                    "reason": "defective",
                    "owners": len(on_sale),
                    "amount": 0,
                }
                continue
            price = asked[seat]
            position, amount = price_position(price, low, high), earned(price, low, high, cards)
            reason = position
            if seat in defaulting:
                # Spec, Special cards: a defaulting buyer's price still counts, but no income.
                reason, amount = "defaulting", 0
            result[seat][article] = {
                "cards": cards,
                "price": price,
                "position": position,
                "reason": reason,
                "owners": len(on_sale),
                "amount": amount,
            }
    return result
