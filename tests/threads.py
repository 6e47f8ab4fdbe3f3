"""Requests at once: the concurrency tests of every app release threads together."""

import threading
from collections.abc import Callable

from django.db import connection


def at_once(call: Callable[[], object], requests: int) -> list[object]:
    """Run ``call`` in ``requests`` threads released together; what each returned or raised."""
    barrier = threading.Barrier(requests)
    outcomes: list[object] = []
    lock = threading.Lock()

    def run() -> None:
        try:
            barrier.wait()
            outcome: object = call()
        except Exception as exc:  # every outcome is looked at by the test
            outcome = exc
        finally:
            connection.close()
        with lock:
            outcomes.append(outcome)

    threads = [threading.Thread(target=run) for _ in range(requests)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return outcomes
