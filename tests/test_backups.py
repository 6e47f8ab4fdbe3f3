"""Backups (web/backup.py, docs/operations.md "Backups"): a club with players, books and
games played, backed up, wiped and restored, keeps every ledger balance and replays every
game from its action log to its stored position; a restore checks its file and does not
replace the club's data unasked; beat's nightly backup keeps the newest.

The round trip runs on the database of the run: SQLite here (a file: the backup API reads
it from a connection of its own), PostgreSQL in ``.ci/run``'s second run (pg_dump and
pg_restore), and the checks of one engine alone are marked so (``sqlite``,
``postgresql``: tests/conftest.py deselects them on the other).
"""

import io
import os
import sqlite3
import time
from datetime import datetime
from decimal import Decimal
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection
from django.utils import timezone

from club import selectors as club_selectors
from club import services as club_services
from club.models import Account, Leg, Player, Transaction
from club.parties import CLUB
from config.celery import app
from matches import selectors as matches_selectors
from matches import services as matches_services
from matches.models import Action, Table
from web import backup, tasks

ON_POSTGRESQL = settings.DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql"


def _play(match, players, actions):
    """``actions`` rolls and moves of the game on, each by the player on turn."""
    for _ in range(actions):
        game = matches_selectors.match_detail(match)["game"]
        (player,) = [p for p in players if p.username == game["turn"]]
        if game["phase"] == "roll":
            act, play = "roll", ""
        else:
            act, play = "move", game["legal_plays"][0]
        match = matches_services.match_act(
            match=match, player=player, turn_no=game["turn_no"], act=act, play=play
        )
    return match


@pytest.fixture
def club_in_play(make_player, staff):
    """Four players, payments and rated results on the books, a match finished (a double
    passed), two matches under way a few dozen actions in and an invitation unanswered."""
    alice, bob, carol, dave = (make_player(name) for name in ("alice", "bob", "carol", "dave"))
    for payer, amount in ((alice, "12.50"), (bob, "7.25"), (carol, "30.00")):
        club_services.payment_record(
            payer=payer, payee=CLUB, amount=Decimal(amount), recorded_by=staff.user
        )
    club_services.payment_record(
        payer=CLUB, payee=dave, amount=Decimal("4.75"), recorded_by=staff.user
    )
    club_services.match_result_record(winner=alice, loser=bob, length=5, recorded_by=staff.user)
    club_services.match_result_record(winner=carol, loser=dave, length=3, recorded_by=staff.user)
    for creator, opponent, actions in ((alice, bob, 25), (carol, dave, 40)):
        match = matches_services.match_create(
            creator=creator, opponent=opponent, options=matches_services.MatchOptions(length=5)
        )
        _play(
            matches_services.match_accept(match=match, player=opponent),
            (creator, opponent),
            actions,
        )
    finished = matches_services.match_create(
        creator=bob, opponent=carol, options=matches_services.MatchOptions(length=1)
    )
    finished = matches_services.match_accept(match=finished, player=carol)
    for act in ("move", "double", "pass"):
        game = matches_selectors.match_detail(finished)["game"]
        (player,) = [p for p in (bob, carol) if p.username == game["turn"]]
        play = game["legal_plays"][0] if act == "move" else ""
        finished = matches_services.match_act(
            match=finished, player=player, turn_no=game["turn_no"], act=act, play=play
        )
    assert finished.status == "finished"
    matches_services.match_create(
        creator=dave, opponent=alice, options=matches_services.MatchOptions(length=3)
    )


def club_books():
    """Every account's balance, every table's stored position and turn, and the logs."""
    return {
        "balances": {
            account.pk: club_selectors.account_balance(account=account)
            for account in Account.objects.order_by("pk")
        },
        "tables": {
            table.pk: (table.state, table.turn_no, table.game_number)
            for table in Table.objects.order_by("pk")
        },
        "actions": Action.objects.count(),
        "legs": Leg.objects.count(),
        "players": Player.objects.count(),
    }


def wipe():
    call_command("flush", interactive=False, verbosity=0)
    assert not Account.objects.exists() and not Table.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_a_restored_backup_keeps_every_balance_and_replays_every_game(club_in_play, tmp_path):
    before = club_books()
    assert len(before["tables"]) == 4 and before["actions"] > 60
    assert any(balance != 0 for balance in before["balances"].values())
    assert matches_selectors.tables_check() == []
    out = io.StringIO()
    call_command("club_backup", "--dir", str(tmp_path), stdout=out)
    (path,) = backup.backups_listed(directory=tmp_path)
    assert path.suffix == (".pgdump" if ON_POSTGRESQL else ".sqlite3")
    assert f"Backed up to {path}" in out.getvalue()
    assert "pages:" in out.getvalue() or ON_POSTGRESQL  # SQLite's steps shown

    wipe()
    call_command("club_restore", str(path), stdout=io.StringIO())

    assert club_books() == before
    assert matches_selectors.tables_check() == []
    assert club_selectors.ledger_total() == 0
    call_command("ledger_check", stdout=io.StringIO())
    call_command("matches_check", stdout=io.StringIO())


@pytest.mark.django_db(transaction=True)
def test_a_restore_does_not_replace_the_clubs_data_unasked(club_in_play, tmp_path, monkeypatch):
    path = backup.backup_create(directory=tmp_path)
    Player.objects.filter(user__username="dave").update(display_name="Changed since")
    monkeypatch.setattr("builtins.input", lambda prompt: "no")
    with pytest.raises(CommandError, match="Nothing restored"):
        call_command("club_restore", str(path), stdout=io.StringIO())
    assert Player.objects.get(user__username="dave").display_name == "Changed since"
    monkeypatch.setattr("builtins.input", lambda prompt: "yes")
    call_command("club_restore", str(path), stdout=io.StringIO())
    assert Player.objects.get(user__username="dave").display_name == "Dave"


