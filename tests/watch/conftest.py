"""The watch tests' app: the test app of tests/conftest.py with /metrics open to TOKEN."""

from __future__ import annotations

from typing import Any

import pytest

from tests.app import make_test_app
from tests.watch.helpers import TOKEN


@pytest.fixture
def app(database_url: str, clock: Any, smtpd: Any, tmp_path: Any) -> Any:
    app = make_test_app(database_url, clock, smtpd, tmp_path, METRICS_TOKEN=TOKEN)
    yield app
    app.extensions["pbem"]["engine"].dispose()
