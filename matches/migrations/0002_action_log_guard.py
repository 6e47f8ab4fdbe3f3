"""On PostgreSQL, a trigger refuses any UPDATE or DELETE of a game's action log, as the
ledger's does: the log only grows (on SQLite the model and its queryset refuse them)."""

from django.db import migrations

CREATE_SQL = """
CREATE OR REPLACE FUNCTION matches_action_append_only() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'the action log is append-only: % on % is refused',
        TG_OP, TG_TABLE_NAME USING ERRCODE = 'restrict_violation';
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER matches_action_append_only
    BEFORE UPDATE OR DELETE ON matches_action
    FOR EACH ROW EXECUTE FUNCTION matches_action_append_only();
"""

DROP_SQL = """
DROP TRIGGER IF EXISTS matches_action_append_only ON matches_action;
DROP FUNCTION IF EXISTS matches_action_append_only();
"""


def create_guard(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(CREATE_SQL, params=None)


def drop_guard(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(DROP_SQL, params=None)


class Migration(migrations.Migration):
    dependencies = [("matches", "0001_tables_and_matches")]

    operations = [migrations.RunPython(create_guard, drop_guard)]
