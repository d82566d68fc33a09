"""What a rules page shows beside its prose: the cards, the options, and a worked example
whose numbers come from the rules engine itself, so the page cannot drift from the game."""

from __future__ import annotations

from typing import Any

from pbem.games import GAMES
from pbem.games.colour_bazaar import market_values, score
from pbem.games.decktet import CARDS, SUITS
from pbem.games.fantasy_business.cards import ARTICLES, SPECIAL_KINDS
from pbem.games.fantasy_business.income import settle_income
from pbem.present.text import card_name, say, suit_name

# The worked example's four markets, bottom card first (each card shares a suit with the one
# under it, as a play must). Market 1 shows a Crown copying the best card of its suit.
EXAMPLE_MARKETS = [
    ["watchman", "battle", "calamity", "cave", "sea"],
    ["borderland", "sailor", "mill", "origin"],
    ["harvest", "mountain", "diplomat", "ace-suns"],
    ["light-keeper", "painter", "castle", "windfall", "merchant"],
]
EXAMPLE_CHIPS = [
    {"moons": 1, "suns": 3, "waves": 2, "leaves": 0, "wyrms": 1, "knots": 3},
    {"moons": 3, "suns": 1, "waves": 1, "leaves": 3, "wyrms": 2, "knots": 0},
]


def _suit(suit: str, lang: str) -> dict[str, Any]:
    return {"id": suit, "name": suit_name(suit, lang)}


def colour_bazaar(lang: str) -> dict[str, Any]:
    """The deck by kind, and a whole table scored by the engine."""
    deck: dict[str, list[dict[str, Any]]] = {}
    for card in CARDS.values():
        deck.setdefault(card.kind, []).append(
            {
                "name": card_name(card.id, lang),
                "rank": card.rank,
                "suits": [_suit(s, lang) for s in card.suits],
            }
        )
    outcome = score(EXAMPLE_MARKETS, EXAMPLE_CHIPS)
    first = market_values(EXAMPLE_MARKETS[0])
    return {
        "deck": deck,
        "suits": [_suit(s, lang) for s in SUITS],
        "markets": [[card_name(c, lang) for c in market] for market in EXAMPLE_MARKETS],
        "first_market": [
            {
                "suit": _suit(suit, lang),
                "value": first[suit]["value"],
                "card": card_name(first[suit]["card"], lang) if first[suit]["card"] else "",
                "copied": card_name(first[suit]["copied"], lang) if first[suit]["copied"] else "",
            }
            for suit in SUITS
        ],
        "per_market": [
            [outcome.breakdown["markets"][m][suit]["value"] for suit in SUITS]
            for m in range(len(EXAMPLE_MARKETS))
        ],
        "values": [outcome.breakdown["suit_values"][suit] for suit in SUITS],
        "players": [
            {
                "chips": [held[suit] for suit in SUITS],
                "lines": [outcome.breakdown["lines"][p][suit] for suit in SUITS],
                "total": outcome.scores[p],
            }
            for p, held in enumerate(EXAMPLE_CHIPS)
        ],
    }


# The income example: three owners of Swords (base 4) and Léo alone with Horses (base 5).
EXAMPLE_COUNTS = [{"swords": 2}, {"swords": 1, "horses": 2}, {"swords": 1}]
EXAMPLE_PRICES: list[dict[str, int] | None] = [
    {"swords": 5},
    {"swords": 7, "horses": 9},
    {"swords": 8},
]


def fantasy_business(lang: str) -> dict[str, Any]:
    """The articles and specials, and one round of income worked out by the engine."""
    income = settle_income(EXAMPLE_COUNTS, EXAMPLE_PRICES, [], [])
    rows = []
    for seat, held in enumerate(EXAMPLE_COUNTS):
        for article in held:
            entry = income[seat][article]
            rows.append(
                {
                    "seat": seat,
                    "article": say(lang, f"card.{article}"),
                    "cards": entry["cards"],
                    "price": entry["price"],
                    "position": entry["position"],
                    "amount": entry["amount"],
                }
            )
    return {
        "articles": [
            {"name": say(lang, f"card.{a.id}"), "base": a.base, "high": 2 * a.base}
            for a in ARTICLES
        ],
        "specials": [
            {"id": k.id, "name": say(lang, f"card.{k.id}"), "copies": k.copies}
            for k in SPECIAL_KINDS
        ],
        "income": rows,
    }


def rules_context(slug: str, lang: str) -> dict[str, Any]:
    """Everything a rules page needs besides its prose."""
    rules = GAMES[slug]
    extra = colour_bazaar(lang) if slug == "colour-bazaar" else fantasy_business(lang)
    return {
        "slug": slug,
        "min_players": rules.min_players,
        "max_players": rules.max_players,
        "options": rules.options,
        **extra,
    }
