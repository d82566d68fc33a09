"""Fantasy Business special cards: checking a play, and carrying it out, in every mode.

`check_play` only reads the state; `carry_out` changes an already copied state in place.
Spec references point at shared/rules/fantasy-business-spec.md.
"""

from __future__ import annotations

from typing import Any

from pbem.games.base import IllegalMove, State
from pbem.games.fantasy_business.auction import event
from pbem.games.fantasy_business.cards import ALL_CARD_IDS, ARTICLE_BY_ID, KIND_BY_ID, card_type
from pbem.games.fantasy_business.tally import monopolies


def _target(state: State, seat: int, card: str, target: Any) -> int:
    if target is None:
        raise IllegalMove("fb.target_needed", card=card)
    if isinstance(target, bool) or not isinstance(target, int) or not 0 <= target < state["n"]:
        raise IllegalMove("fb.bad_target", count=state["n"])
    if target == seat:
        raise IllegalMove("fb.target_self", card=card)
    return target


def _owns(state: State, seat: int, article: str) -> bool:
    return any(card_type(c) == article for c in state["articles"][seat])


def _held_article(state: State, card: str, target: int, article: Any) -> str:
    if article is None:
        raise IllegalMove("fb.article_needed", card=card)
    if not isinstance(article, str) or article not in ARTICLE_BY_ID:
        raise IllegalMove("fb.unknown_article", name=str(article)[:40])
    if not _owns(state, target, article):
        raise IllegalMove("fb.target_lacks", target_seat=target, article_card=article)
    return article


def others_monopolies(state: State, seat: int) -> dict[int, list[str]]:
    """The monopolies an Antitrust card played by `seat` may name: other players' only.

    Spec, Rulings: Antitrust names another player, like the other targeted specials.
    """
    return {s: arts for s, arts in monopolies(state).items() if s != seat}


def check_play(state: State, seat: int, card: Any, target: Any, article: Any) -> dict[str, Any]:
    """Check one special card play against the state now; return it with its target filled in."""
    if not isinstance(card, str) or card not in ALL_CARD_IDS:
        raise IllegalMove("fb.unknown_card", name=str(card)[:40])
    kind = card_type(card)
    if kind not in KIND_BY_ID:
        raise IllegalMove("fb.not_special", card=card)
    if card not in state["specials"][seat]:
        raise IllegalMove("fb.not_held", card=card)
    play: dict[str, Any] = {"seat": seat, "card": card, "kind": kind}
    play.update(target=None, article=None)
    if kind in ("subsidy", "defaulting") and article is not None:
        raise IllegalMove("fb.no_article", card=card)
    if kind == "subsidy":
        if target is not None:
            raise IllegalMove("fb.no_target", card=card)
    elif kind == "defaulting":
        play["target"] = _target(state, seat, card, target)
    elif kind in ("theft", "defective"):
        play["target"] = _target(state, seat, card, target)
        play["article"] = _held_article(state, card, play["target"], article)
    else:
        play.update(_check_antitrust(state, seat, card, target, article))
    return play


def _check_antitrust(
    state: State, seat: int, card: str, target: Any, article: Any
) -> dict[str, Any]:
    # Spec, Special cards, antitrust, and Rulings: name another player who alone owns some
    # article; with no such monopoly in play the card has no effect (it is still discarded).
    held = others_monopolies(state, seat)
    if target is None:
        if held:
            raise IllegalMove("fb.antitrust_target")
        if article is not None:
            raise IllegalMove("fb.target_needed", card=card)
        return {}
    if isinstance(target, bool) or not isinstance(target, int) or not 0 <= target < state["n"]:
        raise IllegalMove("fb.bad_target", count=state["n"])
    if target == seat:
        raise IllegalMove("fb.target_self", card=card)
    if target not in held:
        raise IllegalMove("fb.no_monopoly", target_seat=target)
    if article is None:
        # The article may be left out when the named player has a single monopoly.
        if len(held[target]) > 1:
            raise IllegalMove("fb.which_monopoly", target_seat=target)
        article = held[target][0]
    if not isinstance(article, str) or article not in ARTICLE_BY_ID:
        raise IllegalMove("fb.unknown_article", name=str(article)[:40])
    if article not in held[target]:
        raise IllegalMove("fb.not_monopoly", target_seat=target, article_card=article)
    return {"target": target, "article": article}


def why_invalid(state: State, play: dict[str, Any]) -> str | None:
    """Why a listed play no longer works when its turn comes, or None if it still does.

    Spec, Playing by mail, 5: the card was stolen, the player no longer owns that article,
    nobody holds that monopoly any more.
    """
    kind, target, article = play["kind"], play["target"], play["article"]
    if kind in ("theft", "defective") and not _owns(state, target, article):
        return "no_article"
    if kind == "antitrust" and target is not None:
        if not _owns(state, target, article):
            return "no_article"
        if article not in monopolies(state).get(target, []):
            return "no_monopoly"
    return None


def skip(state: State, play: dict[str, Any], why: str) -> None:
    """A listed play that no longer works: no effect, the card is discarded, the log says why."""
    seat, card = play["seat"], play["card"]
    state["specials"][seat].remove(card)
    state["discard"].append(card)
    record = {**play, "skipped": why}
    state["history"][-1]["played"].append(record)
    event(state, "played", **record)


def carry_out(state: State, play: dict[str, Any]) -> list[str]:
    """Carry out a checked play; return the cards an Antitrust card puts up for sale."""
    seat, card, kind = play["seat"], play["card"], play["kind"]
    record = dict(play)
    target, article = play["target"], play["article"]
    if kind == "subsidy":
        amount = state["table"]["subsidy"]["amount"]
        state["money"][seat] += amount
        record["amount"] = amount
        state["history"][-1]["ledger"][seat].append({"what": "subsidy", "amount": amount})
    elif kind == "theft":
        # Any card of the article will do; the thief takes the one the victim got last.
        victim = state["articles"][target]
        taken = next(c for c in reversed(victim) if card_type(c) == article)
        victim.remove(taken)
        state["articles"][seat].append(taken)
        record["taken"] = taken
    elif kind == "defaulting":
        if target not in state["effects"]["defaulting"]:
            state["effects"]["defaulting"].append(target)
    elif kind == "defective":
        pair = [target, article]
        if pair not in state["effects"]["defective"]:
            state["effects"]["defective"].append(pair)
    else:
        cards: list[str] = []
        if target is not None:
            cards = [c for c in state["articles"][target] if card_type(c) == article]
            state["articles"][target] = [c for c in state["articles"][target] if c not in cards]
        record["cards"] = cards
        record["sales"] = []
    state["specials"][seat].remove(card)
    state["discard"].append(card)
    state["history"][-1]["played"].append(record)
    event(state, "played", **record)
    return list(record.get("cards", []))
