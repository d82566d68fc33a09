"""The engines' message keys: each has an English msgid and a translation in every language,
with the parameters its sentence needs, and renders as a sentence (outside pbem.games)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from pbem.games import IllegalMove
from pbem.games.decktet import CARDS, SUITS
from pbem.games.message import Message
from pbem.present.i18n import Plural, languages, translations
from pbem.present.text import (
    card_name,
    error_text,
    msgid_of,
    render,
    render_for,
    seat_name,
    suit_name,
    translated,
)
from pbem.present.vocabulary import VOCABULARY
from tests.games.helpers import GAME, table

GAMES_DIR = Path(__file__).resolve().parents[2] / "pbem" / "games"
LANGUAGES = languages()
# The modules whose keys are checked: the interface's errors and the Colour Bazaar engine.
ENGINE_FILES = ("base.py", "colour_bazaar.py")
# Calls whose first argument is a catalogue key.
_KEYED_CALLS = {"IllegalMove", "BadOptions", "GameError", "Message"}


def _placeholders(template: str) -> set[str]:
    return set(re.findall(r"%\((\w+)\)s", template))


def _sentences(key: str, lang: str) -> list[str]:
    """Every form a key's sentence takes in `lang` (singular and plural for a plural entry)."""
    msgid = msgid_of(key)
    assert msgid is not None, key
    book = translations(lang)
    if isinstance(msgid, Plural):
        return [book.ngettext(msgid.singular, msgid.plural, n) for n in (1, 2, 1_000_000)]
    return [book.gettext(msgid)]


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
    missing = {key: KEYS_USED[key][0][0] for key in KEYS_USED if not translated(key, lang)}
    assert not missing, f"missing in {lang}: {missing}"


def test_every_call_gives_the_parameters_its_sentence_needs():
    for key, sites in KEYS_USED.items():
        for lang in LANGUAGES:
            needed = set().union(*map(_placeholders, _sentences(key, lang)))
            for where, params in sites:
                if params is not None:
                    assert needed <= params, f"{where}: {key} ({lang}) needs {needed - params}"


def test_every_vocabulary_key_is_translated_in_every_language():
    for lang in LANGUAGES:
        assert [key for key in VOCABULARY if not translated(key, lang)] == [], lang


def test_translations_take_no_parameter_the_english_lacks():
    for key, msgid in VOCABULARY.items():
        english = set().union(*map(_placeholders, _sentences(key, "en")))
        for lang in LANGUAGES:
            for sentence in _sentences(key, lang):
                assert _placeholders(sentence) <= english, (key, lang, sentence)
        if isinstance(msgid, Plural):
            assert msgid.counter in _placeholders(msgid.plural), key


def test_every_card_has_a_name_in_both_languages():
    for card_id, card in CARDS.items():
        assert card_name(card_id, "en") == card.name
        assert translated(f"card.{card_id}", "fr"), card_id
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


def test_a_seat_reads_its_own_moves_said_to_it():
    line = Message(
        "cb.log.played", {"seat": 1, "card": "castle", "market": 3, "chip_suit": "leaves"}
    )
    names = ["Ana", "Léo"]
    assert render_for(line, "en", names, 0).startswith("Léo played The Castle")
    assert render_for(line, "en", names, None).startswith("Léo played The Castle")
    assert render_for(line, "en", names, 1) == (
        "You played The Castle on market 4 and took a Leaves chip."
    )
    assert render_for(line, "en", names, 1, review=True) == (
        "You play The Castle on market 4 and take a Leaves chip."
    )
    assert render_for(line, "fr", names, 1, review=True) == (
        "Vous jouez Le Château sur le marché 4 et prenez un jeton Feuilles."
    )
    shown = Message("cb.log.revealed", {"target_seat": 0, "suit": "moons", "cards": ["castle"]})
    assert render_for(shown, "en", names, 0) == (
        "You hold no Moons card and show your hand: The Castle."
    )
    # A key with no sentence of its own for the reader reads as everyone's.
    last = Message("cb.log.last_chip", {})
    assert render_for(last, "en", names, 0, review=True) == render(last, "en", names)


def _illegal(move: dict, seat: int = 0) -> IllegalMove:
    state = table([["castle", "sailor", "ace-moons", "savage"], ["pact", "mill", "bard", "end"]])
    with pytest.raises(IllegalMove) as info:
        GAME.apply(state, seat, move)
    return info.value


def test_an_illegal_move_reads_in_english():
    exc = _illegal({"card": "castle", "market": 1, "chip": "suns"})
    assert error_text(exc, "en") == (
        "The Castle shares no suit with the top of market 2 (The Borderland)."
    )
    assert str(exc).startswith("cb.no_shared_suit")  # the engine speaks in keys


def test_an_illegal_move_reads_in_french():
    exc = _illegal({"card": "castle", "market": 1, "chip": "suns"})
    assert error_text(exc, "fr") == (
        "Le Château n'a aucune couleur en commun avec le dessus du marché 2 (La Frontière)."
    )
    assert error_text(_illegal({"chip": "suns"}, seat=1), "fr") == "Ce n'est pas votre tour."
    assert error_text(_illegal({"card": "castle", "market": 0, "chip": "or"}), "fr") == (
        "«\u00a0or\u00a0» n'est pas une couleur."  # no-break spaces inside the guillemets
    )


def test_a_sentence_missing_in_french_falls_back_to_english_then_to_the_key(monkeypatch):
    monkeypatch.setitem(VOCABULARY, "only.en", "Hello %(name)s, from nowhere in French.")
    assert not translated("only.en", "fr")
    assert render(Message("only.en", {"name": "Ana"}), "fr") == "Hello Ana, from nowhere in French."
    assert render(Message("no.such.key"), "fr") == "no.such.key"
