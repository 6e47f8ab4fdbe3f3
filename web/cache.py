"""The embedded default cache (no ``CACHE_URL``): Django's file cache under VAR_DIR, which
every process of one machine shares, listing its directory to keep to its size at most
once a second instead of on every write."""

import threading
import time

from django.core.cache.backends.filebased import FileBasedCache

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
