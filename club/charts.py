"""Charts drawn on the server as SVG (no JavaScript, no CDN, no inline style): a line of
figures over a player's matches; a player's rating history is one, their error rate
(the analysis app's PR history) another."""

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
    """Round the range outwards to tens, never narrower than 20."""
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
    return line_chart_svg(
        ratings,
        css_class="rating-chart",
        title=title or _("Rating history"),
        axis_title=_("Rated matches"),
        empty=_("No rated matches yet"),
        reference=1500.0,
        first_label=first_label,
        last_label=last_label,
    )


def line_chart_svg(
    values: list[float],
    *,
    css_class: str,
    title: str,
    axis_title: str,
    empty: str,
    reference: float | None = None,
    first: int = 0,
    first_label: str = "",
    last_label: str = "",
) -> str:
    """An SVG line chart of ``values``, one a match, with axes: the lowest and highest
    value (and ``reference``, when it is inside) on the y axis, the matches numbered from
    ``first`` (with ``first_label``/``last_label``) on the x axis, ``axis_title`` under
    it; ``empty`` says why there is no line when there are fewer than two values;
    ``css_class`` names the chart for the page and its style (``rating-chart``).

    The returned markup escapes every label, so it is safe to mark safe.
    """
    plot_w = WIDTH - LEFT - RIGHT
    plot_h = HEIGHT - TOP - BOTTOM
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="{css_class}" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-label="{escape(title)}">',
        f"<title>{escape(title)}</title>",
        # The axes.
        f'<line class="axis" x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{TOP + plot_h}" />',
        f'<line class="axis" x1="{LEFT}" y1="{TOP + plot_h}" x2="{LEFT + plot_w}" '
        f'y2="{TOP + plot_h}" />',
    ]
    if len(values) < 2:
        parts.append(
            f'<text class="empty" x="{LEFT + plot_w / 2:.1f}" y="{TOP + plot_h / 2:.1f}" '
            f'text-anchor="middle">{escape(empty)}</text>'
        )
        parts.append("</svg>")
        return "".join(parts)
    low, high = _nice_bounds(min(values), max(values))
    count = len(values) - 1

    def x(index: int) -> float:
        return LEFT + plot_w * index / count

    def y(value: float) -> float:
        return TOP + plot_h * (high - value) / (high - low)

    # Labels and grid lines: the bounds, and the reference when it is inside.
    ticks = [low, high] + ([reference] if reference is not None and low < reference < high else [])
    for tick in ticks:
        parts.append(
            f'<line class="grid" x1="{LEFT}" y1="{y(tick):.1f}" x2="{LEFT + plot_w}" '
            f'y2="{y(tick):.1f}" />'
            f'<text class="label" x="{LEFT - 6}" y="{y(tick) + 4:.1f}" '
            f'text-anchor="end">{tick:.0f}</text>'
        )
    # Match numbers (and dates) under the x axis.
    base = TOP + plot_h
    parts.append(
        f'<text class="label" x="{LEFT}" y="{base + 16}" text-anchor="start">{first}'
        f"{(' · ' + escape(first_label)) if first_label else ''}</text>"
        f'<text class="label" x="{LEFT + plot_w}" y="{base + 16}" text-anchor="end">'
        f"{first + count}"
        f"{(' · ' + escape(last_label)) if last_label else ''}</text>"
        f'<text class="label" x="{LEFT + plot_w / 2:.1f}" y="{base + 34}" '
        f'text-anchor="middle">{escape(axis_title)}</text>'
    )
    points = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in enumerate(values))
    parts.append(f'<polyline class="line" fill="none" points="{points}" />')
    last = values[-1]
    parts.append(
        f'<circle class="dot" cx="{x(count):.1f}" cy="{y(last):.1f}" r="3">'
        f"<title>{last:.1f}</title></circle>"
    )
    parts.append("</svg>")
    return "".join(parts)
