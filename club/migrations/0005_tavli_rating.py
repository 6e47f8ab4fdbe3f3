"""The tavli rating: each player's own tavli rating and experience (1500 and 0 for
everyone, since no tavli match could be rated before), and each result's rating kind.
Every result recorded until now keeps its numbers and is backgammon's: the tavli
matches among them were unrated, so none of them moved a rating."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("club", "0004_recorded"),
    ]

    operations = [
        migrations.AddField(
            model_name="matchresult",
            name="rating_kind",
            field=models.CharField(
                choices=[("backgammon", "backgammon"), ("tavli", "tavli")],
                default="backgammon",
                help_text="Which rating a rated result moves: backgammon's (FIBS) or the tavli one.",
                max_length=20,
                verbose_name="rating",
            ),
        ),
        migrations.AddField(
            model_name="player",
            name="tavli_experience",
            field=models.PositiveIntegerField(
                default=0,
                help_text="The sum of the lengths of the rated tavli matches the player has finished.",
                verbose_name="tavli experience",
            ),
        ),
        migrations.AddField(
            model_name="player",
            name="tavli_rating",
            field=models.FloatField(default=1500.0, verbose_name="tavli rating"),
        ),
    ]
