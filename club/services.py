"""Every write the club makes: keyword-only functions, each one transaction."""

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils.translation import gettext as _

from club.errors import Invalid
from club.models import Player


@transaction.atomic
def player_create(
    *, username: str, password: str, display_name: str = "", is_staff: bool = False
) -> Player:
    """Create a member: a Django user and their player, or refuse a taken username."""
    user_model = get_user_model()
    if user_model.objects.filter(username__iexact=username).exists():
        raise Invalid(_("The username %(username)s is taken.") % {"username": username})
    user = user_model.objects.create_user(username=username, password=password)
    if is_staff:
        user.is_staff = True
        user.is_superuser = True
        user.save(update_fields=["is_staff", "is_superuser"])
    return Player.objects.create(user=user, display_name=display_name or username)
