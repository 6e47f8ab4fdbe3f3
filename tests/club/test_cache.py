"""The embedded default cache (web/cache.py): Django's file cache, which keeps to its
size with one listing of its directory a second rather than one every write."""

from web import cache as club_cache
from web.cache import FileCache


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
