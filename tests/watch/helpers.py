"""Reading /metrics as Prometheus would, and the beats of a clock."""

from __future__ import annotations

from typing import Any

from prometheus_client.parser import text_string_to_metric_families

from pbem.clock.scheduler import beat, make_scheduler
from tests.web.helpers import PLAYERS

TOKEN = "watch-tests-metrics-token-0123456789"
BEARER = {"Authorization": f"Bearer {TOKEN}"}


class Series:
    """The samples of one /metrics answer: (sample name, labels) -> value."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.samples: list[tuple[str, dict[str, str], float]] = [
            (sample.name, dict(sample.labels), sample.value)
            for family in text_string_to_metric_families(text)
            for sample in family.samples
        ]

    def value(self, name: str, **labels: str) -> float:
        """The sum of the samples named `name` whose labels include `labels`."""
        return sum(
            value
            for sample, have, value in self.samples
            if sample == name and all(have.get(k) == v for k, v in labels.items())
        )

    def labels_of(self, name: str) -> list[dict[str, str]]:
        """The label sets of the samples named `name`."""
        return [have for sample, have, _ in self.samples if sample == name]


def scrape(client: Any) -> Series:
    """GET /metrics with the token, as Prometheus would."""
    answer = client.get("/metrics", headers=BEARER)
    assert answer.status_code == 200, answer.status_code
    return Series(answer.get_data(as_text=True))


def clock_beat(app: Any) -> bool:
    """The clock's beat job, as `pbem clock` runs it (its scheduler made, not started)."""
    make_scheduler(app, blocking=True)
    return beat(app)


def new_game(client: Any) -> None:
    """A game from the lobby: three invitations queued, due at once."""
    form = {"game": "colour-bazaar"}
    for row, (name, email) in enumerate(PLAYERS):
        form[f"name_{row}"], form[f"email_{row}"] = name, email
    assert client.post("/games", data=form).status_code == 303
