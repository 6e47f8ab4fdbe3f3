"""The ledger's guards in the database, and an account for every existing player.

On PostgreSQL:
- a deferred constraint trigger on legs and on transactions checks, at commit, that every
  transaction written has at least two legs summing to exactly zero, however it was
  written (the ORM or raw SQL);
- a trigger refuses any UPDATE or DELETE of legs and transactions: the ledger only grows.
On SQLite, ``club.services.ledger_post`` checks the same things and the models refuse
updates and deletes; ``manage.py ledger_check`` verifies the books on either database.
"""

from django.db import migrations

CREATE_SQL = """
CREATE OR REPLACE FUNCTION club_ledger_balanced() RETURNS trigger AS $$
DECLARE
    checked_id bigint;
    leg_total numeric;
    leg_count integer;
BEGIN
    IF TG_TABLE_NAME = 'club_leg' THEN
        checked_id := NEW.transaction_id;
    ELSE
        checked_id := NEW.id;
    END IF;
    SELECT COALESCE(SUM(amount), 0), COUNT(*) INTO leg_total, leg_count
        FROM club_leg WHERE transaction_id = checked_id;
    IF leg_count < 2 THEN
        RAISE EXCEPTION 'ledger transaction % has % leg(s); a transaction has at least two',
            checked_id, leg_count USING ERRCODE = 'check_violation';
    END IF;
    IF leg_total <> 0 THEN
        RAISE EXCEPTION 'ledger transaction % does not balance: its legs sum to %',
            checked_id, leg_total USING ERRCODE = 'check_violation';
    END IF;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE CONSTRAINT TRIGGER club_leg_balanced
    AFTER INSERT ON club_leg
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION club_ledger_balanced();

CREATE CONSTRAINT TRIGGER club_transaction_balanced
    AFTER INSERT ON club_transaction
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION club_ledger_balanced();

CREATE OR REPLACE FUNCTION club_ledger_append_only() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'the ledger is append-only: % on % is refused; post a reversal',
        TG_OP, TG_TABLE_NAME USING ERRCODE = 'restrict_violation';
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER club_leg_append_only
    BEFORE UPDATE OR DELETE ON club_leg
    FOR EACH ROW EXECUTE FUNCTION club_ledger_append_only();

CREATE TRIGGER club_transaction_append_only
    BEFORE UPDATE OR DELETE ON club_transaction
    FOR EACH ROW EXECUTE FUNCTION club_ledger_append_only();
"""

DROP_SQL = """
DROP TRIGGER IF EXISTS club_transaction_append_only ON club_transaction;
DROP TRIGGER IF EXISTS club_leg_append_only ON club_leg;
DROP FUNCTION IF EXISTS club_ledger_append_only();
DROP TRIGGER IF EXISTS club_transaction_balanced ON club_transaction;
DROP TRIGGER IF EXISTS club_leg_balanced ON club_leg;
DROP FUNCTION IF EXISTS club_ledger_balanced();
"""


def create_guards(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(CREATE_SQL, params=None)


def drop_guards(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(DROP_SQL, params=None)


def open_accounts(apps, schema_editor):
    """The club's own accounts, and one for every player who has none."""
    Account = apps.get_model("club", "Account")
    Player = apps.get_model("club", "Player")
    for kind in ("club_cash", "prize_pool", "fees"):
        Account.objects.get_or_create(kind=kind, player=None)
    for player in Player.objects.filter(account__isnull=True):
        Account.objects.create(kind="player", player=player)


class Migration(migrations.Migration):
    dependencies = [("club", "0002_ledger_and_ratings")]

    operations = [
        migrations.RunPython(create_guards, drop_guards),
        migrations.RunPython(open_accounts, migrations.RunPython.noop),
    ]
