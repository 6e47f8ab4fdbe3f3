"""Reading a match's analysis for the API, and the match it analyses for the worker."""

from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _

from analysis.models import ImportedMatch, MatchAnalysis
from backgammon.matfile import MatchRecord, import_mat
from club.models import Player
from matches import selectors as matches_selectors
from matches.models import Match
from web.errors import NotFound


@dataclass(frozen=True)
class Analysed:
    """The match an analysis judges: its record, and for each side the name its figures
    carry and the member it is (None: a guest of an imported match)."""

    record: MatchRecord
    usernames: tuple[str, str]
    players: tuple[Player | None, Player | None]


def analysed_match(analysis: MatchAnalysis) -> Analysed:
    """The match of ``analysis``, played on the server or imported."""
    imported = analysis.imported
    if imported is not None:
        players = (imported.player_1, imported.player_2)
        names = (imported.name_1, imported.name_2)
        usernames = tuple(
            name if player is None else player.username
            for name, player in zip(names, players, strict=True)
        )
        return Analysed(import_mat(imported.text), (usernames[0], usernames[1]), players)
    assert analysis.match is not None
    record = matches_selectors.match_record(analysis.match)
    found = {
        p.username: p
        for p in Player.objects.select_related("user").filter(user__username__in=record.players)
    }
    return Analysed(
        record, record.players, (found.get(record.players[0]), found.get(record.players[1]))
    )


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


def analysis_for_import(*, import_id: int) -> MatchAnalysis:
    """An imported match's analysis, or ``NotFound``."""
    found = (
        MatchAnalysis.objects.filter(imported_id=import_id)
        .prefetch_related("players", "decisions")
        .first()
    )
    if found is None:
        raise NotFound(_("There is no imported match %(id)s.") % {"id": import_id})
    return found


def imported_detail(imported: ImportedMatch) -> dict[str, Any]:
    """An imported match as the API answers its upload: its players (the names in the
    file, and the members they are, None for a guest) and its analysis."""
    return {
        "id": imported.pk,
        "length": imported.length,
        "games": imported.games,
        "played_on": imported.played_on,
        "players": [
            {"name": name, "username": None if player is None else player.username}
            for name, player in (
                (imported.name_1, imported.player_1),
                (imported.name_2, imported.player_2),
            )
        ],
        "analysis": analysis_detail(analysis_for_import(import_id=imported.pk)),
    }


def analysis_detail(analysis: MatchAnalysis) -> dict[str, Any]:
    """The analysis as the API answers it (shared/API.md)."""
    players = list(analysis.players.all())
    names = {p.side: p.username for p in players}
    games: dict[int, list[dict[str, Any]]] = {}
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
