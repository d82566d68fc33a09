"""Per-game presentation, and where each part of a game is found from its one registration.

A game is registered once, in `pbem.games.GAMES`. Every other part is found from its
slug: the presenter `pbem/present/<slug_with_underscores>.py` (play_context, parse_form,
results), the page `templates/games/<slug>/page.html`, the mails
`mail/results_<slug>.{txt,html}` (one pair for every language), and the title
`game.<slug>` in the engine vocabulary, translated in each language's catalogue.
`check_parts` fails at application start when one of them is missing.

A presenter may also declare how many finished rounds, besides the current one, its page
(`PAST_ROUNDS`) and a queued mail (`MAIL_ROUNDS`) need of the game's history; a game that
declares neither is viewed whole (see `rounds_viewed`).
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import import_module
from types import ModuleType
from typing import Literal

from jinja2 import Environment, TemplateNotFound

from pbem.games import GAMES, Game
from pbem.present.i18n import languages
from pbem.present.text import translated

PRESENTER_FUNCTIONS = ("play_context", "parse_form", "results")
# Optional: past rounds the page and a queued mail view (rules.view's `rounds`), per reader.
PRESENTER_ROUNDS = {"page": "PAST_ROUNDS", "mail": "MAIL_ROUNDS"}


class MissingPart(RuntimeError):
    """A registered game lacks a part it needs (a presenter, a template, a title)."""


@dataclass(frozen=True)
class GameParts:
    """Where each part of one game lives, derived from its slug."""

    slug: str

    @property
    def rules(self) -> Game:
        """The rules object registered in pbem.games.GAMES."""
        return GAMES[self.slug]

    @property
    def presenter_module(self) -> str:
        """The module that turns the game's view into page data and its form into a move."""
        return "pbem.present." + self.slug.replace("-", "_")

    @property
    def page(self) -> str:
        """The game's page template."""
        return f"games/{self.slug}/page.html"

    @property
    def mails(self) -> tuple[str, ...]:
        """The game's own mail templates (its results), shared by every language."""
        return (f"results_{self.slug}.txt", f"results_{self.slug}.html")

    @property
    def title_key(self) -> str:
        """The catalogue key of the game's name."""
        return f"game.{self.slug}"


def presenter(slug: str) -> ModuleType:
    """The presentation module of a game."""
    return import_module(GameParts(slug).presenter_module)


def rounds_viewed(shown: ModuleType, reader: Literal["page", "mail"]) -> int | None:
    """How many finished rounds besides the current one a game's page or queued mail views
    (its presenter's PAST_ROUNDS or MAIL_ROUNDS); None, every round, when it declares none.
    check_parts has made sure at start that a declared one is a count."""
    rounds: int | None = getattr(shown, PRESENTER_ROUNDS[reader], None)
    return rounds


def playable() -> dict[str, Game]:
    """The registered games, in registry order (check_parts has made sure each has its parts)."""
    return dict(GAMES)


def missing_parts(slug: str, pages: Environment, mails: Environment) -> list[str]:
    """What the game `slug` lacks, in words; empty when every part is there."""
    parts = GameParts(slug)
    missing = []
    try:
        module = import_module(parts.presenter_module)
    except ModuleNotFoundError:
        missing.append(f"presenter {parts.presenter_module}")
    else:
        missing += [
            f"{parts.presenter_module}.{name}()"
            for name in PRESENTER_FUNCTIONS
            if not callable(getattr(module, name, None))
        ]
        missing += [
            f"{parts.presenter_module}.{name} as a count of rounds"
            for name in PRESENTER_ROUNDS.values()
            if not _count_or_absent(getattr(module, name, None))
        ]
    for env, names, folder in (
        (pages, [parts.page], "templates"),
        (mails, list(parts.mails), "mail"),
    ):
        for name in names:
            try:
                env.get_template(name)
            except TemplateNotFound:
                missing.append(f"{folder}/{name}")
    for lang in languages():
        if not translated(parts.title_key, lang):
            missing.append(f"catalogue entry {parts.title_key} ({lang})")
    return missing


def _count_or_absent(value: object) -> bool:
    """Whether an optional count of rounds is absent (None) or a whole number from 0."""
    return value is None or (type(value) is int and value >= 0)


def check_parts(pages: Environment, mails: Environment) -> None:
    """Fail loudly (MissingPart) if any registered game lacks a part."""
    problems = [
        f"{slug}: {', '.join(missing)}"
        for slug in GAMES
        if (missing := missing_parts(slug, pages, mails))
    ]
    if problems:
        raise MissingPart("games registered without all their parts: " + "; ".join(problems))


def text_presenter(slug: str) -> ModuleType:
    """The text-move module of a game (replies by mail), beside its presenter:
    parse, text_of, legal_texts, example."""
    return import_module(GameParts(slug).presenter_module + "_text")
