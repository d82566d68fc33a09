"""What a table sees of its players' mail (issue 46): which seats pbem can no longer mail,
since when, and what a bouncing player is asked; as page data, from rows already read.

An address's state is no secret at the table: the other seats are told so that they can
reach the player another way. What the last report said stays with the seat pages (a
spectator does not get it), and no page or mail shows another player's address: a
report's text often quotes it, so addresses are taken out of it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from pbem.models import MailAddress, Player, Seat
from pbem.present.timefmt import format_day

# The states of pbem.bounces.state, as this floor reads them (it sits below storage).
BOUNCING, COMPLAINED = "bouncing", "complained"
# The API's word per seat: mail reaches it, it bounces, or none goes (the player asked for
# none, their provider reported our mail as spam, or a computer plays the seat).
OK, OFF = "ok", "off"
_ADDRESS = re.compile(r"<?[^\s<>@\"']+@[^\s<>@\"']+>?")
_CONTROL = re.compile(r"[\x00-\x1f\x7f\u2028\u2029]+")
REASON_SHOWN = 200  # characters of a report's reason a page shows


def public_reason(reason: str) -> str:
    """A report's reason as a page or a mail may show it: one line, short, no address in it
    ("550 5.1.1 <bea@example.org>: user unknown" -> "550 5.1.1 …: user unknown")."""
    text = _ADDRESS.sub("…", _CONTROL.sub(" ", reason or ""))
    text = " ".join(text.split())
    return text if len(text) <= REASON_SHOWN else text[: REASON_SHOWN - 1] + "…"


def troubled(row: MailAddress | None) -> bool:
    """Whether pbem no longer mails this address (it bounces, or its owner complained)."""
    return row is not None and row.state in (BOUNCING, COMPLAINED)


def seat_mail(seat: Seat, player: Player, row: MailAddress | None) -> str:
    """The API's `mail` of a seat: "ok", "bouncing" or "off"."""
    if seat.computer:
        return OFF
    if row is not None and row.state == BOUNCING:
        return BOUNCING
    if player.notify == "none" or (row is not None and row.state == COMPLAINED):
        return OFF
    return OK


def told_seat(seat: Seat) -> bool:
    """Whether the table is told of this seat's mail: a person still playing or invited."""
    return not seat.computer and not seat.left and seat.status != "declined"


def table_notes(
    table: Sequence[tuple[Seat, Player, Any]],
    rows: Mapping[str, MailAddress],
    viewer: int | None,
    status: str,
    tz: str,
    lang: str,
) -> list[dict[str, Any]]:
    """The notices of a game's page about the other seats whose mail no longer goes out, in
    the viewer's zone and language: who and since when, never the report's text, which may
    quote the address, a name or a host (only its owner and the operator see it). Only while
    the game forms or is played."""
    if status not in ("forming", "active"):
        return []
    notes = []
    for seat, player, _ in table:
        row = rows.get(player.email)
        if seat.seat == viewer or not told_seat(seat) or row is None or not troubled(row):
            continue
        notes.append(
            {
                "seat": seat.seat,
                "name": seat.name,
                "state": row.state,
                "day": format_day(row.since or row.updated_at, tz, lang),
                "forming": status == "forming",
            }
        )
    return notes


def own_prompt(player: Player, row: MailAddress | None, tz: str, lang: str) -> dict[str, Any]:
    """What a player whose mail no longer goes out is asked ({} when it goes out): their
    address, since when, and what the last report said."""
    if not troubled(row) or row is None:
        return {}
    return {
        "email": player.email,
        "state": row.state,
        "day": format_day(row.since or row.updated_at, tz, lang),
        "reason": public_reason(row.last_reason) if row.state == BOUNCING else "",
    }
