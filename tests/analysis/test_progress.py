"""An analysis' progress, live: every change of its status or progress moves its topic
``analysis:<id>`` (``services.analysis_progress_set`` and the status writes), and the
region that shows it on the match page's summary and the review page says where it
stands in the players' words (docs/analysis.md, "Progress, live")."""

import pytest

from analysis import jobs, judging, services
from analysis.models import MatchAnalysis, PlayerFigures
from backgammon.matfile import import_mat
from matches.demo import play_on
from tests.analysis.running import analyse_now
from tests.matches.conftest import start
from web import live


@pytest.fixture
def finished(alice, bob, monkeypatch, django_capture_on_commit_callbacks):
    """A 1-point match alice and bob played to the end, its analysis queued (no task sent)."""
    monkeypatch.setattr(services, "_send", lambda analysis_id: None)
    with django_capture_on_commit_callbacks(execute=True):
        return play_on(start(alice, bob, length=1))


@pytest.fixture
def analysis(finished):
    return MatchAnalysis.objects.get(match=finished)


def topic_version(analysis):
    return live.read_versions([f"analysis:{analysis.pk}"])[f"analysis:{analysis.pk}"]


def running(analysis, progress=0.0):
    MatchAnalysis.objects.filter(pk=analysis.pk).update(status="running", progress=progress)


# The service ------------------------------------------------------------------------------


def test_progress_is_stored_and_moves_the_topic(analysis):
    running(analysis)
    before = topic_version(analysis)
    assert services.analysis_progress_set(analysis_id=analysis.pk, progress=0.4)
    analysis.refresh_from_db()
    assert analysis.progress == 0.4 and topic_version(analysis) == before + 1
    assert services.analysis_progress_set(analysis_id=analysis.pk, progress=0.8)
    assert topic_version(analysis) == before + 2


@pytest.mark.parametrize("status", ["queued", "done", "failed"])
def test_a_late_report_of_a_run_not_running_changes_nothing(analysis, status):
    MatchAnalysis.objects.filter(pk=analysis.pk).update(status=status, progress=0.0)
    before = topic_version(analysis)
    assert not services.analysis_progress_set(analysis_id=analysis.pk, progress=0.5)
    analysis.refresh_from_db()
    assert analysis.progress == 0.0 and topic_version(analysis) == before


@pytest.mark.parametrize("progress", [-0.1, 1.01])
def test_a_progress_outside_0_to_1_is_a_mistake(analysis, progress):
    running(analysis)
    with pytest.raises(ValueError):
        services.analysis_progress_set(analysis_id=analysis.pk, progress=progress)


def test_every_status_change_moves_the_topic(analysis, alice, settings, monkeypatch):
    """Queued again, running, each game's progress, done; failed; queued for a retry."""
    seen = [topic_version(analysis)]
    reported = []
    report = services.analysis_progress_set
    monkeypatch.setattr(
        services,
        "analysis_progress_set",
        lambda **given: reported.append(given) or report(**given),
    )
    assert analyse_now(analysis) == "done"
    seen.append(topic_version(analysis))
    # Started (running), a report after each game but the last (the engine worker's,
    # analysis.judging; this 1-point match: none), done.
    assert seen[1] == seen[0] + 2 + len(reported)
    assert all(r["analysis_id"] == analysis.pk and r["progress"] < 1 for r in reported)
    services.analysis_fail(analysis_id=analysis.pk, message="boom")
    seen.append(topic_version(analysis))
    assert seen[2] == seen[1] + 1
    services.analysis_request(match_id=analysis.match_id, user=alice.user)
    seen.append(topic_version(analysis))
    assert seen[3] == seen[2] + 1
    running(analysis)
    settings.ANALYSIS_ATTEMPTS = 2
    assert services.analysis_retry_or_fail(analysis_id=analysis.pk, message="again")
    assert topic_version(analysis) == seen[3] + 1


def test_the_topic_is_watched_on_the_live_channel(api, alice, analysis):
    client = api.as_user(alice.user)
    answer = client.get("/api/live/", {"topic": f"analysis:{analysis.pk}", "wait": 0})
    assert answer.status_code == 200 and answer.json()["version"] == topic_version(analysis)
    missing = client.get("/api/live/", {"topic": "analysis:999999", "wait": 0})
    assert missing.status_code == 404


