"""The analysis' Celery tasks on the Django side (``settings.ANALYSIS_DJANGO_QUEUE``, the
ordinary worker's): thin wrappers of ``analysis.services``. The engine worker, without
Django, runs the engine's task (``analysis.judging``); the two sides exchange the plain
messages of ``analysis.jobs``, by task name."""

from typing import Any

from celery import shared_task
from django.conf import settings

from analysis import jobs, services


@shared_task(name=jobs.ANALYSE, ignore_result=True)
def analyse(analysis_id: int) -> None:
    """Start the run of ``analysis_id`` at the setting's depth and hand its job to the
    engine worker."""
    job = services.analysis_start(analysis_id=analysis_id, plies=settings.ANALYSIS_PLIES)
    if job is not None:
        services.judge_send(job)


@shared_task(name=jobs.PROGRESS, ignore_result=True)
def progress(analysis_id: int, progress: float) -> None:
    services.analysis_progress_set(analysis_id=analysis_id, progress=progress)


@shared_task(name=jobs.STORE, ignore_result=True)
def store(**found: Any) -> None:
    """The engine worker's decisions for a run (``services.analysis_store``'s arguments)."""
    services.analysis_store(**found)


@shared_task(name=jobs.FAILED, ignore_result=True)
def failed(analysis_id: int, attempt: int, reason: jobs.Failure, error: str) -> None:
    services.analysis_engine_failed(
        analysis_id=analysis_id, attempt=attempt, reason=reason, error=error
    )


@shared_task(name="analysis.sweep", ignore_result=True)
def sweep() -> int:
    """Restart or fail the runs that died with their process (beat, every minute)."""
    return services.analysis_sweep()
