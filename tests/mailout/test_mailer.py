"""Player names are escaped in every HTML mail, the headline included (pbem.mailout.mailer).

The creator of a game chooses every invitee's name, so a name is attacker's text: in the
HTML part it must come out as text, whichever template (.html or an included .txt) puts
it there. The whole-game walk of tests/web/test_hidden_information.py checks the mails
a real game sends; this checks every event's template with names that are markup.
"""

from __future__ import annotations

from typing import Any

import pytest
from markupsafe import escape

from pbem.mailout.mailer import make_templates, render_mail
from tests.present.mail_cases import CASES, LANGS, NAMES, build_context, finished_outcome
from tests.web.helpers import injected

# Each stands for one of the sample names, so it reaches every place a name is shown.
EVIL = {
    NAMES[0]: "<script>alert(1)</script>",
    NAMES[1]: '"><img src=x onerror=alert(2)>',
    NAMES[2]: "Zoé<b onmouseover=alert(3)>",
}


def with_evil_names(value: Any) -> Any:
    """The context with every sample name in every string replaced by its markup."""
    if isinstance(value, str):
        for name, evil in EVIL.items():
            value = value.replace(name, evil)
        return value
    if isinstance(value, list):
        return [with_evil_names(v) for v in value]
    if isinstance(value, tuple):
        return tuple(with_evil_names(v) for v in value)
    if isinstance(value, dict):
        return {k: with_evil_names(v) for k, v in value.items()}
    return value


@pytest.fixture(scope="module")
def outcome() -> dict[str, Any]:
    return finished_outcome()


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize(("event", "extra"), CASES)
def test_names_in_html_mail_are_text(
    event: str, extra: dict[str, Any], lang: str, outcome: dict[str, Any]
) -> None:
    context = with_evil_names(build_context(event, lang, extra, outcome))
    _, body, html = render_mail(make_templates(), event, lang, context)
    assert injected(html) == [], f"{event}: a name became markup"
    shown = [evil for evil in EVIL.values() if evil in body]
    for evil in shown:  # a name the text part shows, the HTML part shows as text
        assert str(escape(evil)) in html, f"{event}: {evil} not shown escaped"


def test_the_headline_is_escaped_in_the_html_part(outcome: dict[str, Any]) -> None:
    """The first line, which clients show as the preview, is an included .txt template."""
    context = with_evil_names(build_context("your_turn", "en", {}, outcome))
    _, body, html = render_mail(make_templates(), "your_turn", "en", context)
    headline = body.splitlines()[0]
    assert EVIL[NAMES[1]] in headline
    assert f"<strong>{escape(headline)}</strong>" in html
