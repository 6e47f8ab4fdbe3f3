"""Every write of the analysis app: queueing a match's analysis, importing a match
played elsewhere, and the Django worker's side of a run (starting it, its progress, its
numbers stored, its failure).

The engine never runs here (nor is it imported): the engine worker, a process without
Django, judges the games of the ``jobs.Job`` that ``analysis_start`` builds and answers
with the messages of ``analysis.jobs`` (docs/analysis.md, "The engine worker"). A match
is analysed once; it is queued again only when its analysis failed or was made at fewer
plies than the setting asks.
"""

import time
from datetime import datetime, timedelta
from typing import Any

from celery import current_app
from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from analysis import jobs, selectors
from analysis.marks import Decision, decision_from_dict, figures
from analysis.models import Decision as StoredDecision
from analysis.models import ImportedMatch, MatchAnalysis, PlayerFigures
from backgammon.errors import BackgammonError
from backgammon.matfile import MatchRecord, import_mat
from backgammon.variants import STANDARD
from club.models import Player
from club.services import MAX_MATCH_LENGTH
from matches.models import Match, Seat, Table
from web.errors import Conflict, Forbidden, Invalid, NotFound
from web.prepared import rows_insert, values_insert

STOPPED = gettext_lazy("The engine stopped before the end (a crash or the time limit).")
# The longest name of a player the club keeps (a username's longest).
MAX_NAME = 150
# A run found still running this long after its start died with its process (a crash,
# the hard time limit); the sweep gives it its second start or fails it.
STALE_AFTER_LIMIT = 30
# Every write of an analysis' status or progress moves its live version (analysis/live.py).
NEXT_VERSION = F("version") + 1
# The engine worker's process is killed this long after a run's time limit, if the
# engine has not stopped by itself between two decisions.
HARD_LIMIT_GRACE = 10
# A stored decision's fields, in the order ``analysis_store`` gives their values: a
# match's hundreds of decisions are written from plain values, not a model instance each.
DECISION_COLUMNS = (
    "analysis", "game_number", "seq", "move_number", "side", "kind", "played", "best",
    "played_equity", "best_equity", "equity_loss", "mark", "counted", "holder",
)  # fmt: skip
# What a run's store changes of its analysis (``analysis_store``).
STORED_FIELDS = ["status", "progress", "engine", "plies", "error", "finished_at", "version"]
UNSUPPORTED = gettext_lazy("Only standard backgammon matches and money sessions are analysed.")


def analysis_request(*, match_id: int, user: User) -> MatchAnalysis:
    """A player of the match (or staff) asks for its analysis: queued unless it is done
    at the setting's depth or on its way already."""
    with transaction.atomic():
        match = _locked_match(match_id)
        if not user.is_staff and not _plays_in(match, user):
            raise Forbidden(_("Only the match's players and staff may ask for its analysis."))
        if match.status != Match.Status.FINISHED:
            raise Conflict(_("The match is not over: it is analysed once it is."))
        return _queue(match=match)


def analysis_queue(*, match_id: int) -> MatchAnalysis | None:
    """A match has finished: queue its analysis (the matches app's ``match_finished``)."""
    with transaction.atomic():
        match = _locked_match(match_id)
        if match.status != Match.Status.FINISHED:
            return None
        return _queue(match=match)


def analysis_sweep(*, now: datetime | None = None) -> int:
    """Give each run that died with its process its second start, or fail it after two;
    return how many were found. Run by beat: the database is the truth about a run."""
    now = now or timezone.now()
    stale = now - timedelta(seconds=settings.ANALYSIS_TIME_LIMIT + STALE_AFTER_LIMIT)
    found = 0
    for analysis_id in MatchAnalysis.objects.filter(
        status=MatchAnalysis.Status.RUNNING, started_at__lt=stale
    ).values_list("pk", flat=True):
        if analysis_retry_or_fail(
            analysis_id=analysis_id,
            message=str(STOPPED),
        ):
            found += 1
    return found


