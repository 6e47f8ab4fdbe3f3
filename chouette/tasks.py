"""The online chouettes' Celery tasks: thin entry points that call services."""

from celery import shared_task

from chouette import online


@shared_task(name=online.TIMEOUT_TASK, ignore_result=True)
def table_timeout(table_id: int, turn_no: int) -> bool:
    """Apply the deadline of turn ``turn_no`` if the chouette's table is still at it and
    the deadline has passed (a late or repeated task does nothing)."""
    return online.chouette_timeout(table_id=table_id, turn_no=turn_no)


@shared_task(name="chouette.sweep", ignore_result=True)
def sweep() -> int:
    """Apply every chouette deadline that is due whose task was lost (run by beat)."""
    return online.chouette_timeouts_sweep()
