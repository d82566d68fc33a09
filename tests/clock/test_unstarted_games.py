"""Games that never start: the creator is warned a day before, then the game is called off
and everyone invited is told (mail through the real SMTP server); a game that starts in the
meantime is left alone; 0 days never calls one off; two sweeps at once mail each once."""

from __future__ import annotations

from typing import Any

from pbem.clock.sweeps import sweep
from tests.clock.helpers import headlines, parallel, run_sweep
from tests.web.helpers import deliver, link_in, state_of

PLAYERS = [
    ("Ana", "ana@example.org"),
    ("Léo", "leo@example.org"),
    ("Zoé", "zoe@example.org"),
]
ANA, LEO, ZOE = (email for _, email in PLAYERS)


def forming_game(
    client: Any, app: Any, smtpd: Any, joined: tuple[str, ...] = (LEO,)
) -> dict[str, str]:
    """Ana invites Léo and Zoé; those in `joined` join; the invitation mails are cleared.
    Each player's seat link."""
    data = {"game": "colour-bazaar"}
    for row, (name, email) in enumerate(PLAYERS):
        data[f"name_{row}"], data[f"email_{row}"] = name, email
    assert client.post("/games", data=data).status_code == 303
    deliver(app)
    links = {email: link_in(smtpd.to(email)[0]) for _, email in PLAYERS}
    for email in joined:
        assert client.post(f"{links[email]}/join").status_code == 303
    deliver(app)
    smtpd.clear()
    return links


def sweep_and_send(app: Any) -> dict[str, int]:
    result = run_sweep(app)
    deliver(app)
    return result


def test_the_creator_is_warned_a_day_before_then_everyone_is_told(
    client: Any, app: Any, smtpd: Any, clock: Any
) -> None:
    links = forming_game(client, app, smtpd)
    clock.advance(days=12, hours=23)
    assert sweep_and_send(app)["expiry warnings"] == 0 and not smtpd.messages
    clock.advance(hours=1, minutes=1)  # 13 days: a day before the 14
    assert sweep_and_send(app)["expiry warnings"] == 1
    (warning,) = smtpd.messages
    assert warning["To"].addresses[0].addr_spec == ANA
    (first,) = headlines(smtpd, ANA)
    assert first.startswith("colour bazaar #1 has not started yet: it will be called off on")
    body = warning.get_body(("plain",)).get_content()
    assert "Still waiting for: Zoé." in body  # Léo joined
    assert "Zoé.\nA game nobody starts" in body.replace("\r\n", "\n")  # two lines (issue 48)
    assert link_in(warning).startswith("/p/")
    assert sweep_and_send(app) == {**run_sweep(app), "expiry warnings": 0, "expired": 0}
    assert len(smtpd.messages) == 1  # warned once
    clock.advance(days=1)
    assert sweep_and_send(app)["expired"] == 1
    assert state_of(app).status == "cancelled"
    for email in (ANA, LEO, ZOE):
        told = headlines(smtpd, email)[-1]
        assert told == "colour bazaar #1 was called off: not everyone joined within 14 days."
    assert len(smtpd.messages) == 4
    # The invitation link now says the game was called off.
    page = client.get(links[ZOE]).get_data(as_text=True)
    assert "/join" not in page


def test_a_game_found_late_still_gets_its_day(
    client: Any, app: Any, smtpd: Any, clock: Any
) -> None:
    """After downtime or an upgrade, a game long past its days is warned first."""
    forming_game(client, app, smtpd, joined=())
    clock.advance(days=40)
    result = sweep_and_send(app)
    assert (result["expiry warnings"], result["expired"]) == (1, 0)
    assert state_of(app).status == "forming"
    body = smtpd.to(ANA)[0].get_body(("plain",)).get_content()
    assert "Still waiting for: Léo and Zoé." in body
    clock.advance(hours=23)
    assert sweep_and_send(app)["expired"] == 0
    clock.advance(hours=1)
    assert sweep_and_send(app)["expired"] == 1
    assert state_of(app).status == "cancelled"


def test_a_game_that_starts_after_the_warning_is_left_alone(
    client: Any, app: Any, smtpd: Any, clock: Any
) -> None:
    links = forming_game(client, app, smtpd)
    clock.advance(days=13, minutes=1)
    assert sweep_and_send(app)["expiry warnings"] == 1
    clock.advance(hours=2)
    assert client.post(f"{links[ZOE]}/join").status_code == 303  # at last: the game starts
    assert state_of(app).status == "active"
    clock.advance(days=5)
    assert sweep_and_send(app)["expired"] == 0
    assert state_of(app).status == "active"


def test_zero_days_never_calls_a_game_off(client: Any, app: Any, smtpd: Any, clock: Any) -> None:
    forming_game(client, app, smtpd)
    clock.advance(days=400)
    ext = app.extensions["pbem"]
    result = sweep(ext["engine"], ext["site"], clock(), forming_days=0)
    assert (result["expiry warnings"], result["expired"]) == (0, 0)
    assert state_of(app).status == "forming"


def test_two_sweeps_at_once_warn_and_tell_once(
    client: Any, app: Any, smtpd: Any, clock: Any
) -> None:
    forming_game(client, app, smtpd)
    clock.advance(days=13, minutes=1)
    results = parallel(lambda: run_sweep(app))
    assert sum(r["expiry warnings"] for r in results) == 1
    clock.advance(days=1)
    results = parallel(lambda: run_sweep(app))
    assert sum(r["expired"] for r in results) == 1
    deliver(app)
    assert [len(smtpd.to(email)) for email in (ANA, LEO, ZOE)] == [2, 1, 1]
