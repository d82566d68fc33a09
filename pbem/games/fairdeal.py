"""A deal anyone can check: the seed is fixed by the server's secret and every player's
share, sealed before the game starts, and revealed at its end.

When a game is made the server draws a secret and a salt and publishes

    sealed = SHA-256("pbem-deal:" + secret + ":" + salt)

before anyone joins. Each player gives a share when joining (a random value their browser
makes, a phrase of theirs, or nothing). At the start the seed is

    seed = first 8 bytes of SHA-256("pbem-seed:" + secret + ":" + h0 + ":" + h1 ...),
           read big-endian, shifted right by 2 (the 62 bits a seed holds)

where h0, h1 ... are the SHA-256 of each seat's share (UTF-8), in hexadecimal, in seat
order; and the game's first page and mail publish

    committed = SHA-256("pbem-seed:" + seed in decimal + ":" + salt).

Every hash is written in lower-case hexadecimal. Neither the server (sealed before the
shares) nor a player (who never sees the secret) can choose the deal alone. At the end the
secret, the salt and the shares are shown, and check() replays the game from its export.

A move taken back (pbem.takeback) may have shown its mover a card from the pile. The k-th
take back of a game shuffles the whole draw pile, as it stands once the move is undone, with
Python's random.Random seeded by

    first 8 bytes of SHA-256("pbem-takeback:" + seed in decimal + ":" + k), big-endian,
    shifted right by 2

so the card seen lands anywhere in the pile, by the committed seed's randomness: nobody can
choose or foresee where, and the replay (and this check) makes the same shuffle again. A
later take back of an earlier move undoes the shuffles made after that move
(live_shuffles).
"""

from __future__ import annotations

import hashlib
import random
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pbem.games import GAMES
from pbem.games.message import Message

SHARE_MAX = 200  # characters of a player's share


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def new_secret() -> tuple[str, str]:
    """A fresh secret and salt, 32 random bytes each, in hexadecimal."""
    return secrets.token_hex(32), secrets.token_hex(32)


def sealed(secret: str, salt: str) -> str:
    """The commitment to the server's secret, published before anyone joins."""
    return _sha(f"pbem-deal:{secret}:{salt}")


def seed_of(secret: str, shares: list[str]) -> int:
    """The seed the secret and the seats' shares (in seat order) give."""
    hashed = ":".join(_sha(share) for share in shares)
    digest = hashlib.sha256(f"pbem-seed:{secret}:{hashed}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 2


def committed(seed: int, salt: str) -> str:
    """The commitment to the seed, published when the game starts."""
    return _sha(f"pbem-seed:{seed}:{salt}")


def takeback_seed(seed: int, number: int) -> int:
    """The randomness of the game's `number`-th take back (from 1), from its seed."""
    digest = hashlib.sha256(f"pbem-takeback:{seed}:{number}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 2


def reshuffled(state: dict[str, Any], seed: int, number: int) -> dict[str, Any]:
    """The state with its draw pile shuffled by take back `number`'s randomness."""
    if not state.get("deck"):
        return state
    deck = list(state["deck"])
    random.Random(takeback_seed(seed, number)).shuffle(deck)
    return {**state, "deck": deck}


def live_shuffles(taken: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The (ply, number) of the take backs that still shape the pile, from all of them in
    the order allowed: one at an earlier ply undid the moves, and shuffles, after it."""
    kept: list[tuple[int, int]] = []
    for ply, number in taken:
        kept = [(p, n) for p, n in kept if p <= ply] + [(ply, number)]
    return kept


def shuffled_at(
    state: dict[str, Any], seed: int, shuffles: Sequence[tuple[int, int]], ply: int
) -> dict[str, Any]:
    """The state after `ply` moves with the shuffles made at that ply, in their order."""
    for at, number in shuffles:
        if at == ply:
            state = reshuffled(state, seed, number)
    return state


@dataclass(frozen=True)
class Check:
    """One thing verify looked at: whether it holds, and what it says in words."""

    ok: bool
    say: Message


def check(export: dict[str, Any]) -> list[Check]:
    """Every check of a finished game's export (its JSON): the seals against the revealed
    values, the seed they give, each move legal in the replay, and the result."""
    found: list[Check] = []

    def note(ok: bool, key: str, **params: Any) -> bool:
        found.append(Check(ok, Message(f"verify.{key}.{'ok' if ok else 'bad'}", params)))
        return ok

    slug, players = export.get("game"), export.get("players")
    moves, seed = export.get("moves"), export.get("seed")
    if slug not in GAMES or not isinstance(players, list) or not isinstance(moves, list):
        note(False, "not_an_export")
        return found
    if not isinstance(seed, int) or "outcome" not in export:
        note(False, "not_over")
        return found
    deal = export.get("deal")
    if isinstance(deal, dict) and "secret" in deal:
        _check_deal(deal, seed, len(players), note)
    else:
        note(True, "no_deal")
    _replay(str(slug), len(players), export.get("options") or {}, seed, moves, export, note)
    return found


def _check_deal(deal: dict[str, Any], seed: int, players: int, note: Any) -> None:
    secret, salt, shares = deal.get("secret"), deal.get("salt"), deal.get("shares")
    if not (isinstance(secret, str) and isinstance(salt, str) and isinstance(shares, list)):
        note(False, "deal_unreadable")
        return
    if len(shares) != players or not all(isinstance(s, str) for s in shares):
        note(False, "shares_count")
        return
    note(sealed(secret, salt) == deal.get("sealed"), "sealed")
    derived = seed_of(secret, shares)
    note(derived == seed, "seed", seed=str(seed))
    note(committed(seed, salt) == deal.get("committed"), "committed")


def _replay(
    slug: str,
    players: int,
    options: dict[str, Any],
    seed: int,
    moves: list[Any],
    export: dict[str, Any],
    note: Any,
) -> None:
    rules = GAMES[slug]
    # An export is untrusted input: whatever the rules fail on is a failed check, never a crash.
    try:
        state = rules.setup(players, options, seed)
        shuffles = [(int(r["after_moves"]), int(r["number"])) for r in export.get("reshuffles", [])]
    except Exception:  # noqa: BLE001
        note(False, "setup")
        return
    for number, entry in enumerate(moves, start=1):
        if not isinstance(entry, dict) or not isinstance(entry.get("move"), dict):
            note(False, "move_missing", ply=number)
            return
        try:
            state = shuffled_at(state, seed, shuffles, number - 1)
            state = rules.apply(state, int(entry.get("seat", -1)), entry["move"])
        except Exception:  # noqa: BLE001 - an illegal or malformed move, as above
            note(False, "move_illegal", ply=number)
            return
    note(True, "moves", count=len(moves))
    result = rules.outcome(state)
    logged = export.get("outcome")
    same = (
        result is not None
        and isinstance(logged, dict)
        and logged.get("scores") == result.scores
        and logged.get("ranks") == result.ranks
    )
    note(same, "result")
