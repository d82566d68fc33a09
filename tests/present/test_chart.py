"""The rating chart: well-formed SVG with its title, scaling to its box, the points drawn."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from pbem.present.chart import rating_chart

SVG = "{http://www.w3.org/2000/svg}"


def test_the_chart_is_named_scales_and_draws_every_point() -> None:
    points = [("2 Mar 2026", 1500.0), ("9 Mar 2026", 1662.3), ("1 Apr 2026", 1610.0)]
    svg = ET.fromstring(str(rating_chart(points, "Colour Bazaar <rating>", "cb")))
    assert svg.get("role") == "img" and svg.get("aria-labelledby") == "cb-title"
    assert svg.get("width") is None and svg.get("viewBox") == "0 0 360 160"
    title = svg.find(f"{SVG}title")
    assert title is not None and title.text == "Colour Bazaar <rating>"  # escaped, read back
    assert len(svg.findall(f"{SVG}circle")) == 3
    labels = [t.text for t in svg.findall(f"{SVG}text")]
    assert labels == ["1662", "1500", "2 Mar 2026", "1 Apr 2026"]
    # Higher ratings are drawn higher up (smaller y).
    ys = [float(c.get("cy") or 0) for c in svg.findall(f"{SVG}circle")]
    assert ys[1] < ys[2] < ys[0]


def test_one_point_and_no_point_still_make_a_chart() -> None:
    one = ET.fromstring(str(rating_chart([("2 Mar 2026", 1500.0)], "One")))
    assert len(one.findall(f"{SVG}circle")) == 1
    none = ET.fromstring(str(rating_chart([], "None")))
    assert none.findall(f"{SVG}circle") == []
