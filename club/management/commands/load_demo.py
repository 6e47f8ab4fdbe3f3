"""Load the demo club (idempotent): a staff ``admin`` and six players, for ``make run``."""

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from club import services
from club.progress import progress

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

    def handle(self, *args, **options):
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
        self.stdout.write(f"Demo club ready ({created} accounts created). Log in as:")
        for username, password, name, staff in accounts:
            role = "staff" if staff else "player"
            self.stdout.write(f"  {username:<8} password {password:<6} ({role}: {name})")
