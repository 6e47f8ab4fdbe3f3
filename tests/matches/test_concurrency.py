"""Twenty identical requests at once: one applies, the others are stale, one log row.

Run on SQLite (``make test``) and on PostgreSQL (CI's second run, ``DATABASE_URL``): on
SQLite ``select_for_update`` does nothing and the conditional update is what holds.
"""

import threading

import pytest

from matches import services
from matches.errors import StaleTurn
from matches.models import Action, Match, Table
from tests import threads
from tests.matches.conftest import game_of, on_turn, start
from web.errors import Conflict

REQUESTS = 20


def at_once(call):
    return threads.at_once(call, REQUESTS)


@pytest.mark.django_db(transaction=True)
def test_t1_twenty_identical_moves_apply_once(alice, bob):
    match = start(alice, bob)
    player = on_turn(match, alice, bob)
    game = game_of(match)
    play, turn_no = game["legal_plays"][0], game["turn_no"]
    logged = Action.objects.filter(table=match.table).count()

    outcomes = at_once(
        lambda: services.match_act(
            match=match, player=player, turn_no=turn_no, act="move", play=play
        )
    )

    applied = [o for o in outcomes if isinstance(o, Match)]
    refused = [o for o in outcomes if not isinstance(o, Match)]
    assert len(applied) == 1
    assert len(refused) == REQUESTS - 1
    assert all(isinstance(o, StaleTurn) for o in refused), refused
    assert Action.objects.filter(table=match.table).count() == logged + 1
    table = Table.objects.get(pk=match.table_id)
    assert table.turn_no == turn_no + 1
    assert table.version == match.table.version + 1


@pytest.mark.django_db(transaction=True)
def test_twenty_members_accepting_one_open_challenge_seat_one(make_player):
    creator = make_player("host")
    members = [make_player(f"member{n}") for n in range(REQUESTS)]
    match = services.match_create(
        creator=creator, opponent=None, options=services.MatchOptions(length=1)
    )
    queue = list(members)
    lock = threading.Lock()

    def accept():
        with lock:
            member = queue.pop()
        return services.match_accept(match=match, player=member)

    outcomes = at_once(accept)

    applied = [o for o in outcomes if isinstance(o, Match)]
    assert len(applied) == 1
    assert all(isinstance(o, Conflict) for o in outcomes if o not in applied), outcomes
    assert Action.objects.filter(table=match.table).count() == 1
    assert match.table.seats.count() == 2


@pytest.mark.postgresql
@pytest.mark.django_db(transaction=True)
def test_an_action_locks_the_table_before_the_match(alice, bob):
    """The action locks its table and match in one query; every writer takes the table
    first (two orders could deadlock), so an action held up on the match already holds
    the table, and goes on once the match is free."""
    match = start(alice, bob)
    player = on_turn(match, alice, bob)
    game = game_of(match)
    play, turn_no = game["legal_plays"][0], game["turn_no"]
    held, outcomes = threads.table_held_first(
        hold_other_row=lambda: Match.objects.select_for_update(of=("self",)).get(pk=match.pk),
        act=lambda: services.match_act(
            match=match, player=player, turn_no=turn_no, act="move", play=play
        ),
        table_id=match.table_id,
    )
    assert held
    assert len(outcomes) == 1 and isinstance(outcomes[0], Match)
    assert Table.objects.get(pk=match.table_id).turn_no == turn_no + 1
