"""A rating history chart as inline SVG, drawn by the server: a line over the games, the
lowest and highest ratings on the left, the first and last dates below.

Pure: points in, markup out. The SVG scales to its box (a viewBox, no fixed width); the
page gives the same points as a table for those who cannot see the chart.
"""

from __future__ import annotations

from collections.abc import Sequence

from markupsafe import Markup, escape

WIDTH, HEIGHT = 360, 160
LEFT, RIGHT, TOP, BOTTOM = 40, 8, 10, 24  # room for the axis labels


def _fmt(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".")


def rating_chart(
    points: Sequence[tuple[str, float]], title: str, chart_id: str = "chart"
) -> Markup:
    """An SVG line chart of (date label, rating) points, oldest first, named by `title`."""
    ratings = [rating for _, rating in points]
    low, high = (min(ratings), max(ratings)) if ratings else (1500.0, 1500.0)
    if high - low < 50:  # a flat history still gets a readable scale
        middle = (high + low) / 2
        low, high = middle - 25, middle + 25
    inner_w, inner_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    step = inner_w / (len(points) - 1) if len(points) > 1 else 0.0

    def xy(index: int, rating: float) -> tuple[str, str]:
        x = LEFT + (index * step if len(points) > 1 else inner_w / 2)
        y = TOP + (high - rating) / (high - low) * inner_h
        return _fmt(x), _fmt(y)

    title_id = f"{chart_id}-title"
    parts = [
        f'<svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        f'aria-labelledby="{escape(title_id)}" xmlns="http://www.w3.org/2000/svg">',
        f'<title id="{escape(title_id)}">{escape(title)}</title>',
        f'<line class="axis" x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{HEIGHT - BOTTOM}"/>',
        f'<line class="axis" x1="{LEFT}" y1="{HEIGHT - BOTTOM}" x2="{WIDTH - RIGHT}" '
        f'y2="{HEIGHT - BOTTOM}"/>',
        f'<text class="label" x="{LEFT - 4}" y="{TOP + 4}" text-anchor="end">{round(high)}</text>',
        f'<text class="label" x="{LEFT - 4}" y="{HEIGHT - BOTTOM}" text-anchor="end">'
        f"{round(low)}</text>",
    ]
    if points:
        spots = [xy(n, rating) for n, (_, rating) in enumerate(points)]
        line = " ".join(f"{x},{y}" for x, y in spots)
        parts.append(f'<polyline class="line" points="{line}"/>')
        parts.extend(f'<circle class="dot" cx="{x}" cy="{y}" r="3"/>' for x, y in spots)
        below = HEIGHT - 6
        parts.append(
            f'<text class="label" x="{LEFT}" y="{below}" text-anchor="start">'
            f"{escape(points[0][0])}</text>"
        )
        if len(points) > 1:
            parts.append(
                f'<text class="label" x="{WIDTH - RIGHT}" y="{below}" text-anchor="end">'
                f"{escape(points[-1][0])}</text>"
            )
    parts.append("</svg>")
    return Markup("".join(parts))
