"""The analysis' pages: a match's review, decision by decision."""

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils.safestring import mark_safe

from analysis import selectors
from analysis.models import MatchAnalysis
from matches import selectors as matches_selectors


@login_required
def match_review(request: HttpRequest, pk: int) -> HttpResponse:
    """A match's analysis to step through: each game, each decision with the board its
    decider saw, the dice, the play made and the best, the loss, blunders highlighted
    (the keyboard steps with the arrow keys: static/analysis/review.js)."""
    match = get_object_or_404(matches_selectors.match_queryset(), pk=pk)
    analysis = MatchAnalysis.objects.filter(match=match).first()
    games = []
    figures = []
    if analysis is not None and analysis.status == MatchAnalysis.Status.DONE:
        detail = selectors.analysis_detail(analysis)
        figures = detail["players"]
        games = [
            {
                "number": game["number"],
                "steps": [
                    {
                        "decision": step.decision,
                        "board": mark_safe(step.board),  # board_svg escapes every name
                        "dice": step.dice,
                    }
                    for step in game["steps"]
                ],
            }
            for game in selectors.review_games(match, detail)
        ]
    return render(
        request,
        "analysis/review.html",
        {
            "match": match,
            "players": matches_selectors.players(match),
            "analysis": analysis,
            "figures": figures,
            "games": games,
        },
    )
