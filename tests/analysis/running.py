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


def analyse_now(analysis: MatchAnalysis, plies: int = 0, job: jobs.Job | None = None) -> str:
    """Run ``analysis`` to its end: its run ``job`` (started already: an upload's), else
    its queued run started at ``plies``; the status it is left in."""
    if job is None:
        job = services.analysis_start(analysis_id=analysis.pk, plies=plies)
    if job is not None:
        deliver(jobs.JUDGE, {"job": job})
    analysis.refresh_from_db()
    return str(analysis.status)
