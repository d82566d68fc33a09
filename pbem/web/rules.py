"""The rules pages: one per game, in the reader's language, open to anyone."""

from __future__ import annotations

from flask import Blueprint, abort, g, render_template

from pbem.present import playable
from pbem.present.rules import rules_context

bp = Blueprint("rules", __name__)


@bp.get("/rules/<slug>")
def rules_page(slug: str) -> str:
    """A game's rules, with its cards, its options and a worked example."""
    if slug not in playable():
        abort(404)
    return render_template("rules/page.html", **rules_context(slug, g.lang))
