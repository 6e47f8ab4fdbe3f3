"""``python -m analysis.engine_worker``: the engine worker, with the options of Celery's
worker that runclub and compose give it, and its governor (``analysis.engine_governor``)
when the environment names the web's FIFO. Started without Celery's command line (click
and every ``celery`` subcommand: 12 MB of a 70 MB process)."""

import argparse
import sys

from celery.utils.nodenames import host_format

import analysis.engine_governor as engine_governor
from analysis.engine_worker import app, give_way_as_a_group

parser = argparse.ArgumentParser(prog="python -m analysis.engine_worker")
parser.add_argument("--queues", required=True, help="comma-separated, as Celery's")
parser.add_argument("--hostname", default="analysis@%h")
parser.add_argument("--loglevel", default="INFO")
parser.add_argument("--pool", default="solo")
parser.add_argument("--concurrency", type=int, default=1)
options = parser.parse_args()
give_way_as_a_group()
governor = engine_governor.start()
worker = app.Worker(
    hostname=host_format(options.hostname),
    queues=options.queues.split(","),
    loglevel=options.loglevel,
    pool_cls=options.pool,
    concurrency=options.concurrency,
)
worker.start()
if governor is not None:
    governor.terminate()
sys.exit(worker.exitcode)
