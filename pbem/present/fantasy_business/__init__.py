"""Fantasy Business on the page and in mail, one module per part: the board (board.py), the
round's step forms (steps.py), the sale and income tables and the news (sales.py), the cards
in words (words.py), the form read back as a move (parse.py), the results (results.py) and
mail (mail.py).

pbem.present finds the presenter by the game's slug; what web, mail and tests use is here.
"""

from pbem.present.fantasy_business.board import PAST_ROUNDS, play_context
from pbem.present.fantasy_business.mail import (
    MAIL_ROUNDS,
    mail_rounds_then,
    mail_view,
    mail_view_then,
    round_reports,
    turn_prompt,
)
from pbem.present.fantasy_business.parse import parse_form
from pbem.present.fantasy_business.results import results
from pbem.present.fantasy_business.sales import ROUND_END, mail_news
from pbem.present.fantasy_business.words import ecus

__all__ = [
    "MAIL_ROUNDS",
    "PAST_ROUNDS",
    "ROUND_END",
    "ecus",
    "mail_news",
    "mail_rounds_then",
    "mail_view",
    "mail_view_then",
    "parse_form",
    "play_context",
    "results",
    "round_reports",
    "turn_prompt",
]
