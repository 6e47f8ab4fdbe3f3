"""Waiting for another thread or process without sleeping a fixed time: poll a condition
until a deadline far beyond what a slow machine needs, so a test passes however loaded
the machine is and still fails, at the deadline, when the awaited thing never happens."""

import time
from collections.abc import Callable

PATIENCE = 30.0  # seconds: far beyond any expected path; only a broken one reaches it
NEVER = 10 * PATIENCE  # a timeout of the code under test that only a broken path waits out


def wait_until(
    condition: Callable[[], object],
    *,
    timeout: float = PATIENCE,
    every: float = 0.01,
    pause: Callable[[float], object] = time.sleep,
) -> bool:
    """True as soon as ``condition()`` is true, False if it is not within ``timeout``.
    ``pause(every)`` between two looks (a browser test's page waits instead, so that
    Playwright delivers the page's events meanwhile)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() >= deadline:
            return False
        pause(every)
    return True
