"""The recorder-and-source fields of transactions and results come from one abstract
model (``Recorded``): a transaction's ``posted_by`` is now ``recorded_by`` like a
result's, and a result's source, like a transaction's, is whole or absent."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("club", "0003_ledger_guards"),
        ("contenttypes", "0002_remove_content_type_name"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RenameField(
            model_name="transaction", old_name="posted_by", new_name="recorded_by"
        ),
        migrations.AlterField(
            model_name="transaction",
            name="recorded_by",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to=settings.AUTH_USER_MODEL,
                verbose_name="recorded by",
            ),
        ),
        migrations.AddConstraint(
            model_name="matchresult",
            constraint=models.CheckConstraint(
                condition=models.Q(source_id__isnull=True, source_type__isnull=True)
                | models.Q(source_id__isnull=False, source_type__isnull=False),
                name="club_matchresult_source_whole",
            ),
        ),
    ]
