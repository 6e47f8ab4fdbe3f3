"""The club's Celery tasks: thin entry points that call services."""

from celery import shared_task
from django.utils import timezone


@shared_task(name="club.ping")
def ping() -> str:
    """Answer with the worker's clock: proves a worker takes tasks off the broker."""
    return timezone.now().isoformat()
