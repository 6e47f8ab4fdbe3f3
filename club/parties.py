"""Who pays and who is paid: a player, or the club's cash, named ``"club"``."""

from typing import Final, Literal, TypeAlias

from django.utils.translation import gettext as _

from club.models import Player

CLUB: Final = "club"
Party: TypeAlias = Player | Literal["club"]


def party_name(party: Party) -> str:
    """How the API and the forms name a party: the player's username, or ``"club"``."""
    return party.username if isinstance(party, Player) else CLUB


def party_label(party: Party, *, in_sentence: bool = False) -> str:
    """How people read a party: the player's display name, or the club, on its own ("The
    club", a page's table) or inside a sentence ("Payment from the club to Alice": the
    languages of the club decline it there)."""
    if isinstance(party, Player):
        return party.display_name
    return _("the club") if in_sentence else _("The club")
