"""A real Celery worker applies a timeout at its deadline: on the embedded filesystem
broker of ``make run``, and on Redis when CI's second run sets ``CELERY_BROKER_URL``.

The one place the tests wait for real time: a worker only acts when the deadline comes.
"""

import pytest

from matches import services
from matches.models import Action, Match
from tests.integration.worker import worker_process
from tests.matches.conftest import on_turn
from tests.waiting import wait_until


@pytest.mark.integration
@pytest.mark.django_db(transaction=True)
def test_a_real_worker_applies_a_timeout_at_its_deadline(alice, bob, settings):
    with worker_process(test_database=True) as queue:
        settings.MATCHES_TIMEOUT_QUEUE = queue
        match = services.match_create(
            creator=alice, opponent=bob, length=3, clock={"delay": 1, "reserve": 1}
        )
        match = services.match_accept(match=match, player=bob)
        late = on_turn(match, alice, bob)
        deadline = match.table.deadline

        def finished():
            match.refresh_from_db()
            return match.status == Match.Status.FINISHED

        assert wait_until(finished, timeout=60, every=0.1)
    assert match.ended_by == "timeout" and match.winner != late
    forfeit = Action.objects.get(table=match.table, kind="forfeit")
    assert forfeit.at >= deadline
    assert forfeit.by_server and forfeit.actor is None
