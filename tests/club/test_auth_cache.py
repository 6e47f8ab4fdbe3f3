"""A token's user and player come from the cache (club/auth.py), and every change of the
token, the user or the player is seen by the very next request."""

import json
import logging
import os
import pickle
import subprocess
import sys
import threading
from pathlib import Path
from unittest import mock

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db import connection, transaction
from django.test import RequestFactory
from django.test.utils import CaptureQueriesContext
from rest_framework.authtoken.models import Token
from rest_framework.exceptions import AuthenticationFailed

from club import auth, services
from club.auth import TokenAuthentication, _cache_keys
from club.models import Player
from tests.factories import token_for
from web.cache import FileCache

pytestmark = pytest.mark.django_db

ME = "/api/players/alice/"


def queries_of(client, path: str) -> tuple[int, int]:
    with CaptureQueriesContext(connection) as queries:
        response = client.get(path)
    return response.status_code, len(queries)


def cached(key: str) -> Token | None:
    """The token the cache holds for ``key`` (whether or not its stamp is still good)."""
    entry = cache.get(_cache_keys(key)[0])
    return None if entry is None else entry[1]


def authenticated(user_or_key):
    """What the token authentication gives for a token (or a user's), as a request would."""
    key = user_or_key if isinstance(user_or_key, str) else token_for(user_or_key)
    request = RequestFactory().get("/", HTTP_AUTHORIZATION=f"Token {key}")
    return TokenAuthentication().authenticate(request)[0]


def test_a_cached_token_answers_with_one_query_fewer_and_its_raw_key_is_no_cache_key(
    api, make_player
):
    alice = make_player("alice")
    client = api.as_user(alice.user)
    first, second = queries_of(client, ME), queries_of(client, ME)
    assert first[0] == second[0] == 200
    assert second[1] == first[1] - 1
    key = token_for(alice.user)
    assert isinstance(cached(key), Token)
    assert cache.get(key) is None and cache.get(f"auth:token:{key}") is None
    assert all(key not in cache_key for cache_key in _cache_keys(key))


def test_each_request_gets_its_own_copy_of_the_user(make_player, django_assert_num_queries):
    alice = make_player("alice")
    key = token_for(alice.user)
    authenticated(key)  # stored
    with django_assert_num_queries(0):
        one, other = authenticated(key), authenticated(key)
    assert one == other == alice.user
    assert one is not other and one.player is not other.player
    one.player.display_name = "changed in one request"
    assert other.player.display_name == alice.display_name


def test_a_deleted_token_is_refused_at_once(api, make_player):
    alice = make_player("alice")
    client = api.as_user(alice.user)
    assert client.get(ME).status_code == 200  # cached now
    Token.objects.get(user=alice.user).delete()
    refused = client.get(ME)
    assert refused.status_code == 401
    assert refused.json()["detail"] == "Invalid token."


def test_a_regenerated_token_refuses_the_old_one_and_takes_the_new(api, make_player):
    alice = make_player("alice")
    client = api.as_user(alice.user)
    assert client.get(ME).status_code == 200
    Token.objects.filter(user=alice.user).delete()  # in bulk, as the admin's action does
    new = Token.objects.create(user=alice.user)
    assert client.get(ME).status_code == 401
    client.credentials(HTTP_AUTHORIZATION=f"Token {new.key}")
    assert client.get(ME).status_code == 200


def test_a_deactivated_user_is_refused_at_once(api, make_player):
    alice = make_player("alice")
    client = api.as_user(alice.user)
    assert client.get(ME).status_code == 200
    alice.user.is_active = False
    alice.user.save(update_fields=["is_active"])
    refused = client.get(ME)
    assert refused.status_code == 401
    assert refused.json()["detail"] == "User inactive or deleted."
    assert cached(token_for(alice.user)) is None  # refused: not cached


def test_a_user_made_staff_is_staff_at_once_and_unmade_at_once(api, make_player):
    alice = make_player("alice")
    client = api.as_user(alice.user)
    assert client.get("/api/ledger/trial-balance/").status_code == 403  # cached: not staff
    alice.user.is_staff = True
    alice.user.save()
    assert client.get("/api/ledger/trial-balance/").status_code == 200
    alice.user.is_staff = False
    alice.user.save()
    assert client.get("/api/ledger/trial-balance/").status_code == 403


