"""Colour Bazaar: thousands of random games played only through the game interface.

Moves are chosen, applied, viewed, described and scored through GAMES["colour-bazaar"]
alone; the invariants then read the state's plain data, and an independent reading of
the rules (which cards fit which market, what an edict allows) checks legal_moves.
"""

from __future__ import annotations

import copy
import json
import os
import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbem.games import GAMES, IllegalMove
from pbem.games.base import Move, State
from pbem.games.decktet import CARDS, SUITS
from pbem.present.text import card_name, error_text, render, translated
from tests.games.helpers import check_conservation, check_view_hides, strings_in

GAME = GAMES["colour-bazaar"]
# About 1200 games in the main property; raise it for a long soak, e.g. CB_GAMES=20000.
MAIN_GAMES = int(os.environ.get("CB_GAMES", "1200"))


# --- An independent reading of the rules, for checking legal_moves -----------------------


def _shares(a: str, b: str) -> bool:
    return bool(set(CARDS[a].suits) & set(CARDS[b].suits))


def expected_plays(state: State, seat: int) -> set[tuple[str, int]]:
    """The (card, market) pairs the rules allow, the royal edict applied."""
    hand = state["hands"][seat]
    tops = [market[-1] for market in state["markets"]]
    plays = {(c, m) for c in hand for m, top in enumerate(tops) if _shares(c, top)}
    edict = state["edict"]
    if not edict or edict["seat"] != seat:
        return plays
    market, named = edict["market"], edict["suit"]
    with_suit = {(c, market) for c in hand if named in CARDS[c].suits}
    if with_suit:
        return with_suit
    sharing = {(c, market) for c in hand if _shares(c, edict["court"])}
    return sharing or plays


def check_legal_moves(state: State, seat: int, moves: list[Move]) -> None:
    """legal_moves agrees with the rules read independently; no move is listed twice."""
    assert moves, "the seat to act has no legal move"
    keys = [tuple(sorted(m.items())) for m in moves]
    assert len(keys) == len(set(keys)), "a move is listed twice"
    chips = {suit for suit in SUITS if state["chips_left"][suit]}
    assert {m["chip"] for m in moves} == chips
    plays = expected_plays(state, seat)
    if plays:
        assert {(m["card"], m["market"]) for m in moves} == plays
        for m in moves:
            if CARDS[m["card"]].kind == "court":
                assert m["suit"] in CARDS[m["card"]].suits
            else:
                assert "suit" not in m
        court_plays = sum(CARDS[c].kind == "court" for c, _ in plays)
        assert len(moves) == (len(plays) + 2 * court_plays) * len(chips)
    else:
        # Discard only when no card fits anywhere.
        assert {m["discard"] for m in moves} == set(state["hands"][seat])
        assert len(moves) == len(state["hands"][seat]) * len(chips)


def candidate_moves(state: State, seat: int, rng: random.Random) -> list[Move]:
    """Well-formed moves near the legal ones: every hand card on every market, discards, suits."""
    hand = state["hands"][seat]
    outsiders = [c for c in CARDS if c not in hand]
    cards = hand + rng.sample(outsiders, 2)
    candidates: list[Move] = []
    gone = [suit for suit in SUITS if not state["chips_left"][suit]]
    for chip in rng.sample(SUITS, 2) + gone[:1]:
        for card in cards:
            candidates.append({"discard": card, "chip": chip})
            for market in range(4):
                candidates.append({"card": card, "market": market, "chip": chip})
                for suit in CARDS[card].suits:
                    candidates.append({"card": card, "market": market, "chip": chip, "suit": suit})
    candidates.append({"chip": rng.choice(SUITS)})
    return candidates


def check_every_candidate(state: State, seat: int, moves: list[Move], rng: random.Random) -> None:
    """Every listed move is accepted, each near-miss refused, and the state never changes."""
    before = copy.deepcopy(state)
    for move in moves:
        GAME.apply(state, seat, move)
    listed = {json.dumps(m, sort_keys=True) for m in moves}
    for move in candidate_moves(state, seat, rng):
        is_listed = json.dumps(move, sort_keys=True) in listed
        try:
            GAME.apply(state, seat, move)
        except IllegalMove as exc:
            assert not is_listed, f"listed move {move} refused: {exc}"
            assert str(exc)
        else:
            assert is_listed, f"unlisted move {move} accepted"
    assert state == before, "apply changed the state it was given"


