"""Series as plain data and back: what a process publishes with its heartbeat, and one answer
made of several processes' series, each labelled with the process it came from.

A snapshot is JSON: {family name: {"type", "help", "samples": [[sample name, labels,
value], ...]}}, counters and histograms only, as prometheus_client collects them (buckets
cumulative, so the buckets of several processes add up). A family's `_created` samples are
left out: they are one process's start, which means nothing summed.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, Protocol

from prometheus_client.core import Metric

SUMMED = ("counter", "histogram")

Snapshot = dict[str, dict[str, Any]]


class Collector(Protocol):
    """What prometheus_client's registries and collectors have in common."""

    def collect(self) -> Iterable[Metric]: ...


def snapshot(collector: Collector) -> Snapshot:
    """The counters and histograms of `collector`, as plain data for a heartbeat row."""
    found: Snapshot = {}
    for family in collector.collect():
        if family.type not in SUMMED:
            continue
        samples = [
            [sample.name, dict(sample.labels), float(sample.value)]
            for sample in family.samples
            if not sample.name.endswith("_created")
        ]
        if samples:
            found[family.name] = {"type": family.type, "help": family.documentation}
            found[family.name]["samples"] = samples
    return found


class Answer:
    """The families of one /metrics answer: snapshots of several processes added together
    (a series that two processes share, as two clocks on one host, is their sum), and gauges.
    """

    def __init__(self) -> None:
        self._families: dict[str, Metric] = {}
        self._values: dict[str, dict[tuple[str, tuple[tuple[str, str], ...]], float]] = {}

    def add(self, taken: Snapshot, labels: dict[str, str]) -> None:
        """Add a snapshot's samples, each with `labels` added (which process, which host)."""
        for name, family in taken.items():
            kind = family.get("type")
            if kind not in SUMMED:
                continue
            metric = self._family(name, str(family.get("help", "")), kind)
            if metric.type != kind:
                continue  # another version of pbem named this otherwise: not mixed in
            values = self._values[name]
            for sample_name, sample_labels, value in family.get("samples", ()):
                key = (sample_name, tuple(sorted({**sample_labels, **labels}.items())))
                values[key] = values.get(key, 0.0) + float(value)

    def gauge(self, name: str, help_text: str, value: float, labels: dict[str, str]) -> None:
        """Add one gauge sample."""
        self._family(name, help_text, "gauge")
        self._values[name][(name, tuple(sorted(labels.items())))] = float(value)

    def _family(self, name: str, help_text: str, kind: str) -> Metric:
        if name not in self._families:
            self._families[name] = Metric(name, help_text, kind)
            self._values[name] = {}
        return self._families[name]

    def collect(self) -> Iterator[Metric]:
        """The families, each with its samples, in name order (prometheus_client's collector
        interface: exposition.generate_latest reads it)."""
        for name in sorted(self._families):
            known = self._families[name]
            metric = Metric(known.name, known.documentation, known.type)
            # In the order first seen: a histogram's buckets stay in their order.
            for (sample_name, labels), value in self._values[name].items():
                metric.add_sample(sample_name, dict(labels), value)
            yield metric
