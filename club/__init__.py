"""The Django project and the club itself: players, ledger, ratings."""

from club.celery import app as celery_app

__all__ = ["celery_app"]
