"""Recompute every rating from the match results, in the order they were recorded."""

from collections.abc import Iterable, Iterator
from typing import Any

from django.core.management.base import BaseCommand

from club import services
from club.models import MatchResult
from web.progress import progress


class Command(BaseCommand):
    help = (
        "Recompute every player's FIBS rating, experience and rating history from the "
        "match results, in order; arrives at exactly the incremental numbers."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        def shown(items: Iterable[MatchResult], total: int) -> Iterator[MatchResult]:
            return progress(items, total=total, label="results", out=self.stdout)

        count = services.ratings_rebuild(progress=shown)
        self.stdout.write(f"Ratings rebuilt from {count} rated results.")
