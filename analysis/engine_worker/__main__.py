"""``python -m analysis.engine_worker [Celery worker options]``: the engine worker."""

import sys

from analysis.engine_worker import app

app.worker_main(["worker", *sys.argv[1:]])
