"""The demo club's tournaments (``manage.py load_demo``): one finished, one running
(a mixed night: one pairing online, the others on boards).

Each is made the way a director would make it, through the services, once: a
tournament of that name already there is left as it is.
"""

from decimal import Decimal
from typing import Any, TextIO

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User

from club import selectors as club_selectors
from club.models import Player
from tournaments import services
from tournaments.models import Pairing, Tournament

PLAYERS = ["alice", "bob", "carol", "dave", "erin", "frank"]
FINISHED = "Autumn knockout"
RUNNING = "Tuesday Swiss"


def _results(tournament: Tournament, *, rounds: int) -> None:
    """Decide the open pairings of the first ``rounds`` rounds: the first-named player
    wins, except at table 2, where the second does (so not every favourite goes through)."""
    for number in range(1, rounds + 1):
        pairings = Pairing.objects.filter(
            round__tournament=tournament,
            round__number=number,
            winner__isnull=True,
            second__isnull=False,
        ).select_related("first", "second", "round")
        for pairing in pairings:
            winner = pairing.second if pairing.position == 2 else pairing.first
            assert winner is not None
            services.pairing_result_record(pairing=pairing, winner=winner, recorded_by=None)


def _started(director: User, players: list[Player], **options: Any) -> Tournament:
    """A tournament made with ``options``, every demo player entered, drawn."""
    tournament = services.tournament_create(created_by=director, **options)
    for player in players:
        services.entry_add(tournament=tournament, player=player, recorded_by=director)
    return services.tournament_start(tournament=tournament)


def load_demo(*, out: TextIO) -> None:
    """The two demo tournaments, the first time only."""
    director = get_user_model().objects.get(username="admin")
    players = [club_selectors.player_get(username=name) for name in PLAYERS]
    if not Tournament.objects.filter(name=FINISHED).exists():
        knockout = _started(
            director,
            players,
            name=FINISHED,
            format="single_elimination",
            entry_fee=Decimal("10.00"),
            house_cut_percent=Decimal("10"),
            match_lengths="5, 7, 9",
            payout_table={"unit": "percent", "places": {"main": {"1": "70", "2": "30"}}},
        )
        _results(knockout, rounds=3)
        services.tournament_finish(tournament=knockout, recorded_by=director)
        out.write(f"Tournament {FINISHED!r}: finished and paid out.\n")
    if not Tournament.objects.filter(name=RUNNING).exists():
        swiss = _started(
            director,
            players,
            name=RUNNING,
            format="swiss",
            swiss_rounds=3,
            round_deadline_hours=72,
            entry_fee=Decimal("5.00"),
            payout_table={"unit": "percent", "places": {"main": {"1": "60", "2": "40"}}},
        )
        _results(swiss, rounds=1)
        # A mixed night: round 2's first table is played online, the others on boards.
        first_table = Pairing.objects.get(round__tournament=swiss, round__number=2, position=1)
        services.pairing_play_online(pairing=first_table)
        out.write(
            f"Tournament {RUNNING!r}: round 2 of 3 being played (table 1 online, the others "
            "on boards), 72 hours a round.\n"
        )
