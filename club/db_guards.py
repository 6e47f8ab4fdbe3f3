"""Guards the database keeps itself, for the apps' migrations.

``append_only(...)`` is a migration operation: on PostgreSQL, a trigger that refuses any
UPDATE or DELETE of the rows of some tables, however they are written (the ORM or raw
SQL); on SQLite nothing (the models and their querysets refuse the same). The ledger's
own guards are ``club/migrations/0003_ledger_guards.py``.
"""

from collections.abc import Sequence
from typing import Any

from django.db import migrations


def append_only(*, function: str, tables: Sequence[str], what: str) -> migrations.RunPython:
    """The operation creating ``function`` and one trigger per table (named after the
    table) that raise "``what`` is append-only"; reversing it drops them."""
    create = [
        f"""CREATE OR REPLACE FUNCTION {function}() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION '{what} is append-only: % on % is refused',
        TG_OP, TG_TABLE_NAME USING ERRCODE = 'restrict_violation';
END;
$$ LANGUAGE plpgsql;""",
        *(
            f"CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON {table} "
            f"FOR EACH ROW EXECUTE FUNCTION {function}();"
            for table in tables
        ),
    ]
    drop = [
        *(f"DROP TRIGGER IF EXISTS {table}_append_only ON {table};" for table in tables),
        f"DROP FUNCTION IF EXISTS {function}();",
    ]

    def run(statements: list[str]) -> Any:
        def on_postgresql(apps: Any, schema_editor: Any) -> None:
            if schema_editor.connection.vendor == "postgresql":
                for statement in statements:
                    schema_editor.execute(statement, params=None)

        return on_postgresql

    return migrations.RunPython(run(create), run(drop))
