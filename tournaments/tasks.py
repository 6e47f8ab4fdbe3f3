"""The tournaments' Celery tasks: thin entry points that call services."""

from celery import shared_task

from tournaments import services


@shared_task(name="tournaments.collect", ignore_result=True)
def collect() -> int:
    """Decide the pairings whose online match has finished (run by beat: the signal a
    match's end sends may have been lost)."""
    return services.pairings_online_collect()
