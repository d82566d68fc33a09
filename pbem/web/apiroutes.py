"""The API's route table, first part: a route's description (method and path, what it
takes and answers, every status it can give), the statuses routes share, and the routes
by a seat's link; pbem.web.apisiteroutes holds the others. pbem.web.openapi makes the
OpenAPI document from them, and tests/web/test_openapi.py walks each route for exactly
the statuses listed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from pbem.web.apiactmodels import (
    Export,
    Settings,
    SettingsRequest,
    Vacation,
    VacationRequest,
)
from pbem.web.apimodels import (
    MoveRequest,
    Notes,
    NotesRequest,
    Plan,
    PlanRequest,
    Standing,
    StandingRequest,
    TakeBackAnswer,
    View,
)

# Route.refusals adds the statuses each kind of route gives: ANY to every route, LINK to
# a route by a link, BODY to a route that reads a body.
# Every request's body is bounded (pbem.web.bodies): a chunked one past the limit gets
# 413 on any method, and any path answers 405 for a method it does not take.
ANY = (405, 413)
# A route that opens a link: a wrong one is 404, too many wrong ones 429; it reads the
# database, which may be down.
LINK = (404, 429, 503)
# A write with a JSON body: refused from another site (403), when not JSON (415), and when
# it cannot be read or taken (400).
BODY = (400, 403, 415)
# A route acting for the player signed in on the device: 401 without one; it reads the
# database, which may be down.
SIGNED = (401, 503)


@dataclass(frozen=True)
class Route:
    """One operation of the API: what it takes, what it answers and how it refuses."""

    method: str
    path: str
    operation: str
    summary: str
    answer: type[BaseModel]
    answered: str
    own: tuple[int, ...] = ()  # its refusals beyond those its kind gives (see refusals)
    body: type[BaseModel] | None = None
    query: tuple[dict[str, Any], ...] = ()  # the route's query parameters, if any

    @property
    def token(self) -> bool:
        """Whether the route opens a link: its path holds the token."""
        return "{token}" in self.path

    @property
    def refusals(self) -> tuple[int, ...]:
        """Every status it refuses with: its own, and ANY, LINK and BODY where they apply."""
        kind = (*ANY, *(LINK if self.token else ()), *(BODY if self.body else ()))
        return tuple(sorted({*self.own, *kind}))


# The routes by a seat's link (/api/v1/seat/<token>), as its /p/<token> pages have them.
SEAT_ROUTES = (
    Route(
        "get",
        "/api/v1/seat/{token}",
        "seatView",
        "A seat's view, legal moves, deadlines and turn token",
        View,
        "The game as this seat may see it",
    ),
    Route(
        "post",
        "/api/v1/seat/{token}/move",
        "seatMove",
        "Play a move for the turn it names",
        View,
        "The move is played: the new view",
        (409,),
        body=MoveRequest,
    ),
    Route(
        "post",
        "/api/v1/seat/{token}/settings",
        "seatSettings",
        "Change the seat's player's settings (automatic vacation), for all their games",
        Settings,
        "The settings as they now stand",
        body=SettingsRequest,
    ),
    Route(
        "post",
        "/api/v1/seat/{token}/vacation",
        "seatVacation",
        "Start a vacation of some days from now: the clocks stand still in all the player's games",
        Vacation,
        "The vacation is under way",
        body=VacationRequest,
    ),
    Route(
        "post",
        "/api/v1/seat/{token}/vacation/end",
        "seatVacationEnd",
        "End the vacation under way: the clocks run again and the unused days return",
        Vacation,
        "The vacation is over",
        (400, 403),
    ),
    Route(
        "post",
        "/api/v1/seat/{token}/leave",
        "seatLeave",
        "Leave the game: a computer plays the seat from now on; the result stays the player's",
        View,
        "The seat is left (again: nothing more): the seat's view",
        (403, 409),
    ),
    Route(
        "get",
        "/api/v1/seat/{token}/export",
        "seatExport",
        "The game's log as this seat may keep it (the page's export.json)",
        Export,
        "While it runs, what the seat was told of each move; once over, the moves and seed",
    ),
    Route(
        "get",
        "/api/v1/seat/{token}/notes",
        "seatNotes",
        "The seat's private notes on the game (no one else reads them)",
        Notes,
        "The seat's notes",
    ),
    Route(
        "put",
        "/api/v1/seat/{token}/notes",
        "seatNotesWrite",
        "Replace the seat's private notes (an empty text clears them)",
        Notes,
        "The notes are kept",
        body=NotesRequest,
    ),
    Route(
        "get",
        "/api/v1/seat/{token}/plan",
        "seatPlan",
        "The seat's own plan ahead (conditional moves) and the moves it may name",
        Plan,
        "The plan, secret to this seat",
    ),
    Route(
        "put",
        "/api/v1/seat/{token}/plan",
        "seatPlanPut",
        "Keep a plan ahead (their move -> my answer, two levels at most); [] drops it",
        Plan,
        "The plan is kept: the plan as kept",
        (409,),
        body=PlanRequest,
    ),
    Route(
        "delete",
        "/api/v1/seat/{token}/plan",
        "seatPlanDelete",
        "Drop the seat's plan ahead",
        Plan,
        "The plan is dropped",
        (403,),
    ),
    Route(
        "get",
        "/api/v1/seat/{token}/standing",
        "seatStanding",
        "The seat's own standing orders (Fantasy Business)",
        Standing,
        "The orders, secret to this seat",
    ),
    Route(
        "put",
        "/api/v1/seat/{token}/standing",
        "seatStandingPut",
        "Keep standing orders: pass on every lot above N, price each article at its base",
        Standing,
        "The orders are kept (a move they decide now is played at once)",
        (409,),
        body=StandingRequest,
    ),
    Route(
        "delete",
        "/api/v1/seat/{token}/standing",
        "seatStandingDelete",
        "Cancel the seat's standing orders",
        Standing,
        "The orders are cancelled",
        (403,),
    ),
    Route(
        "post",
        "/api/v1/seat/{token}/takeback",
        "seatTakeBackAsk",
        "Ask the next player to let this seat take back its last move (no body needed)",
        View,
        "The request waits for the next player's answer: the view",
        (403, 409),
    ),
    Route(
        "post",
        "/api/v1/seat/{token}/takeback/answer",
        "seatTakeBackAnswer",
        "Allow or refuse the take back this seat is asked for",
        View,
        "Answered (allowed: the move is taken back): the new view",
        (409,),
        body=TakeBackAnswer,
    ),
)
