"""Colour Bazaar by P.D. Magnus: a Decktet game for 2 or 3 players, with the Courts variant.

Rule references in comments ("Rules: ...") point at the sections of
shared/rules/colour-bazaar-notes.md, which reconciles the English and French texts.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from pbem.games.base import (
    BadOptions,
    Game,
    IllegalMove,
    Move,
    Option,
    Outcome,
    State,
    shared_ranks,
)
from pbem.games.decktet import BASIC, CARDS, COURTS, PAWNS, SUITS
from pbem.games.message import Message

HAND_SIZE = 4
CHIPS_PER_SUIT = 5
MARKETS = 4

_MASK = {cid: c.mask for cid, c in CARDS.items()}
_RANK = {cid: c.rank for cid, c in CARDS.items()}
_KIND = {cid: c.kind for cid, c in CARDS.items()}
_SUIT_BIT = {suit: 1 << i for i, suit in enumerate(SUITS)}
_MOVE_KEYS = {"card", "market", "chip", "suit", "discard"}


class ColourBazaar(Game):
    """The rules of Colour Bazaar."""

    slug = "colour-bazaar"
    title = "Colour Bazaar"
    min_players = 2
    max_players = 3
    options = (
        Option("courts", "bool", False),
        Option("first", "int", None, minimum=0, maximum=2),
    )

    def check_options(self, n_players: int, options: dict[str, Any] | None) -> dict[str, Any]:
        """Validate options; `first` must name one of the seats."""
        result = super().check_options(n_players, options)
        first = result["first"]
        if first is not None and first >= n_players:
            raise BadOptions("error.option_range", name="first", low=0, high=n_players - 1)
        return result

    def setup(self, n_players: int, options: dict[str, Any] | None, seed: int) -> State:
        """Shuffle, deal four cards each, lay the Pawns as markets, put out the chips."""
        opts = self.check_options(n_players, options)
        rng = random.Random(seed)
        # Rules, Setup: the basic deck, plus the four Courts in the extended variant.
        deck = list(BASIC) + (list(COURTS) if opts["courts"] else [])
        rng.shuffle(deck)
        hands = []
        for _ in range(n_players):
            hands.append(deck[-HAND_SIZE:])
            del deck[-HAND_SIZE:]
        first = opts["first"] if opts["first"] is not None else rng.randrange(n_players)
        return {
            "n": n_players,
            "options": opts,
            "deck": deck,  # the draw pile; the next card drawn is the last
            "hands": hands,
            "markets": [[pawn] for pawn in PAWNS],
            "discards": [],  # [seat, card], face down
            "chips_left": {suit: CHIPS_PER_SUIT for suit in SUITS},
            "chips": [{suit: 0 for suit in SUITS} for _ in range(n_players)],
            "turn": first,
            "ply": 0,
            "edict": None,  # {"market", "suit", "seat", "court"} for the next turn
            "known": [[] for _ in range(n_players)],  # cards in hand everyone has seen
            "reveals": [],  # {"ply", "seat", "cards"}: hands shown because of an edict
            "over": False,
        }

    def to_act(self, state: State) -> list[int]:
        """The seat whose turn it is, or none when the game is over."""
        return [] if state["over"] else [state["turn"]]

    def legal_moves(self, state: State, seat: int) -> list[Move]:
        """Every whole turn `seat` may take: a card and market (or a discard) and a chip."""
        if state["over"] or seat != state["turn"]:
            return []
        chips = [suit for suit in SUITS if state["chips_left"][suit]]
        hand = state["hands"][seat]
        moves: list[Move] = []
        plays = allowed_plays(state, seat)
        if plays:
            for card, market in plays:
                if _KIND[card] == "court":
                    for named in CARDS[card].suits:
                        moves.extend(
                            {"card": card, "market": market, "suit": named, "chip": chip}
                            for chip in chips
                        )
                else:
                    moves.extend({"card": card, "market": market, "chip": chip} for chip in chips)
        elif hand:
            for card in hand:
                moves.extend({"discard": card, "chip": chip} for chip in chips)
        else:
            moves.extend({"chip": chip} for chip in chips)
        return moves

    def apply(self, state: State, seat: int, move: Move) -> State:
        """Play the whole turn: card (or discard), chip, then the automatic draw."""
        if state["over"]:
            raise IllegalMove("error.game_over")
        if seat != state["turn"]:
            raise IllegalMove("error.not_your_turn")
        turn = _parse(move)
        chip, named, discard = turn.chip, turn.named, turn.discard
        hand = state["hands"][seat]
        new = dict(state)
        markets = state["markets"]
        known = state["known"]
        edict: dict[str, Any] | None = None
        if discard is not None:
            if discard not in hand:
                raise IllegalMove("cb.not_in_hand", card=discard)
            plays = allowed_plays(state, seat)
            if plays:
                # Rules, a turn, step 1: discarding is forbidden while any card can be played.
                raise IllegalMove("cb.must_play", card=plays[0][0], market=plays[0][1])
            new_hand = [c for c in hand if c != discard]
            new["discards"] = state["discards"] + [[seat, discard]]
            # A face-down discard from a shown hand leaves the others unsure of what remains.
            if known[seat]:
                known = _replace(known, seat, [])
        elif turn.play is not None:
            card, market = turn.play
            if card not in hand:
                raise IllegalMove("cb.not_in_hand", card=card)
            _check_play(state, seat, card, market)
            if _KIND[card] == "court":
                if named is None:
                    raise IllegalMove("cb.court_needs_suit", card=card)
                if named not in CARDS[card].suits:
                    raise IllegalMove("cb.court_wrong_suit", card=card, suit=named)
            elif named is not None:
                raise IllegalMove("cb.not_court", card=card)
            new_hand = [c for c in hand if c != card]
            markets = _replace(markets, market, markets[market] + [card])
            new["markets"] = markets
            if card in known[seat]:
                known = _replace(known, seat, [c for c in known[seat] if c != card])
            if named is not None:
                # Courts: the named suit binds the next player on this market.
                edict = {"market": market, "suit": named, "court": card}
        else:
            if hand:
                raise IllegalMove("cb.need_card")
            new_hand = hand
        if chip is None:
            raise IllegalMove("cb.need_chip")
        if not state["chips_left"][chip]:
            # Rules, a turn, step 2: only suits with chips left may be taken.
            raise IllegalMove("cb.chip_gone", suit=chip)
        chips_left = dict(state["chips_left"])
        chips_left[chip] -= 1
        new["chips_left"] = chips_left
        new["chips"] = _replace(
            state["chips"], seat, {**state["chips"][seat], chip: state["chips"][seat][chip] + 1}
        )
        new["ply"] = state["ply"] + 1
        new["edict"] = None
        if not any(chips_left.values()):
            # Rules: the game ends at once when a player takes the last chip.
            new["hands"] = _replace(state["hands"], seat, new_hand)
            new["known"] = known
            new["over"] = True
            return new
        deck = state["deck"]
        if deck:
            # Rules, a turn, step 3: draw a card if the draw pile has any.
            new_hand = new_hand + [deck[-1]]
            new["deck"] = deck[:-1]
        hands = _replace(state["hands"], seat, new_hand)
        new["hands"] = hands
        nxt = (seat + 1) % state["n"]
        new["turn"] = nxt
        if edict is not None:
            edict["seat"] = nxt
            new["edict"] = edict
            bit = _SUIT_BIT[edict["suit"]]
            if not any(_MASK[c] & bit for c in hands[nxt]):
                # Courts: a player who holds no card of the named suit shows their hand.
                shown = list(hands[nxt])
                known = _replace(known, nxt, shown)
                new["reveals"] = state["reveals"] + [
                    {"ply": new["ply"], "seat": nxt, "cards": shown}
                ]
        new["known"] = known
        return new

    def view(self, state: State, seat: int | None, rounds: int | None = None) -> dict[str, Any]:
        """The table as `seat` sees it: own hand and discards; of others only what was shown.

        No history of rounds: `rounds` changes nothing."""
        hands = state["hands"]
        others = [
            {"count": len(hands[s]), "known": list(state["known"][s])} for s in range(state["n"])
        ]
        result = {
            "game": self.slug,
            "n": state["n"],
            "options": dict(state["options"]),
            "markets": [list(m) for m in state["markets"]],
            "chips_left": dict(state["chips_left"]),
            "chips": [dict(c) for c in state["chips"]],
            "turn": state["turn"],
            "to_act": self.to_act(state),
            "ply": state["ply"],
            "edict": dict(state["edict"]) if state["edict"] else None,
            "draw_count": len(state["deck"]),
            "discard_counts": [
                sum(1 for s, _ in state["discards"] if s == seat_) for seat_ in range(state["n"])
            ],
            "hands": others,
            "reveals": [dict(r, cards=list(r["cards"])) for r in state["reveals"]],
            "over": state["over"],
            "seat": seat,
        }
        if seat is not None:
            result["hand"] = list(hands[seat])
            result["my_discards"] = [c for s, c in state["discards"] if s == seat]
            result["playable"] = (
                sorted({c for c, _ in allowed_plays(state, seat)})
                if (not state["over"] and seat == state["turn"])
                else []
            )
        return result

    def deal(self, view: dict[str, Any], seat: int, rng: random.Random) -> State:
        """A state giving `seat` this view: unseen cards shuffled into others' hands,
        their face-down discards and the draw pile."""
        return deal_state(view, seat, rng)

    def outcome(self, state: State) -> Outcome | None:
        """Scores with the full breakdown, once the last chip is taken."""
        if not state["over"]:
            return None
        return score(state["markets"], state["chips"])

    def timeout_move(self, state: State, seat: int) -> Move:
        """The legal turn that best raises the value of the chips this seat holds."""
        return best_turn(state, seat)

    def review(self, state: State, seat: int, move: Move) -> list[Message]:
        """The turn as its player may see it before sending: no hand its edict would show."""
        # Courts: whether the next player holds the named suit is learnt only once the
        # turn is played; a review that said so would let a player probe every suit.
        return [m for m in self.describe(state, seat, move, seat) if m.key != "cb.log.revealed"]

    def describe(self, state: State, seat: int, move: Move, viewer: int | None) -> list[Message]:
        """Log lines for a turn; a face-down discard shows its card only to its owner."""
        after = self.apply(state, seat, move)
        lines: list[Message] = []
        chip = move["chip"]
        if move.get("discard") is not None:
            if viewer == seat:
                lines.append(
                    Message(
                        "cb.log.discarded_own",
                        {"seat": seat, "card": move["discard"], "chip_suit": chip},
                    )
                )
            else:
                lines.append(Message("cb.log.discarded", {"seat": seat, "chip_suit": chip}))
        elif move.get("card") is not None:
            params = {
                "seat": seat,
                "card": move["card"],
                "market": move["market"],
                "chip_suit": chip,
            }
            if move.get("suit"):
                lines.append(Message("cb.log.played_court", {**params, "suit": move["suit"]}))
            else:
                lines.append(Message("cb.log.played", params))
        else:
            lines.append(Message("cb.log.chip_only", {"seat": seat, "chip_suit": chip}))
        if len(after["reveals"]) > len(state["reveals"]):
            shown = after["reveals"][-1]
            lines.append(
                Message(
                    "cb.log.revealed",
                    {"target_seat": shown["seat"], "suit": move["suit"], "cards": shown["cards"]},
                )
            )
        if after["over"]:
            lines.append(Message("cb.log.last_chip", {}))
        return lines


def deal_state(view: dict[str, Any], seat: int, rng: random.Random) -> State:
    """A full state consistent with `seat`'s view, the unseen cards placed at random."""
    n = view["n"]
    options = dict(view["options"])
    hands_view = view["hands"]
    known = [list(h["known"]) for h in hands_view]
    seen = set(view["hand"]) | set(view["my_discards"])
    seen.update(c for market in view["markets"] for c in market)
    seen.update(c for k in known for c in k)
    full = list(BASIC) + (list(COURTS) if options["courts"] else [])
    unseen = [c for c in full if c not in seen]
    rng.shuffle(unseen)
    # Courts: a seat bound by an edict that did not show its hand holds the named suit.
    edict = view["edict"]
    bound = None
    if edict is not None and not view["over"] and edict["seat"] != seat:
        shown = any(r["ply"] == view["ply"] and r["seat"] == edict["seat"] for r in view["reveals"])
        if not shown:
            bound = edict["seat"]
    hands: list[list[str]] = []
    for s in range(n):
        if s == seat:
            hands.append(list(view["hand"]))
            continue
        extra = hands_view[s]["count"] - len(known[s])
        if s == bound and extra > 0:
            bit = _SUIT_BIT[edict["suit"]]
            fit = next((i for i, c in enumerate(unseen) if _MASK[c] & bit), None)
            if fit is not None and not any(_MASK[c] & bit for c in unseen[:extra]):
                unseen[0], unseen[fit] = unseen[fit], unseen[0]
        hands.append(known[s] + unseen[:extra])
        del unseen[:extra]
    discards: list[list[Any]] = []
    for s in range(n):
        if s == seat:
            discards.extend([s, c] for c in view["my_discards"])
        else:
            count = view["discard_counts"][s]
            discards.extend([s, c] for c in unseen[:count])
            del unseen[:count]
    if len(unseen) != view["draw_count"]:
        raise ValueError("the view does not account for every card")
    return {
        "n": n,
        "options": options,
        "deck": unseen,
        "hands": hands,
        "markets": [list(m) for m in view["markets"]],
        "discards": discards,
        "chips_left": dict(view["chips_left"]),
        "chips": [dict(c) for c in view["chips"]],
        "turn": view["turn"],
        "ply": view["ply"],
        "edict": dict(edict) if edict else None,
        "known": known,
        "reveals": [dict(r, cards=list(r["cards"])) for r in view["reveals"]],
        "over": view["over"],
    }


