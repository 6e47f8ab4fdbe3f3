"""The project's wiring: settings, root URLconf, Celery app, WSGI and ASGI.

The one place that names every app; nothing imports it but the entry points
(``manage.py``, gunicorn's ``config.wsgi``, Celery's ``-A config.worker``).
"""

from config.celery import app as celery_app

__all__ = ["celery_app"]
