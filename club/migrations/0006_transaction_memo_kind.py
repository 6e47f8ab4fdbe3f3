"""Each ledger transaction's memo as a kind and its parameters (club.memos), read in the
reader's language; the existing rows given theirs from their memo's text.

The ledger is append-only: no entry's amounts, accounts, dates or text change here. The
two columns are new, and filling them from the memo each row already has (its English
text, or the Bulgarian, Greek or Romanian one a memo was written in when its writer
read that language) changes no entry's meaning: this one schema step lifts the
append-only trigger on PostgreSQL for its own UPDATE, under the table's lock, and puts
it back in the same transaction. A memo no kind reads (a payment's note, "Cash") stays
``text``: it is shown as written.
"""

from django.conf import settings
from django.db import migrations, models

from club.memos import MemoKind, memo_parser

MEMO_LENGTH = 200  # the memo column's length: a memo this long may have been cut
TRIGGER = "club_transaction_append_only"


def give_memos_their_kind(apps, schema_editor):
    Transaction = apps.get_model("club", "Transaction")
    rows = Transaction._base_manager.using(schema_editor.connection.alias)
    parse = memo_parser([code for code, _name in settings.LANGUAGES], longest=MEMO_LENGTH)
    read = []
    for pk, memo, kind in rows.values_list("pk", "memo", "kind").iterator():
        memo_kind, params = parse(memo, kind)
        if memo_kind != MemoKind.TEXT:
            read.append((pk, memo_kind, params))
    if not read:
        return
    postgresql = schema_editor.connection.vendor == "postgresql"
    if postgresql:
        schema_editor.execute(f"ALTER TABLE club_transaction DISABLE TRIGGER {TRIGGER}")
    for pk, memo_kind, params in read:
        rows.filter(pk=pk).update(memo_kind=memo_kind, memo_params=params)
    if postgresql:
        schema_editor.execute(f"ALTER TABLE club_transaction ENABLE TRIGGER {TRIGGER}")


class Migration(migrations.Migration):
    dependencies = [
        ("club", "0005_tavli_rating"),
    ]

    operations = [
        migrations.AddField(
            model_name="transaction",
            name="memo_kind",
            field=models.CharField(
                choices=[
                    ("text", "written by hand"),
                    ("payment", "payment"),
                    ("reversal", "reversal"),
                    ("money_session", "money session"),
                    ("entry_fee", "entry fee"),
                    ("entry_fee_refunded", "entry fee refunded"),
                    ("buy_back", "buy-back"),
                    ("prizes", "prizes"),
                    ("chouette_leaves", "a chouette player leaves"),
                    ("chouette_settlement", "chouette settlement"),
                ],
                default="text",
                db_default="text",
                max_length=30,
                verbose_name="memo kind",
            ),
        ),
        migrations.AddField(
            model_name="transaction",
            name="memo_params",
            field=models.JSONField(
                blank=True,
                db_default=models.Value({}, models.JSONField()),
                default=dict,
                verbose_name="memo parameters",
            ),
        ),
        migrations.RunPython(give_memos_their_kind, migrations.RunPython.noop),
    ]
