"""Reading a match's analysis for the API."""

from typing import TypedDict

from django.utils.translation import gettext as _

from analysis.models import MatchAnalysis
from matches.models import Match
from web.errors import NotFound


def analysis_for_match(*, match_id: int) -> MatchAnalysis:
    """The match's analysis with its figures and decisions; ``NotFound`` if the match or
    its analysis does not exist (a match is queued once it is over)."""
    if not Match.objects.filter(pk=match_id).exists():
        raise NotFound(_("There is no match %(id)s.") % {"id": match_id})
    found = (
        MatchAnalysis.objects.filter(match_id=match_id)
        .prefetch_related("players", "decisions")
        .first()
    )
    if found is None:
        raise NotFound(_("The match %(id)s has not been analysed.") % {"id": match_id})
    return found


class PlayerFigures(TypedDict):
    username: str
    pr: float | None
    checker_pr: float | None
    cube_pr: float | None
    decisions: int
    checker_decisions: int
    cube_decisions: int
    blunders: int


class AnalysedDecision(TypedDict):
    move_number: int
    player: str
    kind: str
    played: str
    best: str
    equity_loss: float
    mark: str | None
    played_equity: float
    best_equity: float
    counted: bool


class AnalysedGame(TypedDict):
    number: int
    decisions: list[AnalysedDecision]


class AnalysisDetail(TypedDict):
    """A match's analysis as the API answers it (``api.AnalysisOutput``)."""

    status: str
    progress: float
    engine: str
    plies: int
    error: str
    players: list[PlayerFigures]
    games: list[AnalysedGame]


def analysis_detail(analysis: MatchAnalysis) -> AnalysisDetail:
    """The analysis as the API answers it (shared/API.md)."""
    players = list(analysis.players.all())
    names = {p.side: p.username for p in players}
    games: dict[int, list[AnalysedDecision]] = {}
    for decision in analysis.decisions.all():
        games.setdefault(decision.game_number, []).append(
            {
                "move_number": decision.move_number,
                "player": names.get(decision.side, ""),
                "kind": decision.kind,
                "played": decision.played,
                "best": decision.best,
                "equity_loss": decision.equity_loss,
                "mark": decision.mark or None,
                "played_equity": decision.played_equity,
                "best_equity": decision.best_equity,
                "counted": decision.counted,
            }
        )
    return {
        "status": analysis.status,
        "progress": analysis.progress,
        "engine": analysis.engine,
        "plies": analysis.plies,
        "error": analysis.error,
        "players": [
            {
                "username": p.username,
                "pr": p.pr,
                "checker_pr": p.checker_pr,
                "cube_pr": p.cube_pr,
                "decisions": p.decisions,
                "checker_decisions": p.checker_decisions,
                "cube_decisions": p.cube_decisions,
                "blunders": p.blunders,
            }
            for p in players
        ],
        "games": [
            {"number": number, "decisions": decisions}
            for number, decisions in sorted(games.items())
        ],
    }
