"""An analysis run in the test's process: the Django side's steps and the engine
worker's (``analysis.judging``), each message handed to the task of its name at once, as
the two workers exchange them through the broker."""

from typing import Any

from analysis import jobs, judging, services, tasks
from analysis.models import MatchAnalysis


def deliver(name: str, kwargs: dict[str, Any], queue: str | None = None) -> None:
    """Run the task ``name`` with ``kwargs`` (sent to ``queue``) here and now."""
    if name == jobs.JUDGE:
        judging.judge_next(kwargs["job"], deliver)
    else:
        {jobs.PROGRESS: tasks.progress, jobs.STORE: tasks.store, jobs.FAILED: tasks.failed}[name](
            **kwargs
        )


def analyse_now(analysis: MatchAnalysis, plies: int = 0) -> str:
    """Run the queued ``analysis`` at ``plies`` to its end; the status it is left in."""
    job = services.analysis_start(analysis_id=analysis.pk, plies=plies)
    if job is not None:
        deliver(jobs.JUDGE, {"job": job})
    analysis.refresh_from_db()
    return str(analysis.status)
