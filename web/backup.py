"""Backups of the club's database and their restore (docs/operations.md, "Backups").

SQLite (the embedded default): SQLite's online backup API, page by page, from a
connection of its own: each step reads a snapshot while play's writes go on beside it
(WAL: a reader never holds back a writer), and a write committed between two steps makes
SQLite start the copy again, so the steps are large and back to back. PostgreSQL:
``pg_dump``'s custom format, one consistent snapshot that never holds back a write;
``pg_restore`` in one transaction (all of it or nothing).

A restore replaces the whole database: the club is stopped first (docs/operations.md).
It checks the file before touching anything: a backup of this kind of database, whole.
"""

import os
import sqlite3
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connections
from django.utils import timezone

# (pages copied, pages in all): how a long backup or restore shows its progress.
Progress = Callable[[int, int], None]

SQLITE_SUFFIX = ".sqlite3"
POSTGRESQL_SUFFIX = ".pgdump"
SQLITE_HEADER = b"SQLite format 3\x00"
POSTGRESQL_HEADER = b"PGDMP"
# Pages a step of SQLite's backup copies (4 KiB each: 64 MiB): the demo club in one.
SQLITE_STEP_PAGES = 16384
STAMP = "%Y%m%d-%H%M%S"


class BackupError(Exception):
    """A backup that could not be taken or a file that cannot be restored, saying why."""


@dataclass(frozen=True)
class Database:
    """The ``default`` database as the backup tools need it: its engine, and its
    connection settings as text (empty: not set)."""

    engine: str  # "sqlite" or "postgresql"
    name: str  # SQLite's file, PostgreSQL's database
    host: str = ""
    port: str = ""
    user: str = ""
    password: str = ""

    @property
    def suffix(self) -> str:
        return SQLITE_SUFFIX if self.engine == "sqlite" else POSTGRESQL_SUFFIX


def default_database() -> Database:
    database = connections["default"].settings_dict
    engine = database["ENGINE"].rsplit(".", 1)[-1]
    if engine == "sqlite3":
        return Database("sqlite", str(database["NAME"]))
    if engine == "postgresql":
        return Database(
            "postgresql",
            str(database["NAME"]),
            host=str(database.get("HOST") or ""),
            port=str(database.get("PORT") or ""),
            user=str(database.get("USER") or ""),
            password=str(database.get("PASSWORD") or ""),
        )
    raise BackupError(f"Backups know SQLite and PostgreSQL, not {database['ENGINE']}.")


def _postgresql_command(tool: str, database: Database) -> tuple[list[str], dict[str, str]]:
    """The tool's connection arguments and environment (the password never on the
    command line, where ``ps`` shows it)."""
    args = [tool, "--dbname", database.name]
    if database.host:
        args += ["--host", database.host]
    if database.port:
        args += ["--port", database.port]
    if database.user:
        args += ["--username", database.user]
    env = {**os.environ}
    if database.password:
        env["PGPASSWORD"] = database.password
    return args, env


def _run(args: list[str], env: dict[str, str]) -> str:
    try:
        done = subprocess.run(args, env=env, capture_output=True, text=True, check=False)
    except FileNotFoundError as exc:
        raise BackupError(f"{args[0]} is not installed (PostgreSQL's client tools).") from exc
    if done.returncode != 0:
        raise BackupError(f"{args[0]} failed: {done.stderr.strip()}")
    return done.stdout


def _sqlite_copy(source: sqlite3.Connection, target: sqlite3.Connection, on: Progress) -> None:
    def step(_status: int, remaining: int, total: int) -> None:
        on(total - remaining, total)

    source.backup(target, pages=SQLITE_STEP_PAGES, progress=step, sleep=0)


def backup_create(
    *, directory: Path, progress: Progress | None = None, now: datetime | None = None
) -> Path:
    """Back the database up into a new file in ``directory`` (made if missing), named by
    the time: ``club-20261206-033000.sqlite3`` or ``.pgdump``. Written beside its final
    name and renamed, so a file there is always a whole backup."""
    database = default_database()
    directory.mkdir(parents=True, exist_ok=True)
    stamp = timezone.localtime(now or timezone.now()).strftime(STAMP)
    path = directory / f"club-{stamp}{database.suffix}"
    partial = path.with_name(path.name + ".partial")
    on = progress or (lambda done, total: None)
    try:
        if database.engine == "sqlite":
            source = sqlite3.connect(database.name)
            target = sqlite3.connect(partial)
            try:
                _sqlite_copy(source, target, on)
                # One file, whatever the club's journal: no -wal beside it to lose.
                target.execute("PRAGMA journal_mode=DELETE")
            finally:
                target.close()
                source.close()
        else:
            args, env = _postgresql_command("pg_dump", database)
            _run([*args, "--format", "custom", "--file", str(partial)], env)
        partial.replace(path)
    finally:
        partial.unlink(missing_ok=True)
    return path


