"""Timed turns: the presets, the delay spent before the reserve, timeouts applied once,
the sweep catching a lost task. Time moves by hand (``clock``), never by sleeping."""

from datetime import timedelta
from decimal import Decimal

import pytest
from django.db.models import F

from club import selectors as club_selectors
from club.models import MatchResult
from config.celery import app
from matches import clocks, selectors, services, table_engine, tasks
from matches.models import Action, Match, Table
from tests.matches.conftest import act, game_of, on_turn, start

pytestmark = pytest.mark.django_db


def test_presets_and_custom_clocks():
    assert clocks.clock_spec("none").timed is False
    standard = clocks.clock_spec("standard")
    assert (standard.delay, standard.per_point, standard.less_per_scored) == (12, 120, 60)
    blitz = clocks.clock_spec("blitz")
    assert (blitz.delay, blitz.per_point) == (8, 20)
    assert clocks.clock_spec("correspondence").delay == 48 * 3600
    custom = clocks.clock_spec({"delay": 5, "reserve": 90})
    assert (custom.delay, custom.reserve, custom.to_json()) == (5, 90, {"delay": 5, "reserve": 90})
    for bad in ("fast", {"delay": 5}, {"delay": -1, "reserve": 1}, {"delay": 0, "reserve": 0}):
        with pytest.raises(ValueError):
            clocks.clock_spec(bad)  # type: ignore[arg-type]


def test_the_standard_reserve_is_two_minutes_a_point_less_one_a_point_scored():
    standard = clocks.clock_spec("standard")
    assert clocks.game_reserve(standard, length=5, score=(0, 0), left=0) == 600
    assert clocks.game_reserve(standard, length=5, score=(2, 1), left=0) == 420
    assert clocks.game_reserve(standard, length=5, score=(4, 4), left=0) == 120
    custom = clocks.clock_spec({"delay": 5, "reserve": 90})
    assert clocks.game_reserve(custom, length=5, score=(2, 1), left=33.5) == 33.5


def test_the_delay_is_spent_first_then_the_reserve(alice, bob, clock):
    match = start(alice, bob, length=5, clock="standard")
    table = Table.objects.get(pk=match.table_id)
    assert (table.delay, table.reserve_0, table.reserve_1) == (12, 600, 600)
    assert table.deadline == clock.now + timedelta(seconds=612)
    mover = on_turn(match, alice, bob)
    side = 0 if mover == alice else 1
    clock.advance(10)  # inside the delay: the reserve is untouched
    match = act(match, mover, "move", play=game_of(match)["legal_plays"][0])
    table.refresh_from_db()
    assert (table.reserve_0, table.reserve_1)[side] == 600
    other = on_turn(match, alice, bob)
    assert table.deadline == clock.now + timedelta(seconds=612)
    clock.advance(20)  # 8 s past the delay
    match = act(match, other, "roll")
    table.refresh_from_db()
    assert table.deadline == clock.now - timedelta(seconds=20) + timedelta(seconds=612)
    assert (table.reserve_0, table.reserve_1)[1 - side] == 600  # rolling then moving: one turn
    game = game_of(match)
    if game["turn"] == other.username and game["phase"] == "move":
        match = act(match, other, "move", play=game["legal_plays"][0])
    table.refresh_from_db()
    assert (table.reserve_0, table.reserve_1)[1 - side] == 592
    detail = selectors.match_clock(match, now=clock.now)
    assert detail[other.username] == 592


def test_a_timeout_before_the_deadline_or_for_another_turn_does_nothing(alice, bob, clock):
    match = start(alice, bob, length=3, clock={"delay": 5, "reserve": 10})
    table = Table.objects.get(pk=match.table_id)
    clock.advance(14)
    assert table_engine.table_timeout(table_id=table.pk, turn_no=table.turn_no) is False
    clock.advance(2)
    assert table_engine.table_timeout(table_id=table.pk, turn_no=table.turn_no - 1) is False
    assert table_engine.table_timeout(table_id=table.pk, turn_no=table.turn_no + 1) is False
    assert Action.objects.filter(table=table).count() == 1