# The region -------------------------------------------------------------------------------


def region(client, user, analysis):
    client.force_login(user)
    answer = client.get(f"/analysis/{analysis.pk}/progress/")
    assert answer.status_code == 200
    return answer.content.decode()


def test_a_queued_analysis_is_followed(client, alice, analysis):
    html = region(client, alice.user, analysis)
    assert "Analysis queued" in html
    assert f'data-live-topic="analysis:{analysis.pk}"' in html
    assert f'data-live-version="{analysis.version}"' in html


def test_a_running_analysis_shows_how_far_it_is(client, alice, analysis):
    running(analysis)
    services.analysis_progress_set(analysis_id=analysis.pk, progress=0.4)
    html = region(client, alice.user, analysis)
    assert "Analysis running: 40%" in html and '<progress max="100" value="40">' in html


def test_a_done_analysis_gives_each_players_figures_and_the_review(
    client, alice, bob, carol, analysis
):
    for side, player, pr, blunders in ((0, alice, 5.24, 1), (1, bob, 12.1, 3)):
        PlayerFigures.objects.create(
            analysis=analysis,
            side=side,
            player=player,
            username=player.username,
            checker_decisions=10,
            cube_decisions=1,
            checker_loss=0.1,
            cube_loss=0.0,
            blunders=blunders,
            pr=pr,
        )
    MatchAnalysis.objects.filter(pk=analysis.pk).update(status="done", progress=1.0)
    html = region(client, alice.user, analysis)
    assert "Analysis done:" in html and "your PR 5.2" in html and "1 blunder<" in html
    assert "Bob's PR 12.1" in html and "3 blunders" in html
    assert f'href="/play/{analysis.match_id}/review/"' in html
    assert "data-live-topic" not in html  # done: nothing more to follow
    watched = region(client, carol.user, analysis)
    assert "your PR" not in watched and "Alice's PR 5.2" in watched


def test_a_failed_analysis_says_why_and_a_player_may_ask_again(client, alice, carol, analysis):
    services.analysis_fail(analysis_id=analysis.pk, message="The engine failed: boom")
    html = region(client, alice.user, analysis)
    assert "The analysis failed: The engine failed: boom" in html
    assert f'data-analysis-request="/api/matches/{analysis.match_id}/analysis/"' in html
    assert "Analyse again" in html and "csrfmiddlewaretoken" in html
    assert f'data-live-topic="analysis:{analysis.pk}"' in html  # another may ask again
    watched = region(client, carol.user, analysis)
    assert "The engine failed: boom" in watched and "Analyse again" not in watched


def test_the_region_is_for_members(client, analysis):
    answer = client.get(f"/analysis/{analysis.pk}/progress/")
    assert answer.status_code == 302 and "/login/" in answer["Location"]
    client.force_login(analysis.match.creator.user)
    assert client.get("/analysis/999999/progress/").status_code == 404


def test_the_finished_match_page_and_its_fragment_show_the_region(client, alice, analysis):
    client.force_login(alice.user)
    for path in (f"/play/{analysis.match_id}/", f"/play/{analysis.match_id}/table/"):
        html = client.get(path).content.decode()
        summary = html[html.index('id="match-summary"') :]
        assert "Analysis queued" in summary
        assert f'data-fragment="/analysis/{analysis.pk}/progress/"' in summary
        assert "style=" not in summary and "<script" not in summary.split("</section>")[0]
    assert "analysis/progress.js" in client.get(f"/play/{analysis.match_id}/").content.decode()


def test_a_match_without_analysis_has_no_region(client, alice, analysis):
    analysis.delete()
    client.force_login(alice.user)
    html = client.get(f"/play/{analysis.match_id}/").content.decode()
    assert "data-analysis-region" not in html


def test_a_match_of_another_game_is_not_offered_again(client, alice, bob, monkeypatch):
    """The engine judges backgammon alone: a nackgammon match's analysis fails, and
    asking again would fail again."""
    monkeypatch.setattr(services, "_send", lambda analysis_id: None)
    match = play_on(start(alice, bob, length=1, options={"variant": "nackgammon"}))
    services.analysis_queue(match_id=match.pk)
    analysis = MatchAnalysis.objects.get(match=match)
    assert analyse_now(analysis) == "failed"
    html = region(client, alice.user, analysis)
    assert "Only standard backgammon" in html and "Analyse again" not in html


