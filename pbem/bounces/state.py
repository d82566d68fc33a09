"""What is known of an address's mail now, and which mail may still go to it.

An address with no MailAddress row never bounced: it is "ok". One that bounced past the
threshold is "bouncing" and one whose owner's mail server sent a complaint (ARF, abuse) is
"complained": to either, only the mail its owner asks for still goes (OWNER_ASKED), until
the owner turns mail back on (a test mail, or a new address confirmed).
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlmodel import Session, col, select

from pbem.models import MailAddress

OK, BOUNCING, COMPLAINED = "ok", "bouncing", "complained"
# The mail a player asks for themselves: a sign-in link, the confirmation of a new address,
# the test that turns their mail back on. Everything else stops at a bouncing address.
OWNER_ASKED = frozenset({"signin", "address_confirm", "mail_test"})


def key(address: str) -> str:
    """The form an address is kept under: lower-cased, without the space around it."""
    return address.strip().lower()


def may_mail(state: str, event: str) -> bool:
    """Whether a mail of `event` may go to an address in `state`."""
    return state == OK or event in OWNER_ASKED


def states(session: Session, addresses: Iterable[str]) -> dict[str, MailAddress]:
    """The rows of those of `addresses` that ever bounced, by the address as given."""
    wanted = {key(address): address for address in addresses if address}
    if not wanted:
        return {}
    rows = session.exec(select(MailAddress).where(col(MailAddress.address).in_(list(wanted))))
    return {wanted[row.address]: row for row in rows}


def state_of(row: MailAddress | None) -> str:
    """The state of an address's row (none: it never bounced)."""
    return row.state if row is not None else OK
