"""The Celery app as the service's worker and beat load it (``celery -A config.worker``;
``manage.py runclub`` and docker-compose.yml): the project's app
(``config.celery``), in a process that leaves out the modules the club never uses
(``config.lean``) before Django sets up."""

from config.lean import leave_out_unused

leave_out_unused()

from config.celery import app  # noqa: E402

__all__ = ["app"]
