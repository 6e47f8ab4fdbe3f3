"""Replace the club's database with a backup (docs/operations.md, "Backups").

Stop the club first (its web, worker, clock and beat). The file is checked before
anything is touched (a whole backup of this kind of database); a database that holds
the club's data is replaced only after a "yes" typed at the prompt, or with ``--force``.
"""

import time
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from web import backup
from web.progress import progress_reporter


class Command(BaseCommand):
    help = "Replace the club's database with a backup made by club_backup."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", type=Path, help="The backup file.")
        parser.add_argument(
            "--force",
            action="store_true",
            help="Replace a database that holds data without asking.",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        path: Path = options["path"]
        try:
            backup.backup_check(path=path)
        except backup.BackupError as exc:
            raise CommandError(str(exc)) from exc
        if backup.database_holds_data() and not options["force"]:
            answer = input(
                "The database holds the club's data, which the backup will replace. "
                "Type 'yes' to go on: "
            )
            if answer.strip() != "yes":
                raise CommandError("Nothing restored: the database is as it was.")
        started = time.perf_counter()
        try:
            backup.backup_restore(
                path=path, progress=progress_reporter(label="pages", out=self.stdout)
            )
        except backup.BackupError as exc:
            raise CommandError(str(exc)) from exc
        seconds = time.perf_counter() - started
        self.stdout.write(f"Restored {path} in {seconds:.2f} s.")
