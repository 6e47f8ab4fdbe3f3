"""The errors the matches services raise beyond ``web.errors``' (each with its API code)."""

from django.utils.translation import gettext_lazy as _

from web.errors import Conflict, Forbidden, Invalid


class StaleTurn(Conflict):
    """The ``turn_no`` the client sent is not the current one (409 ``stale_turn``)."""

    code = "stale_turn"
    default_message = _("The game has moved on: that turn number is not the current one.")


class NotYourTurn(Forbidden):
    """A player of the match acting when the other must act (403 ``not_your_turn``)."""

    code = "not_your_turn"
    default_message = _("It is not your turn.")


class IllegalPlay(Invalid):
    """A play or cube action the rules refuse (400 ``illegal_play``); ``reason`` is the
    rules core's code (``blocked_point``, ``must_enter_from_bar_first``,
    ``must_use_both_dice``, ``must_play_higher_die``, ``cannot_bear_off_yet``...), or
    ``cube_not_available`` or ``invalid_notation``."""

    code = "illegal_play"
    default_message = _("The rules do not allow that.")