def _replace(items: list[Any], index: int, value: Any) -> list[Any]:
    copy = list(items)
    copy[index] = value
    return copy


@dataclass(frozen=True)
class _Turn:
    """A move whose shape is checked: the chip, and a play, a discard, or neither."""

    chip: str | None
    play: tuple[str, int] | None = None  # (card, market index)
    named: str | None = None  # the suit a Court names
    discard: str | None = None


def _parse(move: Any) -> _Turn:
    """Check a move's shape; the rules are checked by `apply`."""
    if not isinstance(move, dict):
        raise IllegalMove("cb.malformed")
    extra = set(move) - _MOVE_KEYS
    if extra:
        raise IllegalMove("cb.unknown_field", name=sorted(map(str, extra))[0])
    card = move.get("card")
    discard = move.get("discard")
    market = move.get("market")
    chip = move.get("chip")
    named = move.get("suit")
    for value in (card, discard):
        if value is not None and (not isinstance(value, str) or value not in CARDS):
            raise IllegalMove("cb.unknown_card", name=str(value)[:40])
    if card is not None and discard is not None:
        raise IllegalMove("cb.play_and_discard")
    play: tuple[str, int] | None = None
    if card is not None:
        if isinstance(market, bool) or not isinstance(market, int) or not 0 <= market < MARKETS:
            raise IllegalMove("cb.bad_market")
        play = (card, market)
    elif market is not None:
        raise IllegalMove("cb.market_without_card")
    for value in (chip, named):
        if value is not None and (not isinstance(value, str) or value not in _SUIT_BIT):
            raise IllegalMove("cb.unknown_suit", name=str(value)[:40])
    if named is not None and card is None:
        raise IllegalMove("cb.suit_without_court")
    return _Turn(chip, play, named, discard)