def test_a_renamed_user_and_a_changed_player_are_seen_at_once(make_player):
    alice = make_player("alice", display_name="Alice")
    assert authenticated(alice.user).player.display_name == "Alice"
    alice.display_name = "Alice B."
    alice.save()
    assert authenticated(alice.user).player.display_name == "Alice B."
    alice.user.username = "aliceb"
    alice.user.save()
    assert authenticated(alice.user).username == "aliceb"


def test_the_cache_holds_no_rating_so_a_ratings_rebuild_is_seen_at_once(make_player):
    alice = make_player("alice")
    Player.objects.filter(pk=alice.pk).update(rating=1600.0)  # no signal
    assert authenticated(alice.user).player.rating == 1600.0
    services.ratings_rebuild()  # no results: back to 1500, by bulk_update (no signal)
    assert authenticated(alice.user).player.rating == 1500.0


def test_a_save_of_the_ratings_alone_keeps_the_entry_and_a_cached_save_keeps_the_ratings(
    make_player, django_assert_num_queries
):
    """A match's end saves both players' ratings: the entry stays (no query, no cache
    write for it), the new rating is read when asked for, and a save of the cached
    player cannot write an old rating back."""
    alice = make_player("alice")
    key = token_for(alice.user)
    authenticated(key)  # stored
    alice.rating = 1612.5
    with django_assert_num_queries(1):  # the UPDATE alone: nothing to forget
        alice.save(update_fields=Player.RATING_FIELDS)
    assert cached(key) is not None
    player = authenticated(key).player
    assert "rating" in player.get_deferred_fields()
    assert player.rating == 1612.5  # read fresh
    cached_player = authenticated(key).player
    cached_player.display_name = "Alice C."
    cached_player.save()
    assert Player.objects.get(pk=alice.pk).rating == 1612.5


def test_a_user_without_a_player_is_cached_without_one_until_given_one(django_assert_num_queries):
    admin = get_user_model().objects.create_superuser("root", password="pw-root-1")
    key = token_for(admin)
    authenticated(key)
    with django_assert_num_queries(0):
        user = authenticated(key)
        assert user.is_staff
        with pytest.raises(Player.DoesNotExist):
            user.player  # noqa: B018  # the missing player came with the token
    Player.objects.create(user=admin, display_name="Root")  # a new player drops it too
    assert authenticated(key).player.display_name == "Root"


def test_a_failing_cache_still_authenticates_from_the_database(api, make_player, caplog):
    alice, bob = make_player("alice"), make_player("bob")
    client = api.as_user(alice.user)
    down = ConnectionError("cache down")
    writes_fail = mock.patch.multiple(
        cache,
        set=mock.Mock(side_effect=down),
        set_many=mock.Mock(side_effect=down),
        delete_many=mock.Mock(side_effect=down),
    )
    with writes_fail, caplog.at_level(logging.WARNING, logger="club.auth"):
        assert client.get(ME).status_code == 200
        alice.user.is_active = False
        alice.user.save()  # the change is made; dropping the entry failed (logged)
        assert client.get(ME).status_code == 401
    with (
        mock.patch.object(cache, "get_many", mock.Mock(side_effect=down)),
        caplog.at_level(logging.WARNING, logger="club.auth"),
    ):
        assert api.as_user(bob.user).get(ME).status_code == 200
    assert cached(token_for(bob.user)) is None  # an unread stamp stores nothing
    messages = [record.getMessage() for record in caplog.records if record.name == "club.auth"]
    assert "auth: storing a token in the cache failed" in messages
    assert "auth: dropping 1 cached tokens failed" in messages
    assert "auth: reading a token from the cache failed" in messages


def test_no_caching_with_token_cache_seconds_zero(api, make_player, settings):
    settings.TOKEN_CACHE_SECONDS = 0
    alice = make_player("alice")
    client = api.as_user(alice.user)
    first, second = queries_of(client, ME), queries_of(client, ME)
    assert first == second
    assert cached(token_for(alice.user)) is None


def test_the_file_cache_drops_an_entry_for_every_process(api, make_player, settings, tmp_path):
    """make run's two gunicorn workers share the embedded default's files: the entry one
    process stored and the other dropped is gone for both (another instance on the same
    directory stands for the other process)."""
    location = str(tmp_path / "cache")
    settings.CACHES = {
        "default": {
            "BACKEND": "web.cache.FileCache",
            "LOCATION": location,
        }
    }
    other_process = FileCache(location, {})
    alice = make_player("alice")
    client = api.as_user(alice.user)
    assert client.get(ME).status_code == 200
    entry = _cache_keys(token_for(alice.user))[0]
    assert other_process.get(entry)[1].user == alice.user
    alice.user.is_active = False
    alice.user.save()
    assert other_process.get(entry) is None
    assert client.get(ME).status_code == 401


