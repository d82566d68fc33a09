"""Every vocabulary key the code builds from a prefix and a value (say(lang, f"play.source.{x}"),
say('game.' ~ slug)) exists and is translated, for every value the code can put there.

A built key is invisible to a grep for missing keys: one the vocabulary lacks shows as itself
("(play.source.ahead)") on the page, the replay and the mails. So the sources are scanned for
every prefix built this way, each prefix must have its values listed below, and each value's
key must be in the vocabulary and the catalogues.
"""

from __future__ import annotations

import ast
import inspect
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from pbem.bots import LEVELS
from pbem.games import GAMES
from pbem.games.decktet import BASIC, CARDS, COURTS, PAWNS, SUITS
from pbem.games.fantasy_business.cards import ALL_CARD_IDS, ARTICLE_IDS, SPECIAL_KINDS
from pbem.games.fantasy_business.moves import ACTIONS
from pbem.moves import submit_move
from pbem.moves.prepare import applied, prepare_move
from pbem.players.account import NOTIFY_CHOICES
from pbem.present.fantasy_business.sales import PARTS as NEWS_PARTS
from pbem.present.i18n import languages
from pbem.present.text import translated
from pbem.web.plan import PLAN_ERRORS
from pbem.web.standing import ERRORS as STANDING_ERRORS

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "pbem"
# say('prefix.' ~ value) or say("prefix." ~ value) in a page or mail template.
TEMPLATE_KEY = re.compile(r"(?<![\w.])say\(\s*(['\"])([a-z0-9_.\-]+)\1\s*~")
# The functions that write a move, and so its source into the log.
WRITERS: dict[str, Callable[..., object]] = {
    "submit_move": submit_move,
    "prepare_move": prepare_move,
    "applied": applied,
}
# The log and the mails show no source for a player's own move (templates/game/_log.html,
# pbem/mailout/context.py): "web" is never said.
UNSAID_SOURCES = {"web"}


def _python_files() -> Iterator[tuple[Path, ast.Module]]:
    for path in sorted(PACKAGE.rglob("*.py")):
        yield path, ast.parse(path.read_text(encoding="utf-8"))


def _built_prefix(node: ast.expr) -> str | None:
    """The literal start of a key built from a literal and a value, or None for any other key."""
    if isinstance(node, ast.JoinedStr) and any(
        isinstance(v, ast.FormattedValue) for v in node.values
    ):
        first = node.values[0]
        return first.value if isinstance(first, ast.Constant) else ""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left = node.left
        while isinstance(left, ast.BinOp):
            left = left.left
        return left.value if isinstance(left, ast.Constant) else ""
    return None


def prefixes_in_code() -> dict[str, str]:
    """Each prefix a key is built from, in pbem/ (say's key argument) and the templates, with
    one place it is built."""
    found: dict[str, str] = {}
    for path, tree in _python_files():
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call) or len(node.args) < 2:
                continue
            name = getattr(node.func, "id", getattr(node.func, "attr", None))
            prefix = _built_prefix(node.args[1]) if name == "say" else None
            if prefix is not None:
                found.setdefault(prefix, f"{path.relative_to(ROOT)}:{node.lineno}")
    for folder in (ROOT / "templates", ROOT / "mail"):
        for path in sorted(p for p in folder.rglob("*") if p.suffix in (".html", ".txt")):
            for _, prefix in TEMPLATE_KEY.findall(path.read_text(encoding="utf-8")):
                found.setdefault(prefix, str(path.relative_to(ROOT)))
    return found


