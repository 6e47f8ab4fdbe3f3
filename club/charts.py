"""Charts drawn on the server as SVG (no JavaScript, no CDN): a player's rating history."""

import math

from django.utils.html import escape
from django.utils.translation import gettext as _

WIDTH = 640
HEIGHT = 260
LEFT = 56  # room for the rating labels
RIGHT = 16
TOP = 16
BOTTOM = 40  # room for the match labels


def _nice_bounds(low: float, high: float) -> tuple[float, float]:
    """Round the rating range outwards to tens, never narrower than 20 points."""
    low = math.floor(low / 10) * 10
    high = math.ceil(high / 10) * 10
    if high - low < 20:
        middle = (low + high) / 2
        low, high = middle - 10, middle + 10
    return float(low), float(high)


def rating_chart_svg(
    ratings: list[float], *, first_label: str = "", last_label: str = "", title: str = ""
) -> str:
    """An SVG line chart of ``ratings`` (the rating before the first match, then after
    each match), with axes, the lowest and highest rating on the y axis and the match
    numbers (with ``first_label``/``last_label``, typically dates) on the x axis;
    ``title`` names the rating (default: "Rating history").

    The returned markup escapes every label, so it is safe to mark safe.
    """
    title = title or _("Rating history")
    plot_w = WIDTH - LEFT - RIGHT
    plot_h = HEIGHT - TOP - BOTTOM
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="rating-chart" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-label="{escape(title)}">',
        f"<title>{escape(title)}</title>",
        # The axes.
        f'<line class="axis" x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{TOP + plot_h}" />',
        f'<line class="axis" x1="{LEFT}" y1="{TOP + plot_h}" x2="{LEFT + plot_w}" '
        f'y2="{TOP + plot_h}" />',
    ]
    if len(ratings) < 2:
        # xgettext cannot see a string inside an f-string: translated outside it.
        empty = _("No rated matches yet")
        parts.append(
            f'<text class="empty" x="{LEFT + plot_w / 2:.1f}" y="{TOP + plot_h / 2:.1f}" '
            f'text-anchor="middle">{escape(empty)}</text>'
        )
        parts.append("</svg>")
        return "".join(parts)
    low, high = _nice_bounds(min(ratings), max(ratings))
    count = len(ratings) - 1

    def x(index: int) -> float:
        return LEFT + plot_w * index / count

    def y(rating: float) -> float:
        return TOP + plot_h * (high - rating) / (high - low)

    # Rating labels and grid lines: the bounds, and the starting 1500 when it is inside.
    ticks = [low, high] + ([1500.0] if low < 1500.0 < high else [])
    for tick in ticks:
        parts.append(
            f'<line class="grid" x1="{LEFT}" y1="{y(tick):.1f}" x2="{LEFT + plot_w}" '
            f'y2="{y(tick):.1f}" />'
            f'<text class="label" x="{LEFT - 6}" y="{y(tick) + 4:.1f}" '
            f'text-anchor="end">{tick:.0f}</text>'
        )
    # Match numbers (and dates) under the x axis.
    base = TOP + plot_h
    axis_title = _("Rated matches")
    parts.append(
        f'<text class="label" x="{LEFT}" y="{base + 16}" text-anchor="start">0'
        f"{(' · ' + escape(first_label)) if first_label else ''}</text>"
        f'<text class="label" x="{LEFT + plot_w}" y="{base + 16}" text-anchor="end">{count}'
        f"{(' · ' + escape(last_label)) if last_label else ''}</text>"
        f'<text class="label" x="{LEFT + plot_w / 2:.1f}" y="{base + 34}" '
        f'text-anchor="middle">{escape(axis_title)}</text>'
    )
    points = " ".join(f"{x(i):.1f},{y(r):.1f}" for i, r in enumerate(ratings))
    parts.append(f'<polyline class="line" fill="none" points="{points}" />')
    last = ratings[-1]
    parts.append(
        f'<circle class="dot" cx="{x(count):.1f}" cy="{y(last):.1f}" r="3">'
        f"<title>{last:.1f}</title></circle>"
    )
    parts.append("</svg>")
    return "".join(parts)
