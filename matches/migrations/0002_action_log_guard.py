"""On PostgreSQL, a trigger refuses any UPDATE or DELETE of a game's action log, as the
ledger's does: the log only grows (on SQLite the model and its queryset refuse them)."""

from django.db import migrations

from web.migration_operations import RefuseChanges


class Migration(migrations.Migration):
    dependencies = [("matches", "0001_tables_and_matches")]

    operations = [RefuseChanges(table="matches_action", refusal="the action log is append-only")]
