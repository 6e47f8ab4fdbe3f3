"""The tournaments' Celery tasks: thin entry points that call services."""

from celery import shared_task

from tournaments import services


@shared_task(name="tournaments.collect", ignore_result=True)
def collect() -> int:
    """Decide the pairings whose online match has finished (run by beat: the signal a
    match's end sends may have been lost)."""
    return services.pairings_online_collect()


@shared_task(name="tournaments.round_deadline", ignore_result=True)
def round_deadline(round_id: int) -> bool:
    """A round's deadline has come: apply it (once; a task early or late does nothing)."""
    return services.round_deadline_apply(round_id=round_id)


@shared_task(name="tournaments.deadlines", ignore_result=True)
def deadlines() -> int:
    """Apply the round deadlines that have passed (run by beat: a deadline's task may
    have been lost)."""
    return services.rounds_deadline_sweep()
