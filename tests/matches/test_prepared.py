"""The table engine's queries compiled once (``web.prepared``) read and write exactly what
the ORM's own queries do: the same SQL, rows, values and related objects (on SQLite and,
in CI's second run, PostgreSQL)."""

from datetime import timedelta

import pytest
from django.db import connection, transaction
from django.db.transaction import TransactionManagementError
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from matches import services
from matches.models import Action, Match, PlaySettings, Table
from tests.matches.conftest import start
from web.prepared import OneRow, row_update, rows_insert, values_insert


def values_of(instance):
    """Every concrete column of a model instance, by attribute name."""
    return {
        field.attname: getattr(instance, field.attname) for field in instance._meta.concrete_fields
    }


def build(pk):
    return (
        Match.objects.select_for_update(of=("table", "self"))
        .select_related("table", *services._PLAYERS)
        .filter(pk=pk)
    )


@pytest.mark.django_db
def test_the_locked_read_is_the_orms_read(alice, bob, django_assert_num_queries):
    PlaySettings.objects.create(player=alice, auto_roll=True)  # bob has none
    match = start(alice, bob)
    with transaction.atomic():
        orm = build(match.pk).get()
        with CaptureQueriesContext(connection) as theirs:
            list(build(match.pk))
        with CaptureQueriesContext(connection) as ours:
            found = services._LOCKED_MATCH.get(match.pk)
    assert [q["sql"] for q in ours.captured_queries] == [q["sql"] for q in theirs.captured_queries]
    assert values_of(found) == values_of(orm)
    with django_assert_num_queries(0):  # every related row read with it, as select_related does
        assert values_of(found.table) == values_of(orm.table)
        for side in ("creator", "opponent"):
            mine, theirs_ = getattr(found, side), getattr(orm, side)
            assert values_of(mine) == values_of(theirs_)
            assert values_of(mine.user) == values_of(theirs_.user)
        assert found.creator.play_settings.auto_roll is True
        with pytest.raises(PlaySettings.DoesNotExist):
            found.opponent.play_settings  # noqa: B018  (known missing, as the ORM knows)
    assert isinstance(found.table.state, dict) and found.table.deadline is None
    assert found._state.adding is False and found._state.db == "default"


@pytest.mark.postgresql
@pytest.mark.django_db
def test_through_the_pool_the_locked_read_is_prepared_once_and_reads_the_same(
    alice, bob, monkeypatch
):
    """A connection that prepares statements (Django's pool: config/settings.py) runs the
    same SQL, prepared at its first run and reused, through the same wrappers (each run
    counted in the query log, whose text Django cannot read back from a prepared run)."""
    PlaySettings.objects.create(player=alice, auto_roll=True)
    match = start(alice, bob)
    connection.ensure_connection()
    monkeypatch.setattr(connection.connection, "prepare_threshold", 0)
    with transaction.atomic():
        orm = build(match.pk).get()
        with CaptureQueriesContext(connection) as ours:
            found = [services._LOCKED_MATCH.get(match.pk) for _ in range(3)]
        with connection.cursor() as cursor:
            cursor.execute("SELECT statement FROM pg_prepared_statements")
            prepared = [row[0] for row in cursor.fetchall() if "FOR UPDATE OF" in row[0]]
    assert len(ours.captured_queries) == 3
    assert len(prepared) == 1 and '"matches_match"."id" = $1' in prepared[0]
    for read in found:
        assert values_of(read) == values_of(orm)
        assert values_of(read.table) == values_of(orm.table)
        assert values_of(read.creator.user) == values_of(orm.creator.user)
        assert read.creator.play_settings.auto_roll is True
        assert read.table.updated_at.utcoffset() == orm.table.updated_at.utcoffset()


@pytest.mark.django_db
def test_a_missing_row_is_none():
    with transaction.atomic():
        assert services._LOCKED_MATCH.get(987654) is None