def backup_check(*, path: Path) -> None:
    """Refuse a file that is not a whole backup of this kind of database."""
    database = default_database()
    if not path.is_file():
        raise BackupError(f"There is no file {path}.")
    with path.open("rb") as file:
        header = file.read(len(SQLITE_HEADER))
    if database.engine == "sqlite":
        if not header.startswith(SQLITE_HEADER):
            raise BackupError(f"{path} is not a SQLite database.")
        check = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            (verdict,) = check.execute("PRAGMA integrity_check").fetchone()
            migrated = check.execute(
                "SELECT count(*) FROM sqlite_master WHERE name = 'django_migrations'"
            ).fetchone()[0]
        except sqlite3.DatabaseError as exc:
            raise BackupError(f"{path} is damaged: {exc}") from exc
        finally:
            check.close()
        if verdict != "ok":
            raise BackupError(f"{path} is damaged: {verdict}")
        if not migrated:
            raise BackupError(f"{path} is not a backup of the club's database.")
    else:
        if not header.startswith(POSTGRESQL_HEADER):
            raise BackupError(f"{path} is not a pg_dump backup (custom format).")
        args, env = _postgresql_command("pg_restore", database)
        listing = _run([args[0], "--list", str(path)], env)
        if "TABLE public django_migrations" not in listing:
            raise BackupError(f"{path} is not a backup of the club's database.")


def database_holds_data() -> bool:
    """Whether the database a restore would replace holds a club: a user (a club has its
    staff at least); an empty database, migrated or not, or one flushed, holds none."""
    users = get_user_model()
    if users._meta.db_table not in connections["default"].introspection.table_names():
        return False
    return users.objects.exists()


def backup_restore(*, path: Path, progress: Progress | None = None) -> None:
    """Replace the whole database with the backup at ``path`` (checked first). SQLite:
    the backup API again, into the database file (its WAL dealt with by SQLite itself);
    PostgreSQL: ``pg_restore --clean`` in one transaction."""
    backup_check(path=path)
    database = default_database()
    on = progress or (lambda done, total: None)
    connections.close_all()
    if database.engine == "sqlite":
        source = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        target = sqlite3.connect(database.name)
        try:
            _sqlite_copy(source, target, on)
        finally:
            target.close()
            source.close()
    else:
        args, env = _postgresql_command("pg_restore", database)
        _run(
            [*args, "--clean", "--if-exists", "--no-owner", "--single-transaction", str(path)],
            env,
        )


def backups_listed(*, directory: Path) -> list[Path]:
    """The backups in ``directory``, newest first (their names sort by time)."""
    if not directory.is_dir():
        return []
    named = [
        path
        for path in directory.glob("club-*")
        if path.suffix in (SQLITE_SUFFIX, POSTGRESQL_SUFFIX)
    ]
    return sorted(named, key=lambda path: path.name, reverse=True)


def backups_prune(*, directory: Path, keep: int, keep_days: int) -> list[Path]:
    """Delete the backups past the newest ``keep`` that are also older than ``keep_days``
    days (0: no age kept): the ones deleted."""
    cutoff = time.time() - timedelta(days=keep_days).total_seconds()
    pruned = []
    for path in backups_listed(directory=directory)[keep:]:
        if keep_days == 0 or path.stat().st_mtime < cutoff:
            path.unlink()
            pruned.append(path)
    return pruned


def backup_nightly() -> Path:
    """The beat task's work: a backup into ``BACKUP_DIR``, then the old ones pruned."""
    directory = Path(settings.BACKUP_DIR)
    path = backup_create(directory=directory)
    backups_prune(
        directory=directory, keep=settings.BACKUP_KEEP, keep_days=settings.BACKUP_KEEP_DAYS
    )
    return path
