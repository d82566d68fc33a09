"""The database engine (pbem.storage.db): what its errors may say."""

from __future__ import annotations

import pytest
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

from pbem.storage.db import make_engine


def test_an_error_names_no_bound_value(database_url: str) -> None:
    """A failed statement's text reaches logs ("database unavailable: ..."): the values it
    carried (a game's state, a link key, an address) must not."""
    engine = make_engine(database_url)
    try:
        with engine.connect() as connection, pytest.raises(DBAPIError) as failed:
            connection.execute(
                text("INSERT INTO no_such_table (secret) VALUES (:secret)"),
                {"secret": "the-hand-of-seat-2"},
            )
    finally:
        engine.dispose()
    assert "the-hand-of-seat-2" not in str(failed.value)
    assert "no_such_table" in str(failed.value)  # the statement itself is still told