@pytest.mark.django_db(transaction=True)
def test_a_locking_read_outside_a_transaction_is_refused(alice, bob):
    match = start(alice, bob)
    with pytest.raises(TransactionManagementError):
        services._LOCKED_MATCH.get(match.pk)


def test_a_queryset_that_ignores_its_value_is_refused():
    ignoring = OneRow(lambda pk: Match.objects.filter(pk=1))
    with pytest.raises(ValueError, match="does not use the value"):
        ignoring.get(5)


@pytest.mark.django_db
def test_row_update_writes_as_the_orms_update(alice, bob):
    table = start(alice, bob).table
    later = timezone.now() + timedelta(minutes=3)
    values = {"version": table.version + 1, "state": {"a": [1, None]}, "deadline": later,
              "clock_started": None, "reserve_0": 12.5, "phase": "move"}  # fmt: skip
    stale = {"id": table.pk, "version": table.version + 7}
    assert row_update(Table, where=stale, values=values) == 0
    assert row_update(Table, where={"id": table.pk, "version": table.version}, values=values) == 1
    written = Table.objects.get(pk=table.pk)
    assert {name: getattr(written, name) for name in values} == values


@pytest.mark.django_db
def test_rows_insert_writes_as_bulk_create(alice, bob):
    table = start(alice, bob).table
    at = timezone.now()
    rows = [
        Action(table=table, game_number=9, seq=seq, turn_no=40, kind="move", actor=actor,
               by_server=actor is None, payload={"play": "24/18", "seq": seq}, at=at)
        for seq, actor in ((0, alice), (1, None))
    ]  # fmt: skip
    rows_insert(Action, [])
    rows_insert(Action, rows)
    assert all(not row._state.adding for row in rows)
    stored = Action.objects.filter(table=table, game_number=9).order_by("seq")
    assert [
        (a.seq, a.actor_id, a.by_server, a.payload, a.at, a.kind, a.turn_no) for a in stored
    ] == [(r.seq, r.actor_id, r.by_server, r.payload, r.at, r.kind, r.turn_no) for r in rows]


@pytest.mark.django_db
def test_rows_insert_writes_hundreds_of_rows_in_one_statement(alice, bob):
    """An analysis stores hundreds of decisions: PostgreSQL takes them as one statement
    of a column's values an array; SQLite as one row's statement run for each row
    (``executemany``), logged once."""
    table = start(alice, bob).table
    at = timezone.now()
    rows = [
        Action(table=table, game_number=9, seq=seq, turn_no=seq, kind="move", actor=alice,
               by_server=False, payload={"play": "24/18", "seq": seq}, at=at)
        for seq in range(250)
    ]  # fmt: skip
    with CaptureQueriesContext(connection) as inserts:
        rows_insert(Action, rows)
    assert len(inserts) == 1
    stored = Action.objects.filter(table=table, game_number=9).order_by("seq")
    assert [(a.seq, a.turn_no, a.payload) for a in stored] == [
        (r.seq, r.turn_no, r.payload) for r in rows
    ]


@pytest.mark.django_db
def test_values_insert_writes_plain_values_of_the_named_fields(alice, bob):
    """Rows given as the values of some fields (the others take their defaults), as the
    database takes them: a key by its field's name, booleans, text."""
    table = start(alice, bob).table
    names = ("table", "game_number", "seq", "turn_no", "kind", "by_server", "payload", "at")
    at = timezone.now()
    rows = [(table.pk, 8, seq, seq, "roll", True, '{"dice": [3, 1]}', at) for seq in range(3)]
    values_insert(Action, names, [])
    values_insert(Action, names, rows)
    stored = Action.objects.filter(table=table, game_number=8).order_by("seq")
    assert [(a.seq, a.kind, a.by_server, a.payload, a.actor_id) for a in stored] == [
        (seq, "roll", True, {"dice": [3, 1]}, None) for seq in range(3)
    ]