def test_on_expiry_the_side_out_of_time_loses_the_match_once(alice, bob, clock):
    match = start(alice, bob, length=3, clock={"delay": 5, "reserve": 10})
    late = on_turn(match, alice, bob)
    table = Table.objects.get(pk=match.table_id)
    version = table.version
    clock.advance(15.5)
    assert table_engine.table_timeout(table_id=table.pk, turn_no=table.turn_no) is True
    assert table_engine.table_timeout(table_id=table.pk, turn_no=table.turn_no) is False
    match.refresh_from_db()
    table.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    assert match.ended_by == MatchResult.EndedBy.TIMEOUT
    assert match.winner != late
    assert match.result.loser == late and match.result.ended_by == "timeout"
    assert selectors.match_detail(match)["score"][match.winner.username] == 3
    assert table.version == version + 1 and table.deadline is None
    assert list(Action.objects.filter(table=table).values_list("kind", flat=True)) == [
        "start",
        "forfeit",
    ]


def test_the_sweep_applies_a_deadline_whose_task_was_lost(alice, bob, carol, clock):
    lost = start(alice, bob, length=3, clock="blitz")
    running = start(carol, bob, length=3, clock="standard")
    clock.advance(8 + 60 + 1)  # past blitz's delay and its reserve for a match to 3
    assert table_engine.tables_sweep() == 1
    lost.refresh_from_db()
    running.refresh_from_db()
    assert lost.ended_by == "timeout"
    assert running.status == Match.Status.PLAYING
    assert table_engine.tables_sweep() == 0


def test_an_unrated_match_set_to_autoplay_plays_on_for_the_side_out_of_time(alice, bob, clock):
    match = start(
        alice, bob, length=3, rated=False, clock={"delay": 5, "reserve": 10}, on_timeout="autoplay"
    )
    late = on_turn(match, alice, bob)
    table = Table.objects.get(pk=match.table_id)
    turn_no = table.turn_no
    clock.advance(16)
    assert table_engine.table_timeout(table_id=table.pk, turn_no=turn_no) is True
    match.refresh_from_db()
    table.refresh_from_db()
    assert match.status == Match.Status.PLAYING
    assert game_of(match)["turn"] != late.username
    assert (table.reserve_0, table.reserve_1)[0 if late == alice else 1] == 0
    played = Action.objects.filter(table=table).exclude(kind="start")
    assert all(row.by_server and row.actor is None for row in played)
    assert table.deadline == clock.now + timedelta(seconds=15)


def test_correspondence_gives_48_hours_a_move(alice, bob, clock):
    match = start(alice, bob, length=1, clock="correspondence")
    table = Table.objects.get(pk=match.table_id)
    assert table.deadline == clock.now + timedelta(hours=48)


def test_beat_sweeps_every_few_seconds_and_the_worker_knows_both_tasks(settings):
    app.loader.import_default_modules()
    sweep = settings.CELERY_BEAT_SCHEDULE["matches-sweep"]
    assert sweep["task"] == "matches.sweep" and sweep["schedule"] <= 5
    assert {"matches.sweep", table_engine.TIMEOUT_TASK} <= set(app.tasks)


def test_a_money_session_lost_on_time_ends_and_settles(alice, bob, clock):
    match = start(
        alice, bob, length=0, rated=False, stake=Decimal("3.00"), clock={"delay": 5, "reserve": 5}
    )
    late = on_turn(match, alice, bob)
    clock.advance(11)
    assert table_engine.tables_sweep() == 1
    match.refresh_from_db()
    other = bob if late == alice else alice
    assert match.status == Match.Status.FINISHED and match.ended_by == "timeout"
    # No checker borne off: the game is lost as a gammon (docs/rules-core.md, Forfeits).
    assert selectors.match_detail(match)["score"] == {late.username: 0, other.username: 2}
    assert club_selectors.player_balance(player=other) == Decimal("6.00")
    assert club_selectors.player_balance(player=late) == Decimal("-6.00")


