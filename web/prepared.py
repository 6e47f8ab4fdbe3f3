"""The table engine's hot queries with their SQL compiled once, not at every request.

An action at a board is a few queries, and the ORM compiles each one's SQL again at every
request: for the locked read of a match (its table, both players, their users and their
play settings: 91 columns over eight tables) that compilation was about a third of the
request's CPU, the query's own execution a tenth of it (bench/README.md, "The hot
queries compiled once"). These run the very SQL the ORM writes (``OneRow``: compiled by
the ORM itself, once per process; ``row_update``, ``rows_insert``: the ORM's statements
for the same fields), through the connection's cursor (its execute wrappers: the query
log, the bench's counts), and read or write values as the ORM does (its converters, its
``from_db`` and ``select_related``'s populators; each field's ``get_db_prep_save`` and
``pre_save``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from django.db import DEFAULT_DB_ALIAS, connections
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import Field, Model, QuerySet
from django.db.models.query import get_related_populators
from django.db.transaction import TransactionManagementError

M = TypeVar("M", bound=Model)

# The value a ``OneRow`` query is compiled with: the compiled parameters' places of it
# are where each call's value goes. No row has it as a key.
_MARK = -7_340_033_117


@dataclass(frozen=True)
class _Plan:
    """A ``OneRow`` query compiled on one thread's connection: what ``ModelIterable``
    works out from the compiler at each query, worked out once."""

    alias: str
    sql: str
    params: tuple[Any, ...]  # with ``_MARK`` where the value goes
    locks: bool  # ``select_for_update``: only inside a transaction
    converters: tuple[tuple[int, tuple[Callable[..., Any], ...], Any], ...]
    model: type[Model]
    start: int
    end: int
    init_list: tuple[str, ...]
    populators: tuple[Any, ...]
    annotations: tuple[tuple[str, int], ...]


class OneRow(Generic[M]):
    """The one row (or none) a queryset of a fixed shape finds by one value, such as
    ``OneRow(lambda pk: Match.objects.select_related(...).filter(pk=pk))``: the same SQL,
    rows and model instances as the queryset's, its SQL compiled at the process's first
    call. Every other parameter of the queryset is fixed by that first compilation, so
    none may depend on the moment or the request.

    The plan is the process's, not each thread's: every thread's connection to the alias
    has the same settings, so the compiler writes the same SQL for each, and nothing in
    the plan changes once made (the converters and populators only read it). A web
    process of a thousand threads compiled it once per thread (about 2 ms each, a few
    hundred times at the peak's start: bench/README.md, "Every process's CPU")."""

    def __init__(self, build: Callable[[Any], QuerySet[M]]) -> None:
        self._build = build
        self._made: _Plan | None = None
        self._making = threading.Lock()

    def _plan_made(self) -> _Plan:
        with self._making:
            if self._made is None:
                self._made = self._plan()
            return self._made

    def get(self, value: Any) -> M | None:
        plan = self._made or self._plan_made()
        connection = connections[plan.alias]
        if plan.locks and connection.get_autocommit():
            raise TransactionManagementError(
                "select_for_update cannot be used outside of a transaction."
            )
        params = [value if param == _MARK else param for param in plan.params]
        with _cursor_preparing(connection) as cursor:
            cursor.execute(plan.sql, params)
            found = cursor.fetchone()
        if found is None:
            return None
        row = list(found)
        for position, converters, expression in plan.converters:
            converted = row[position]
            for converter in converters:
                converted = converter(converted, expression, connection)
            row[position] = converted
        instance = plan.model.from_db(plan.alias, plan.init_list, row[plan.start : plan.end])
        for populator in plan.populators:
            populator.populate(row, instance)
        for name, position in plan.annotations:
            setattr(instance, name, row[position])
        return instance  # type: ignore[return-value]  # the queryset's model

    def _plan(self) -> _Plan:
        queryset = self._build(_MARK)
        alias = queryset.db
        compiler = queryset.query.get_compiler(using=alias)
        sql, params = compiler.as_sql()
        if _MARK not in params:
            raise ValueError("OneRow: the queryset does not use the value it is built with")
        select, info = compiler.select, compiler.klass_info
        assert info is not None  # a queryset of model instances
        fields = info["select_fields"]
        start, end = fields[0], fields[-1] + 1
        converters = compiler.get_converters([column[0] for column in select[: compiler.col_count]])
        return _Plan(
            alias=alias,
            sql=sql,
            params=tuple(params),
            locks=bool(queryset.query.select_for_update),
            converters=tuple(
                (position, tuple(functions), expression)
                for position, (functions, expression) in converters.items()
            ),
            model=info["model"],
            start=start,
            end=end,
            init_list=tuple(column[0].target.attname for column in select[start:end]),
            # Django 5.2's signature (the stubs have a later one's).
            populators=tuple(get_related_populators(info, select, alias)),  # type: ignore[call-arg]
            annotations=tuple(compiler.annotation_col_map.items()),
        )


@contextmanager
def _cursor_preparing(connection: BaseDatabaseWrapper) -> Iterator[Any]:
    """The connection's cursor (its wrappers: the query log, the request log's database
    time, the bench's counts), binding its parameters on the server where the connection
    prepares statements: PostgreSQL through Django's pool, whose connections outlive the
    requests (psycopg's ``prepare_threshold`` set, config/settings.py). There psycopg
    prepares the statement at its first run on each connection and PostgreSQL plans it
    once, not at every request: the locked read's plan, eight tables joined, was about
    0.7 ms of PostgreSQL's CPU an action, more than running it (bench/README.md, "Every
    process's CPU"). Elsewhere (SQLite, a connection a request) Django's own cursor, whose
    parameters are bound in the client and nothing is prepared."""
    with connection.cursor() as plain:
        raw = connection.connection
        if getattr(raw, "prepare_threshold", None) is None:
            yield plain
            return
        from psycopg import Cursor
        from psycopg.pq import Format

        server = Cursor(raw)
        # Django's cursor reads times in the connection's time zone (``create_cursor``).
        timestamptz = raw.adapters.types["timestamptz"].oid
        loader = plain.cursor.adapters.get_loader(timestamptz, Format.TEXT)
        server.adapters.register_loader(timestamptz, loader)
        with type(plain)(server, connection) as cursor:
            yield cursor


def _quote(connection: BaseDatabaseWrapper, name: str | None) -> str:
    assert name is not None  # a concrete field's column
    return str(connection.ops.quote_name(name))


def _concrete(model: type[Model], name: str) -> Field[Any, Any]:
    field = model._meta.get_field(name)
    assert isinstance(field, Field) and field.concrete, name  # a column of its own
    return field


# Each statement ``row_update`` wrote (with its fields) and each ``values_insert`` wrote,
# by the database's vendor, the model and the names: written once, read by every thread.
_statements: dict[tuple[Any, ...], tuple[str, tuple[Any, ...], tuple[Any, ...]]] = {}
_inserts: dict[tuple[Any, ...], str] = {}


def _update_sql(
    connection: BaseDatabaseWrapper,
    model: type[Model],
    names: tuple[str, ...],
    keys: tuple[str, ...],
) -> tuple[str, tuple[Any, ...], tuple[Any, ...]]:
    key = ("update", connection.vendor, model, names, keys)
    found = _statements.get(key)
    if found is None:
        meta = model._meta
        written = tuple(_concrete(model, name) for name in names)
        where = tuple(_concrete(model, name) for name in keys)
        sql = "UPDATE {table} SET {values} WHERE {keys}".format(
            table=_quote(connection, meta.db_table),
            values=", ".join(f"{_quote(connection, field.column)} = %s" for field in written),
            keys=" AND ".join(f"{_quote(connection, field.column)} = %s" for field in where),
        )
        found = _statements[key] = (sql, written, where)
    return found


def row_update(model: type[Model], *, where: Mapping[str, Any], values: Mapping[str, Any]) -> int:
    """``model.objects.filter(**where).update(**values)`` for plain values of concrete
    fields (no expressions, no relations), as one ``UPDATE`` whose SQL is written once per
    set of names; the number of rows changed."""
    connection = connections[DEFAULT_DB_ALIAS]
    sql, written, keys = _update_sql(connection, model, tuple(values), tuple(where))
    params = [field.get_db_prep_save(values[field.name], connection) for field in written]
    params += [field.get_db_prep_value(where[field.name], connection) for field in keys]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return int(cursor.rowcount)


def _array_type(connection: BaseDatabaseWrapper, field: Field[Any, Any]) -> str:
    """The column's type without its size (``varchar``, not ``varchar(60)``): an array
    of its values is not cut to it."""
    column_type = field.db_type(connection)
    assert column_type is not None  # a concrete field's column
    return column_type.split("(")[0]


def _insert_sql(connection: BaseDatabaseWrapper, model: type[Model], names: tuple[str, ...]) -> str:
    """The ``INSERT`` of the fields ``names``: on PostgreSQL of many rows, a column's
    values as one array (``UNNEST``, as ``bulk_create`` writes it: few parameters, a
    statement psycopg converts once); elsewhere of one row, which ``executemany`` runs
    for each."""
    unnest = connection.vendor == "postgresql"
    key = (connection.vendor, model, names)
    sql = _inserts.get(key)
    if sql is None:
        fields = tuple(_concrete(model, name) for name in names)
        if unnest:
            arrays = ", ".join(f"(%s)::{_array_type(connection, field)}[]" for field in fields)
            rows = f"SELECT * FROM UNNEST({arrays})"
        else:
            rows = "VALUES ({})".format(", ".join(["%s"] * len(fields)))
        sql = _inserts[key] = "INSERT INTO {table} ({columns}) {rows}".format(
            table=_quote(connection, model._meta.db_table),
            columns=", ".join(_quote(connection, field.column) for field in fields),
            rows=rows,
        )
    return sql


def values_insert(
    model: type[Model], names: tuple[str, ...], rows: Sequence[Sequence[Any]]
) -> None:
    """New rows of ``model`` (an automatic key, no parent model), each the values of the
    fields ``names`` as the database takes them (numbers, text, booleans, keys: nothing
    for a field to convert), with the SQL written once: on PostgreSQL one statement of
    the columns' arrays; elsewhere (SQLite) one row's statement run for each row
    (``executemany``: prepared once and bound row by row inside sqlite3, where a
    statement of many rows' placeholders cost Django a rewrite of its text and, with
    ``DEBUG``, a query quoting each value for the log: 300 decisions stored in 6 ms, were
    10). For hundreds of rows made from plain values (an analysis' decisions), without a
    model instance each."""
    if not rows:
        return
    connection = connections[DEFAULT_DB_ALIAS]
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            columns = [list(column) for column in zip(*rows, strict=True)]
            cursor.execute(_insert_sql(connection, model, names), columns)
            return
        cursor.executemany(_insert_sql(connection, model, names), rows)


def rows_insert(model: type[Model], rows: Iterable[Model]) -> None:
    """``model.objects.bulk_create(rows)`` for new rows of a model with an automatic key
    and no parent model: their values prepared as the ORM prepares them, then written by
    ``values_insert``; the new keys are not read back (nothing reads them)."""
    rows = list(rows)
    connection = connections[DEFAULT_DB_ALIAS]
    fields = [field for field in model._meta.concrete_fields if not field.primary_key]
    values_insert(
        model,
        tuple(field.name for field in fields),
        [
            [field.get_db_prep_save(field.pre_save(row, True), connection) for field in fields]
            for row in rows
        ],
    )
    for row in rows:
        row._state.adding = False
        row._state.db = DEFAULT_DB_ALIAS
