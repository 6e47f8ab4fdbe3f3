"""The matches app's topics on the live channel (``club.live``): ``table:<id>``, the
table's ``version``. Any member may watch any table (issue 8: watching a match)."""

from collections.abc import Collection

from club import live
from matches.models import Table

# A table id in a topic: the digits of a BigAutoField, no more.
MAX_ID_DIGITS = 18


def table_versions(keys: Collection[str]) -> dict[str, int]:
    """The version of each table named by ``keys`` that exists, in one query."""
    ids = {
        int(key) for key in keys if key.isascii() and key.isdigit() and len(key) <= MAX_ID_DIGITS
    }
    rows = Table.objects.filter(id__in=ids).values_list("id", "version")
    return {str(table_id): version for table_id, version in rows}


def register() -> None:
    live.topic_register(name="table", versions=table_versions)
