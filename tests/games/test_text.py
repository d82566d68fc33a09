"""The message catalogues: complete in English and French, and rendered as sentences."""

from __future__ import annotations

import ast
import json
import string
from pathlib import Path

import pytest

from pbem.games import IllegalMove
from pbem.games.decktet import CARDS, SUITS
from pbem.games.message import Message
from pbem.games.text import LANGUAGES, card_name, catalogue, lookup, render, seat_name, suit_name
from tests.games.helpers import GAME, table

GAMES_DIR = Path(__file__).resolve().parents[2] / "pbem" / "games"
MESSAGES_DIR = GAMES_DIR / "messages"
# The modules whose keys are checked: the interface's errors and the Colour Bazaar engine.
ENGINE_FILES = ("base.py", "colour_bazaar.py")
# Calls whose first argument is a catalogue key.
_KEYED_CALLS = {"IllegalMove", "BadOptions", "GameError", "Message"}


def _placeholders(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def _keys_used() -> dict[str, list[tuple[str, set[str] | None]]]:
    """Each literal key the engine passes to an error or Message, with where and the
    parameter names given (None when they are not written out literally)."""
    used: dict[str, list[tuple[str, set[str] | None]]] = {}
    for path in (GAMES_DIR / name for name in ENGINE_FILES):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call) or not node.args:
                continue
            name = getattr(node.func, "id", getattr(node.func, "attr", None))
            first = node.args[0]
            if name not in _KEYED_CALLS or not isinstance(first, ast.Constant):
                continue
            params: set[str] | None = None
            if name == "Message":
                given = node.args[1] if len(node.args) > 1 else ast.Dict(keys=[], values=[])
                if isinstance(given, ast.Dict) and all(
                    isinstance(k, ast.Constant) for k in given.keys
                ):
                    params = {k.value for k in given.keys if isinstance(k, ast.Constant)}
            elif all(kw.arg for kw in node.keywords):
                params = {kw.arg for kw in node.keywords if kw.arg}
            used.setdefault(first.value, []).append((f"{path.name}:{node.lineno}", params))
    return used


KEYS_USED = _keys_used()


def test_the_engine_uses_catalogue_keys():
    assert "cb.no_shared_suit" in KEYS_USED and "error.not_your_turn" in KEYS_USED
    assert len(KEYS_USED) > 20


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_key_the_engine_uses_is_in_the_catalogue(lang):
    missing = {key: KEYS_USED[key][0][0] for key in KEYS_USED if key not in catalogue(lang)}
    assert not missing, f"missing in {lang}: {missing}"


def test_every_call_gives_the_parameters_its_sentence_needs():
    for key, sites in KEYS_USED.items():
        for lang in LANGUAGES:
            needed = _placeholders(lookup(key, lang))
            for where, params in sites:
                if params is not None:
                    assert needed <= params, f"{where}: {key} ({lang}) needs {needed - params}"


def test_english_and_french_catalogue_files_have_the_same_keys():
    parts = sorted({path.name.split(".")[0] for path in MESSAGES_DIR.glob("*.json")})
    assert "colour-bazaar" in parts and "common" in parts
    for part in parts:
        en = json.loads((MESSAGES_DIR / f"{part}.en.json").read_text(encoding="utf-8"))
        fr = json.loads((MESSAGES_DIR / f"{part}.fr.json").read_text(encoding="utf-8"))
        assert set(en) - set(fr) == set(), f"{part}: only in English"
        assert set(fr) - set(en) == set(), f"{part}: only in French"
        assert all(value.strip() for value in [*en.values(), *fr.values()]), part


def test_english_and_french_sentences_take_the_same_parameters():
    en, fr = catalogue("en"), catalogue("fr")
    for key in en:
        assert _placeholders(en[key]) == _placeholders(fr[key]), key


def test_every_card_has_a_name_in_both_languages():
    for card_id, card in CARDS.items():
        assert card_name(card_id, "en") == card.name
        assert f"card.{card_id}" in catalogue("fr"), card_id
    french = {card_name(card_id, "fr") for card_id in CARDS}
    assert len(french) == len(CARDS)  # no two cards share a French name
    assert card_name("castle", "fr") == "Le Château"
    assert card_name("light-keeper", "fr") == "Le Gardien du phare"
    assert card_name("ace-knots", "fr") == "As de Nœuds"


def test_every_suit_has_a_name_in_both_languages():
    english = [suit_name(suit, "en") for suit in SUITS]
    french = [suit_name(suit, "fr") for suit in SUITS]
    assert english == ["Moons", "Suns", "Waves", "Leaves", "Wyrms", "Knots"]
    assert french == ["Lunes", "Soleils", "Vagues", "Feuilles", "Vouivres", "Nœuds"]


def test_seats_are_named_by_player_name_or_number():
    assert seat_name(0) == "Player 1" and seat_name(2, "fr") == "Joueur 3"
    assert seat_name(1, "fr", ["Ana", "Léo"]) == "Léo"


def test_a_log_line_renders_in_both_languages_with_player_names():
    line = Message(
        "cb.log.played", {"seat": 1, "card": "castle", "market": 3, "chip_suit": "leaves"}
    )
    names = ["Ana", "Léo"]
    assert render(line, "en", names) == "Léo played The Castle on market 4 and took a Leaves chip."
    assert render(line, "fr", names) == (
        "Léo a joué Le Château sur le marché 4 et pris un jeton Feuilles."
    )


def _illegal(move: dict, seat: int = 0) -> IllegalMove:
    state = table([["castle", "sailor", "ace-moons", "savage"], ["pact", "mill", "bard", "end"]])
    with pytest.raises(IllegalMove) as info:
        GAME.apply(state, seat, move)
    return info.value


def test_an_illegal_move_reads_in_english():
    exc = _illegal({"card": "castle", "market": 1, "chip": "suns"})
    assert (
        str(exc)
        == exc.text("en")
        == ("The Castle shares no suit with the top of market 2 (The Borderland).")
    )


def test_an_illegal_move_reads_in_french():
    exc = _illegal({"card": "castle", "market": 1, "chip": "suns"})
    assert exc.text("fr") == (
        "Le Château n'a aucune couleur en commun avec le dessus du marché 2 (La Frontière)."
    )
    assert _illegal({"chip": "suns"}, seat=1).text("fr") == "Ce n'est pas votre tour."
    assert _illegal({"card": "castle", "market": 0, "chip": "or"}).text("fr") == (
        "« or » n'est pas une couleur."
    )


def test_a_key_missing_in_french_falls_back_to_english_then_to_the_key(monkeypatch):
    books = {"en": {"only.en": "Hello {name}."}, "fr": {}}
    monkeypatch.setattr("pbem.games.text.catalogue", lambda lang: books[lang])
    assert render(Message("only.en", {"name": "Ana"}), "fr") == "Hello Ana."
    assert render(Message("no.such.key"), "fr") == "no.such.key"
