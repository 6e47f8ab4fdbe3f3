"""The analysis app: queued when a match ends, asked for through the API by its players
or staff, run by the two workers' modules with the real engine (in the test's process),
retried once, then failed."""

import json
import os
import signal
import subprocess
import sys
import time
from datetime import timedelta

import pytest
from django.utils import timezone

import analysis.engine as judge
from analysis import jobs, judging, services
from analysis.models import MatchAnalysis
from matches.demo import play_on
from tests.analysis.running import analyse_now, deliver
from tests.matches.conftest import start


@pytest.fixture
def sent(monkeypatch):
    """The analyses whose task was sent (to the broker), in order."""
    ids = []
    monkeypatch.setattr(services, "_send", ids.append)
    return ids


@pytest.fixture
def finished(alice, bob, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        return play_on(start(alice, bob, length=1))


def url(match):
    return f"/api/matches/{match.pk}/analysis/"


def run(analysis):
    return analyse_now(analysis)


def test_a_finished_match_is_queued_by_itself(alice, bob, sent, django_capture_on_commit_callbacks):
    match = start(alice, bob, length=1)
    with django_capture_on_commit_callbacks(execute=True):
        match = play_on(match)
    assert match.status == "finished"
    analysis = MatchAnalysis.objects.get(match=match)
    assert analysis.status == "queued" and sent == [analysis.pk]


def test_a_player_asks_and_reads_the_analysis(
    api, alice, sent, finished, django_capture_on_commit_callbacks
):
    analysis = MatchAnalysis.objects.get(match=finished)
    analysis.status = MatchAnalysis.Status.FAILED  # as if it had failed: asking queues it again
    analysis.save()
    with django_capture_on_commit_callbacks(execute=True):
        answer = api.as_user(alice.user).post(url(finished))
    assert answer.status_code == 202
    assert answer.json()["status"] == "queued"
    assert sent == [analysis.pk, analysis.pk]
    assert run(analysis) == "done"
    body = api.as_user(alice.user).get(url(finished)).json()
    assert body["status"] == "done" and body["progress"] == 1.0
    assert body["engine"].startswith("bgsage ") and body["plies"] == 0
    assert [p["username"] for p in body["players"]] == ["alice", "bob"]
    for figures in body["players"]:
        assert figures["decisions"] > 0 and figures["pr"] >= 0
        assert figures["checker_pr"] is not None
    assert [g["number"] for g in body["games"]] == list(range(1, len(body["games"]) + 1))
    first = body["games"][0]["decisions"][0]
    assert first["move_number"] == 1 and first["kind"] == "checker"
    assert set(first) >= {"player", "played", "best", "equity_loss", "mark"}
    # play_on plays the first legal play: some of them are marked.
    marks = {d["mark"] for g in body["games"] for d in g["decisions"]}
    assert marks & {"doubtful", "error", "blunder"}


def test_a_done_analysis_is_not_run_again(
    api, alice, sent, finished, django_capture_on_commit_callbacks
):
    analysis = MatchAnalysis.objects.get(match=finished)
    run(analysis)
    with django_capture_on_commit_callbacks(execute=True):
        answer = api.as_user(alice.user).post(url(finished))
    assert answer.status_code == 202 and answer.json()["status"] == "done"
    assert sent == [analysis.pk]


def test_a_deeper_setting_queues_it_again(
    api, alice, sent, finished, settings, django_capture_on_commit_callbacks
):
    analysis = MatchAnalysis.objects.get(match=finished)
    run(analysis)
    settings.ANALYSIS_PLIES = 1
    with django_capture_on_commit_callbacks(execute=True):
        answer = api.as_user(alice.user).post(url(finished))
    assert answer.json()["status"] == "queued" and answer.json()["plies"] == 0
    assert sent == [analysis.pk, analysis.pk]


def test_a_run_again_replaces_the_numbers_of_the_run_before(
    api, alice, sent, finished, settings, django_capture_on_commit_callbacks
):
    analysis = MatchAnalysis.objects.get(match=finished)
    run(analysis)
    first = (analysis.players.count(), analysis.decisions.count())
    settings.ANALYSIS_PLIES = 1
    with django_capture_on_commit_callbacks(execute=True):
        api.as_user(alice.user).post(url(finished))
    assert analyse_now(analysis) == "done"
    assert (analysis.players.count(), analysis.decisions.count()) == first
    assert first[0] == 2 and first[1] > 0


def test_staff_may_ask(api, staff, sent, finished):
    assert api.as_user(staff.user).post(url(finished)).status_code == 202


def test_a_stranger_may_not_ask(api, carol, sent, finished):
    answer = api.as_user(carol.user).post(url(finished))
    assert answer.status_code == 403 and answer.json()["error"] == "forbidden"


def test_an_unfinished_match_is_not_analysed(api, alice, bob, sent):
    match = start(alice, bob)
    answer = api.as_user(alice.user).post(url(match))
    assert answer.status_code == 409 and answer.json()["error"] == "conflict"
    assert not MatchAnalysis.objects.exists() and sent == []


def test_no_analysis_and_no_match_are_not_found(api, alice, bob):
    match = start(alice, bob)
    assert api.as_user(alice.user).get(url(match)).status_code == 404
    assert api.as_user(alice.user).get("/api/matches/999999/analysis/").status_code == 404
    assert api.as_user(alice.user).post("/api/matches/999999/analysis/").status_code == 404


def test_progress_moves_while_the_engine_runs(
    alice, bob, sent, monkeypatch, django_capture_on_commit_callbacks
):
    """After each game but the last the engine worker sends the progress (here every
    game: each takes longer than ``jobs.PROGRESS_EVERY`` and ``jobs.SLICE``), which the Django side
    stores; the numbers stored make it 1."""
    monkeypatch.setattr(jobs, "PROGRESS_EVERY", 0.0)
    monkeypatch.setattr(jobs, "SLICE", 0.0)  # a game a task
    with django_capture_on_commit_callbacks(execute=True):
        match = play_on(start(alice, bob, length=3))
    analysis = MatchAnalysis.objects.get(match=match)
    seen = []
    progress_set = services.analysis_progress_set

    def watched(*, analysis_id, progress):
        progress_set(analysis_id=analysis_id, progress=progress)
        seen.append(MatchAnalysis.objects.get(pk=analysis_id).progress)

    monkeypatch.setattr(services, "analysis_progress_set", watched)
    run(analysis)
    games = {d.game_number for d in analysis.decisions.all()}
    assert len(seen) == len(games) - 1 > 0
    assert seen == sorted(seen) and 0 < seen[0] and seen[-1] < 1
    assert MatchAnalysis.objects.get(pk=analysis.pk).progress == 1


def test_an_engine_error_is_retried_once_then_fails_clearly(finished, sent, monkeypatch):
    analysis = MatchAnalysis.objects.get(match=finished)

    def crashing(plies):
        raise RuntimeError("the network file is corrupt")

    monkeypatch.setattr(judge, "engine_at", crashing)
    assert run(analysis) == "queued"
    analysis.refresh_from_db()
    assert analysis.attempts == 1
    assert run(analysis) == "failed"
    analysis.refresh_from_db()
    assert analysis.error == "The engine failed: RuntimeError: the network file is corrupt"
    assert not analysis.decisions.exists() and not analysis.players.exists()


def test_a_run_past_its_time_limit_stops_then_fails(finished, sent, settings):
    """The soft limit, checked between two decisions: the run's second start, then the
    failure saying so."""
    settings.ANALYSIS_TIME_LIMIT = -1
    analysis = MatchAnalysis.objects.get(match=finished)
    assert run(analysis) == "queued"
    assert run(analysis) == "failed"
    analysis.refresh_from_db()
    assert analysis.error == str(services.STOPPED) and not analysis.decisions.exists()


def test_a_late_answer_of_an_earlier_start_changes_nothing(finished, sent):
    """The first start, swept as dead, answers after the second began: not stored."""
    analysis = MatchAnalysis.objects.get(match=finished)
    first = services.analysis_start(analysis_id=analysis.pk, plies=0)
    assert first is not None
    MatchAnalysis.objects.filter(pk=analysis.pk).update(status="queued")
    second = services.analysis_start(analysis_id=analysis.pk, plies=0)
    assert second is not None and second["attempt"] == first["attempt"] + 1
    deliver(jobs.JUDGE, {"job": first})
    analysis.refresh_from_db()
    assert analysis.status == "running" and not analysis.decisions.exists()
    deliver(jobs.JUDGE, {"job": second})
    analysis.refresh_from_db()
    assert analysis.status == "done" and analysis.decisions.exists()


def test_the_tasks_of_an_analysis_no_longer_there_do_nothing(finished, sent):
    """A task that waited in the broker for an analysis the database no longer has (the
    club restored an older backup meanwhile) is late: it starts, stores and fails
    nothing, and raises nothing in the worker."""
    from analysis import tasks

    analysis = MatchAnalysis.objects.get(match=finished)
    job = services.analysis_start(analysis_id=analysis.pk, plies=0)
    assert job is not None
    MatchAnalysis.objects.filter(pk=analysis.pk).delete()
    tasks.analyse(analysis.pk)
    tasks.progress(analysis.pk, 0.5)
    tasks.failed(analysis.pk, job["attempt"], "error", "boom")
    tasks.store(
        analysis_id=analysis.pk, attempt=job["attempt"], engine="e", plies=0, seats=[], games=[]
    )
    assert sent == []  # neither to the engine worker nor to the Django worker
    assert not MatchAnalysis.objects.filter(pk=analysis.pk).exists()


def test_a_game_is_judged_on_a_thread_that_gives_way_to_the_rest_of_the_machine():
    """The engine's games run in Linux's idle scheduling class, which any other process
    that wakes up preempts (the web's p99 kept while analyses run, docs/analysis.md);
    the worker's own thread, where the robot's moves are decided, keeps the ordinary."""
    assert judging._JUDGING.submit(os.sched_getscheduler, 0).result() == os.SCHED_IDLE
    assert os.sched_getscheduler(0) == os.SCHED_OTHER


def test_the_engine_process_is_killed_at_its_hard_deadline(finished, sent, settings):
    """A hang inside a decision, where no soft limit is checked: the kernel ends the
    engine worker's process (SIGALRM), leaving the run to the sweep, which gives it its
    second start."""
    analysis = MatchAnalysis.objects.get(match=finished)
    job = services.analysis_start(analysis_id=analysis.pk, plies=0)
    assert job is not None
    job["hard_deadline"] = time.time() + 1
    code = (
        "import json, sys, time\n"
        "from analysis import engine, judging\n"
        "engine.Engine.checker = lambda *args: time.sleep(60)\n"
        "judging.judge_game.run(json.loads(sys.argv[1]))\n"
    )
    began = time.monotonic()
    ended = subprocess.run([sys.executable, "-c", code, json.dumps(job)], capture_output=True)
    assert ended.returncode == -signal.SIGALRM and time.monotonic() - began < 30
    analysis.refresh_from_db()
    assert analysis.status == "running"  # the sweep's, as after any crash
    later = timezone.now() + timedelta(seconds=settings.ANALYSIS_TIME_LIMIT + 60)
    assert services.analysis_sweep(now=later) == 1
    analysis.refresh_from_db()
    assert analysis.status == "queued" and analysis.attempts == 1


def test_a_run_that_died_with_its_process_is_swept(finished, sent, settings):
    analysis = MatchAnalysis.objects.get(match=finished)
    long_ago = timezone.now() - timedelta(seconds=settings.ANALYSIS_TIME_LIMIT + 60)
    MatchAnalysis.objects.filter(pk=analysis.pk).update(
        status="running", attempts=1, started_at=long_ago
    )
    assert services.analysis_sweep() == 1
    analysis.refresh_from_db()
    assert analysis.status == "queued"
    MatchAnalysis.objects.filter(pk=analysis.pk).update(
        status="running", attempts=2, started_at=long_ago
    )
    assert services.analysis_sweep() == 0
    analysis.refresh_from_db()
    assert analysis.status == "failed" and "crash" in analysis.error


@pytest.mark.parametrize("plies", [0, 2])
def test_a_tavli_match_fails_with_a_clear_message(
    alice, bob, sent, django_capture_on_commit_callbacks, plies
):
    """At any depth: deeper than 0-ply too, where a match would be gnubg's."""
    with django_capture_on_commit_callbacks(execute=True):
        match = play_on(start(alice, bob, length=1, tavli="greek"))
    analysis = MatchAnalysis.objects.get(match=match)
    assert analyse_now(analysis, plies) == "failed"
    analysis.refresh_from_db()
    assert analysis.error == "Only standard backgammon matches and money sessions are analysed."


def test_the_web_never_imports_the_engine():
    """Loading the URLconf, the WSGI application and every app's tasks leaves bgsage out."""
    code = (
        "import os, sys\n"
        "os.environ['DJANGO_SETTINGS_MODULE'] = 'tests.settings'\n"
        "import config.wsgi, club.urls\n"
        "from config.celery import app\n"
        "app.loader.import_default_modules()\n"
        "import analysis.tasks\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('bgsage', 'bgbot_cpp',"
        " 'analysis') ))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = eval(out.stdout)
    assert "analysis.tasks" in loaded and "analysis.api" in loaded
    assert not [m for m in loaded if m.startswith(("bgsage", "bgbot_cpp", "analysis.engine"))]
    assert "analysis.judging" not in loaded


def test_a_job_that_waited_past_its_hard_deadline_stops_without_the_timer(
    finished, sent, monkeypatch
):
    """Its worker was down meanwhile: the engine worker answers that the run stopped (its
    second start follows) instead of being killed by a timer already due."""
    analysis = MatchAnalysis.objects.get(match=finished)
    job = services.analysis_start(analysis_id=analysis.pk, plies=0)
    assert job is not None
    job["deadline"] = job["hard_deadline"] = time.time() - 1
    answers = []
    monkeypatch.setattr(
        judging, "_send", lambda name, kwargs, queue: answers.append((name, kwargs))
    )
    judging.judge_game.run(job)
    assert answers == [
        (jobs.FAILED, {"analysis_id": analysis.pk, "attempt": 1, "reason": "stopped", "error": ""})
    ]
