"""The demo club's chouette (``manage.py load_demo`` calls ``load_demo``): an open
recorded session of five with a few games, the first time only."""

from collections.abc import Callable
from decimal import Decimal
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import OutputWrapper

from chouette import selectors, services
from chouette.models import Chouette
from club import selectors as club_selectors

PLAYERS = ["alice", "bob", "carol", "dave", "erin"]


def _everyone(stake: int = 1) -> Callable[[list[str]], list[dict[str, Any]]]:
    return lambda line: [{"player": name, "stake": stake, "outcome": "played"} for name in line]


def _captain_passes(line: list[str]) -> list[dict[str, Any]]:
    """The box doubles everyone; the captain passes, the others take."""
    return [
        {
            "player": name,
            "stake": 1 if index == 0 else 2,
            "outcome": "passed" if index == 0 else "played",
        }
        for index, name in enumerate(line)
    ]


# (winner, result, the members' entries from the line of that game)
GAMES: list[tuple[str, str, Callable[[list[str]], list[dict[str, Any]]]]] = [
    ("box", "single", _everyone()),
    ("team", "gammon", _everyone(2)),
    ("team", "single", _captain_passes),
    ("box", "gammon", _everyone()),
]


def load_demo(*, out: OutputWrapper) -> None:
    """Open the demo chouette (its scorekeeper the staff ``admin``) and record its games,
    unless there is a chouette already."""
    if Chouette.objects.exists():
        return
    recorded_by = get_user_model().objects.get(username="admin")
    players = [club_selectors.player_get(username=name) for name in PLAYERS]
    chouette = services.chouette_create(
        players=players,
        order=players,
        stake=Decimal("1.00"),
        cube=Chouette.Cube.MULTIPLE,
        recorded_by=recorded_by,
    )
    for winner, result, members in GAMES:
        line = list(selectors.chouette_seating(chouette=chouette).line)
        services.chouette_game_record(
            chouette=chouette,
            record={"winner": winner, "result": result, "members": members(line)},
            recorded_by=recorded_by,
        )
        chouette.refresh_from_db()
    out.write(f"Demo chouette #{chouette.pk}: {len(GAMES)} games recorded.")
