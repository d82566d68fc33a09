"""Every Fantasy Business step in a phone's first screen (issue 47), counted over whole games
in Chromium: each move is made on the acting seat's page as a person would (tap a field,
type, tap the button, tap "Send this move" on the review), and before each tap the test
notes whether the control was in the first screen, uncovered, or needed a scroll.

Printed: per step kind, the moves, screens (pages) and taps per move and how many needed a
scroll; and the figure "steps needing a scroll: N of M". Asserted: the 95% aim of the issue
at 375x812 for a whole four-player game in the orders auction, and that the form's first
control and button start in the first screen for every step kind of every mode. Each step
kind is kept in test-artifacts/ the first time it comes (fb-step-<kind>-<viewport>.png, the
whole page, and -screen.png, the first screen alone, and the review), axe-checked."""

from __future__ import annotations

import random
import re
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import pytest
from axe_playwright_python.sync_playwright import Axe

from pbem.games import GAMES
from pbem.games.fantasy_business.engine import step_name
from pbem.models import Game
from pbem.play import Invitee, create_game, join
from pbem.storage.db import read_session, write_session
from pbem.storage.store import seats_of
from tests.browser.helpers import VIEWPORTS, LiveServer, too_wide

AXE = Axe()
WCAG = {"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}}
RULES = GAMES["fantasy-business"]
NAMES = ["Ana", "Ben", "Cat", "Dan"]
SEED = 11
AIM = 0.95  # issue 47: a step done without scrolling in at least 95% of the moves

# Where a control stands in the screen as it was loaded: its box, and whether a tap at its
# middle lands on it (not on the button row held at the foot of the screen, say).
_WHERE = """(el) => {
  const box = el.getBoundingClientRect();
  const x = box.left + box.width / 2, y = box.top + box.height / 2;
  const hit = y >= 0 && y < window.innerHeight ? document.elementFromPoint(x, y) : null;
  const label = hit && hit.closest("label");
  const reached = !!hit && (hit === el || el.contains(hit) || (!!label && label.contains(el)));
  return {top: Math.round(box.top), bottom: Math.round(box.bottom), reached: reached,
          shown: box.bottom <= window.innerHeight && box.top >= 0 && reached};
}"""


class Walk:
    """A four-player game in the live server's database, played on the seats' pages."""

    def __init__(self, live: LiveServer, page: Any, options: dict[str, str]) -> None:
        self.live, self.page = live, page
        self.ext = live.app.extensions["pbem"]
        self.pick = random.Random(SEED)
        now = live.app.config["CLOCK"]()
        with write_session(self.ext["engine"]) as session:
            people = [Invitee(n, f"{n.lower()}@example.org") for n in NAMES]
            game = create_game(
                session, self.ext["site"], "fantasy-business", people, options, now, SEED
            )
            for seat in range(1, len(NAMES)):
                join(session, self.ext["site"], game.id, seat, now)
            self.game_id = game.id
            self.links = [self.ext["site"].seat_url(s) for s in seats_of(session, game)]
        self.moves: list[dict[str, Any]] = []

    def state(self) -> dict[str, Any]:
        with read_session(self.ext["engine"]) as session:
            game = session.get(Game, self.game_id)
            assert game is not None and game.state is not None
            return game.state

    def where(self, locator: Any) -> dict[str, Any]:
        return dict(locator.evaluate(_WHERE))

    def tap(self, locator: Any, record: dict[str, Any], fill: str | None = None) -> None:
        """One tap (and typing, for a field), noted with where the control stood."""
        spot = self.where(locator)
        record["taps"] += 1
        if not spot["shown"]:
            record["scrolled"].append((locator.get_attribute("name") or "", spot))
        if fill is None:
            locator.click()
        else:
            locator.fill(fill)

    def play_one(self, seat: int, kind: str, keep: Any) -> None:
        """The seat makes its move on its page, with the review; the move is recorded."""
        page = self.page
        page.goto(self.links[seat])
        form = page.locator("#turn form")
        controls = form.locator("input:not([type=hidden]), select, button")
        record: dict[str, Any] = {"kind": kind, "taps": 0, "screens": 1, "scrolled": []}
        first, last = (
            self.where(controls.first),
            self.where(form.locator("button[type=submit]").last),
        )
        record["first"], record["button"] = first, last
        record["height"] = page.evaluate("document.documentElement.scrollHeight / innerHeight")
        keep(kind, "form")
        if page.locator("#outcome").count():
            keep("next-round", kind)  # the round just over, first under the form
        self.choose(kind, form, record)
        # Every move is reviewed on a page of its own (#confirm) before it is sent.
        page.wait_for_url(re.compile(r"[?&]review=1"))
        record["screens"] += 1
        keep(kind, "review")
        self.tap(page.get_by_role("button", name="Send this move"), record)
        page.wait_for_url(re.compile(r"[?&]done=1"))
        self.moves.append(record)

    def choose(self, kind: str, form: Any, record: dict[str, Any]) -> None:
        """A player's choice at this step, made by tapping; ends with the form's button."""
        pick = self.pick
        if kind == "order":
            arrows = form.get_by_role("button", name="Move up")
            if arrows.count() > 1 and pick.random() < 0.5:
                self.tap(arrows.nth(pick.randrange(1, arrows.count())), record)
            self.tap(form.get_by_role("button", name="Review the move"), record)
        elif kind == "limits":
            fields = form.locator("input[type=number]")
            wanted = [k for k in range(fields.count()) if pick.random() < 0.5] or [0]
            for k in wanted if fields.count() else []:
                field = fields.nth(k)
                base, high = int(field.get_attribute("data-base")), int(field.get_attribute("max"))
                self.tap(field, record, str(pick.randint(base, max(base, min(high, base + 3)))))
            self.tap(form.locator("button[value=limits]"), record)
        elif kind == "lists":
            ticks = form.locator("input[type=checkbox]")
            if ticks.count() and pick.random() < 0.6:
                self.tap(ticks.first, record)
            self.tap(form.locator("button[value=specials]"), record)
        elif kind == "antitrust_limit":
            field = form.locator("input[name=amount]")
            base, high = int(field.get_attribute("data-base")), int(field.get_attribute("max"))
            if base <= high and pick.random() < 0.5:
                self.tap(field, record, str(base))
            self.tap(form.locator("button[value=limit]"), record)
        elif kind == "pricing":
            fields = form.locator("input[type=number]")
            if fields.count() and pick.random() < 0.3:
                field = fields.first
                low, high = int(field.get_attribute("min")), int(field.get_attribute("max"))
                self.tap(field, record, str(pick.randint(low, high)))
            self.tap(form.locator("button[value=prices]"), record)
        elif kind == "choose":
            self.tap(form.locator("input[type=radio]").first, record)
            self.tap(form.get_by_role("button", name="Review the move"), record)
        elif kind == "open":
            bid = form.locator("button[value=bid]")
            self.tap(
                bid if bid.count() and pick.random() < 0.5 else form.locator("button[value=pass]"),
                record,
            )
        elif kind == "sealed":
            field = form.locator("input[name=amount]")
            base, high = int(field.get_attribute("data-base")), int(field.get_attribute("max"))
            if base <= high and pick.random() < 0.6:
                self.tap(field, record, str(base))
            self.tap(form.locator("button[value=bid]"), record)
        elif kind == "single":
            take = form.locator("button[value=take]")
            self.tap(
                take
                if take.count() and pick.random() < 0.7
                else form.locator("button[value=pass]"),
                record,
            )
        elif kind == "specials":
            plays = form.locator("button[value^='play:']")
            self.tap(
                plays.first
                if plays.count() and pick.random() < 0.4
                else form.locator("button[value=done]"),
                record,
            )
        else:
            raise AssertionError(f"no player for the {kind} step")

    def play(self, keep: Any, rounds: int) -> None:
        """Play until the game is over or `rounds` rounds are done, move by move."""
        for _ in range(1000):
            state = self.state()
            if state["step"] == "over" or state["round"] > rounds:
                return
            seat = RULES.to_act(state)[0]
            kind = {"antitrust_limits": "antitrust_limit"}.get(step_name(state), step_name(state))
            self.play_one(seat, kind, keep)
        raise AssertionError("the game did not end")


def figures(moves: list[dict[str, Any]]) -> tuple[str, int]:
    """Per step kind: moves, screens and taps a move, moves needing a scroll; and the count."""
    by_kind: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for m in moves:
        by_kind[m["kind"]].append(m)
    lines = []
    for kind, ms in by_kind.items():
        scrolled = sum(1 for m in ms if m["scrolled"])
        tops = Counter(
            "first screen" if m["first"]["shown"] and m["button"]["shown"] else "below" for m in ms
        )
        lines.append(
            f"  {kind}: {len(ms)} moves, {sum(m['screens'] for m in ms) / len(ms):.1f} screens and "
            f"{sum(m['taps'] for m in ms) / len(ms):.1f} taps a move, {scrolled} needing a scroll; "
            f"form's first control and button: {dict(tops)}, the control at y "
            f"{min(m['first']['top'] for m in ms)}-{max(m['first']['top'] for m in ms)}, "
            f"the button's foot at y {max(m['button']['bottom'] for m in ms)} at most; "
            f"pages of {min(m['height'] for m in ms):.1f}-"
            f"{max(m['height'] for m in ms):.1f} screens"
        )
    needing = sum(1 for m in moves if m["scrolled"])
    return "\n".join([f"steps needing a scroll: {needing} of {len(moves)}", *lines]), needing


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
@pytest.mark.parametrize(
    ("mode", "rounds"),
    [("orders", 10), ("open", 2), ("sealed", 2)],
    ids=["orders", "open", "sealed"],
)
def test_every_step_in_the_first_screen(
    page: Any, viewport: str, mode: str, rounds: int, live_server: LiveServer, artifacts: Path
) -> None:
    walk = Walk(live_server, page, {"auction": mode})
    seen: set[tuple[str, str]] = set()

    def keep(kind: str, what: str) -> None:
        """The first page of each step kind (and its review): screenshots, width, axe."""
        if (kind, what) in seen:
            return
        seen.add((kind, what))
        name = f"fb-step-{mode}-{kind}{'' if what == 'form' else '-' + what}-{viewport}"
        page.screenshot(path=str(artifacts / f"{name}.png"), full_page=True)
        page.screenshot(path=str(artifacts / f"{name}-screen.png"))
        assert not (why := too_wide(page)), f"{name} scrolls sideways: {why}"
        results = AXE.run(page, options=WCAG)
        assert results.violations_count == 0, f"{name}:\n{results.generate_report()}"

    # The whole game on the phone (the figure); three rounds on the desktop (every step kind).
    walk.play(keep, rounds if viewport == "phone" else min(rounds, 3))
    said, needing = figures(walk.moves)
    print(f"\n{mode} auction, {viewport}, {len(walk.moves)} moves:\n{said}")
    if viewport != "phone":
        return
    late = [m for m in walk.moves if not (m["first"]["shown"] and m["button"]["shown"])]
    assert not late, f"a form not in the first screen: {late[:3]}"
    if mode == "orders":
        assert walk.state()["step"] == "over"
        assert needing <= (1 - AIM) * len(walk.moves), said