@pytest.fixture
def uploads_job(alice, mat_text, sent, django_capture_on_commit_callbacks):
    """alice uploads her match with bob: the job her request sent to the engine worker."""
    with django_capture_on_commit_callbacks(execute=True):
        imported = services.imported_match_create(user=alice.user, text=mat_text)
    return sent.jobs[imported.analysis.pk]


@pytest.mark.parametrize("last_report_ago, reports", [(0.0, 0), (60.0, 1)])
def test_a_game_judged_reports_progress_once_a_second_at_most(
    uploads_job, monkeypatch, last_report_ago, reports
):
    """A run whose slice ends after a game (``jobs.SLICE``) reports no progress if it did
    less than ``jobs.PROGRESS_EVERY`` ago, else once, the next job carrying when."""
    monkeypatch.setattr(jobs, "SLICE", 0.0)
    job = uploads_job
    job["reported_at"] -= last_report_ago
    messages = []
    judging.judge_next(job, lambda name, kwargs, queue: messages.append((name, kwargs)))
    names = [name for name, _ in messages]
    assert names.count(jobs.PROGRESS) == reports and names[-1] == jobs.JUDGE
    next_job = messages[-1][1]["job"]
    assert len(next_job["done"]) == 1
    assert (next_job["reported_at"] > job["reported_at"]) == bool(reports)


def test_a_short_run_is_judged_in_one_task(uploads_job, monkeypatch):
    """Games a task until ``jobs.SLICE`` has passed: a 3-game match at 0-ply is one task,
    which sends the numbers; a slice spent after the first game queues the rest."""
    job = uploads_job
    messages = []
    judging.judge_next(job, lambda name, kwargs, queue: messages.append((name, kwargs)))
    assert [name for name, _ in messages] == [jobs.STORE]
    assert len(messages[0][1]["games"]) == 3
    clock = iter([0.0, 0.0, 1.0])  # the slice's start, the first game's end, the second's
    monkeypatch.setattr(judging.time, "monotonic", lambda: next(clock, 1.0))
    messages.clear()
    judging.judge_next(job, lambda name, kwargs, queue: messages.append((name, kwargs)))
    assert [name for name, _ in messages][-1] == jobs.JUDGE
    assert len(messages[-1][1]["job"]["done"]) == 2


def test_an_upload_starts_its_run_with_the_games_its_request_read(uploads_job, mat_text, sent):
    """The upload's request sends the run's job straight to the engine worker, the games
    it read in it: no start by the Django worker, no second read of the file."""
    job = uploads_job
    analysis = MatchAnalysis.objects.get(pk=job["analysis_id"])
    assert (analysis.status, analysis.attempts, job["attempt"]) == ("running", 1, 1)
    assert sent == [analysis.pk] and job["mat"] is None
    assert job["games"] == jobs.games_of(import_mat(mat_text))
    assert [seat["username"] for seat in job["seats"]] == ["alice", "bob"]
    assert analyse_now(analysis, job=job) == "done"


def test_an_import_asked_for_again_is_read_by_the_engine_worker(uploads_job, mat_text, alice):
    """A run started by the Django worker (an import asked for again, or a second start)
    carries the file, which the engine's first task reads (the Django worker does not)."""
    job = uploads_job
    imported = MatchAnalysis.objects.get(pk=job["analysis_id"]).imported
    services.analysis_fail(analysis_id=job["analysis_id"], message="The engine failed: boom")
    services.imported_analysis_request(import_id=imported.pk, user=alice.user)
    again = services.analysis_start(analysis_id=job["analysis_id"], plies=0)
    assert again is not None and (again["mat"], again["games"]) == (mat_text, [])
    messages = []
    judging.judge_next(again, lambda name, kwargs, queue: messages.append((name, kwargs)))
    assert [name for name, _ in messages] == [jobs.STORE]
    assert len(messages[0][1]["games"]) == 3  # the file's games, read by the engine's task