def analysis_retry_or_fail(*, analysis_id: int, message: str) -> bool:
    """A run ended in ``message``: queue the second start, or, after two, fail the
    analysis with the message. True when it is queued again."""
    with transaction.atomic():
        analysis = _locked_analysis(analysis_id)
        if analysis is None or analysis.status != MatchAnalysis.Status.RUNNING:
            return False
        if analysis.attempts >= settings.ANALYSIS_ATTEMPTS:
            analysis_fail(analysis_id=analysis_id, message=message)
            return False
        analysis.status = MatchAnalysis.Status.QUEUED
        analysis.version = NEXT_VERSION
        analysis.save(update_fields=["status", "version"])
        transaction.on_commit(lambda: _send(analysis_id), robust=True)
        return True


def analysis_fail(*, analysis_id: int, message: str) -> None:
    """The analysis failed for good, saying why (shown as ``error``)."""
    MatchAnalysis.objects.filter(pk=analysis_id).update(
        status=MatchAnalysis.Status.FAILED,
        error=message,
        finished_at=timezone.now(),
        version=NEXT_VERSION,
    )


def analysis_progress_set(*, analysis_id: int, progress: float) -> bool:
    """A running analysis has gone ``progress`` of the way (0 to 1): store it and move
    its live version, so the pages that show it update by themselves (analysis/live.py).
    A late report, from a run no longer running (failed by the sweep, done), changes
    nothing: False."""
    if not 0.0 <= progress <= 1.0:
        raise ValueError(f"progress is from 0 to 1, not {progress}")
    moved = MatchAnalysis.objects.filter(
        pk=analysis_id, status=MatchAnalysis.Status.RUNNING
    ).update(progress=progress, version=NEXT_VERSION)
    return bool(moved)


def _locked_analysis(analysis_id: int) -> MatchAnalysis | None:
    """The analysis under its row lock; None when it is gone (the database restored from
    an older backup while a task for it waited in the broker): a task for it is late."""
    return MatchAnalysis.objects.select_for_update().filter(pk=analysis_id).first()


def _locked_match(match_id: int) -> Match:
    try:
        return Match.objects.select_for_update().get(pk=match_id)
    except Match.DoesNotExist:
        raise NotFound(_("There is no match %(id)s.") % {"id": match_id}) from None


def _plays_in(match: Match, user: User) -> bool:
    player_id = getattr(getattr(user, "player", None), "pk", None)
    return player_id is not None and player_id in (match.creator_id, match.opponent_id)


def imported_match_create(
    *, user: User, text: str, player_1: str | None = None, player_2: str | None = None
) -> ImportedMatch:
    """Store a match played elsewhere (a ``.mat`` file's ``text``) and start its analysis.

    Each of the file's players is the member ``player_1``/``player_2`` names, else the
    member whose username is the name in the file (letter case aside), else a guest.
    The uploader must be one of them, or staff. A file the rules refuse is ``Invalid``
    naming the game and move of its first problem; nothing is stored unless all is.
    """
    record = _record_of(text)
    names = record.players
    for name in names:
        if not 1 <= len(name) <= MAX_NAME:
            raise Invalid(
                _("A player's name in the file has 1 to %(most)d characters.") % {"most": MAX_NAME}
            )
    players = (_member(names[0], player_1), _member(names[1], player_2))
    if players[0] is not None and players[0] == players[1]:
        raise Invalid(_("The two players of a match are two different members."))
    uploader = getattr(user, "player", None)
    if not user.is_staff and (uploader is None or uploader not in players):
        raise Forbidden(
            _(
                "You may import only a match you played in (name yourself with player_1 "
                "or player_2); staff may import any."
            )
        )
    with transaction.atomic():
        imported = ImportedMatch.objects.create(
            uploaded_by=user,
            text=text,
            length=record.start.length,
            name_1=names[0],
            name_2=names[1],
            player_1=players[0],
            player_2=players[1],
            games=len(record.games),
            played_on=record.event_date,
        )
        _start_at_once(imported, record)
    return imported


