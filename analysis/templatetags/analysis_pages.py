"""The analysis' parts of the club's and the matches' pages (neither app can call the
analysis app, which stands above them): a player's PR history chart and the club's PR
table, each with its filter by game kind (``?pr_kind=``); a finished match's analysis
progress."""

from typing import TypedDict

from django import template
from django.template import Context
from django.utils.functional import Promise
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _

from analysis import selectors
from analysis.models import PlayerFigures
from club.charts import line_chart_svg
from club.models import Player
from matches.models import Match

register = template.Library()
# The player's latest games analysed listed under the PR chart, each linked to its review.
RECENT_REVIEWS = 10


class KindLink(TypedDict):
    """A link to the page filtered by one game kind; ``on`` for the kind shown."""

    label: str | Promise
    query: str
    on: bool


class ReviewedGame(TypedDict):
    """One of a player's games analysed, linked to its review."""

    figures: PlayerFigures
    url: str


class PrChartContext(TypedDict):
    chart: SafeString
    links: list[KindLink]
    reviews: list[ReviewedGame]


class PrTableContext(TypedDict):
    rows: list[selectors.PrRow]
    links: list[KindLink]


def _kinds(context: Context) -> tuple[selectors.GameKind, list[KindLink]]:
    """The kind the page asks for, and a link to each kind (the page's other
    parameters kept)."""
    request = context["request"]
    kind = selectors.game_kind(request.GET.get("pr_kind"))
    links: list[KindLink] = []
    for choice in selectors.GameKind:
        query = request.GET.copy()
        query["pr_kind"] = choice.value
        links.append({"label": choice.label, "query": query.urlencode(), "on": choice == kind})
    return kind, links


@register.inclusion_tag("analysis/_pr_chart.html", takes_context=True)
def pr_chart(context: Context, shown: Player) -> PrChartContext:
    """The player's PR in each game analysed, in order, drawn as the rating is."""
    kind, links = _kinds(context)
    history = [f for f in selectors.pr_history(player=shown, kind=kind) if f.pr is not None]
    chart = line_chart_svg(
        [f.pr for f in history if f.pr is not None],
        css_class="pr-chart",
        title=_("Error rate (PR) history"),
        axis_title=_("Games analysed"),
        empty=_("Fewer than two games analysed yet"),
        first=1,
    )
    reviews: list[ReviewedGame] = [
        {"figures": f, "url": selectors.analysis_review_url(f.analysis)}
        for f in reversed(history[-RECENT_REVIEWS:])
    ]
    return {"chart": mark_safe(chart), "links": links, "reviews": reviews}  # labels escaped


@register.inclusion_tag("analysis/_pr_table.html", takes_context=True)
def pr_table(context: Context) -> PrTableContext:
    """The club's players by PR over every game analysed of the kind asked for."""
    kind, links = _kinds(context)
    return {"rows": selectors.pr_table(kind=kind), "links": links}


@register.inclusion_tag("analysis/_progress.html", takes_context=True)
def analysis_progress(context: Context, match: Match) -> dict[str, selectors.ProgressShown | None]:
    """A finished match's analysis as it advances (the match page's summary), followed
    live by static/analysis/progress.js; nothing for a match with no analysis."""
    analysis = selectors.analysis_of_match(match)
    if analysis is None:
        return {"shown": None}
    return {"shown": selectors.progress_shown(analysis, context["request"].user)}
