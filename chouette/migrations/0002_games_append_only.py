"""On PostgreSQL, a trigger refuses any UPDATE or DELETE of a chouette's game rows and
their points, however it is written (the ORM or raw SQL): an undo is a reversing row.
On SQLite the models refuse the same (``chouette.models.AppendOnlyModel``)."""

from django.db import migrations

CREATE_SQL = """
CREATE OR REPLACE FUNCTION chouette_games_append_only() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'a chouette''s games are append-only: % on % is refused; undo the game',
        TG_OP, TG_TABLE_NAME USING ERRCODE = 'restrict_violation';
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER chouette_game_append_only
    BEFORE UPDATE OR DELETE ON chouette_chouettegame
    FOR EACH ROW EXECUTE FUNCTION chouette_games_append_only();

CREATE TRIGGER chouette_points_append_only
    BEFORE UPDATE OR DELETE ON chouette_gamepoints
    FOR EACH ROW EXECUTE FUNCTION chouette_games_append_only();
"""

DROP_SQL = """
DROP TRIGGER IF EXISTS chouette_points_append_only ON chouette_gamepoints;
DROP TRIGGER IF EXISTS chouette_game_append_only ON chouette_chouettegame;
DROP FUNCTION IF EXISTS chouette_games_append_only();
"""


def create_guards(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(CREATE_SQL, params=None)


def drop_guards(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(DROP_SQL, params=None)


class Migration(migrations.Migration):
    dependencies = [("chouette", "0001_initial")]

    operations = [migrations.RunPython(create_guards, drop_guards)]