def allowed_plays(state: State, seat: int) -> list[tuple[str, int]]:
    """The (card, market) pairs `seat` may play now, the royal edict applied."""
    hand = state["hands"][seat]
    tops = [_MASK[m[-1]] for m in state["markets"]]
    # Rules, a turn, step 1: a card goes on a market whose top card shares a suit with it.
    plays = [(c, m) for c in hand for m in range(MARKETS) if _MASK[c] & tops[m]]
    edict = state["edict"]
    if edict is None or edict["seat"] != seat or not plays:
        return plays
    em = edict["market"]
    bit = _SUIT_BIT[edict["suit"]]
    # Courts: first a card of the named suit on the edict's market, if any is held...
    forced = [(c, m) for c, m in plays if m == em and _MASK[c] & bit]
    if forced:
        return forced
    # ...else any card that shares a suit with the Court, on that market...
    on_market = [(c, m) for c, m in plays if m == em]
    # ...and only when there is none, anywhere.
    return on_market or plays


def _check_play(state: State, seat: int, card: str, market: int) -> None:
    top = state["markets"][market][-1]
    if not _MASK[card] & _MASK[top]:
        raise IllegalMove("cb.no_shared_suit", card=card, market=market, top_card=top)
    edict = state["edict"]
    if edict is None or edict["seat"] != seat:
        return
    plays = allowed_plays(state, seat)
    if (card, market) in plays:
        return
    em = edict["market"]
    if any(_MASK[c] & _SUIT_BIT[edict["suit"]] for c, m in plays if m == em):
        raise IllegalMove("cb.edict_suit", suit=edict["suit"], market=em, court_card=edict["court"])
    raise IllegalMove("cb.edict_market", market=em, court_card=edict["court"], fit_card=plays[0][0])


