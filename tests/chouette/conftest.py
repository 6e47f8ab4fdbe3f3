"""Fixtures for the chouette app: seven members and a way to open a session."""

from decimal import Decimal

import pytest
from django.conf import settings
from django.utils import translation

from chouette import services
from tests.matches.conftest import clock  # noqa: F401  (the engine's clock, moved by hand)

NAMES = ["alice", "bob", "carol", "dave", "erin", "frank", "gina"]


@pytest.fixture(autouse=True)
def _back_to_english():
    """A page asked for in another language leaves this thread speaking it: back to
    the club's own language after each test, so later messages read as the tests say."""
    yield
    translation.activate(settings.LANGUAGE_CODE)


@pytest.fixture
def members(make_player):
    """alice..gina, real players with logins."""
    return {name: make_player(name) for name in NAMES}


@pytest.fixture
def open_chouette(members, staff):
    """Open a recorded chouette in the given order (box first), opened by staff unless
    ``by`` is given."""

    def make(*order, by=None, **options):
        players = [members[name] for name in order]
        return services.chouette_create(
            players=players,
            order=players,
            recorded_by=by or staff.user,
            options=services.ChouetteOptions(
                stake=options.pop("stake", Decimal("5.00")), **options
            ),
        )

    return make


def member(player: str, stake: int = 1, outcome: str = "played", **extra) -> dict:
    """One member's entry of API.md's recorded form."""
    return {"player": player, "stake": stake, "outcome": outcome, **extra}
