"""Identical requests at once: one applies, the others are refused, nothing doubled.

Run on SQLite (``make test``) and on PostgreSQL (CI's second run): on SQLite
``select_for_update`` does nothing and the conditional update of the version holds.
"""

from decimal import Decimal

import pytest

from chouette import services
from chouette.models import Chouette, ChouetteGame
from club.errors import Conflict
from club.models import SourceKind, Transaction
from tests import threads
from tests.chouette.conftest import member

REQUESTS = 12


def at_once(call):
    return threads.at_once(call, REQUESTS)


@pytest.mark.django_db(transaction=True)
def test_the_same_game_sent_at_once_with_the_version_seen_is_recorded_once(open_chouette):
    chouette = open_chouette("alice", "bob", "carol", "dave")
    sent = {
        "winner": "box",
        "result": "single",
        "members": [member(n) for n in ("bob", "carol", "dave")],
    }
    outcomes = at_once(
        lambda: services.chouette_game_record(
            chouette=chouette, record=sent, recorded_by=chouette.recorded_by, version=0
        )
    )
    applied = [o for o in outcomes if isinstance(o, ChouetteGame)]
    refused = [o for o in outcomes if not isinstance(o, ChouetteGame)]
    assert len(applied) == 1
    assert all(isinstance(o, services.StaleVersion) for o in refused), refused
    assert ChouetteGame.objects.count() == 1
    assert Chouette.objects.get().version == 1


@pytest.mark.django_db(transaction=True)
def test_h14_closing_at_once_posts_one_settlement(open_chouette):
    chouette = open_chouette("alice", "bob", "carol")
    services.chouette_game_record(
        chouette=chouette,
        record={"winner": "team", "result": "single", "members": [member("bob"), member("carol")]},
        recorded_by=chouette.recorded_by,
    )
    outcomes = at_once(lambda: services.chouette_close(chouette=chouette, by=chouette.recorded_by))
    closed = [o for o in outcomes if isinstance(o, services.Settlement)]
    assert len(closed) == 1, outcomes
    assert all(isinstance(o, Conflict) for o in outcomes if o not in closed), outcomes
    assert closed[0].amounts == {
        "alice": Decimal("-10.00"),
        "bob": Decimal("5.00"),
        "carol": Decimal("5.00"),
    }
    assert Transaction.objects.filter(kind=SourceKind.CHOUETTE).count() == 1