def imported_analysis_request(*, import_id: int, user: User) -> MatchAnalysis:
    """The member who uploaded a match (or staff) asks again for its analysis: queued
    when it failed or was made at fewer plies than the setting asks, as a match's."""
    with transaction.atomic():
        imported = ImportedMatch.objects.select_for_update().filter(pk=import_id).first()
        if imported is None:
            raise NotFound(_("There is no imported match %(id)s.") % {"id": import_id})
        if not user.is_staff and imported.uploaded_by_id != user.pk:
            raise Forbidden(
                _("Only the member who uploaded the match and staff may ask for its analysis.")
            )
        return _queue(imported=imported)


def mat_text(content: bytes) -> str:
    """A ``.mat`` file's text: UTF-8, else Latin-1 (eXtreme Gammon's older exports), in
    which every byte is a character."""
    try:
        return content.decode("utf-8-sig")
    except UnicodeDecodeError:
        return content.decode("latin-1")


def _record_of(text: str) -> MatchRecord:
    """The match a ``.mat`` file holds, if the club can analyse it."""
    if "\x00" in text:  # no text file has one, and PostgreSQL's text cannot hold it
        raise Invalid(_("The file is not text: it holds a NUL character."), reason="invalid_mat")
    try:
        record = import_mat(text)
    except BackgammonError as error:
        raise Invalid(
            _("The file is not a match the club can read: %(error)s") % {"error": error},
            reason="invalid_mat",
        ) from None
    if not record.games:
        raise Invalid(_("The file holds no game."), reason="invalid_mat")
    if record.start.length > MAX_MATCH_LENGTH:
        raise Invalid(
            _("The match length is at most %(most)s points.") % {"most": MAX_MATCH_LENGTH},
            reason="invalid_mat",
        )
    if record.start.options.variant != STANDARD:
        raise Invalid(
            _("Only standard backgammon matches and money sessions are analysed."),
            reason="invalid_mat",
        )
    return record


def _member(name: str, username: str | None) -> Player | None:
    """The member a name of the file is: the one named by ``username``, else the one
    whose username it is, else None (a guest)."""
    found = Player.objects.select_related("user")
    if username is None:
        return found.filter(user__username__iexact=name).first()
    member = found.filter(user__username=username).first()
    if member is None:
        raise Invalid(_("There is no player called %(username)s.") % {"username": username})
    return member


def chouette_game_queue(*, table_id: int, game_number: int, seats: list[str]) -> MatchAnalysis:
    """An online chouette's game has ended: queue its analysis (``table_game_finished``;
    ``seats``: the box's username, then the line's)."""
    with transaction.atomic():
        analysis = (
            MatchAnalysis.objects.select_for_update()
            .filter(table_id=table_id, game_number=game_number)
            .first()
        )
        if analysis is not None and not _wanted(analysis):
            return analysis
        return _queue_new(
            analysis or MatchAnalysis(table_id=table_id, game_number=game_number, seats=seats)
        )


def chouette_analysis_request(*, chouette_id: int, user: User) -> list[MatchAnalysis]:
    """A player of an online chouette (or staff) asks for its games' analyses: each
    finished game is queued by itself when it ends, so this queues again those that
    failed or were made at fewer plies than the setting asks. The chouette is reached
    through its table (the relation's name: this app never imports the chouettes')."""
    with transaction.atomic():
        table = Table.objects.select_for_update().filter(chouette__pk=chouette_id).first()
        if table is None:
            raise NotFound(_("There is no chouette %(id)s played online.") % {"id": chouette_id})
        analyses = list(
            MatchAnalysis.objects.select_for_update().filter(table=table).order_by("game_number")
        )
        seated = {name for analysis in analyses for name in analysis.seats}
        sits = Seat.objects.filter(table=table, player__user=user).exists()
        if not (user.is_staff or user.get_username() in seated or sits):
            raise Forbidden(_("Only the chouette's players and staff may ask for its analysis."))
        if not analyses:
            raise Conflict(_("No game of this chouette is over: each is analysed once it is."))
        return [_queue_new(a) if _wanted(a) else a for a in analyses]


