"""The time left, one function for mails and pages (issue 31: a turn mail said "3 days left"
while the page opened from it said "2 days left")."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from flask import Flask
from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.models import Game, Player, Seat
from pbem.players.home import _left
from pbem.present.timefmt import deadline_context
from pbem.web.game import _clocks

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
PLAYER = Player(email="ana@example.org", name="Ana", lang="en", tz="Europe/Paris", created_at=START)


def on_the_page(deadline: datetime, at: datetime, lang: str) -> str:
    """The seat page's words for the time left, as its clocks box works them out at `at`."""
    app = Flask(__name__)
    app.config["CLOCK"] = lambda: at
    seat = Seat(game_id=1, seat=0, player_id=1, name="Ana", deadline=deadline, link_key="k")
    with app.app_context():
        game = Game(slug="colour-bazaar", days_per_move=3)
        return str(_clocks(game, [(seat, PLAYER, None)], PLAYER.tz, lang)[0]["time_left"])


def in_the_mail(deadline: datetime, at: datetime, lang: str) -> str:
    """A mail's words for the time left, rendered as of `at`."""
    player = Player.model_validate({**PLAYER.model_dump(), "lang": lang})
    return str(deadline_context(deadline, player, at)["time_left"])


@settings(max_examples=200, derandomize=True, deadline=None)
@given(
    left=st.integers(min_value=0, max_value=15 * 24 * 3600),
    lang=st.sampled_from(["en", "fr"]),
)
def test_mail_page_and_home_agree_at_the_same_instant(left: int, lang: str) -> None:
    deadline = START + timedelta(seconds=left)
    mail = in_the_mail(deadline, START, lang)
    player = Player.model_validate({**PLAYER.model_dump(), "lang": lang})
    assert mail == on_the_page(deadline, START, lang) == _left(deadline, player, START)["time_left"]


@settings(max_examples=200, derandomize=True, deadline=None)
@given(
    days=st.integers(min_value=1, max_value=14),
    read_after=st.integers(min_value=0, max_value=20 * 60),
    reminder=st.booleans(),
)
def test_the_page_opened_from_a_mail_says_what_the_mail_said(
    days: int, read_after: int, reminder: bool
) -> None:
    """A turn mail is written when the turn begins (or a 24h reminder when it is due); the
    player opens its link up to 20 minutes later: both say the same time left."""
    sent = START + timedelta(days=1) if reminder and days > 1 else START
    deadline = START + timedelta(days=days)
    mail = in_the_mail(deadline, sent, "en")
    assert mail == on_the_page(deadline, sent + timedelta(seconds=read_after), "en")
    assert mail in (f"{days - (sent != START)} days", "24 hours")


def test_round_words() -> None:
    words = {
        timedelta(days=3): "3 days",
        timedelta(days=2, hours=23, minutes=59): "3 days",
        timedelta(days=2, hours=11): "2 days",
        timedelta(hours=47, minutes=40): "2 days",
        timedelta(hours=47, minutes=20): "47 hours",
        timedelta(hours=1, minutes=5): "1 hour",
        timedelta(minutes=59): "less than an hour",
        timedelta(0): "less than an hour",
    }
    for left, text in words.items():
        assert on_the_page(START + left, START, "en") == text, left