def market_values(market: list[str]) -> dict[str, dict[str, Any]]:
    """Per suit, what one market gives a chip: value, the card that gave it, what a Crown copied."""
    result: dict[str, dict[str, Any]] = {}
    scoring = [
        c for c in market if _KIND[c] in ("ace", "numeral", "crown")
    ]  # Pawns, Courts ignored
    for suit in SUITS:
        bit = _SUIT_BIT[suit]
        entry: dict[str, Any] = {"value": 0, "card": None, "copied": None}
        for c in reversed(scoring):
            if not _MASK[c] & bit:
                continue
            entry["card"] = c
            if _KIND[c] == "crown":
                # Scoring: a Crown is worth the highest rank of the other cards of its suit here.
                others = [o for o in scoring if o != c and _MASK[o] & bit and _RANK[o]]
                if others:
                    best = max(others, key=lambda o: _RANK[o] or 0)
                    entry["value"] = _RANK[best]
                    entry["copied"] = best
            else:
                # Scoring: the nearest card of the suit to the top gives its rank; Aces are 1.
                entry["value"] = _RANK[c]
            break
        result[suit] = entry
    return result


def suit_values(markets: list[list[str]]) -> dict[str, int]:
    """What one chip of each suit is worth with the markets as they are."""
    totals = {suit: 0 for suit in SUITS}
    for market in markets:
        for suit, entry in market_values(market).items():
            totals[suit] += entry["value"]
    return totals


