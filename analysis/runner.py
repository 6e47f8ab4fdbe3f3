"""The worker's side of an analysis: run the engine over a match and store what it found.

Only the task of the ``analysis`` queue imports this module (inside the task, so that
loading the tasks does not load the engine): it imports bgsage, which the web process
never does. Everything is stored in one transaction at the end, so a run that fails
leaves nothing half-stored.
"""

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from analysis import engine as judge
from analysis import selectors, services
from analysis.models import Decision, MatchAnalysis, PlayerFigures
from backgammon.game import Game

_ENGINES: dict[int, judge.Engine] = {}  # one a depth a process: its networks load once


def engine_at(plies: int) -> judge.Engine:
    if plies not in _ENGINES:
        _ENGINES[plies] = judge.Engine(plies)
    return _ENGINES[plies]


def analysis_run(*, analysis_id: int, plies: int) -> str:
    """Run the analysis ``analysis_id`` at ``plies``; return the status it is left in.

    A task that comes late (the analysis done, failed or run twice already) does nothing
    but say so. An engine error propagates for the task to retry once
    (``analysis_retry_or_fail``); a match the engine cannot judge fails at once.
    """
    with transaction.atomic():
        analysis = MatchAnalysis.objects.select_for_update().get(pk=analysis_id)
        if analysis.status not in (MatchAnalysis.Status.QUEUED, MatchAnalysis.Status.RUNNING):
            return str(analysis.status)
        if analysis.attempts >= settings.ANALYSIS_ATTEMPTS:  # the last start died too
            services.analysis_fail(analysis_id=analysis_id, message=str(services.STOPPED))
            return MatchAnalysis.Status.FAILED
        analysis.status = MatchAnalysis.Status.RUNNING
        analysis.attempts += 1
        analysis.started_at = timezone.now()
        analysis.progress = 0.0
        analysis.version = services.NEXT_VERSION
        analysis.save(update_fields=["status", "attempts", "started_at", "progress", "version"])
        analysed = selectors.analysed_match(analysis)

    def progress(done: int, total: int) -> None:
        # Short of 1 until the numbers are stored.
        services.analysis_progress_set(analysis_id=analysis_id, progress=0.99 * done / total)

    try:
        games = _judge(engine_at(plies), analysed, progress)
    except judge.Unsupported:
        services.analysis_fail(
            analysis_id=analysis_id,
            message=_("Only standard backgammon matches and money sessions are analysed."),
        )
        return MatchAnalysis.Status.FAILED
    _store(analysis_id, plies, analysed, games)
    return MatchAnalysis.Status.DONE


def _judge(
    engine: judge.Engine, analysed: selectors.Analysed, progress: judge.ProgressCallback
) -> list[list[judge.Decision]]:
    """Each game's decisions: a match's, or the one game of a chouette."""
    game = analysed.chouette_game
    if game is None:
        assert analysed.record is not None
        return judge.analyse_match(engine, analysed.record, progress)
    start = Game.start(game.options, game.opening)
    decisions = judge.analyse_chouette_game(engine, start, game.compact().history)
    progress(1, 1)
    return [decisions]


def _store(
    analysis_id: int,
    plies: int,
    analysed: selectors.Analysed,
    games: list[list[judge.Decision]],
) -> None:
    """Replace the analysis' numbers with this run's, all at once."""
    decisions = [d for game in games for d in game]
    with transaction.atomic():
        analysis = MatchAnalysis.objects.select_for_update().get(pk=analysis_id)
        analysis.players.all().delete()
        analysis.decisions.all().delete()
        PlayerFigures.objects.bulk_create(
            _figures(analysis, seat, decisions) for seat in analysed.seats
        )
        Decision.objects.bulk_create(
            Decision(
                analysis=analysis,
                game_number=number,
                seq=seq,
                move_number=d.move_number,
                side=d.side,
                kind=d.kind.value,
                played=d.played,
                best=d.best,
                played_equity=d.played_equity,
                best_equity=d.best_equity,
                equity_loss=d.loss,
                mark=d.mark.value,
                counted=d.counted,
                holder="" if d.holder is None else str(d.holder),
            )
            for number, game in enumerate(games, start=1)
            for seq, d in enumerate(game)
        )
        analysis.status = MatchAnalysis.Status.DONE
        analysis.progress = 1.0
        analysis.engine = f"{judge.ENGINE} {judge.ENGINE_VERSION}"
        analysis.plies = plies
        analysis.error = ""
        analysis.finished_at = timezone.now()
        analysis.version = services.NEXT_VERSION
        analysis.save()


def _figures(
    analysis: MatchAnalysis, seat: selectors.Seat, decisions: list[judge.Decision]
) -> PlayerFigures:
    mine = judge.figures(decisions, seat.side, seat.holder)
    return PlayerFigures(
        analysis=analysis,
        side=seat.side,
        place=seat.place,
        player=seat.player,
        username=seat.username,
        checker_decisions=mine.checker_decisions,
        cube_decisions=mine.cube_decisions,
        checker_loss=mine.checker_loss,
        cube_loss=mine.cube_loss,
        blunders=mine.blunders,
        pr=mine.pr,
        checker_pr=mine.checker_pr,
        cube_pr=mine.cube_pr,
    )