# --- Watching one ply ---------------------------------------------------------------------


def check_reveal(before: State, after: State) -> None:
    """A hand is shown exactly when an edict's target holds no card of the named suit."""
    edict = after["edict"]
    revealed = after["reveals"][len(before["reveals"]) :]
    if edict is None:
        assert not revealed
        return
    target = edict["seat"]
    holds_suit = any(edict["suit"] in CARDS[c].suits for c in after["hands"][target])
    if holds_suit:
        assert not revealed
    else:
        assert revealed == [{"ply": after["ply"], "seat": target, "cards": after["hands"][target]}]


def check_describe(before: State, after: State, seat: int, move: Move) -> None:
    """Log lines render in both languages and show no viewer a card they may not see."""
    n = before["n"]
    for viewer in [*range(n), None]:
        lines = GAME.describe(before, seat, move, viewer)
        assert lines
        if viewer in (seat, None):
            for lang in ("en", "fr"):
                for line in lines:
                    assert translated(line.key, lang)
                    assert render(line, lang)
        said = strings_in([line.to_json() for line in lines])
        shown = {c for r in after["reveals"] for c in r["cards"]}
        for other in range(n):
            if other == viewer:
                continue
            hidden = (set(after["hands"][other]) - shown) | {
                c for s, c in after["discards"] if s == other and c not in shown
            }
            assert not hidden & said, f"log for {viewer} shows {hidden & said}"
        if "discard" in move:
            text = " ".join(render(line) for line in lines)
            assert (card_name(move["discard"]) in text) == (viewer == seat)


def play_and_check(n: int, courts: bool, seed: int, choose_seed: int) -> None:
    """Play one random game, checking every promise at every ply."""
    rng = random.Random(choose_seed)
    state = GAME.setup(n, {"courts": courts}, seed)
    deep_ply = rng.randrange(30)  # one ply where every near-miss move is tried
    log: list[tuple[int, Move]] = []
    while GAME.to_act(state):
        check_conservation(state)
        for viewer in [*range(n), None]:
            check_view_hides(state, viewer)
        assert GAME.outcome(state) is None
        (seat,) = GAME.to_act(state)
        moves = GAME.legal_moves(state, seat)
        check_legal_moves(state, seat, moves)
        for other in range(n):
            if other != seat:
                assert GAME.legal_moves(state, other) == []
        # timeout_move is slow-ish: check it on every third ply and at every edict or discard.
        if len(log) % 3 == deep_ply % 3 or state["edict"] or "discard" in moves[0]:
            assert GAME.timeout_move(state, seat) in moves
        if len(log) == deep_ply:
            check_every_candidate(state, seat, moves, rng)
        move = rng.choice(moves)
        after = GAME.apply(state, seat, move)
        check_reveal(state, after)
        check_describe(state, after, seat, move)
        log.append((seat, move))
        state = after
    check_conservation(state)
    for viewer in [*range(n), None]:
        check_view_hides(state, viewer)
    # The last chip ends the game: exactly 30 turns, shared evenly.
    assert len(log) == 30 and state["ply"] == 30
    assert [seat for seat, _ in log] == [(log[0][0] + i) % n for i in range(30)]
    assert all(sum(held.values()) == 30 // n for held in state["chips"])
    outcome = GAME.outcome(state)
    assert outcome is not None
    values = outcome.breakdown["suit_values"]
    assert sum(outcome.scores) == 5 * sum(values.values())
    assert outcome.breakdown["shortcut"]["ranks"] == outcome.ranks
    # Replaying the log from the seed rebuilds the game exactly.
    replay = GAME.setup(n, {"courts": courts}, seed)
    for seat, move in log:
        replay = GAME.apply(replay, seat, move)
    assert replay == state


@settings(
    max_examples=MAIN_GAMES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    n=st.sampled_from([2, 3]),
    courts=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
    choose_seed=st.integers(0, 2**32 - 1),
)
def test_random_games_keep_every_promise(n: int, courts: bool, seed: int, choose_seed: int):
    play_and_check(n, courts, seed, choose_seed)


def test_describe_shows_a_discard_only_to_its_owner_in_random_games():
    seen = 0
    for seed in range(400):
        n = 2 + seed % 2
        state = GAME.setup(n, {"courts": seed % 4 < 2}, seed)
        rng = random.Random(seed)
        while GAME.to_act(state):
            (seat,) = GAME.to_act(state)
            move = rng.choice(GAME.legal_moves(state, seat))
            if "discard" in move:
                seen += 1
                name = card_name(move["discard"], "fr")
                for viewer in [*range(n), None]:
                    text = " ".join(
                        render(m, "fr") for m in GAME.describe(state, seat, move, viewer)
                    )
                    assert (name in text) == (viewer == seat), text
            state = GAME.apply(state, seat, move)
    assert seen > 10


# --- Junk moves ---------------------------------------------------------------------------


def _positions() -> list[tuple[State, int]]:
    """Positions from a few random games: openings, edicts, late turns with an empty pile."""
    found: list[tuple[State, int]] = []
    for seed in range(12):
        n, courts = 2 + seed % 2, seed % 3 != 0
        rng = random.Random(seed)
        state = GAME.setup(n, {"courts": courts}, seed)
        while GAME.to_act(state):
            (seat,) = GAME.to_act(state)
            if state["ply"] % 7 == 0 or state["edict"] or not state["deck"]:
                found.append((state, seat))
            state = GAME.apply(state, seat, rng.choice(GAME.legal_moves(state, seat)))
        found.append((state, state["turn"]))  # over: every move is refused
    return found


POSITIONS = _positions()
FIELDS = ("card", "market", "chip", "suit", "discard")
JUNK = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 6),
    st.integers(),
    st.floats(),
    st.text(max_size=12),
    st.binary(max_size=4),
    st.sampled_from(sorted(CARDS)),
    st.sampled_from(SUITS),
    st.lists(st.integers(), max_size=3),
    st.tuples(st.integers()),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
    st.sets(st.integers(), max_size=2),
)
KEYS = st.one_of(st.sampled_from(FIELDS), st.text(max_size=6), st.integers(), st.tuples(st.text()))


