"""A deal anyone can check (pbem.games.fairdeal): the seed follows from the sealed secret and
every share; an honest export checks out, and each kind of tampering is caught and named."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pbem.games import GAMES, fairdeal

SECRET, SALT = "5e" * 32, "a1" * 32
SHARES = ["a phrase of Ana's", "", "3f9c0b1d"]


def honest_export(slug: str = "colour-bazaar", shares: list[str] = SHARES) -> dict[str, Any]:
    """A finished game as its export shows it at the end: moves chosen by a seeded rng."""
    rules = GAMES[slug]
    seed = fairdeal.seed_of(SECRET, shares)
    state = rules.setup(len(shares), {}, seed)
    rng = random.Random(5)
    moves = []
    while (result := rules.outcome(state)) is None:
        seat = rules.to_act(state)[0]
        move = rng.choice(rules.legal_moves(state, seat))
        moves.append({"ply": len(moves) + 1, "seat": seat, "move": move})
        state = rules.apply(state, seat, move)
    return {
        "game": slug,
        "status": "over",
        "options": {},
        "players": ["Ana", "Léo", "Zoé"][: len(shares)],
        "moves": moves,
        "seed": seed,
        "outcome": {"scores": result.scores, "ranks": result.ranks, "breakdown": {}},
        "deal": {
            "sealed": fairdeal.sealed(SECRET, SALT),
            "committed": fairdeal.committed(seed, SALT),
            "secret": SECRET,
            "salt": SALT,
            "shares": shares,
        },
    }


def failed(export: dict[str, Any]) -> list[str]:
    return [c.say.key for c in fairdeal.check(export) if not c.ok]


def test_every_share_changes_the_deal_and_so_does_their_order() -> None:
    seed = fairdeal.seed_of(SECRET, SHARES)
    assert 0 <= seed < 2**62
    assert fairdeal.seed_of(SECRET, SHARES) == seed  # the same secret and shares: same deal
    assert fairdeal.seed_of(SECRET, [SHARES[0], "x", SHARES[2]]) != seed
    assert fairdeal.seed_of(SECRET, list(reversed(SHARES))) != seed
    assert fairdeal.seed_of("00" * 32, SHARES) != seed
    # A share cannot pass for two: each is hashed before they are joined.
    assert fairdeal.seed_of(SECRET, ["a:b", ""]) != fairdeal.seed_of(SECRET, ["a", "b"])


@pytest.mark.parametrize("slug", sorted(GAMES))
def test_an_honest_export_checks_out(slug: str) -> None:
    export = honest_export(slug)
    checks = fairdeal.check(export)
    assert all(c.ok for c in checks), [c.say.key for c in checks]
    keys = [c.say.key for c in checks]
    assert keys == [
        "verify.sealed.ok",
        "verify.seed.ok",
        "verify.committed.ok",
        "verify.moves.ok",
        "verify.result.ok",
    ]


def _share(e: dict[str, Any]) -> None:
    e["deal"]["shares"][1] = "I changed my mind"


def _seed(e: dict[str, Any]) -> None:
    e["seed"] += 1


def _salt(e: dict[str, Any]) -> None:
    e["deal"]["salt"] = "b2" * 32


def _secret(e: dict[str, Any]) -> None:
    e["deal"]["secret"] = "6f" * 32


def _committed(e: dict[str, Any]) -> None:
    e["deal"]["committed"] = "0" * 64


def _move(e: dict[str, Any]) -> None:
    e["moves"][3]["move"] = e["moves"][5]["move"]


def _result(e: dict[str, Any]) -> None:
    e["outcome"]["scores"][0] += 1


@pytest.mark.parametrize(
    ("tamper", "caught"),
    [
        (_share, {"verify.seed.bad"}),
        (_seed, {"verify.seed.bad", "verify.committed.bad"}),
        (_salt, {"verify.sealed.bad", "verify.committed.bad"}),
        (_secret, {"verify.sealed.bad", "verify.seed.bad"}),
        (_committed, {"verify.committed.bad"}),
        (_move, {"verify.move_illegal.bad"}),
        (_result, {"verify.result.bad"}),
    ],
)
def test_each_kind_of_tampering_is_caught(tamper: Any, caught: set[str]) -> None:
    export = copy.deepcopy(honest_export())
    tamper(export)
    got = set(failed(export))
    # A changed seed also deals other cards, so the replay may fail as well.
    assert caught <= got <= caught | {"verify.move_illegal.bad", "verify.result.bad"}


def test_a_game_made_before_checkable_deals_is_still_replayed() -> None:
    export = honest_export()
    del export["deal"]
    checks = fairdeal.check(export)
    assert [c.say.key for c in checks][0] == "verify.no_deal.ok"
    assert all(c.ok for c in checks)


def test_a_game_not_over_and_junk_are_refused_by_name() -> None:
    running = honest_export()
    del running["seed"], running["outcome"]
    assert failed(running) == ["verify.not_over.bad"]
    assert failed({}) == ["verify.not_an_export.bad"]
    assert failed({"game": "chess", "players": [], "moves": []}) == ["verify.not_an_export.bad"]


JUNK = st.recursive(
    st.none() | st.integers() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=20,
)


@given(JUNK)
def test_junk_in_place_of_a_move_or_the_shares_fails_without_a_crash(junk: Any) -> None:
    export = honest_export()
    export["moves"][2] = junk
    assert "verify.move_missing.bad" in failed(export) or "verify.move_illegal.bad" in failed(
        export
    )
    export = honest_export()
    export["deal"]["shares"] = junk
    assert failed(export)  # unreadable, the wrong count, or another seed