def _constants(node: ast.expr | None) -> set[str]:
    """The strings an expression can be, where they are written out: "a", "a" if x else "b"."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return {node.value}
    if isinstance(node, ast.IfExp):
        return _constants(node.body) | _constants(node.orelse)
    return set()


def _source_argument(call: ast.Call, name: str) -> ast.expr | None:
    for keyword in call.keywords:
        if keyword.arg == "source":
            return keyword.value
    position = list(inspect.signature(WRITERS[name]).parameters).index("source")
    return call.args[position] if len(call.args) > position else None


def move_sources() -> set[str]:
    """Every Move.source the code writes: the sources handed to the functions that write a move
    (a literal, or a variable `source` given literals in the same function), and their
    defaults."""
    sources: set[str] = set()
    for writer in WRITERS.values():
        default = inspect.signature(writer).parameters["source"].default
        if isinstance(default, str):
            sources.add(default)
    for _, tree in _python_files():
        for function in ast.walk(tree):
            if not isinstance(function, ast.FunctionDef):
                continue
            assigned = {
                value
                for node in ast.walk(function)
                if isinstance(node, ast.Assign)
                and any(isinstance(t, ast.Name) and t.id == "source" for t in node.targets)
                for value in _constants(node.value)
            }
            for node in ast.walk(function):
                if not isinstance(node, ast.Call):
                    continue
                name = getattr(node.func, "id", getattr(node.func, "attr", None))
                if name not in WRITERS:
                    continue
                given = _source_argument(node, name)
                sources |= _constants(given)
                if isinstance(given, ast.Name) and given.id == "source":
                    sources |= assigned
    return sources


def _options() -> set[str]:
    keys = set()
    for slug, game in GAMES.items():
        for opt in game.options:
            keys.add(f"option.{slug}.{opt.name}")
            keys |= {f"option.{slug}.{opt.name}.{c}" for c in opt.choices if opt.kind == "choice"}
    return keys


def _rules_options() -> set[str]:
    return {f"rules.option.{slug}.{opt.name}" for slug, g in GAMES.items() for opt in g.options}


# Each built prefix, and every key the code can build from it.
FB_STEPS = set(ACTIONS)
SPECIALS = {k.id for k in SPECIAL_KINDS}
PRICE_POSITIONS = {"lowest", "middle", "highest", "all_equal"}
BUILT: dict[str, Callable[[], set[str]]] = {
    "play.source.": lambda: {f"play.source.{s}" for s in move_sources() - UNSAID_SOURCES},
    "game.": lambda: {f"game.{slug}" for slug in GAMES},
    "lobby.about.": lambda: {f"lobby.about.{slug}" for slug in GAMES},
    "option.": _options,
    "rules.option.": _rules_options,
    "lobby.level.": lambda: {f"lobby.level.{level}" for level in LEVELS},
    "card.": lambda: {f"card.{c}" for c in {*CARDS, *ALL_CARD_IDS, *SPECIALS}},
    "suit.": lambda: {f"suit.{s}" for s in SUITS},
    "rules.kind.": lambda: {f"rules.kind.{CARDS[c].kind}" for c in (*BASIC, *PAWNS, *COURTS)},
    "rules.special.": lambda: {f"rules.special.{k}" for k in SPECIALS},
    "rules.position.": lambda: {f"rules.position.{p}" for p in PRICE_POSITIONS},
    "error.http.": lambda: {
        f"error.http.{code}" for code in (400, 403, 404, 405, 409, 413, 415, 429, 500, 503)
    },
    "fb.step.": lambda: {f"fb.step.{s}" for s in FB_STEPS | {"over"}},
    "fb.page.ask.": lambda: {f"fb.page.ask.{s}" for s in FB_STEPS},
    "fb.page.": lambda: {f"fb.page.{s}_set" for s in ("limits", "lists")},
    "fb.page.effect.": lambda: {f"fb.page.effect.{k}" for k in SPECIALS},
    "fb.page.pick.": lambda: {f"fb.page.pick.{k}" for k in SPECIALS},
    "fb.page.mode.": lambda: {
        f"fb.page.mode.{m}"
        for opt in GAMES["fantasy-business"].options
        if opt.name == "auction"
        for m in opt.choices
    },
    "fb.results.reason.": lambda: {
        f"fb.results.reason.{r}" for r in PRICE_POSITIONS | {"sole", "defaulting", "defective"}
    },
    "league.format.": lambda: {f"league.format.{f}" for f in ("round_robin", "swiss")},
    "join.status.": lambda: {f"join.status.{s}" for s in ("invited", "joined", "declined")},
    "settings.notify.": lambda: {f"settings.notify.{c}" for c in NOTIFY_CHOICES},
    "ahead.error.": lambda: {f"ahead.error.{e}" for e in PLAN_ERRORS},
    "standing.error.": lambda: {f"standing.error.{e}" for e in STANDING_ERRORS},
    "fb.news.": lambda: {f"fb.news.{part}" for part in NEWS_PARTS},
    "fb.short.": lambda: {f"fb.short.{a}" for a in ARTICLE_IDS},
}


def test_the_scans_still_find_what_they_look_for() -> None:
    found = prefixes_in_code()
    assert {"play.source.", "game.", "fb.step.", "ahead.error."} <= set(found), found
    # Every way a move is written: by mail, a timeout, a computer (for itself or for a player
    # who left), a plan ahead and standing orders.
    assert {"web", "mail", "timeout", "computer", "left", "ahead", "standing"} <= move_sources()


def test_every_built_prefix_has_its_values_listed() -> None:
    unlisted = {p: where for p, where in prefixes_in_code().items() if p not in BUILT}
    assert unlisted == {}, "list the values these keys are built from in BUILT"


@pytest.mark.parametrize("lang", languages())
@pytest.mark.parametrize("prefix", sorted(BUILT))
def test_every_built_key_is_in_the_vocabulary_and_translated(prefix: str, lang: str) -> None:
    keys = BUILT[prefix]()
    assert keys and all(k.startswith(prefix) for k in keys)
    assert sorted(k for k in keys if not translated(k, lang)) == []
