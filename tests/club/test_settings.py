"""Settings read from the environment refuse what they do not understand, naming it."""

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.db.utils import ConnectionHandler

from config.settings import env_bool, env_int, env_list, sqlite_options


@pytest.mark.parametrize(
    ("value", "expected"),
    [("1", True), ("TRUE", True), (" yes ", True), ("on", True), ("0", False), ("off", False),
     ("No", False), ("false", False), ("", True)],
)  # fmt: skip
def test_env_bool_reads_the_usual_spellings(monkeypatch, value, expected):
    monkeypatch.setenv("CLUB_TEST_FLAG", value)
    assert env_bool("CLUB_TEST_FLAG", True) is expected


def test_env_bool_is_the_default_when_unset(monkeypatch):
    monkeypatch.delenv("CLUB_TEST_FLAG", raising=False)
    assert env_bool("CLUB_TEST_FLAG", False) is False


@pytest.mark.parametrize("value", ["ture", "2", "enabled", "y"])
def test_env_bool_refuses_a_typo_naming_the_variable(monkeypatch, value):
    monkeypatch.setenv("SESSION_COOKIE_SECURE", value)
    with pytest.raises(ImproperlyConfigured, match=f"SESSION_COOKIE_SECURE='{value}'"):
        env_bool("SESSION_COOKIE_SECURE", True)


def test_env_list_reads_commas(monkeypatch):
    monkeypatch.setenv("ALLOWED_HOSTS", "club.example, www.club.example")
    assert env_list("ALLOWED_HOSTS", "") == ["club.example", "www.club.example"]
    monkeypatch.setenv("ALLOWED_HOSTS", "")
    assert env_list("ALLOWED_HOSTS", "localhost") == []
    monkeypatch.delenv("ALLOWED_HOSTS")
    assert env_list("ALLOWED_HOSTS", "localhost") == ["localhost"]


@pytest.mark.parametrize("value", ["club.example www.club.example", "a,,b", "a,"])
def test_env_list_refuses_items_it_cannot_tell_apart(monkeypatch, value):
    monkeypatch.setenv("ALLOWED_HOSTS", value)
    with pytest.raises(ImproperlyConfigured, match="ALLOWED_HOSTS="):
        env_list("ALLOWED_HOSTS", "")


def test_env_int_reads_a_whole_number_and_refuses_anything_else(monkeypatch):
    monkeypatch.setenv("SECURE_HSTS_SECONDS", "3600")
    assert env_int("SECURE_HSTS_SECONDS", 0) == 3600
    monkeypatch.setenv("SECURE_HSTS_SECONDS", "1 year")
    with pytest.raises(ImproperlyConfigured, match="SECURE_HSTS_SECONDS='1 year'"):
        env_int("SECURE_HSTS_SECONDS", 0)


def test_the_embedded_database_lets_readers_read_beside_a_writer(tmp_path, django_db_blocker):
    """WAL (and NORMAL syncing): a read transaction open on the file does not stop a
    write from committing (in SQLite's default journal it would, "database is locked"),
    nor a write transaction a reader. On either engine's run: the file is the test's own."""
    databases = ConnectionHandler(
        {
            "default": {
                "ENGINE": "django.db.backends.sqlite3",
                "NAME": str(tmp_path / "club.sqlite3"),
                "OPTIONS": sqlite_options(1),
            }
        }
    )
    reader, writer = (databases.create_connection("default") for _ in range(2))
    with django_db_blocker.unblock():
        _read_beside_a_write(reader, writer)


def _read_beside_a_write(reader, writer):
    try:
        with writer.cursor() as cursor:
            cursor.execute("CREATE TABLE seat (n integer)")
        with reader.cursor() as cursor:
            cursor.execute("PRAGMA journal_mode")
            assert cursor.fetchone() == ("wal",)
            cursor.execute("PRAGMA synchronous")
            assert cursor.fetchone() == (1,)  # NORMAL
        with reader.cursor() as reading:
            reading.execute("BEGIN")
            reading.execute("SELECT count(*) FROM seat")
            with writer.cursor() as cursor:
                cursor.execute("INSERT INTO seat VALUES (1)")
            reading.execute("SELECT count(*) FROM seat")
            assert reading.fetchone() == (0,)  # its own snapshot
            reading.execute("COMMIT")
        with writer.cursor() as writing:
            writing.execute("BEGIN IMMEDIATE")
            writing.execute("INSERT INTO seat VALUES (2)")
            with reader.cursor() as cursor:
                cursor.execute("SELECT count(*) FROM seat")
                assert cursor.fetchone() == (1,)
            writing.execute("COMMIT")
    finally:
        reader.close()
        writer.close()
