"""The infrastructure's Celery tasks: thin entry points."""

from celery import shared_task

from web import backup


@shared_task(name="web.backup_nightly", ignore_result=True)
def backup_nightly() -> str:
    """Beat's nightly backup, then the old ones pruned (``BACKUP_KEEP``)."""
    return str(backup.backup_nightly())