def test_the_embedded_default_cache_is_files_under_var_dir(tmp_path):
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in {"CACHE_URL", "TOKEN_CACHE_SECONDS", "DJANGO_SETTINGS_MODULE"}
    }
    env.update(DEBUG="1", VAR_DIR=str(tmp_path))
    code = (
        "import json, config.settings as s;"
        "print(json.dumps([s.CACHES['default'], s.TOKEN_CACHE_SECONDS]))"
    )
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, cwd=root, capture_output=True, text=True, check=True
    )
    assert json.loads(out.stdout) == [
        {
            "BACKEND": "web.cache.FileCache",
            "LOCATION": str(tmp_path / "cache"),
        },
        300,
    ]


@pytest.mark.django_db(transaction=True)
def test_an_entry_stored_while_the_change_was_uncommitted_is_dropped_at_the_commit(
    api, make_player
):
    """A request reading the user before the change commits stores the old row: the
    commit drops the entry again."""
    alice = make_player("alice")
    client = api.as_user(alice.user)
    assert client.get(ME).status_code == 200
    key = token_for(alice.user)
    entry, stamp = _cache_keys(key)
    with transaction.atomic():
        alice.user.is_active = False
        alice.user.save()
        assert cache.get(entry) is None
        stale = Token.objects.select_related("user__player").get(user=alice.user)
        stale.user.is_active = True  # what a request outside the transaction read
        cache.set(entry, (cache.get(stamp), stale))
        assert cached(key) is not None
    assert cache.get(entry) is None
    assert client.get(ME).status_code == 401


@pytest.mark.postgresql
@pytest.mark.django_db(transaction=True)
def test_on_postgresql_a_request_during_the_change_leaves_no_stale_entry(api, make_player):
    """PostgreSQL lets a request read the old row while the change is uncommitted (no
    lock waits): it authenticates and stores it; the commit drops it, and the next
    request is refused."""
    alice = make_player("alice")
    client = api.as_user(alice.user)
    key = token_for(alice.user)
    seen: list[int] = []

    def request_meanwhile() -> None:
        try:
            other = type(client)()
            other.credentials(HTTP_AUTHORIZATION=f"Token {key}")
            seen.append(other.get(ME).status_code)
        finally:
            connection.close()

    with transaction.atomic():
        alice.user.is_active = False
        alice.user.save()
        thread = threading.Thread(target=request_meanwhile)
        thread.start()
        thread.join()
        assert seen == [200]  # the committed (old) row, active
        assert isinstance(cached(key), Token)  # and stored
    assert cached(key) is None
    assert client.get(ME).status_code == 401


def test_a_request_that_read_the_user_before_a_change_and_stores_it_after_leaves_no_stale_entry(
    make_player,
):
    """The narrow race the commit's drop cannot close: a request reads the old rows, the
    change commits (and drops the entry), then the request stores what it read. Stored
    with the stamp from before the change, the entry is never used."""
    alice = make_player("alice")
    key = token_for(alice.user)
    store = auth._store

    def store_after_the_change(token: Token, stamp: object) -> None:
        alice.user.is_active = False
        alice.user.save()
        store(token, stamp)

    with mock.patch.object(auth, "_store", store_after_the_change):
        assert authenticated(key) == alice.user  # read while still active
    assert cached(key).user.is_active  # the stale entry is there...
    with pytest.raises(AuthenticationFailed):
        authenticated(key)  # ...and not used


def test_the_cache_holds_no_password_hash_and_a_cached_user_saved_keeps_the_password(
    make_player,
):
    alice = make_player("alice")
    alice.user.set_password("the-secret-one")
    alice.user.save()
    key = token_for(alice.user)
    user = authenticated(key)
    stored = pickle.dumps(cache.get(_cache_keys(key)[0]))
    assert alice.user.password.encode() not in stored
    user = authenticated(key)  # from the cache
    user.first_name = "Alice"
    user.save()
    saved = get_user_model().objects.get(pk=alice.user.pk)
    assert saved.first_name == "Alice" and saved.check_password("the-secret-one")
