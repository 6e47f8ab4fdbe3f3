"""The demo club's chouettes (``manage.py load_demo`` calls ``load_demo``): an open
recorded session of five with a few games, and an online one of four whose first game is
on (each player's own board at ``/chouettes/<id>/play/``), the first time only."""

from collections.abc import Callable
from decimal import Decimal

from django.contrib.auth import get_user_model
from django.core.management.base import OutputWrapper

from backgammon.chouette import MemberEntry
from chouette import online, selectors, services
from chouette.models import Chouette
from club import selectors as club_selectors

PLAYERS = ["alice", "bob", "carol", "dave", "erin"]
ONLINE_PLAYERS = ["frank", "alice", "bob", "carol"]  # the box first


def _everyone(stake: int = 1) -> Callable[[list[str]], list[MemberEntry]]:
    return lambda line: [{"player": name, "stake": stake, "outcome": "played"} for name in line]


def _captain_passes(line: list[str]) -> list[MemberEntry]:
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
GAMES: list[tuple[str, str, Callable[[list[str]], list[MemberEntry]]]] = [
    ("box", "single", _everyone()),
    ("team", "gammon", _everyone(2)),
    ("team", "single", _captain_passes),
    ("box", "gammon", _everyone()),
]


def load_demo(*, out: OutputWrapper) -> None:
    """Open the demo chouettes (their scorekeeper the staff ``admin``): record the games of
    the recorded one, start the online one's first game; unless there is a chouette
    already."""
    if Chouette.objects.exists():
        return
    recorded_by = get_user_model().objects.get(username="admin")
    players = [club_selectors.player_get(username=name) for name in PLAYERS]
    chouette = services.chouette_create(
        players=players,
        order=players,
        recorded_by=recorded_by,
        options=services.ChouetteOptions(stake=Decimal("1.00"), cube=Chouette.Cube.MULTIPLE),
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
    seated = [club_selectors.player_get(username=name) for name in ONLINE_PLAYERS]
    played = services.chouette_create(
        players=seated,
        order=seated,
        recorded_by=recorded_by,
        options=services.ChouetteOptions(
            stake=Decimal("1.00"), cube=Chouette.Cube.MULTIPLE, mode=Chouette.Mode.ONLINE
        ),
    )
    online.chouette_game_start(chouette=played, by=seated[0])
    out.write(f"Demo online chouette #{played.pk}: its first game is on.")
