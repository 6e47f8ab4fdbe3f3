"""The one table engine (``matches.table_engine``) for both owners of a table: a match's
and an online chouette's go through the same stale-turn refusal, the same guarded save,
the same timeout task (applied once) and the same sweep."""

import pytest
from django.db.models import F

from chouette import online, selectors
from chouette import tasks as chouette_tasks
from chouette.models import Chouette
from matches import services, table_engine
from matches import tasks as matches_tasks
from matches.errors import StaleTurn
from matches.models import Action, Match, Table
from tests.matches.conftest import game_of, on_turn, start


@pytest.fixture
def tables(open_chouette, members, clock):
    """A match with a clock (alice against bob) and an online chouette with a turn time
    (erin in the box, frank, gina, dave the team), both in play."""
    match = start(members["alice"], members["bob"], clock={"delay": 5, "reserve": 5})
    chouette = open_chouette("erin", "frank", "gina", "dave", mode="online", turn_time=30)
    chouette = online.chouette_game_start(chouette=chouette, by=members["erin"])
    return match, chouette


def written(table_id: int) -> tuple[int, int]:
    """The table's version and its log's length."""
    table = Table.objects.get(pk=table_id)
    return table.version, Action.objects.filter(table=table).count()


def chouette_game(chouette: Chouette) -> dict:
    found = selectors.chouette_online_game(
        chouette=Chouette.objects.select_related("table").get(pk=chouette.pk)
    )
    assert found is not None
    return found


def chouette_action(chouette: Chouette, members) -> tuple[object, dict, int]:
    """Who acts at the chouette now, what they may do (roll, or the first legal play),
    and the turn."""
    game = chouette_game(chouette)
    player = members[game["awaiting"][0]]
    if game["phase"] == "roll":
        return player, {"act": "roll"}, game["turn_no"]
    plays = game["legal_plays"]
    return player, {"act": "move", "play": plays[0] if plays else ""}, game["turn_no"]


def test_both_owners_refuse_a_turn_that_is_over_and_write_nothing(tables, members):
    match, chouette = tables
    player = on_turn(match, members["alice"], members["bob"])
    before = written(match.table_id)
    with pytest.raises(StaleTurn):
        services.match_act(
            match=match, player=player, turn_no=game_of(match)["turn_no"] - 1, act="roll"
        )
    assert written(match.table_id) == before
    actor, action, turn_no = chouette_action(chouette, members)
    before = written(chouette.table_id)
    with pytest.raises(StaleTurn):
        online.chouette_act(chouette=chouette, player=actor, turn_no=turn_no - 1, **action)
    assert written(chouette.table_id) == before


def test_both_owners_lose_the_guarded_save_to_a_write_made_after_their_read(
    tables, members, monkeypatch
):
    """As on SQLite, where the lock holds nothing: another request writes the table
    between this one's read and its write; the engine's conditional UPDATE refuses it."""
    match, chouette = tables
    real_save = table_engine.TableTurn.save

    def racing_save(turn):
        Table.objects.filter(pk=turn.table.pk).update(version=F("version") + 1)
        real_save(turn)

    monkeypatch.setattr(table_engine.TableTurn, "save", racing_save)
    game = game_of(match)
    player = on_turn(match, members["alice"], members["bob"])
    before = written(match.table_id)
    with pytest.raises(StaleTurn):
        services.match_act(
            match=match, player=player, turn_no=game["turn_no"], act="move",
            play=game["legal_plays"][0],
        )  # fmt: skip
    assert written(match.table_id)[1] == before[1]  # no log row
    actor, action, turn_no = chouette_action(chouette, members)
    before = written(chouette.table_id)
    with pytest.raises(StaleTurn):
        online.chouette_act(chouette=chouette, player=actor, turn_no=turn_no, **action)
    assert written(chouette.table_id)[1] == before[1]  # no log row


def test_one_timeout_task_applies_each_owners_deadline_once(tables, clock):
    match, chouette = tables
    match_table = Table.objects.get(pk=match.table_id)
    chouette_table = Table.objects.get(pk=chouette.table_id)
    for table in (match_table, chouette_table):
        assert table.deadline is not None
        assert not table_engine.table_timeout(table_id=table.pk, turn_no=table.turn_no)
    clock.advance(31)
    for table in (match_table, chouette_table):
        assert matches_tasks.table_timeout.apply(args=[table.pk, table.turn_no]).get() is True
        assert matches_tasks.table_timeout.apply(args=[table.pk, table.turn_no]).get() is False
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED and match.ended_by == "timeout"
    assert Action.objects.filter(table=chouette_table, kind="forfeit", by_server=True).count() == 1


def test_the_chouettes_old_task_name_still_applies_a_timeout_queued_before_an_upgrade(
    tables, clock
):
    _match, chouette = tables
    table = Table.objects.get(pk=chouette.table_id)
    clock.advance(31)
    assert chouette_tasks.table_timeout.apply(args=[table.pk, table.turn_no]).get() is True
    assert chouette_tasks.table_timeout.apply(args=[table.pk, table.turn_no]).get() is False


def test_one_sweep_applies_the_lost_deadlines_of_both_owners(tables, clock):
    match, chouette = tables
    clock.advance(30 + table_engine.SWEEP_GRACE / 2)
    assert table_engine.tables_sweep() == 1  # the match's (20 s overdue), not yet the chouette's
    clock.advance(table_engine.SWEEP_GRACE)
    assert table_engine.tables_sweep() == 1  # the chouette's
    assert table_engine.tables_sweep() == 0
    match.refresh_from_db()
    assert match.ended_by == "timeout"
    table = Table.objects.get(pk=chouette.table_id)
    assert Action.objects.filter(table=table, kind="forfeit", by_server=True).count() == 1
    assert table.deadline is None
