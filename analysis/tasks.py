"""The analysis' Celery task, on its own queue (``settings.ANALYSIS_QUEUE``): a thin
entry point that runs ``analysis.runner`` in the worker, importing it (and with it the
engine) only there."""

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.utils.translation import gettext as _

from analysis import services


@shared_task(
    name=services.TASK,
    ignore_result=True,
    # A worker that dies in the engine (a crash) gives the task back for its second
    # start; the run's ``attempts`` stop a third (analysis.runner).
    acks_late=True,
    reject_on_worker_lost=True,
    soft_time_limit=settings.ANALYSIS_TIME_LIMIT,
    time_limit=settings.ANALYSIS_TIME_LIMIT + 10,
)
def analyse(analysis_id: int) -> str:
    """Analyse the match of ``analysis_id`` at the setting's depth; an error starts it
    once more, then fails it with the error's words."""
    from analysis import runner

    try:
        return runner.analysis_run(analysis_id=analysis_id, plies=settings.ANALYSIS_PLIES)
    except SoftTimeLimitExceeded:
        message = str(services.STOPPED)
    except Exception as error:  # whatever the engine raised: the player reads it
        message = _("The engine failed: %(error)s") % {"error": f"{type(error).__name__}: {error}"}
    services.analysis_retry_or_fail(analysis_id=analysis_id, message=message)
    return message


@shared_task(name="analysis.sweep", ignore_result=True)
def sweep() -> int:
    """Restart or fail the runs that died with their process (beat, every minute)."""
    return services.analysis_sweep()