def _queue(**analysed: Match | ImportedMatch) -> MatchAnalysis:
    """Queue the analysis of what ``analysed`` names (``match=`` or ``imported=``) unless
    it is done at the setting's depth or on its way already."""
    analysis = MatchAnalysis.objects.select_for_update().filter(**analysed).first()
    if analysis is not None and not _wanted(analysis):
        return analysis
    return _queue_new(analysis or MatchAnalysis(**analysed))


def _wanted(analysis: MatchAnalysis) -> bool:
    """The analysis is to be run (again): not on its way, nor done at the setting's depth."""
    return not (
        analysis.status in (MatchAnalysis.Status.QUEUED, MatchAnalysis.Status.RUNNING)
        or (
            analysis.status == MatchAnalysis.Status.DONE
            and analysis.plies >= settings.ANALYSIS_PLIES
        )
    )


def _queue_new(analysis: MatchAnalysis) -> MatchAnalysis:
    """Queue ``analysis`` afresh: the task is sent once the transaction commits."""
    analysis.status = MatchAnalysis.Status.QUEUED
    analysis.progress = 0.0
    analysis.attempts = 0
    analysis.error = ""
    analysis.queued_at = timezone.now()
    if analysis.pk is None:
        analysis.save()
    else:  # queued again: the pages that follow it show it
        analysis.version = NEXT_VERSION
        analysis.save()
        analysis.refresh_from_db(fields=["version"])
    analysis_id = analysis.pk
    transaction.on_commit(lambda: _send(analysis_id), robust=True)
    return analysis


def _send(analysis_id: int) -> None:
    """Send the run's start to the Django worker, now: with an ETA a worker on the
    filesystem broker holds a task up to a second in its timer."""
    current_app.send_task(
        jobs.ANALYSE, args=[analysis_id], queue=settings.ANALYSIS_DJANGO_QUEUE, ignore_result=True
    )


def analysis_start(*, analysis_id: int, plies: int) -> jobs.Job | None:
    """Start the run of ``analysis_id`` at ``plies``: mark it running, count the start,
    and return the job the engine worker judges; None for a task that comes late (the
    analysis done, failed or running already, or gone: a database restored from a
    backup while its task waited in the broker)."""
    with transaction.atomic():
        analysis = _locked_analysis(analysis_id)
        if analysis is None or analysis.status != MatchAnalysis.Status.QUEUED:
            return None
        analysis.status = MatchAnalysis.Status.RUNNING
        analysis.attempts += 1
        analysis.started_at = timezone.now()
        analysis.progress = 0.0
        analysis.version = NEXT_VERSION
        analysis.save(update_fields=["status", "attempts", "started_at", "progress", "version"])
        analysed = selectors.analysed_match(analysis)
    games = selectors.analysed_games(analysed)
    return _job(analysis, analysed, plies, games=games, mat=analysed.mat)


def judge_send(job: jobs.Job) -> None:
    """Hand ``job`` to the engine worker, behind what waits on its queue."""
    current_app.send_task(jobs.JUDGE, kwargs={"job": job}, queue=job["queue"], ignore_result=True)


def _start_at_once(imported: ImportedMatch, record: MatchRecord) -> None:
    """Start the analysis of an uploaded match in the request that read it (``record``):
    its first run's job, carrying the games read, goes to the engine worker once the
    transaction commits, without the Django worker's start and without a second read of
    the file (docs/analysis.md, "Imported matches")."""
    now = timezone.now()
    analysis = MatchAnalysis.objects.create(
        imported=imported,
        status=MatchAnalysis.Status.RUNNING,
        attempts=1,
        queued_at=now,
        started_at=now,
    )
    job = _job(
        analysis,
        selectors.analysed_match(analysis),
        settings.ANALYSIS_PLIES,
        games=jobs.games_of(record),
        mat=None,
    )
    transaction.on_commit(lambda: judge_send(job), robust=True)


