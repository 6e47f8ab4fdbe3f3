"""WSGI entry point (gunicorn ``club.wsgi``)."""

import gc
import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "club.settings")
application = get_wsgi_application()

# Everything loaded so far (Django, the apps, their modules) lives as long as the worker:
# out of the collector's sight, a full collection scans only what requests made since.
# Without it each web process stopped every thread for 80-180 ms a few times a minute
# (bench/README.md, "The collector's pauses").
gc.freeze()
