"""WSGI entry point (gunicorn ``config.wsgi``)."""

import gc
import os
import sys

from config.lean import leave_out_unused

leave_out_unused()  # before Django and DRF load

from django.core.wsgi import get_wsgi_application  # noqa: E402

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
application = get_wsgi_application()

# Everything loaded so far (Django, the apps, their modules) lives as long as the worker:
# out of the collector's sight, a full collection scans only what requests made since.
# Without it each web process stopped every thread for 80-180 ms a few times a minute
# (bench/README.md, "The collector's pauses").
gc.freeze()

# A thread back from the database or Redis waits for the interpreter until the thread
# holding it lets go, by default after up to 5 ms; an action makes a dozen such round
# trips while the live channel's answers compute beside it. 2 ms measured best at the
# chouettes' peak (bench/README.md, "Where the chouettes' tail is"; 1 ms was worse).
sys.setswitchinterval(0.002)