def test_one_broken_table_does_not_stop_the_sweep(alice, bob, carol, clock, caplog):
    broken = start(alice, bob, length=3, clock={"delay": 1, "reserve": 1})
    fine = start(carol, bob, length=3, clock={"delay": 1, "reserve": 1})
    Table.objects.filter(pk=broken.table_id).update(state={"not": "a game"})
    clock.advance(3)
    assert table_engine.tables_sweep() == 1
    fine.refresh_from_db()
    assert fine.ended_by == "timeout"
    assert f"table {broken.table_id}: the timeout of turn" in caplog.text


def test_a_timeout_that_loses_the_race_to_a_move_does_nothing(alice, bob, clock, monkeypatch):
    match = start(alice, bob, length=3, clock={"delay": 1, "reserve": 1})
    table = Table.objects.get(pk=match.table_id)
    clock.advance(3)
    real_save = services.MatchTurn.save

    def racing_save(work):
        # As on SQLite: a player's action commits between the timeout's read and write.
        Table.objects.filter(pk=work.table.pk).update(version=F("version") + 1)
        real_save(work)

    monkeypatch.setattr(services.MatchTurn, "save", racing_save)
    assert table_engine.table_timeout(table_id=table.pk, turn_no=table.turn_no) is False
    assert Action.objects.filter(table=table).count() == 1
    match.refresh_from_db()
    assert match.status == Match.Status.PLAYING


def test_the_tasks_call_the_services(alice, bob, clock):
    match = start(alice, bob, length=3, clock={"delay": 1, "reserve": 1})
    table = Table.objects.get(pk=match.table_id)
    assert tasks.table_timeout.apply(args=[table.pk, table.turn_no]).get() is False
    clock.advance(3)
    assert tasks.sweep.apply().get() == 1
    assert tasks.table_timeout.apply(args=[table.pk, table.turn_no]).get() is False


def test_the_sweep_leaves_a_deadline_just_passed_to_its_task(alice, bob, clock):
    match = start(alice, bob, length=3, clock={"delay": 1, "reserve": 1})
    table = Table.objects.get(pk=match.table_id)
    clock.advance(2 + table_engine.SWEEP_GRACE / 2)
    assert table_engine.tables_sweep() == 0
    clock.advance(table_engine.SWEEP_GRACE)
    assert table_engine.tables_sweep() == 1
    assert table_engine.table_timeout(table_id=table.pk, turn_no=table.turn_no) is False


def test_one_task_a_period_of_the_clock_applies_after_the_roll(
    alice, bob, clock, monkeypatch, django_capture_on_commit_callbacks
):
    """Rolling then moving is one period: the deadline stands, no new task is sent, and
    the task sent at the period's start still applies after the roll."""
    sent = []
    monkeypatch.setattr(table_engine, "_schedule", lambda *task: sent.append(task))
    match = start(alice, bob, length=3, clock={"delay": 5, "reserve": 10})
    table = Table.objects.get(pk=match.table_id)
    game = game_of(match)
    mover = on_turn(match, alice, bob)
    with django_capture_on_commit_callbacks(execute=True):
        match = act(match, mover, "move", play=game["legal_plays"][0])
    table.refresh_from_db()
    period_start, deadline = table.deadline_turn, table.deadline
    assert sent == [(table.pk, period_start, deadline)]
    other = on_turn(match, alice, bob)
    with django_capture_on_commit_callbacks(execute=True):
        match = act(match, other, "roll")
    assert len(sent) == 1  # the deadline stands: no second task
    table.refresh_from_db()
    assert (table.deadline_turn, table.deadline) == (period_start, deadline)
    assert table.turn_no == period_start + 1
    clock.advance(16)
    assert table_engine.table_timeout(table_id=table.pk, turn_no=period_start) is True
    match.refresh_from_db()
    assert match.ended_by == "timeout" and match.winner == mover
