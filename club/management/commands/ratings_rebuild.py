"""Recompute every rating from the match results, in the order they were recorded."""

from django.core.management.base import BaseCommand

from club import services
from club.progress import progress


class Command(BaseCommand):
    help = (
        "Recompute every player's FIBS rating, experience and rating history from the "
        "match results, in order; arrives at exactly the incremental numbers."
    )

    def handle(self, *args, **options):
        def shown(items, total):
            return progress(items, total=total, label="results", out=self.stdout)

        count = services.ratings_rebuild(progress=shown)
        self.stdout.write(f"Ratings rebuilt from {count} rated results.")
