"""Requests at once: the concurrency tests of every app release threads together."""

import threading
from collections.abc import Callable

from django.db import DatabaseError, connection, transaction

from matches.models import Table
from tests.waiting import PATIENCE, wait_until


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


def _table_held(table_id: int) -> bool:
    """Another transaction holds the table's row lock (PostgreSQL's ``NOWAIT`` refuses)."""
    try:
        with transaction.atomic():
            Table.objects.select_for_update(nowait=True).get(pk=table_id)
    except DatabaseError:
        return True
    return False


def table_held_first(
    *, hold_other_row: Callable[[], object], act: Callable[[], object], table_id: int
) -> tuple[bool, list[object]]:
    """The lock order on PostgreSQL: ``hold_other_row`` (locking the match or the session
    alone) runs in a transaction of its own and keeps it; ``act`` starts meanwhile. Whether
    the action, held up on that row, already held its table, and (once both are let go)
    what the action returned."""
    holding, release = threading.Event(), threading.Event()
    outcomes: list[object] = []

    def hold() -> None:
        with transaction.atomic():
            hold_other_row()
            holding.set()
            release.wait(PATIENCE)
        connection.close()

    def run() -> None:
        try:
            outcomes.append(act())
        finally:
            connection.close()

    holder, actor = threading.Thread(target=hold), threading.Thread(target=run)
    holder.start()
    assert holding.wait(PATIENCE)
    actor.start()
    held = wait_until(lambda: _table_held(table_id))
    release.set()
    holder.join()
    actor.join()
    return held, outcomes
