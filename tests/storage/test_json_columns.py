"""JSON columns are written with orjson (pbem.storage.db.dumps): whatever a state, a log line or a
mail's facts hold reads back as json.dumps would have stored it, and what json.dumps
refuses is still refused."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.storage.db import dumps

_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**80), max_value=2**80)  # past 64 bits too (json.dumps's)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()
)
_KEYS = st.text() | st.integers(min_value=-(2**70), max_value=2**70) | st.booleans()
VALUES = st.recursive(
    _SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(_KEYS, inner, max_size=4)
        | st.tuples(inner, inner)
    ),
    max_leaves=25,
)


@settings(max_examples=300, deadline=None)
@given(VALUES)
def test_a_column_reads_back_as_json_dumps_would_have_written_it(value: Any) -> None:
    assert json.loads(dumps(value)) == json.loads(json.dumps(value))


@dataclass
class _Seat:
    seat: int


@pytest.mark.parametrize(
    "value",
    [{"deadline": datetime(2026, 12, 2, tzinfo=UTC)}, [_Seat(1)], {"x": {1, 2}}],
)
def test_what_json_dumps_refuses_is_refused(value: Any) -> None:
    """A datetime or an object left in a JSON column is a mistake to see, not a string."""
    with pytest.raises(TypeError):
        dumps(value)
