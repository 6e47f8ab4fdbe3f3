"""On PostgreSQL, a trigger refuses any UPDATE or DELETE of a chouette's game rows and
their points, however it is written (the ORM or raw SQL): an undo is a reversing row.
On SQLite the models refuse the same (``chouette.models.AppendOnlyModel``)."""

from django.db import migrations

from club.db_guards import append_only


class Migration(migrations.Migration):
    dependencies = [("chouette", "0001_initial")]

    operations = [
        append_only(
            function="chouette_games_append_only",
            tables=["chouette_chouettegame", "chouette_gamepoints"],
            what="a chouette''s game",
        )
    ]
