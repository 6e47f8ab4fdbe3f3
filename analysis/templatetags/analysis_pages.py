"""The analysis' parts of the club's pages (the club app's pages cannot call the
analysis app, which stands above it): a player's PR history chart and the club's PR
table, each with its filter by game kind (``?pr_kind=``)."""

from typing import Any

from django import template
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _

from analysis import selectors
from club.charts import line_chart_svg
from club.models import Player

register = template.Library()


def _kinds(context: dict[str, Any]) -> tuple[selectors.GameKind, list[dict[str, Any]]]:
    """The kind the page asks for, and a link to each kind (the page's other
    parameters kept)."""
    request = context["request"]
    kind = selectors.game_kind(request.GET.get("pr_kind"))
    links = []
    for choice in selectors.GameKind:
        query = request.GET.copy()
        query["pr_kind"] = choice.value
        links.append({"label": choice.label, "query": query.urlencode(), "on": choice == kind})
    return kind, links


@register.inclusion_tag("analysis/_pr_chart.html", takes_context=True)
def pr_chart(context: dict[str, Any], shown: Player) -> dict[str, Any]:
    """The player's PR in each game analysed, in order, drawn as the rating is."""
    kind, links = _kinds(context)
    history = [f for f in selectors.pr_history(player=shown, kind=kind) if f.pr is not None]
    chart = line_chart_svg(
        [f.pr for f in history if f.pr is not None],
        title=_("Error rate (PR) history"),
        axis_title=_("Games analysed"),
        empty=_("Fewer than two games analysed yet"),
        first=1,
    )
    return {"chart": mark_safe(chart), "links": links}  # every label escaped


@register.inclusion_tag("analysis/_pr_table.html", takes_context=True)
def pr_table(context: dict[str, Any]) -> dict[str, Any]:
    """The club's players by PR over every game analysed of the kind asked for."""
    kind, links = _kinds(context)
    return {"rows": selectors.pr_table(kind=kind), "links": links}
