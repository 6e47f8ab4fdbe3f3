from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ClubConfig(AppConfig):
    name = "club"
    verbose_name = _("Club")

    def ready(self) -> None:
        from django.contrib.auth import get_user_model
        from django.db.models.signals import post_delete, post_save
        from rest_framework.authtoken.models import Token

        from club import auth
        from club.models import Player

        # A token's user and player are cached (club/auth.py): any change of the three
        # drops the entry at once. Bulk writes send no signals: ratings_rebuild drops
        # its players' entries itself.
        for model, receiver in (
            (Token, auth.token_changed),
            (get_user_model(), auth.user_changed),
            (Player, auth.player_changed),
        ):
            for name, signal in (("saved", post_save), ("deleted", post_delete)):
                uid = f"club.auth.{model.__name__}.{name}"
                signal.connect(receiver, sender=model, dispatch_uid=uid)
