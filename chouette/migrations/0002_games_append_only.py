"""On PostgreSQL, a trigger refuses any UPDATE or DELETE of a chouette's game rows and
their points, however it is written (the ORM or raw SQL): an undo is a reversing row.
On SQLite the models refuse the same (``club.models.AppendOnlyModel``)."""

from django.db import migrations

from web.migration_operations import RefuseChanges

REFUSAL = "a chouette's games are append-only; undo the game"


class Migration(migrations.Migration):
    dependencies = [("chouette", "0001_initial")]

    operations = [
        RefuseChanges(table="chouette_chouettegame", refusal=REFUSAL),
        RefuseChanges(table="chouette_gamepoints", refusal=REFUSAL),
    ]
