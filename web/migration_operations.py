"""Migration operations the apps share."""

from typing import Any

from django.db.backends.base.schema import BaseDatabaseSchemaEditor
from django.db.migrations.operations.base import Operation
from django.db.migrations.state import ProjectState


class RefuseChanges(Operation):
    """On PostgreSQL, a trigger that refuses any UPDATE or DELETE of a table's rows,
    however they are written (the ORM or raw SQL): the table only grows. On SQLite the
    models refuse the same (``club.models.AppendOnlyModel``).

    ``refusal`` is the error's text; PostgreSQL adds the operation and the table to it.
    """

    reversible = True

    def __init__(self, *, table: str, refusal: str) -> None:
        self.table = table
        self.refusal = refusal

    def deconstruct(self) -> tuple[str, list[Any], dict[str, Any]]:
        return (self.__class__.__name__, [], {"table": self.table, "refusal": self.refusal})

    def state_forwards(self, app_label: str, state: ProjectState) -> None:
        """A trigger changes no model."""

    def database_forwards(
        self,
        app_label: str,
        schema_editor: BaseDatabaseSchemaEditor,
        from_state: ProjectState,
        to_state: ProjectState,
    ) -> None:
        if schema_editor.connection.vendor != "postgresql":
            return
        message = self.refusal.replace("'", "''")
        schema_editor.execute(
            f"""
            CREATE OR REPLACE FUNCTION {self.table}_append_only() RETURNS trigger AS $$
            BEGIN
                RAISE EXCEPTION '{message}: % on % is refused', TG_OP, TG_TABLE_NAME
                    USING ERRCODE = 'restrict_violation';
            END;
            $$ LANGUAGE plpgsql;
            CREATE TRIGGER {self.table}_append_only
                BEFORE UPDATE OR DELETE ON {self.table}
                FOR EACH ROW EXECUTE FUNCTION {self.table}_append_only();
            """,
            params=None,
        )

    def database_backwards(
        self,
        app_label: str,
        schema_editor: BaseDatabaseSchemaEditor,
        from_state: ProjectState,
        to_state: ProjectState,
    ) -> None:
        if schema_editor.connection.vendor != "postgresql":
            return
        schema_editor.execute(
            f"DROP TRIGGER IF EXISTS {self.table}_append_only ON {self.table};"
            f"DROP FUNCTION IF EXISTS {self.table}_append_only();",
            params=None,
        )

    def describe(self) -> str:
        return f"Refuse UPDATE and DELETE on {self.table}"
