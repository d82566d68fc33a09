"""Fantasy Business results: final standings and, round by round, who earned or paid what."""

from __future__ import annotations

from typing import Any

from pbem.games.fantasy_business.cards import ARTICLE_IDS
from pbem.present.fantasy_business.sales import income_by_article, income_line, lot_rows
from pbem.present.fantasy_business.words import played_lines
from pbem.present.text import card_name


def results(outcome: dict[str, Any], names: list[str], lang: str) -> dict[str, Any]:
    """Final standings (écus + goods) and, round by round, who earned or paid what and why."""
    breakdown = outcome["breakdown"]
    players = []
    for seat, name in enumerate(names):
        final = breakdown["players"][seat]
        players.append(
            {
                "seat": seat,
                "name": name,
                "rank": outcome["ranks"][seat],
                "score": outcome["scores"][seat],
                "total": outcome["scores"][seat],
                "ecus": final["ecus"],
                "goods": final["goods"],
                "articles": [
                    {
                        "name": card_name(a, lang),
                        "count": final["articles"][a]["cards"],
                        "base": final["articles"][a]["base"],
                        "value": final["articles"][a]["value"],
                    }
                    for a in ARTICLE_IDS
                    if a in final["articles"]
                ],
                "specials_unplayed": final["specials_unplayed"],
            }
        )
    rounds = []
    for record in breakdown["rounds"]:
        income = [p["income"] for p in record["players"]]
        rows = []
        for seat, entry in enumerate(record["players"]):
            lines = [
                income_line(seat, a, entry["income"][a], names, lang)
                for a in ARTICLE_IDS
                if a in entry["income"]
            ]
            if not (lines or entry["ledger"]):
                continue
            rows.append(
                {
                    "name": names[seat],
                    "paid": entry["paid_at_auction"],
                    "subsidies": entry["subsidies"],
                    "antitrust": entry["antitrust_proceeds"],
                    "income": lines,
                    "earned": sum(line["amount"] for line in lines),
                    "net": entry["net"],
                }
            )
        rounds.append(
            {
                "round": record["round"],
                "first": names[record["first"]],
                "lots": lot_rows(record["lots"], names, lang),
                "played": played_lines(record["played"], names, lang),
                "articles": income_by_article(income, names, lang),
                "players": rows,
            }
        )
    order = sorted(range(len(names)), key=lambda n: (outcome["ranks"][n], n))
    return {
        "players": players,
        "standings": [players[n] for n in order],
        "winners": [names[n] for n in order if outcome["ranks"][n] == 1],
        "rounds": rounds,
    }
