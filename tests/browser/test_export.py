"""The game's exported log in Chromium, on a phone and a desktop: the JSON link of the replay
downloads a named file (it does not open in the tab); the text opens in the tab."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.browser.helpers import VIEWPORTS, LiveServer, new_game


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_the_json_export_downloads(
    page: Any, viewport: str, live_server: LiveServer, tmp_path: Path
) -> None:
    seat = new_game(live_server)
    page.goto(f"{seat}/replay")
    with page.expect_download() as started:
        page.get_by_role("link", name="JSON", exact=True).click()
    download = started.value
    assert download.suggested_filename == "pbem-colour-bazaar-1.json"
    saved = tmp_path / download.suggested_filename
    download.save_as(saved)
    assert json.loads(saved.read_text(encoding="utf-8"))["moves"] == []
    assert page.url == f"{seat}/replay"  # the replay stays in the tab
    page.get_by_role("link", name="text", exact=True).click()
    page.wait_for_url(f"{seat}/export.txt")
    assert "Colour Bazaar #1" in page.locator("body").inner_text()
