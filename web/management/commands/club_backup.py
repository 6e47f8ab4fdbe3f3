"""Back the club's database up into a new file (docs/operations.md, "Backups").

SQLite: its online backup API, in steps, play going on beside it; PostgreSQL: pg_dump's
custom format. Prints the file's path, size and the time it took; with ``--prune``, then
deletes the old backups as beat's nightly task does (``BACKUP_KEEP``, ``BACKUP_KEEP_DAYS``).
"""

import time
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from web import backup
from web.progress import progress_reporter


class Command(BaseCommand):
    help = "Back the club's database up into a new file in BACKUP_DIR (or --dir)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--dir", type=Path, default=None, help="The directory (default: BACKUP_DIR)."
        )
        parser.add_argument(
            "--prune", action="store_true", help="Then delete the backups past BACKUP_KEEP."
        )

    def handle(self, *args: Any, **options: Any) -> None:
        directory = options["dir"] or Path(settings.BACKUP_DIR)
        started = time.perf_counter()
        try:
            path = backup.backup_create(
                directory=directory,
                progress=progress_reporter(label="pages", out=self.stdout),
            )
        except backup.BackupError as exc:
            raise CommandError(str(exc)) from exc
        seconds = time.perf_counter() - started
        size = path.stat().st_size
        self.stdout.write(f"Backed up to {path}: {size:,} bytes in {seconds:.2f} s.")
        if options["prune"]:
            for pruned in backup.backups_prune(
                directory=directory,
                keep=settings.BACKUP_KEEP,
                keep_days=settings.BACKUP_KEEP_DAYS,
            ):
                self.stdout.write(f"Deleted the old backup {pruned}.")
