"""A seat's private notes on a game: written and read by that seat alone.

Notes are hidden information of the strictest kind: no other seat, no onlooker, no
mail, webhook or log line ever carries them; only the seat's own page, its own API
answer and its own export do. They stay with the game after it ends (or is called off).
"""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Session, select

from pbem.models import Note
from pbem.present.forms import NoteForm
from pbem.storage.store import lock_game


def note_of(session: Session, game_id: int, seat_no: int) -> Note | None:
    """The seat's notes on the game, if it wrote any."""
    return session.exec(select(Note).where(Note.game_id == game_id, Note.seat == seat_no)).first()


def save(session: Session, game_id: int, seat_no: int, form: NoteForm, now: datetime) -> Note:
    """Keep the seat's notes (the form is checked); the game's row is locked first, so two
    saves at once write one after the other, the later one winning."""
    lock_game(session, game_id)
    note = note_of(session, game_id, seat_no)
    if note is None:
        note = Note(game_id=game_id, seat=seat_no, text=form.text, updated_at=now)
    else:
        note.text, note.updated_at = form.text, now
    session.add(note)
    return note
