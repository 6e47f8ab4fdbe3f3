"""Replay every game on the server from its action log and compare with the stored state.

Exits 0 saying how many tables agree, or non-zero naming every table whose log does not
replay or replays to another state than the one stored.
"""

from collections.abc import Iterable
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from matches import selectors
from matches.models import Table
from web.progress import progress


class Command(BaseCommand):
    help = "Replay every game from its action log and compare it with the stored state."

    def handle(self, *args: Any, **options: Any) -> None:
        checked = 0

        def watched(tables: Iterable[Table], total: int) -> Iterable[Table]:
            nonlocal checked
            checked = total
            return progress(tables, total=total, label="tables", out=self.stdout)

        problems = selectors.tables_check(progress=watched)
        summary = f"{len(problems)} table(s) of {checked} do not replay to their stored state."
        if problems:
            raise CommandError("\n".join([*problems, summary]))
        self.stdout.write(f"Every game replays to its stored state: {checked} tables checked.")
