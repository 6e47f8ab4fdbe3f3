"""The analysis' parts of the club's pages (the club app's pages cannot call the
analysis app, which stands above it): a player's PR history chart and the club's PR
table, each with its filter by game kind (``?pr_kind=``)."""

from typing import TypedDict

from django import template
from django.template import Context
from django.utils.functional import Promise
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _

from analysis import selectors
from club.charts import line_chart_svg
from club.models import Player

register = template.Library()


class KindLink(TypedDict):
    """A link to the page filtered by one game kind; ``on`` for the kind shown."""

    label: str | Promise
    query: str
    on: bool


class PrChartContext(TypedDict):
    chart: SafeString
    links: list[KindLink]


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
    return {"chart": mark_safe(chart), "links": links}  # every label escaped


@register.inclusion_tag("analysis/_pr_table.html", takes_context=True)
def pr_table(context: Context) -> PrTableContext:
    """The club's players by PR over every game analysed of the kind asked for."""
    kind, links = _kinds(context)
    return {"rows": selectors.pr_table(kind=kind), "links": links}
