"""The practice robot (docs/practice.md): the players' ``robot`` strength, and one robot
player a strength, each a user that cannot log in (inactive, no usable password)."""

from django.conf import settings
from django.contrib.auth.hashers import make_password
from django.db import migrations, models

ROBOTS = {
    "beginner": "Robot (beginner)",
    "intermediate": "Robot (intermediate)",
    "expert": "Robot (expert)",
}


def robots_create(apps, schema_editor):
    user_model = apps.get_model(*settings.AUTH_USER_MODEL.split("."))
    player_model = apps.get_model("club", "Player")
    for strength, name in ROBOTS.items():
        user, _created = user_model.objects.get_or_create(
            username=f"robot-{strength}",
            defaults={"is_active": False, "password": make_password(None)},
        )
        player_model.objects.get_or_create(
            user=user, defaults={"display_name": name, "robot": strength}
        )


def robots_delete(apps, schema_editor):
    player_model = apps.get_model("club", "Player")
    player_model.objects.exclude(robot="").delete()


class Migration(migrations.Migration):
    dependencies = [
        ("club", "0006_transaction_memo_kind"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="player",
            name="robot",
            field=models.CharField(
                blank=True,
                choices=[
                    ("beginner", "beginner"),
                    ("intermediate", "intermediate"),
                    ("expert", "expert"),
                ],
                default="",
                help_text="The practice robot's strength; empty for a member.",
                max_length=20,
                verbose_name="robot",
            ),
        ),
        migrations.RunPython(robots_create, robots_delete),
    ]
