"""The matches app's topics on the live channel (``club.live``): ``table:<id>``, the
table's ``version``, and its state: the match body exactly as ``GET /api/matches/{id}/``
answers it, which is the same for every viewer (players and watchers alike), so a
follower redraws from the live answer without fetching the match. Any member may watch
any table (issue 8: watching a match)."""

from collections.abc import Collection
from typing import Any

from django.db import connection
from django.utils import timezone

from club import live
from matches import selectors
from matches.models import Table

# A table id in a topic: the digits of a BigAutoField, no more.
MAX_ID_DIGITS = 18


def _table_ids(keys: Collection[str]) -> set[int]:
    return {
        int(key) for key in keys if key.isascii() and key.isdigit() and len(key) <= MAX_ID_DIGITS
    }


def table_versions(keys: Collection[str]) -> dict[str, int]:
    """The version of each table named by ``keys`` that exists, in one query.

    Written in SQL, the one the ORM writes for
    ``Table.objects.filter(id__in=...).values_list("id", "version")``: it is the live
    channel's most frequent query (each watcher's tick, each live request the watcher has
    not just answered), and compiling it through the ORM cost 0.35 ms of CPU a call
    against 0.10 ms for the whole of this (bench/README.md, "A live request")."""
    ids = sorted(_table_ids(keys))
    if not ids:
        return {}
    meta = Table._meta
    id_column, version_column = meta.pk.column, meta.get_field("version").column
    assert id_column is not None and version_column is not None  # concrete fields
    quote = connection.ops.quote_name
    sql = "SELECT {id}, {version} FROM {table} WHERE {id} IN ({ids})".format(
        id=quote(id_column),
        version=quote(version_column),
        table=quote(meta.db_table),
        ids=", ".join(["%s"] * len(ids)),
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, ids)
        return {str(table_id): version for table_id, version in cursor.fetchall()}


def table_states(keys: Collection[str]) -> dict[str, tuple[int, dict[str, Any]]]:
    """The version and match body of each table named by ``keys`` that a match owns, in
    one query (a chouette's table has no match body: left out)."""
    now = timezone.now()
    states = {}
    for match in selectors.match_queryset().filter(table_id__in=_table_ids(keys)):
        body = selectors.match_detail(match, now=now)
        states[str(match.table_id)] = (body["version"], body)
    return states


def register() -> None:
    live.topic_register(name="table", versions=table_versions, states=table_states)
