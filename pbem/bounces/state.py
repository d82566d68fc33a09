"""What is known of an address's mail now, and which mail may still go to it.

An address with no MailAddress row never bounced: it is "ok". One that bounced past the
threshold is "bouncing" and one whose owner's mail server sent a complaint (ARF, abuse) is
"complained": to either, only the mail its owner asks for still goes (OWNER_ASKED), until
the owner turns mail back on (a test mail, or a new address confirmed).
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import partial
from typing import Any

from sqlalchemy import bindparam
from sqlmodel import Session, col, select

from pbem.models import MailAddress
from pbem.storage.rawsql import Runner, compiled, fetch
from pbem.storage.rows import detached

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


def states(session: Runner, addresses: Iterable[str]) -> dict[str, MailAddress]:
    """The rows of those of `addresses` that ever bounced, by the address as given (read on
    a bare connection: as plain rows in no session, pbem.storage.rows)."""
    wanted = {key(address): address for address in addresses if address}
    if not wanted:
        return {}
    if isinstance(session, Session):
        rows = session.exec(select(MailAddress).where(col(MailAddress.address).in_(list(wanted))))
        return {wanted[row.address]: row for row in rows}
    # Compiled once for each number of addresses (a table's seats: two to six).
    statement = compiled(session.dialect, ("mail states", len(wanted)), partial(_of, len(wanted)))
    params = statement.parameters({f"a{n}": address for n, address in enumerate(wanted)})
    found = [detached(MailAddress, _KEYS, row) for row in fetch(session, statement, params)]
    return {wanted[row.address]: row for row in found}


_TABLE = MailAddress.__table__  # type: ignore[attr-defined]
_KEYS = tuple(column.key for column in _TABLE.columns)


def _of(count: int) -> Any:
    wanted = [bindparam(f"a{n}", type_=_TABLE.c.address.type) for n in range(count)]
    return select(*_TABLE.columns).where(_TABLE.c.address.in_(wanted))


def state_of(row: MailAddress | None) -> str:
    """The state of an address's row (none: it never bounced)."""
    return row.state if row is not None else OK