def score(markets: list[list[str]], chips: list[dict[str, int]]) -> Outcome:
    """Score a table: totals, shared ranks, and a breakdown a player can check by hand."""
    per_market = [market_values(m) for m in markets]
    values = {suit: sum(pm[suit]["value"] for pm in per_market) for suit in SUITS}
    lines = [{suit: held[suit] * values[suit] for suit in SUITS} for held in chips]
    totals = [sum(line.values()) for line in lines]
    ranks = shared_ranks(totals)
    # The French text's shortcuts: drop the chips all players hold in common, and take the
    # lowest suit value off every suit. Each player holds as many chips, so ranks stay.
    common = {suit: min(held[suit] for held in chips) for suit in SUITS}
    low = min(values.values())
    reduced_values = {suit: values[suit] - low for suit in SUITS}
    reduced_chips = [{suit: held[suit] - common[suit] for suit in SUITS} for held in chips]
    reduced_totals = [
        sum(rc[suit] * reduced_values[suit] for suit in SUITS) for rc in reduced_chips
    ]
    breakdown = {
        "markets": per_market,
        "suit_values": values,
        "chips": [dict(held) for held in chips],
        "lines": lines,
        "totals": totals,
        "shortcut": {
            "common": common,
            "lowest_value": low,
            "lowest_suits": [suit for suit in SUITS if values[suit] == low],
            "values": reduced_values,
            "chips": reduced_chips,
            "totals": reduced_totals,
            "ranks": shared_ranks(reduced_totals),
        },
    }
    return Outcome(scores=totals, ranks=ranks, breakdown=breakdown)


def best_turn(state: State, seat: int) -> Move:
    """The turn that leaves this seat's chips worth most, with the most valuable chip left."""
    held = state["chips"][seat]
    chips = [suit for suit in SUITS if state["chips_left"][suit]]
    plays = allowed_plays(state, seat)
    hand = state["hands"][seat]
    if not plays:
        values = suit_values(state["markets"])
        chip = max(chips, key=lambda s: (values[s], held[s], -SUITS.index(s)))
        if not hand:
            return {"chip": chip}
        # Discard the card that matters least to the chips held, lowest rank first.
        worst = min(
            hand,
            key=lambda c: (sum(held[s] for s in CARDS[c].suits), _RANK[c] or 0, hand.index(c)),
        )
        return {"discard": worst, "chip": chip}
    best: tuple[Any, ...] | None = None
    best_move: Move = {}
    for order, (card, market) in enumerate(plays):
        markets = _replace(state["markets"], market, state["markets"][market] + [card])
        values = suit_values(markets)
        worth = sum(held[s] * values[s] for s in SUITS)
        chip = max(chips, key=lambda s: (values[s], held[s], -SUITS.index(s)))
        key = (worth + values[chip], -order)
        if best is None or key > best:
            best = key
            best_move = {"card": card, "market": market, "chip": chip}
            if _KIND[card] == "court":
                # Name the suit this seat holds fewest chips of: the forced reply moves it most.
                best_move["suit"] = min(CARDS[card].suits, key=lambda s: (held[s], SUITS.index(s)))
    return best_move
