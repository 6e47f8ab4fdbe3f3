"""The club's tables: players (and, as the books arrive, the ledger and ratings)."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class Player(models.Model):
    """A club member: one Django user with the name the club knows them by."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="player"
    )
    display_name = models.CharField(_("display name"), max_length=80)
    joined_at = models.DateTimeField(_("joined"), auto_now_add=True)

    class Meta:
        ordering = ["display_name"]
        verbose_name = _("player")
        verbose_name_plural = _("players")

    def __str__(self) -> str:
        return self.display_name

    @property
    def username(self) -> str:
        return self.user.get_username()
