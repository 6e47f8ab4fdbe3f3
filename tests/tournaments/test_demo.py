"""The demo club holds one finished and one running tournament, loaded once."""

import io
from datetime import timedelta
from decimal import Decimal

import pytest
from django.core.management import call_command

from tournaments import selectors
from tournaments.models import Tournament


@pytest.mark.django_db
def test_the_demo_has_a_finished_and_a_running_tournament(settings, client):
    settings.DEBUG = True
    out = io.StringIO()
    call_command("load_demo", stdout=out)
    call_command("load_demo", stdout=out)
    assert out.getvalue().count("Tournament 'Autumn knockout': finished") == 1
    finished = Tournament.objects.get(name="Autumn knockout")
    running = Tournament.objects.get(name="Tuesday Swiss")
    assert (finished.status, running.status) == ("finished", "running")
    assert selectors.tournament_pool_balance(tournament=finished) == Decimal("0.00")
    assert selectors.tournament_pool_balance(tournament=running) == Decimal("30.00")
    assert running.rounds.count() == 2
    second = running.rounds.get(number=2)
    assert second.pairings.filter(winner__isnull=True).count() == 3
    online = second.pairings.get(match__isnull=False)  # a mixed round
    assert online.position == 1 and online.match.status == "playing"
    assert online.match.length == second.length
    assert second.deadline == second.started_at + timedelta(hours=72)
    call_command("ledger_check", stdout=io.StringIO())
    for shown in (finished, running):
        assert client.get(f"/tournaments/{shown.pk}/").status_code == 200
