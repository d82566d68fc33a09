"""What a game review's mail says (pbem.clock.reviews queues it): the review in the reader's
language, as its page shows it, with the links to the page and to the replay at each moment."""

from __future__ import annotations

from typing import Any

from sqlmodel import Session

from pbem.models import Seat
from pbem.present.review import review_words
from pbem.site import Site
from pbem.storage.reviews import review_of

EVENT = "review"


class NoReview(LookupError):
    """The mail names a review that is not there, or not done."""


def review_context(
    session: Session, site: Site, seat: Seat, seats: list[Seat], lang: str
) -> dict[str, Any]:
    """The review mail's variables: the review in words, its page and the replay's links."""
    review = review_of(session, seat.game_id, seat.seat)
    if review is None or review.result is None:
        raise NoReview(f"game {seat.game_id}, seat {seat.seat}: no review done")
    words = review_words(review.result, lang, [s.name for s in seats])
    link = site.seat_url(seat)
    for moment in words["costliest"]:
        moment["replay_link"] = f"{link}/replay?ply={moment['ply']}"
    return {"review": words, "review_link": f"{link}/review"}
