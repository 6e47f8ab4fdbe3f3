"""The caches (web/cache.py): the embedded default, Django's file cache, which keeps to
its size with one listing of its directory a second rather than one every write; and
production's, Django's Redis cache with its clients built once."""

import warnings

from tests.integration.stack import redis_server
from web import cache as club_cache
from web.cache import FileCache, RedisCache


def test_the_file_cache_culls_at_most_once_a_second_and_then_keeps_to_its_size(
    tmp_path, monkeypatch
):
    now = [1000.0]
    monkeypatch.setattr(club_cache.time, "monotonic", lambda: now[0])
    monkeypatch.setattr(FileCache, "_culled_at", 0.0)
    cache = FileCache(str(tmp_path), {"OPTIONS": {"MAX_ENTRIES": 6, "CULL_FREQUENCY": 2}})
    for n in range(10):  # within one second: one listing, at the first write (empty)
        cache.set(f"k{n}", n)
    assert len(cache._list_cache_files()) == 10
    now[0] += 0.5
    cache.set("k10", 10)
    assert len(cache._list_cache_files()) == 11  # not listed again yet
    now[0] += 0.6
    cache.set("k11", 11)  # a second on: listed, half of the 11 dropped, then written
    assert len(cache._list_cache_files()) == 11 - 11 // 2 + 1
    kept = [n for n in range(12) if cache.get(f"k{n}") == n]
    assert len(kept) == 7 and 11 in kept  # what is there reads back as written


def test_the_redis_cache_builds_its_client_once_and_reads_what_it_wrote():
    with redis_server() as server:
        cache = RedisCache(server.url(0), {"KEY_PREFIX": "p"})
        client = cache._cache.get_client(write=True)
        assert cache._cache.get_client() is client  # kept, for reads and writes alike
        cache.set("live:table:7:3", {"version": 3})
        assert cache.get("live:table:7:3") == {"version": 3}
        assert cache.get_many(["live:table:7:3", "absent"]) == {"live:table:7:3": {"version": 3}}
        cache.delete("live:table:7:3")
        assert cache.get("live:table:7:3") is None
        # Any key Redis takes, without memcached's warnings (Django's check of them).
        long_key = "k " * 200
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            cache.set(long_key, 1)
            assert cache.get(long_key) == 1
        assert cache._cache.get_client(write=True) is client
