"""The settings ``bench/api_play.py`` runs the service with: production's (``config.settings``,
from the same environment), plus one middleware that counts each request's database
queries into an ``X-Queries`` response header. Only the benchmark uses this module, so
production code stays as it is."""

from config.settings import *  # noqa: F403
from config.settings import MIDDLEWARE

MIDDLEWARE = ["bench.query_count.QueryCountMiddleware", *MIDDLEWARE]
