"""Every HTML mail of a whole game, as delivered over SMTP, fits a 375 px phone screen: long
links wrap instead of widening the mail. A turn mail with its table (issue 47) is kept as a
screenshot at both sizes: test-artifacts/mail-your-turn-<viewport>.png."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.browser.helpers import too_wide
from tests.web.helpers import deliver, headline, html_of, play_turn, start_game


@pytest.mark.parametrize("viewport", ["phone", "desktop"])
def test_every_html_mail_fits_a_phone(
    page: Any, viewport: str, client: Any, app: Any, smtpd: Any, artifacts: Path
) -> None:
    links, seen = start_game(client, app, smtpd, courts=True)
    for _ in range(40):
        new = smtpd.messages[seen:]
        seen = len(smtpd.messages)
        if any(headline(m).startswith("game over") for m in new):
            break
        (mover,) = [m for m in new if headline(m).startswith("your move")]
        play_turn(client, links[str(mover["To"]).split("<")[1].rstrip(">")])
        deliver(app)
    turns = [m for m in smtpd.messages if headline(m).startswith("your move")]
    page.set_content(html_of(turns[len(turns) // 2]))
    page.screenshot(path=str(artifacts / f"mail-your-turn-{viewport}.png"), full_page=True)
    kinds = set()
    for mail in smtpd.messages:
        kind = " ".join(headline(mail).split()[:2])
        if kind in kinds:
            continue
        kinds.add(kind)
        page.set_content(html_of(mail))
        assert not (why := too_wide(page)), f"{headline(mail)!r} is too wide: {why}"
    assert any(k.startswith("game over") for k in kinds) and len(kinds) >= 4, kinds
