"""A seat's private notes from its page: a plain form, or the page's script without a reload."""

from __future__ import annotations

from flask import Blueprint, redirect, request, url_for
from werkzeug.wrappers import Response

from pbem.errors import PlayError
from pbem.players import notes
from pbem.present.forms import NOTE_MAX, NoteForm
from pbem.storage.db import write_session
from pbem.web import engine, now
from pbem.web.game import error_page
from pbem.web.seats import seat_from

bp = Blueprint("notes", __name__)


@bp.post("/p/<token>/notes")
def save_notes(token: str) -> Response | tuple[str, int]:
    """Keep the seat's notes; the page's script gets 204, a plain form the page again."""
    game_id, seat_no = seat_from(token)
    typed = request.form.get("text", "")
    try:
        form = NoteForm.read({"text": typed})
        with write_session(engine()) as session:
            notes.save(session, game_id, seat_no, form, now())
    except PlayError as exc:
        if request.headers.get("X-Requested-With") == "fetch":
            return Response(status=exc.status)
        # The page again with what was typed (cut to the box's size), and why it was refused.
        return error_page(
            token,
            game_id,
            seat_no,
            exc,
            notes_error=True,
            note_text=typed[:NOTE_MAX],
        )
    if request.headers.get("X-Requested-With") == "fetch":
        return Response(status=204)
    return redirect(url_for("game.seat_page", token=token, saved=1, _anchor="notes"), code=303)
