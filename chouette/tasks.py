"""The online chouettes' timeouts run as every table's do (``matches.tasks``); this keeps
the task name they were sent under before the one table engine, so the timeouts a
running club queued before an upgrade still apply."""

from celery import shared_task

from chouette import online
from matches import table_engine


@shared_task(name=online.TIMEOUT_TASK, ignore_result=True)
def table_timeout(table_id: int, turn_no: int) -> bool:
    """The table engine's timeout (``matches.table_timeout``), under its old name."""
    return table_engine.table_timeout(table_id=table_id, turn_no=turn_no)
