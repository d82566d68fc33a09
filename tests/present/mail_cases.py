"""What the catalogue tests render, shared with the mail tests: every mail in every language
(CASES) and the context each is built with."""

from __future__ import annotations

import copy
import random
from datetime import UTC, datetime, timedelta
from typing import Any

from pbem.games import GAMES
from pbem.mailout.context import player_context
from pbem.mailout.notify import NOTIFICATIONS
from pbem.models import Player, Vacation
from pbem.players.reports import Shown
from pbem.present.colour_bazaar import results as colour_bazaar_results
from pbem.present.colour_bazaar import turn_table
from pbem.present.i18n import languages
from pbem.present.timefmt import deadline_context

LANGS = languages()
NAMES = ["Ana", "Léo", "Zoé"]
SEALED = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
# A fixed "now" and the recipient, Léo: his zone and language shape the dates in the mail.
NOW = datetime(2026, 3, 5, 9, 30, tzinfo=UTC)
LINK = "https://pbem.example/p/12-1-abcdef"
UNSUBSCRIBE = "https://pbem.example/u/2-xyz"
TWO_DAYS = timedelta(days=2, hours=5)
# Events sent about a game (mail_context) and about the player alone (player_context).
PLAYER_EVENTS = {
    "digest",
    "vacation_start",
    "vacation_end",
    "auto_vacation",
    "signin",
    "webhook_disabled",
    "league_invitation",
    "league_round",
    "league_digest",
    "league_over",
    "address_confirm",
    "mail_test",
    "barred",
    "unbarred",
    "report",
}
# How long the recipient has left to move, by default, in each event's sample.
DEFAULT_LEFT = {"your_turn": TWO_DAYS, "reminder": TWO_DAYS, "deadline_warning": timedelta(hours=5)}
LEAGUE_LINK = "https://pbem.example/leagues/abcdef"
LEAGUE = {
    "league": "Autumn <cup>",
    "league_link": LEAGUE_LINK,
    "game": "colour-bazaar",
    "format": "swiss",
}
LEAGUE_GAMES = [{"id": 15, "round": 2, "link": "https://pbem.example/p/15-2-x", "others": ["Zoé"]}]
STANDINGS = [
    {"place": 1, "name": "Zoé", "points_text": "1½", "played": 2, "dropped": False},
    {"place": 2, "name": "Léo", "points_text": "½", "played": 2, "dropped": True},
]
BOUNCED = {
    "who": NAMES[2],
    "who_seat": 2,
    "state": "bouncing",
    "bounced_since": NOW,
    "forming": False,
}
# A report as the operator's mail gives it (pbem.players.reports); the operator's mail is
# always in English, and is rendered in each language here like every other.
REPORT = {
    "report": Shown(
        id=7,
        created_at=NOW,
        reporter="Zoé",
        reporter_id=3,
        reported="Ana <b>",
        reported_id=1,
        reason="Rude in the talk.\nTwice.",
        game_id=12,
        said="You all play like <snails>.",
        watch_link="https://pbem.example/w/12-x",
    ),
    "report_link": "https://pbem.example/reports/7-x",
    "reported_link": "https://pbem.example/players/1",
}
# A review in words (pbem.present.review.review_words), with a replay link per moment.
_MOMENT = {
    "ply": 8, "number": 9, "source": "web", "agrees": False, "cost": 18,
    "played": "You played The Sailor on market 2 and took a Moons chip.",
    "best": "You play The Savage on market 1 and take a Leaves chip.",
    "played_chance": 41, "best_chance": 59,
    "replay_link": "https://pbem.example/p/tok/replay?ply=8",
}  # fmt: skip
REVIEW: dict[str, Any] = {
    "costliest": [_MOMENT],
    "decisions": [_MOMENT, {**_MOMENT, "ply": 10, "number": 11, "agrees": True, "cost": 0}],
    "agreed": 1,
    "simulations": 300,
}