@st.composite
def junk_moves(draw: Any, state: State, seat: int) -> Any:
    """Anything at all, or a legal move with one field broken, dropped, added or left empty."""
    moves = GAME.legal_moves(state, seat)
    kind = draw(st.sampled_from(["anything", "dict", "broken"] if moves else ["anything", "dict"]))
    if kind == "anything":
        return draw(st.one_of(JUNK, st.lists(JUNK, max_size=3)))
    if kind == "dict":
        return draw(st.dictionaries(KEYS, JUNK, max_size=6))
    move = dict(draw(st.sampled_from(moves)))
    action = draw(st.sampled_from(["set", "drop", "add", "null"]))
    if action == "drop":
        del move[draw(st.sampled_from(sorted(move)))]
    elif action == "null":  # an empty field, as a web form may send
        move[draw(st.sampled_from([f for f in FIELDS if f not in move]))] = None
    else:
        field = draw(st.sampled_from(FIELDS)) if action == "set" else draw(KEYS)
        move[field] = draw(JUNK)
    return move


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_junk_moves_raise_illegal_move_with_a_message(data: st.DataObject):
    assert issubclass(IllegalMove, ValueError)
    state, seat = data.draw(st.sampled_from(POSITIONS))
    seat = data.draw(st.sampled_from([seat, seat, (seat + 1) % state["n"]]))
    move = data.draw(junk_moves(state, seat))
    try:
        after = GAME.apply(state, seat, move)
    except IllegalMove as exc:
        for lang in ("en", "fr"):
            text = error_text(exc, lang)
            assert text and translated(exc.msg.key, lang), (move, text)
        assert str(exc).startswith(exc.msg.key)
        return
    # Accepted: the move must be a listed one, once fields left empty are dropped.
    plain = {k: v for k, v in move.items() if v is not None}
    assert plain in GAME.legal_moves(state, seat)
    assert after == GAME.apply(state, seat, plain)
    for viewer in [*range(state["n"]), None]:
        assert GAME.describe(state, seat, move, viewer) == GAME.describe(state, seat, plain, viewer)
