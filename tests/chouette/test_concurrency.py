"""Identical requests at once: one applies, the others are refused, nothing doubled; and
an online action's row locks taken in the order every writer takes them.

Run on SQLite (``make test``) and on PostgreSQL (CI's second run): on SQLite
``select_for_update`` does nothing and the conditional update of the version holds.
"""

from decimal import Decimal

import pytest

from chouette import online, selectors, services
from chouette.models import Chouette, ChouetteGame
from club.models import SourceKind, Transaction
from matches.errors import NotYourTurn, StaleTurn
from matches.models import Action, Table
from tests import threads
from tests.chouette.conftest import member
from web.errors import Conflict

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


def _online(open_chouette, members):
    """An online chouette (alice the box, bob captain, carol and dave the crew) with its
    first game started, and the body of that game."""
    chouette = open_chouette("alice", "bob", "carol", "dave", mode="online", cube="multiple")
    started = online.chouette_game_start(chouette=chouette, by=members["alice"])
    game = selectors.chouette_online_game(chouette=started)
    assert game is not None
    return started, game


def _mover_act(chouette, members, game):
    """The action of whoever must act in ``game``: the roll, or the first legal play."""
    player = members[game["awaiting"][0]]
    if game["phase"] == "roll":
        return lambda: online.chouette_act(
            chouette=Chouette(pk=chouette.pk), player=player, act="roll", turn_no=game["turn_no"]
        )
    plays = game["legal_plays"]
    return lambda: online.chouette_act(
        chouette=Chouette(pk=chouette.pk),
        player=player,
        act="move",
        turn_no=game["turn_no"],
        play=plays[0] if plays else "",
    )


@pytest.mark.django_db(transaction=True)
def test_the_same_online_action_sent_at_once_is_applied_once(open_chouette, members):
    chouette, game = _online(open_chouette, members)
    outcomes = at_once(_mover_act(chouette, members, game))
    applied = [o for o in outcomes if isinstance(o, Chouette)]
    assert len(applied) == 1, outcomes
    assert all(isinstance(o, (StaleTurn, NotYourTurn, Conflict)) for o in outcomes
               if o not in applied), outcomes  # fmt: skip
    table = Table.objects.get(chouette__pk=chouette.pk)
    assert table.turn_no == game["turn_no"] + 1
    assert Action.objects.filter(table=table).count() == table.log_seq  # nothing doubled
    assert Chouette.objects.get(pk=chouette.pk).version == chouette.version + 1
    assert applied[0].version == chouette.version + 1


@pytest.mark.postgresql
@pytest.mark.django_db(transaction=True)
def test_an_online_action_locks_the_table_before_the_session(open_chouette, members):
    """The action locks the session and its table in one query; every writer takes the
    table first (two orders could deadlock), so an action held up on the session already
    holds the table, and goes on once the session is free."""
    chouette, game = _online(open_chouette, members)
    held, outcomes = threads.table_held_first(
        hold_other_row=lambda: Chouette.objects.select_for_update(of=("self",)).get(pk=chouette.pk),
        act=_mover_act(chouette, members, game),
        table_id=chouette.table_id,
    )
    assert held
    assert len(outcomes) == 1 and isinstance(outcomes[0], Chouette), outcomes
    assert Table.objects.get(pk=chouette.table_id).turn_no == game["turn_no"] + 1