CASES = [
    ("invitation", {}),
    ("created", {}),
    ("started", {}),
    ("started", {"to_act": ["Ana", "Zoé"], "to_act_text": "Ana & Zoé"}),
    ("your_turn", {}),
    ("your_turn", {"since": []}),
    ("your_turn", {"left": None}),
    ("your_turn", {"left": timedelta(minutes=20)}),
    ("reminder", {}),
    ("reminder", {"banks_text": "Ana: 2 days, Léo: nothing", "bank_kind": "bank"}),
    ("your_turn", {"banks_text": "Ana: 5 days, Léo: 1 day", "bank_kind": "fischer"}),
    ("reminder", {"left": None, "since": []}),
    ("deadline_warning", {}),
    ("deadline_warning", {"left": TWO_DAYS}),
    ("timeout", {"who": NAMES[1]}),
    ("timeout", {"who": NAMES[2]}),
    ("timeout", {"who": NAMES[2], "to_act": [], "to_act_text": ""}),
    ("absent", {"who": NAMES[1]}),
    ("takeback_asked", {"who": NAMES[1]}),
    (
        "takeback_asked",
        {
            "who": NAMES[1],
            "reply_address": "play+12.1.7.abcdefghijklmnop@in.pbem.example",
            "reply_example": "play castle 3 knots",
        },
    ),  # fmt: skip
    ("takeback_refused", {"who": NAMES[1]}),
    ("absent", {"who": NAMES[2], "absent": [NAMES[2]]}),
    ("digest", {}),
    ("vacation_start", {}),
    ("vacation_end", {}),
    ("auto_vacation", {}),
    ("auto_vacation", {"days": 2, "days_left": 0}),
    ("webhook_disabled", {"host": "discord.com", "failures": 8, "error": "HTTP 404"}),
    ("signin", {}),
    ("league_invitation", LEAGUE | {"organiser": "Ana", "join_link": LEAGUE_LINK + "/i"}),
    ("league_round", LEAGUE | {"round": 2, "new_games": LEAGUE_GAMES}),
    ("league_round", LEAGUE | {"format": "round_robin", "round": 3, "new_games": []}),
    ("league_digest", LEAGUE | {"round": 2, "standings": STANDINGS, "waiting": LEAGUE_GAMES}),
    ("league_digest", LEAGUE | {"round": 2, "standings": STANDINGS, "waiting": []}),
    ("league_over", LEAGUE | {"standings": STANDINGS, "place": 2}),
    ("cancelled", {"reason": "declined", "by": "Zoé"}),
    ("cancelled", {"reason": "cancelled", "by": "Ana"}),
    ("cancelled", {"reason": "expired", "by": "Ana", "days": 14}),
    (
        "expiry_warning",
        {
            "days": 14,
            "expires_at": datetime(2026, 3, 5, 9, tzinfo=UTC),
            "waiting_text": "Léo and Zoé",
        },
    ),  # fmt: skip
    (
        "expiry_warning",
        {
            "days": 14,
            "expires_at": datetime(2026, 3, 5, 9, tzinfo=UTC),
            "waiting_text": "",
            "open_seats": 2,
        },
    ),  # fmt: skip
    ("joined", {"who": NAMES[1], "open": 1}),
    ("matched", {"open": 1}),
    ("matched", {"open": 0}),
    ("game_over", {}),
    ("game_over", {"winners": 2}),
    # Issue 51: a game's review, mailed when asked for; with costly moments and without.
    ("review", {"review": REVIEW, "review_link": "https://pbem.example/p/tok/review"}),
    (
        "review",
        {
            "review": REVIEW | {"costliest": [], "agreed": 2},
            "review_link": "https://pbem.example/p/tok/review",
        },
    ),
    # Issue 46: a player pbem can no longer mail, told to the creator and the other seats.
    ("mail_bouncing", BOUNCED),
    ("mail_bouncing", BOUNCED | {"forming": True}),
    ("mail_bouncing", BOUNCED | {"state": "complained"}),
    ("your_turn", {"mail_trouble": [{"name": "Zoé", "state": "bouncing", "since": NOW}]}),
    (
        "timeout",
        {"who": NAMES[2], "mail_trouble": [{"name": "Zoé", "state": "complained", "since": NOW}]},
    ),
    ("address_confirm", {}),
    ("mail_test", {}),
    ("barred", {}),
    ("unbarred", {}),
    ("report", REPORT),
    (
        "your_turn",
        {
            "reply_address": "play+12.1.7.abcdefghijklmnop@in.pbem.example",
            "reply_example": "play castle 3 knots",
        },
    ),  # fmt: skip
    (
        "move_refused",
        {
            "reason": "That is not one of your legal moves now.",
            "line": "hello",
            "moves": ["play castle 3 knots", "play castle 3 moons"],
            "more_moves": 4,
            "sample": False,
        },
    ),  # fmt: skip
    (
        "move_refused",
        {
            "reason": "The turn you answered has already been played.",
            "line": "",
            "moves": [],
            "more_moves": 0,
            "sample": True,
        },
    ),  # fmt: skip
]


def finished_outcome(seed: int = 7, players: int = 3) -> dict[str, Any]:
    """The stored outcome of a Colour Bazaar game played to the end with random moves."""
    rules = GAMES["colour-bazaar"]
    rng = random.Random(seed)
    state = rules.setup(players, {"courts": True}, seed)
    for _ in range(1000):
        outcome = rules.outcome(state)
        if outcome is not None:
            return {
                "scores": outcome.scores,
                "ranks": outcome.ranks,
                "breakdown": outcome.breakdown,
            }
        seat = rules.to_act(state)[0]
        state = rules.apply(state, seat, rng.choice(rules.legal_moves(state, seat)))
    raise AssertionError("the random game did not end")


def sample_player(lang: str) -> Player:
    return Player(
        id=2,
        email="leo@example.org",
        name=NAMES[1],
        lang=lang,
        tz="Europe/Paris",
        notify="every",
        unsubscribe_key="xyz",
        created_at=NOW,
    )


