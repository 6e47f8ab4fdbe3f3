"""Every read the club makes that is more than a ``get``."""

from django.utils.translation import gettext as _

from club.errors import NotFound
from club.models import Player


def player_get(*, username: str) -> Player:
    """The player with that username, or ``NotFound`` in the players' words."""
    try:
        return Player.objects.select_related("user").get(user__username=username)
    except Player.DoesNotExist:
        raise NotFound(
            _("There is no player called %(username)s.") % {"username": username}
        ) from None
