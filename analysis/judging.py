"""The engine worker's analysis task: judge a run's games for a slice of time, then queue
the rest or send the decisions back. Plain Python and Celery, no Django (the engine worker,
``analysis.engine_worker``, loads it); the database is the Django side's
(``analysis.tasks``), reached only through the messages of ``analysis.jobs``.

Games a task for ``jobs.SLICE`` seconds (at least one): the engine's queue takes a robot's
move between two slices of a long run, never waiting for the whole match, and a short run
(a match at 0-ply) is one task, not one a game.

A game is judged on a thread of Linux's idle scheduling class (``SCHED_IDLE``): it runs
on what the web, the other workers and the database leave of the cores, and gives way
the moment one of them wakes up, so the web's answers keep their speed while analyses
run. The robot's moves, on the worker's own thread, keep the ordinary class: a robot's
clock runs like anyone's.
"""

import contextlib
import os
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from celery import current_app, shared_task

import analysis.engine as judge
import analysis.gnubg_engine as gnubg_engine
import analysis.jobs as jobs
from analysis.engine_worker import hard_limit
from analysis.marks import Decision, decision_to_dict
from backgammon.game import Game
from backgammon.match import MatchState
from backgammon.matfile import MatchRecord, import_mat

Send = Callable[[str, dict[str, Any], str], None]


def _give_way() -> None:
    """This thread in the idle scheduling class, where Linux has it (a thread's class is
    its own: the worker's other threads keep theirs)."""
    if hasattr(os, "SCHED_IDLE"):
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))


_JUDGING = ThreadPoolExecutor(max_workers=1, thread_name_prefix="judging", initializer=_give_way)


@shared_task(name=jobs.JUDGE, ignore_result=True)
def judge_game(job: jobs.Job) -> None:
    """Judge the next game of ``job`` on the idle-class thread, killed by the kernel at
    its hard deadline; then send what it answers. A job that waited past the deadline
    (its worker down meanwhile) runs without the timer: its soft deadline, past too,
    stops it before the engine is called."""
    answers: list[tuple[str, dict[str, Any], str]] = []
    remaining = job["hard_deadline"] - time.time()
    with hard_limit(remaining) if remaining > 0 else contextlib.nullcontext():
        _JUDGING.submit(judge_next, job, lambda *answer: answers.append(answer)).result()
    for name, kwargs, queue in answers:
        _send(name, kwargs, queue)


def _send(name: str, kwargs: dict[str, Any], queue: str) -> None:
    current_app.send_task(name, kwargs=kwargs, queue=queue, ignore_result=True)


def judge_next(job: jobs.Job, send: Send) -> None:
    """Judge the games after those ``done``, one after another until the task has run
    ``jobs.SLICE`` seconds (an imported match's file read first); then ``send`` the
    progress (if it was last sent ``jobs.PROGRESS_EVERY`` ago) and the job of the games
    left to the engine's queue, or the run's decisions, or why it failed, to the Django
    side's."""
    reply = job["reply_queue"]
    about = {"analysis_id": job["analysis_id"], "attempt": job["attempt"]}
    try:
        job, done = _judged_slice(job)
    except judge.Unsupported as error:
        send(jobs.FAILED, {**about, "reason": "unsupported", "error": str(error)}, reply)
        return
    except judge.TimeUp:
        send(jobs.FAILED, {**about, "reason": "stopped", "error": ""}, reply)
        return
    except Exception as error:  # whatever the engine raised: the player reads it
        failure = {"reason": "error", "error": f"{type(error).__name__}: {error}"}
        send(jobs.FAILED, {**about, **failure}, reply)
        return
    if len(done) < len(job["games"]):
        reported_at = job["reported_at"]
        if time.time() - reported_at >= jobs.PROGRESS_EVERY:
            reported_at = time.time()
            # Short of 1 until the numbers are stored.
            progress = 0.99 * len(done) / len(job["games"])
            send(jobs.PROGRESS, {"analysis_id": job["analysis_id"], "progress": progress}, reply)
        send(jobs.JUDGE, {"job": {**job, "done": done, "reported_at": reported_at}}, job["queue"])
        return
    stored = {"engine": _engine_name(job), "plies": job["plies"]}
    send(jobs.STORE, {**about, **stored, "seats": job["seats"], "games": done}, reply)


def _judged_slice(job: jobs.Job) -> tuple[jobs.Job, list[list[dict[str, Any]]]]:
    """The job with its games (read from its file, for an imported match's first task),
    and the decisions of the games judged so far, this task's slice added."""
    started = time.monotonic()
    mat = job.get("mat")  # absent from a job an older version sent
    if mat is not None:
        job = {**job, "games": jobs.games_of(import_mat(mat)), "mat": None}
    done = list(job["done"])
    record = gnubg_engine.record_of(job["games"]) if _by_gnubg(job) else None
    while len(done) < len(job["games"]):
        if len(done) > len(job["done"]) and time.monotonic() - started >= jobs.SLICE:
            break
        done.append([decision_to_dict(d) for d in _judged(job, len(done), record)])
    return job, done


def _by_gnubg(job: jobs.Job) -> bool:
    """A match's game deeper than 0-ply is gnubg's, and a money session's without
    beavers. A chouette game has a cube a member, which gnubg does not know; with
    beavers, gnubg's double/take is not bgsage's (docs/analysis.md, "Depth and
    engine")."""
    if job["chouette"] or job["plies"] <= gnubg_engine.BGSAGE_DEEPEST:
        return False
    return not MatchState.from_dict(job["games"][0]["state"]).options.beavers


def _engine_name(job: jobs.Job) -> str:
    if _by_gnubg(job):
        return f"{gnubg_engine.ENGINE} {gnubg_engine.ENGINE_VERSION}"
    return f"{judge.ENGINE} {judge.ENGINE_VERSION}"


def _judged(job: jobs.Job, number: int, record: MatchRecord | None) -> list[Decision]:
    """The decisions of the job's game ``number`` (from 0): gnubg's, of the match
    ``record`` when there is one (``_by_gnubg``), else bgsage's."""
    played = job["games"][number]
    game = Game.from_dict(played["game"])
    if record is not None:
        judge.judged(game)  # before gnubg reads a file it cannot judge
        return judge.analyse_game(
            gnubg_engine.judge_of(record, number, job["plies"], job["deadline"]),
            game,
            MatchState.from_dict(played["state"]),
        )
    with judge.engine_at(job["plies"]).until(job["deadline"]) as engine:
        engine.in_time()
        if job["chouette"]:
            return judge.analyse_chouette_game(
                engine, Game.start(game.options, game.opening), game.compact().history
            )
        return judge.analyse_game(engine, game, MatchState.from_dict(played["state"]))
