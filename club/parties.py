"""Who pays and who is paid: a player, or the club's cash, named ``"club"``."""

from typing import Final, Literal, TypeAlias

from django.utils.translation import gettext as _

from club.models import Player

CLUB: Final = "club"
Party: TypeAlias = Player | Literal["club"]


def party_name(party: Party) -> str:
    """How the API and the forms name a party: the player's username, or ``"club"``."""
    return party.username if isinstance(party, Player) else CLUB


def party_label(party: Party) -> str:
    """How a page or a memo names a party: the player's display name, or "the club"."""
    return party.display_name if isinstance(party, Player) else _("the club")