@pytest.mark.sqlite
@pytest.mark.django_db(transaction=True)
def test_play_goes_on_while_sqlite_is_backed_up_in_steps(
    club_in_play, staff, tmp_path, monkeypatch
):
    """A payment made while the backup is between two of its steps commits at once (no
    lock held between steps; WAL lets a writer by a reader), and the backup, which SQLite
    starts again after a write, finishes whole with the payment in it."""
    monkeypatch.setattr(backup, "SQLITE_STEP_PAGES", 5)
    paid = []

    def pay_once(done, total):
        if not paid:
            paid.append(
                club_services.payment_record(
                    payer=CLUB,
                    payee=Player.objects.get(user__username="alice"),
                    amount=Decimal("1.00"),
                    recorded_by=staff.user,
                )
            )

    steps = []
    path = backup.backup_create(
        directory=tmp_path, progress=lambda done, total: (steps.append(done), pay_once(done, total))
    )
    assert len(steps) > 2 and paid
    transactions = Transaction._meta.db_table
    copy = sqlite3.connect(path)
    try:
        (count,) = copy.execute(f"SELECT count(*) FROM {transactions}").fetchone()
    finally:
        copy.close()
    assert count == Transaction.objects.count()


@pytest.mark.django_db
def test_a_file_that_is_not_a_whole_backup_is_refused_and_nothing_touched(make_player, tmp_path):
    make_player("alice")
    not_a_backup = tmp_path / "notes.txt"
    not_a_backup.write_text("hello")
    truncated = tmp_path / "club-20260101-000000.sqlite3"
    truncated.write_bytes(backup.SQLITE_HEADER + b"\x10\x00" + b"\x00" * 200)
    for path in (not_a_backup, truncated, tmp_path / "missing.sqlite3"):
        with pytest.raises(CommandError):
            call_command("club_restore", str(path), "--force", stdout=io.StringIO())
    assert Player.objects.filter(user__username="alice").exists()


@pytest.mark.postgresql
@pytest.mark.django_db(transaction=True)
def test_on_postgresql_a_backup_is_pg_dumps_custom_format_and_a_cut_one_is_refused(
    make_player, tmp_path
):
    make_player("alice")
    path = backup.backup_create(directory=tmp_path)
    assert path.read_bytes().startswith(backup.POSTGRESQL_HEADER)
    backup.backup_check(path=path)
    cut = tmp_path / "club-20260101-000000.pgdump"
    cut.write_bytes(path.read_bytes()[: path.stat().st_size // 3])
    with pytest.raises(backup.BackupError):
        backup.backup_check(path=cut)
    sqlite_file = tmp_path / "club-20260101-000001.sqlite3"
    sqlite_file.write_bytes(backup.SQLITE_HEADER + b"\x00" * 100)
    with pytest.raises(backup.BackupError, match="not a pg_dump backup"):
        backup.backup_check(path=sqlite_file)
    assert connection.introspection.table_names()


def _backup_file(directory: Path, stamp: str, days_old: float) -> Path:
    path = directory / f"club-{stamp}.sqlite3"
    path.write_bytes(b"")
    moment = time.time() - days_old * 86400
    os.utime(path, (moment, moment))
    return path


def test_pruning_keeps_the_newest_and_those_younger_than_the_days_kept(tmp_path):
    old = [_backup_file(tmp_path, f"2026010{n}-040000", days_old=30 - n) for n in range(1, 6)]
    recent = [_backup_file(tmp_path, f"2026012{n}-040000", days_old=5 - n) for n in range(1, 4)]
    (tmp_path / "notes.txt").write_text("not a backup")
    pruned = backup.backups_prune(directory=tmp_path, keep=2, keep_days=10)
    assert sorted(pruned) == sorted(old)
    assert backup.backups_listed(directory=tmp_path) == sorted(recent, reverse=True)
    assert (tmp_path / "notes.txt").exists()
    assert (
        backup.backups_prune(directory=tmp_path, keep=1, keep_days=0)
        == sorted(recent, reverse=True)[1:]
    )


def test_the_nightly_backup_is_on_beats_schedule():
    entry = settings.CELERY_BEAT_SCHEDULE["backup-nightly"]
    assert entry["task"] == "web.backup_nightly" == tasks.backup_nightly.name
    assert entry["task"] in app.tasks
    assert entry["schedule"].hour == {4} and entry["schedule"].minute == {0}


@pytest.mark.django_db(transaction=True)
def test_the_nightly_task_backs_up_and_prunes(make_player, tmp_path, settings):
    make_player("alice")
    settings.BACKUP_DIR = tmp_path
    settings.BACKUP_KEEP = 2
    settings.BACKUP_KEEP_DAYS = 0
    for day in (1, 2):
        backup.backup_create(
            directory=tmp_path, now=timezone.make_aware(datetime(2026, 1, day, 4, 0))
        )
    made = Path(tasks.backup_nightly.apply().get())
    assert backup.backups_listed(directory=tmp_path)[0] == made
    assert [p.name for p in backup.backups_listed(directory=tmp_path)][1:] == [
        "club-20260102-040000" + made.suffix
    ]
