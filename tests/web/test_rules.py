"""The rules pages: each game's rules in English and French, with the cards, the options and
a worked example whose numbers are the engine's; linked from the form and every game page."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any

import pytest
from markupsafe import escape

from pbem.games.colour_bazaar import score
from pbem.games.decktet import CARDS
from pbem.present.rules import EXAMPLE_CHIPS, EXAMPLE_MARKETS
from pbem.present.text import card_name
from tests.web.helpers import deliver, link_in, start_game

ROOT = Path(__file__).resolve().parents[2]
SHARED = next(
    (p / "shared" / "rules" for p in ROOT.parents if (p / "shared" / "rules").is_dir()), None
)
# Digests of every run of eight words of the source rules, so that the own-words check runs
# in a checkout without the sources beside it (the digests hold no sentence of theirs).
# Rebuild with `python -m tests.web.test_rules` when the sources change.
SOURCE_RUNS = ROOT / "tests" / "data" / "source_runs.txt"
PROSE = {"en": ("How to play", "A worked example"), "fr": ("Comment jouer", "Un exemple complet")}


def words(text: str) -> list[str]:
    return re.findall(r"[\w']+", text.lower())


def page_text(html: str) -> str:
    return re.sub(r"<[^>]+>", " ", html)


@pytest.mark.parametrize("lang", ["en", "fr"])
@pytest.mark.parametrize("slug", ["colour-bazaar", "fantasy-business"])
def test_rules_page_in_both_languages(client: Any, slug: str, lang: str) -> None:
    response = client.get(f"/rules/{slug}?lang={lang}")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    assert f'<html lang="{lang}">' in html
    for heading in PROSE[lang]:
        assert heading in html
    other = "fr" if lang == "en" else "en"
    assert PROSE[other][0] not in html
    assert 'id="cards"' in html and 'id="options"' in html


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_colour_bazaar_example_and_cards_come_from_the_engine(client: Any, lang: str) -> None:
    html = client.get(f"/rules/colour-bazaar?lang={lang}").get_data(as_text=True)
    outcome = score(EXAMPLE_MARKETS, EXAMPLE_CHIPS)
    for total in outcome.scores:
        assert f"<strong>{total}</strong>" in html
    for card in CARDS.values():
        if card.kind != "excuse":
            assert str(escape(card_name(card.id, lang))) in html
    # The Crown on market 1 copies the best card of its suit under it.
    assert card_name("sea", lang) in html and card_name("cave", lang) in html


def test_fantasy_business_page_works_out_income(client: Any) -> None:
    html = page_text(client.get("/rules/fantasy-business").get_data(as_text=True))
    # Ana's two Swords at 5, cheapest: 5 × 2 + 2 × 2 = 14; Zoé, dearest, earns nothing.
    assert re.search(r"Ana\s+Swords\s+2\s+5\s+lowest\s+14", html)
    assert re.search(r"Zoé\s+Swords\s+1\s+8\s+highest\s+0", html)
    assert re.search(r"Léo\s+Horses\s+2\s+9\s+everyone asks the same: counts as lowest\s+22", html)
    for special in ("Special subsidy", "Theft", "Defaulting buyer", "Defective goods"):
        assert special in html
    assert "Sealed bids" in html


def test_unknown_game_has_no_rules_page(client: Any) -> None:
    assert client.get("/rules/chess").status_code == 404


def digest(run: tuple[str, ...]) -> str:
    """A short digest of a run of words."""
    return hashlib.blake2b(" ".join(run).encode(), digest_size=6).hexdigest()


def runs_of_sources(folder: Path) -> set[str]:
    """The digests of every run of eight words in the source texts."""
    found: set[str] = set()
    for path in sorted(folder.glob("*")):
        w = words(path.read_text(encoding="utf-8"))
        found |= {digest(tuple(w[i : i + 8])) for i in range(len(w) - 7)}
    return found


def stored_runs() -> set[str]:
    """The digests kept in the repository."""
    lines = SOURCE_RUNS.read_text(encoding="utf-8").splitlines()
    return {line for line in lines if line and not line.startswith("#")}


def test_the_stored_digests_match_the_sources() -> None:
    """Where the sources are beside the checkout, the stored digests are theirs."""
    assert len(stored_runs()) > 4000
    if SHARED is not None:
        assert stored_runs() == runs_of_sources(SHARED), "run python -m tests.web.test_rules"


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_rules_are_in_our_own_words(client: Any, lang: str) -> None:
    """No run of eight words of the source texts appears on our pages."""
    source = stored_runs()
    for slug in ("colour-bazaar", "fantasy-business"):
        w = words(page_text(client.get(f"/rules/{slug}?lang={lang}").get_data(as_text=True)))
        runs = [tuple(w[i : i + 8]) for i in range(len(w) - 7)]
        copied = [" ".join(run) for run in runs if digest(run) in source]
        assert copied == [], (slug, copied)


def test_rules_are_linked_from_the_form_and_the_game_pages(
    client: Any, app: Any, smtpd: Any
) -> None:
    form = client.get("/").get_data(as_text=True)
    assert 'href="/rules/colour-bazaar"' in form and 'href="/rules/fantasy-business"' in form
    links, _ = start_game(client, app, smtpd)
    for link in links.values():
        assert 'href="/rules/colour-bazaar"' in client.get(link).get_data(as_text=True)
    deliver(app)
    invitation = smtpd.to("leo@example.org")[0]
    assert link_in(invitation) == links["leo@example.org"]


if __name__ == "__main__":
    assert SHARED is not None, "the source rules are not beside this checkout"
    header = "# blake2b-48 digests of each run of eight words of shared/rules\n"
    SOURCE_RUNS.parent.mkdir(exist_ok=True)
    SOURCE_RUNS.write_text(header + "\n".join(sorted(runs_of_sources(SHARED))) + "\n")
