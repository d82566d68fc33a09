"""Fantasy Business in mail: what a queued mail keeps of the view, the step asked, past rounds."""

from __future__ import annotations

from typing import Any

from pbem.present.fantasy_business.sales import (
    income_by_article,
    lot_rows,
    round_income,
)
from pbem.present.fantasy_business.words import ecus, in_sale_order, played_lines, row_cards
from pbem.present.text import card_name, say

# A queued mail keeps the current round and the number of the one before (mail_view).
MAIL_ROUNDS = 1


def mail_view(view: dict[str, Any]) -> dict[str, Any]:
    """What a queued mail keeps of the seat's view: all but the finished rounds, which the
    sender takes from the game when it renders (a finished round's record never changes).

    The view needs only the current round and the one before: MAIL_ROUNDS, 1."""
    finished = [r["round"] for r in view["history"] if r["income"] is not None]
    return {
        **view,
        "history": [r for r in view["history"] if r["income"] is None],
        "mail_finished": max(finished, default=0),
    }


def mail_view_then(kept: dict[str, Any], now: dict[str, Any]) -> dict[str, Any]:
    """The seat's view when the mail was queued, from what mail_view kept and its view now."""
    then = {k: v for k, v in kept.items() if k != "mail_finished"}
    finished = [
        r for r in now["history"] if r["income"] is not None and r["round"] <= kept["mail_finished"]
    ]
    then["history"] = finished + kept["history"]
    return then


def mail_rounds_then(kept: dict[str, Any], state: dict[str, Any], reported: int) -> int:
    """The finished rounds before the current one that a mail's view at render time must
    hold (rules.view's `rounds`): back to the first of the `reported` rounds it reports, and
    at least the last one finished when it was queued (mail_view_then, round_reports).

    Counted back from the last record's number, so a mail late in a game views what one
    early does, and the stored state need not hold the rounds (rules.released says which)."""
    first = max(int(kept["mail_finished"]) - max(reported, 1) + 1, 1)
    last = int(state["history"][-1]["round"])
    return max(last - first, 0)


def turn_prompt(
    view: dict[str, Any], seat: int, names: list[str], lang: str
) -> dict[str, Any] | None:
    """For a turn mail: what the step asks of the seat, in words, and the row as it stands."""
    if view["over"] or seat not in view["to_act"]:
        return None
    step = view["step"]
    money = view["players"][seat]["ecus"]
    params: dict[str, Any] = {"ecus": ecus(money, lang), "count": len(view["row"])}
    auction = view["auction"]
    if auction is not None:
        params["card"] = (
            card_name(auction["card"], lang)
            if auction["card"] and not auction["special"]
            else say(lang, "fb.page.special_face_down")
        )
        if auction["kind"] == "antitrust":
            params.update(
                owner=names[auction["owner"]], article=card_name(auction["article"], lang)
            )
    row = row_cards(view["row"], names, lang)
    current = view["history"][-1] if view["history"] else None
    order = current["order"] if current is not None and step != "order" else None
    lines = []
    for card in in_sale_order(row, order):
        name = card["name"] or say(lang, "fb.page.special_face_down")
        base = say(lang, "fb.page.base", price=ecus(card["base"], lang))
        text = f"{card['position']}. {name} ({base})"
        if card["status"] == "won":
            text += " — " + say(
                lang, "fb.page.won_by", name=card["winner"], price=ecus(card["price"], lang)
            )
        elif card["status"] == "discarded":
            text += " — " + say(lang, "fb.page.unsold")
        lines.append(text)
    return {"ask": say(lang, f"fb.page.ask.{step}", **params), "row": lines}


def round_reports(
    view: dict[str, Any], names: list[str], lang: str, count: int
) -> list[dict[str, Any]]:
    """The last `count` finished rounds, for a mail: each player's income, one block per card
    sold (every limit or bid, the winner, the price) and the income, seller by seller."""
    finished = [r for r in view["history"] if r["income"] is not None][-count:] if count else []
    reports = []
    for record in finished:
        lots = []
        for lot in lot_rows(record["lots"], names, lang):
            title = lot["name"] or say(lang, "fb.page.special_face_down")
            bids = ", ".join(
                f"{b['name']} {b['amount'] if b['amount'] is not None else '–'}"
                for b in lot["bids"]
            )
            result = (
                say(lang, "fb.page.won_by", name=lot["winner"], price=ecus(lot["price"], lang))
                if lot["winner"]
                else say(lang, "fb.page.unsold")
            )
            base = say(lang, "fb.page.base", price=ecus(lot["base"], lang))
            lots.append(
                {
                    "title": f"{title} ({base})",
                    "name": title,
                    "base": base,
                    "bids": lot["bids"],
                    "bids_text": bids,
                    "result": result,
                    "winner": lot["winner"],
                    "price": ecus(lot["price"], lang) if lot["price"] is not None else None,
                    "reason": lot["reason"],
                }
            )
        income = [
            {
                "name": seller["name"],
                "article": group["name"],
                "cards": seller["cards"],
                "price": seller["price"],
                "amount": seller["amount"],
                "reason": seller["reason_text"],
                "formula": seller["formula"],
            }
            for group in income_by_article(record["income"], names, lang)
            for seller in group["sellers"]
        ]
        # Issue 47: each player's income heads the round's own part of the mail.
        totals = [
            {"name": t["name"], "amount": ecus(t["amount"], lang)}
            for t in round_income(record, names)
        ]
        reports.append(
            {
                "round": record["round"],
                "lots": lots,
                "played": played_lines(record["played"], names, lang),
                "income": income,
                "totals": totals,
            }
        )
    return reports
