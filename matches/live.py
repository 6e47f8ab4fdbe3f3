"""The matches app's topics on the live channel (``web.live``): ``table:<id>``, the
table's ``version``, and its state: the match body exactly as ``GET /api/matches/{id}/``
answers it, which is the same for every viewer (players and watchers alike), so a
follower redraws from the live answer without fetching the match. Any member may watch
any table (issue 8: watching a match)."""

from collections.abc import Collection

from matches import selectors
from matches.models import Table
from web import clock, live

# A table id in a topic: the digits of a BigAutoField, no more.
MAX_ID_DIGITS = 18


def _table_ids(keys: Collection[str]) -> set[int]:
    return {
        int(key) for key in keys if key.isascii() and key.isdigit() and len(key) <= MAX_ID_DIGITS
    }


def table_versions(keys: Collection[str]) -> dict[str, int]:
    """The version of each table named by ``keys`` that exists, in one query."""
    versions = live.versions_by_id(Table, _table_ids(keys))
    return {str(table_id): version for table_id, version in versions.items()}


def table_states(keys: Collection[str]) -> dict[str, tuple[int, selectors.MatchDetail]]:
    """The version and match body of each table named by ``keys`` that a match owns, in
    one query (a chouette's table has no match body: left out)."""
    now = clock.now()
    states = {}
    for match in selectors.match_queryset().filter(table_id__in=_table_ids(keys)):
        body = selectors.match_detail(match, now=now)
        states[str(match.table_id)] = (body["version"], body)
    return states


def register() -> None:
    live.topic_register(name="table", versions=table_versions, states=table_states)
