"""A real Celery worker analyses a whole played match, queued by the match's end: on the
embedded filesystem broker, and on Redis when CI's second run sets ``CELERY_BROKER_URL``."""

import time

import pytest

from analysis.models import MatchAnalysis
from matches.demo import play_on
from tests.integration.worker import worker_process
from tests.matches.conftest import start


@pytest.mark.integration
@pytest.mark.django_db(transaction=True)
def test_a_real_worker_analyses_a_finished_match(alice, bob, settings, api):
    with worker_process(test_database=True) as queue:
        settings.ANALYSIS_QUEUE = queue
        match = play_on(start(alice, bob, length=3))
        assert match.status == "finished"
        for _ in range(1200):
            analysis = MatchAnalysis.objects.filter(match=match).first()
            if analysis is not None and analysis.status in ("done", "failed"):
                break
            time.sleep(0.1)
    assert analysis is not None and analysis.status == "done", analysis and analysis.error
    body = api.as_user(alice.user).get(f"/api/matches/{match.pk}/analysis/").json()
    assert body["progress"] == 1.0 and body["plies"] == settings.ANALYSIS_PLIES
    assert [p["username"] for p in body["players"]] == ["alice", "bob"]
    assert all(p["decisions"] > 0 for p in body["players"])
    assert len(body["games"]) == match.table.game_number
    assert sum(len(g["decisions"]) for g in body["games"]) == analysis.decisions.count()
