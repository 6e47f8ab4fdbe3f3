"""The caches: the embedded default (no ``CACHE_URL``), Django's file cache under VAR_DIR,
which every process of one machine shares, listing its directory to keep to its size at
most once a second instead of on every write; and production's, Django's Redis cache with
its clients built once."""

import threading
import time
from typing import Any

from django.core.cache.backends.filebased import FileBasedCache
from django.core.cache.backends.redis import RedisCache as DjangoRedisCache
from django.core.cache.backends.redis import RedisCacheClient

CULL_EVERY = 1.0  # seconds between two listings of the directory by one process


class FileCache(FileBasedCache):
    """Django's ``FileBasedCache``, whose every ``set`` lists the whole directory to see
    whether it holds more than ``MAX_ENTRIES`` (then drops a third at random): about
    0.8 ms of a 1.1 ms write at 300 entries. Here a process lists it at most once every
    ``CULL_EVERY`` seconds, so the directory may pass its size by the writes of a second
    (make run's club: a few) until the next listing culls it. Nothing else differs: an
    entry dropped is a miss, read again by its caller."""

    _culled_at = 0.0  # the process's last listing (every thread's instance shares it)
    _lock = threading.Lock()

    def _cull(self) -> None:
        now = time.monotonic()
        with FileCache._lock:
            if now - FileCache._culled_at < CULL_EVERY:
                return
            FileCache._culled_at = now
        super()._cull()  # type: ignore[misc]  # Django's own, not in its stubs


class _RedisClient(RedisCacheClient):
    """Django's Redis client, which builds a ``redis.Redis`` on every operation (its
    table of some 200 response callbacks with it): a quarter of a cache read's CPU, and
    an action makes three or four (the token, the write throttle's two, the state
    handed to live). Here one per connection pool is built once and kept: a
    ``redis.Redis`` takes a connection from its pool for each command, so threads may
    share it."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._clients: dict[Any, Any] = {}  # by connection pool

    def get_client(self, key: Any = None, *, write: bool = False) -> Any:
        pool = self._get_connection_pool(write)  # type: ignore[attr-defined]  # Django's own
        client = self._clients.get(pool)
        if client is None:
            client = self._clients[pool] = self._client(connection_pool=pool)  # type: ignore[attr-defined]
        return client


class RedisCache(DjangoRedisCache):
    """Django's ``RedisCache`` (``CACHE_URL``) with its clients kept (``_RedisClient``)
    and its keys not checked against memcached's limits (``validate_key``): this cache's
    keys are the project's own (a token's digest, a topic and its version, a throttle's
    user), and Redis takes any key; the check walks each key character by character, on
    every operation."""

    def __init__(self, server: str, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._class = _RedisClient

    def validate_key(self, key: str) -> None:
        pass
