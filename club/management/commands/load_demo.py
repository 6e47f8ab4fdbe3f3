"""Load the demo club (idempotent): a staff ``admin`` and six players, for ``make run``."""

from datetime import timedelta
from decimal import Decimal
from importlib import import_module
from typing import Any

from django.apps import apps
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone
from django.utils.module_loading import module_has_submodule

from club import selectors, services
from club.models import Account, MatchResult, RatingKind, SourceKind, Transaction
from club.parties import CLUB
from club.services import LegSpec
from web.progress import progress

# A few results of matches played on a real board: (winner, loser, length, days ago).
# (winner, loser, length, days ago, the rating it moves)
DEMO_RESULTS = [
    ("alice", "bob", 5, 20, RatingKind.BACKGAMMON),
    ("carol", "alice", 7, 18, RatingKind.BACKGAMMON),
    ("bob", "alice", 5, 16, RatingKind.TAVLI),
    ("alice", "dave", 3, 15, RatingKind.BACKGAMMON),
    ("erin", "frank", 5, 12, RatingKind.BACKGAMMON),
    ("dave", "bob", 3, 10, RatingKind.TAVLI),
    ("bob", "carol", 9, 9, RatingKind.BACKGAMMON),
    ("alice", "erin", 5, 6, RatingKind.BACKGAMMON),
    ("alice", "dave", 5, 5, RatingKind.TAVLI),
    ("frank", "dave", 1, 4, RatingKind.BACKGAMMON),
    ("alice", "carol", 11, 2, RatingKind.BACKGAMMON),
]

DEMO_PLAYERS = [
    ("alice", "Alice"),
    ("bob", "Bob"),
    ("carol", "Carol"),
    ("dave", "Dave"),
    ("erin", "Erin"),
    ("frank", "Frank"),
]


class Command(BaseCommand):
    help = "Create the demo club: staff admin/admin and players alice..frank (password demo)."

    def handle(self, *args: Any, **options: Any) -> None:
        if not settings.DEBUG:
            raise CommandError("The demo club is only loaded with DEBUG on, never in production.")
        users = get_user_model().objects
        accounts = [("admin", "admin", "Club admin", True)] + [
            (username, "demo", name, False) for username, name in DEMO_PLAYERS
        ]
        created = 0
        for username, password, name, staff in progress(
            accounts, total=len(accounts), label="demo players", out=self.stdout
        ):
            if not users.filter(username=username).exists():
                services.player_create(
                    username=username, password=password, display_name=name, is_staff=staff
                )
                created += 1
        self._demo_books()
        self._demo_apps()
        self.stdout.write(f"Demo club ready ({created} accounts created). Log in as:")
        for username, password, name, staff in accounts:
            role = "staff" if staff else "player"
            self.stdout.write(f"  {username:<8} password {password:<6} ({role}: {name})")

    def _demo_apps(self) -> None:
        """Each app's own demo: ``<app>.demo.load_demo(out=...)``, where an app has one
        (the club names no app above it)."""
        for config in apps.get_app_configs():
            if module_has_submodule(config.module, "demo"):
                import_module(f"{config.name}.demo").load_demo(out=self.stdout)

    def _demo_books(self) -> None:
        """Some rated results and a club night in the books, the first time only."""
        if MatchResult.objects.exists() or Transaction.objects.exists():
            return
        player = {name: selectors.player_get(username=name) for name, _ in DEMO_PLAYERS}
        admin = get_user_model().objects.get(username="admin")
        now = timezone.now()
        for winner, loser, length, days_ago, kind in DEMO_RESULTS:
            services.match_result_record(
                winner=player[winner],
                loser=player[loser],
                length=length,
                rating_kind=kind,
                played_at=now - timedelta(days=days_ago),
                recorded_by=admin,
            )
        night = {"alice": "45.00", "bob": "-20.00", "carol": "-15.00", "dave": "-15.00"}
        legs = [
            LegSpec(
                account=services.account_open_for_player(player=player[name]),
                amount=Decimal(amount),
            )
            for name, amount in night.items()
        ]
        fees = services.club_account_open(kind=Account.Kind.FEES)
        services.ledger_post(
            legs=[*legs, LegSpec(account=fees, amount=Decimal("5.00"))],
            memo="Demo chouette night (club fee 5.00)",
            kind=SourceKind.CHOUETTE,
            recorded_by=admin,
            at=now - timedelta(days=3),
        )
        services.payment_record(
            payer=player["bob"],
            payee=CLUB,
            amount=Decimal("20.00"),
            recorded_by=admin,
            at=now - timedelta(days=1),
        )