def sample_context(
    event: str, lang: str, outcome: dict[str, Any], left: timedelta | None = None
) -> dict[str, Any]:
    """A context like pbem.mailout.context builds, for the seat of Léo, due in `left`."""
    player = sample_player(lang)
    name = NAMES[1]
    others = [n for n in NAMES if n != name]
    to_act = [NAMES[0]]
    context = player_context(None, player, NOW)
    context.update(
        {
            "event": event,
            "slug": "colour-bazaar",
            "name": name,
            "game_id": 12,
            "move_number": 7,
            "title": "Colour Bazaar #12",
            "game_name": "Colour Bazaar",
            "others": others,
            "creator": NAMES[0],
            "link": LINK,
            "settings_link": LINK + "/settings",
            "watch_link": "https://pbem.example/w/12/xyz",
            "rules_link": "https://pbem.example/rules/colour-bazaar",
            "about": "a Decktet card game",
            "players_text": " & ".join(NAMES),
            "option_lines": ["Courts: yes", "Who plays first: Ana"],
            "time_control": "3 days per move",
            "banks_text": "",
            "bank_kind": "move",
            "since": [],
            "talk": [],
            # A checkable deal: sealed in invitations, committed in the first mail after.
            "deal_sealed": SEALED if event in ("invitation", "created") else "",
            "deal_committed": SEALED if event in ("started", "your_turn") else "",
            "to_act": to_act,
            "results": None,
            "absent": [],
            "others_text": " & ".join(others),
            "guests": [n for n in others if n != NAMES[0]],
            "guests_text": " & ".join(n for n in others if n != NAMES[0]),
            "to_act_text": " & ".join(to_act),
            **deadline_context(None if left is None else NOW + left, player, NOW),
        }
    )
    if event in NOTIFICATIONS:
        context["unsubscribe_link"] = UNSUBSCRIBE
    if event in ("your_turn", "reminder", "deadline_warning", "timeout", "game_over"):
        context["since"] = ["Zoé played The Sailor on market 2.", "Ana took a Moons chip."]
        context["talk"] = [
            {"who": "Zoé", "private": False, "text": "Belle partie !"},
            {"who": "Ana", "private": True, "text": "Je garde les Lunes."},
        ]
    if event == "your_turn":
        # The table as the reader sees it, from a Colour Bazaar dealt with the Courts.
        rules = GAMES["colour-bazaar"]
        state = rules.setup(3, {"courts": True}, 5)
        seat = state["turn"]
        context["turn_table"] = turn_table(rules.view(state, seat), seat, NAMES, lang)
    if event == "game_over":
        context["results"] = colour_bazaar_results(outcome, NAMES, lang)
        context["winners_text"] = " & ".join(context["results"]["winners"])
    return context


def digest_games(lang: str) -> list[dict[str, Any]]:
    """Two entries shaped like pbem.mailout.context.digest_entry: one urgent, one with no limit."""
    player = sample_player(lang)
    return [
        {
            "title": "Colour Bazaar #12",
            "others_text": "Ana & Zoé",
            "link": LINK,
            **deadline_context(NOW + timedelta(hours=5), player, NOW),
        },
        {
            "title": "Fantasy Business #15",
            "others_text": "Zoé",
            "link": "https://pbem.example/p/15-2-ghijkl",
            **deadline_context(None, player, NOW),
        },
    ]


def player_mail_context(event: str, lang: str) -> dict[str, Any]:
    """A context like pbem.mailout.notify builds for a mail about the player rather than a game."""
    context = player_context(None, sample_player(lang), NOW)
    if event in NOTIFICATIONS:
        context["unsubscribe_link"] = UNSUBSCRIBE
    if event == "digest":
        context["games"] = digest_games(lang)
    if event == "signin":
        context["signin_link"] = "https://pbem.example/signin/3-abc"
        context["minutes"] = 60
    if event == "address_confirm":
        context["confirm_link"] = "https://pbem.example/address/4-abc"
        context["new_email"] = "leo@example.net"
        context["days"] = 3
    if event in ("vacation_start", "vacation_end", "auto_vacation"):
        context["vacation"] = Vacation(
            id=1,
            player_id=2,
            starts_at=NOW,
            ends_at=NOW + timedelta(days=10),
            created_at=NOW,
        )
        context["days_left"] = 4
        context["days"] = 1
    return context


def build_context(
    event: str, lang: str, extra: dict[str, Any], outcome: dict[str, Any]
) -> dict[str, Any]:
    """The sample context of a case; "winners" and "left" in `extra` are not template keys."""
    extra = copy.deepcopy(extra)
    winners = extra.pop("winners", None)
    left = extra.pop("left", DEFAULT_LEFT.get(event))
    if event in PLAYER_EVENTS:
        context = player_mail_context(event, lang)
    else:
        context = sample_context(event, lang, outcome, left)
    context.update(extra)
    if winners is not None:
        context["results"]["winners"] = NAMES[:winners]
        context["winners_text"] = " & ".join(NAMES[:winners])
    return context