def _job(
    analysis: MatchAnalysis,
    analysed: selectors.Analysed,
    plies: int,
    *,
    games: list[dict[str, Any]],
    mat: str | None,
) -> jobs.Job:
    """The job of the run just started of ``analysis``: ``games`` to judge, or an
    imported match's file ``mat`` for the engine worker to read."""
    deadline = time.time() + settings.ANALYSIS_TIME_LIMIT
    return {
        "analysis_id": analysis.pk,
        "attempt": analysis.attempts,
        "plies": plies,
        "chouette": analysed.chouette_game is not None,
        "games": games,
        "mat": mat,
        "done": [],
        "seats": [
            {
                "side": seat.side,
                "place": seat.place,
                "username": seat.username,
                "player_id": None if seat.player is None else seat.player.pk,
                "holder": seat.holder,
            }
            for seat in analysed.seats
        ],
        "deadline": deadline,
        "hard_deadline": deadline + HARD_LIMIT_GRACE,
        "reported_at": time.time(),
        "queue": settings.ANALYSIS_QUEUE,
        "reply_queue": settings.ANALYSIS_DJANGO_QUEUE,
    }


def analysis_store(
    *,
    analysis_id: int,
    attempt: int,
    engine: str,
    plies: int,
    seats: list[jobs.Seat],
    games: list[list[dict[str, Any]]],
) -> bool:
    """Replace the analysis' numbers with those of its run ``attempt`` (each game's
    decisions, as the engine worker sent them, and the ``engine`` that judged them), all
    at once; False, storing nothing, for the late answer of a run that is not the
    running one."""
    judged = [[decision_from_dict(d) for d in game] for game in games]
    decisions = [d for game in judged for d in game]
    with transaction.atomic():
        analysis = _locked_analysis(analysis_id)
        if (
            analysis is None
            or analysis.status != MatchAnalysis.Status.RUNNING
            or analysis.attempts != attempt
        ):
            return False
        if analysis.engine:  # the numbers of an earlier run, replaced
            analysis.players.all().delete()
            analysis.decisions.all().delete()
        rows_insert(PlayerFigures, (_figures(analysis, seat, decisions) for seat in seats))
        values_insert(
            StoredDecision,
            DECISION_COLUMNS,
            [
                (analysis.pk, number, seq, d.move_number, d.side, d.kind.value, d.played,
                 d.best, d.played_equity, d.best_equity, d.loss, d.mark.value, d.counted,
                 "" if d.holder is None else str(d.holder))
                for number, game in enumerate(judged, start=1)
                for seq, d in enumerate(game)
            ],
        )  # fmt: skip
        analysis.status = MatchAnalysis.Status.DONE
        analysis.progress = 1.0
        analysis.engine = engine
        analysis.plies = plies
        analysis.error = ""
        analysis.finished_at = timezone.now()
        analysis.version = NEXT_VERSION
        analysis.save(update_fields=STORED_FIELDS)
    return True


def _figures(analysis: MatchAnalysis, seat: jobs.Seat, decisions: list[Decision]) -> PlayerFigures:
    mine = figures(decisions, seat["side"], seat["holder"])
    return PlayerFigures(
        analysis=analysis,
        side=seat["side"],
        place=seat["place"],
        player_id=seat["player_id"],
        username=seat["username"],
        checker_decisions=mine.checker_decisions,
        cube_decisions=mine.cube_decisions,
        checker_loss=mine.checker_loss,
        cube_loss=mine.cube_loss,
        blunders=mine.blunders,
        pr=mine.pr,
        checker_pr=mine.checker_pr,
        cube_pr=mine.cube_pr,
    )


def analysis_engine_failed(
    *, analysis_id: int, attempt: int, reason: jobs.Failure, error: str
) -> None:
    """The engine gave up on run ``attempt``: a match it cannot judge fails at once; the
    time limit or an error gives the run its second start, then fails it with the
    error's words. A late answer of another run changes nothing."""
    with transaction.atomic():
        analysis = _locked_analysis(analysis_id)
        if (
            analysis is None
            or analysis.status != MatchAnalysis.Status.RUNNING
            or analysis.attempts != attempt
        ):
            return
        if reason == "unsupported":
            analysis_fail(analysis_id=analysis_id, message=str(UNSUPPORTED))
            return
        message = (
            str(STOPPED)
            if reason == "stopped"
            else _("The engine failed: %(error)s") % {"error": error}
        )
        analysis_retry_or_fail(analysis_id=analysis_id, message=message)
