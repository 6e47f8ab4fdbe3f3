"""The robot finishes a match on the clock (issue 23's test): a member plays through the
API, the robot's moves are computed by the real engine's worker process and applied by
the real ordinary worker process; on the embedded filesystem broker and SQLite, and on
PostgreSQL and Redis when the run sets ``DATABASE_URL`` and ``CELERY_BROKER_URL``."""

import pytest

from matches import table_engine
from matches.models import Action, Match
from tests.integration.worker import engine_worker_process, worker_process
from tests.matches.api_helpers import client_for, ok, path, step
from tests.waiting import PATIENCE, wait_until


@pytest.mark.integration
@pytest.mark.django_db(transaction=True)
def test_the_robot_finishes_a_match_on_the_clock(alice, robots, settings):
    client = client_for(alice.user)
    with (
        engine_worker_process() as engine_queue,
        worker_process(test_database=True) as reply_queue,
    ):
        settings.ANALYSIS_QUEUE = engine_queue
        settings.ROBOT_REPLY_QUEUE = reply_queue
        body = {"opponent": "robot-intermediate", "length": 2, "clock": "blitz"}
        match = ok(client.post("/api/matches/", body, format="json"), 201)
        assert match["status"] == "playing" and not match["rated"]

        def alices_turn_or_over() -> bool:
            nonlocal match
            match = ok(client.get(path(match["id"])))
            if match["status"] != "playing" or match["game"]["turn"] == "alice":
                return True
            table_engine.robots_ask_again()  # the sweep's part, as beat runs it
            return False

        for _ in range(2000):
            assert wait_until(alices_turn_or_over, timeout=3 * PATIENCE, every=0.05), match
            if match["status"] != "playing":
                break
            step({"alice": client}, match, double=False)
    assert match["status"] == "finished", match
    assert match["ended_by"] == "played" and match["winner"] in ("alice", "robot-intermediate")
    played = Match.objects.get(pk=match["id"])
    robot_actions = Action.objects.filter(table=played.table, actor__robot="intermediate")
    assert robot_actions.filter(kind__in=["move", "roll"]).exists()
