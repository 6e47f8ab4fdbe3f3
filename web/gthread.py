"""The web server's worker: gunicorn's ``gthread`` (``--worker-class web.gthread.ThreadWorker``),
less a cost that grows with the requests it holds open.

After every turn of its loop (each request arriving, each connection accepted) gunicorn's
worker asks ``concurrent.futures.wait(<every request in progress>, timeout=0)`` which have
finished, to forget them. That call takes every pending request's lock, installs a waiter
on each and removes it again: work in proportion to the requests held, and a web process
holds one for every live stream it serves (a few hundred at the 200-game peak, where it
was 9% of the web's CPU: bench/README.md, "Every process's CPU"). Here a request forgets
itself when it finishes (its future's done callback, beside gunicorn's own
``finish_request``), and the loop looks at none of them. ``run`` is gunicorn 23.0's loop
with that one change (gunicorn is MIT-licensed: LICENSES/gunicorn-MIT.txt); the pin
``gunicorn>=23,<24`` in pyproject.toml keeps the two in step, and tests/club/test_gthread.py
serves requests, streams and a graceful stop through it.
"""

from __future__ import annotations

import selectors
import threading
from concurrent import futures
from functools import partial
from typing import Any

from gunicorn.workers.gthread import ThreadWorker as GunicornThreadWorker


class ThreadWorker(GunicornThreadWorker):  # type: ignore[misc]  # gunicorn is untyped
    """gunicorn's ``gthread`` worker whose requests in progress forget themselves."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.futures: set[futures.Future[Any]] = set()  # the requests in progress
        self._finished = threading.Condition()  # notified as each one finishes
        self._finished_since = 0  # requests finished since the loop last looked

    def _wrap_future(self, fs: futures.Future[Any], conn: Any) -> None:
        fs.conn = conn  # type: ignore[attr-defined]  # gunicorn's finish_request reads it
        with self._finished:
            self.futures.add(fs)
        fs.add_done_callback(self.finish_request)
        fs.add_done_callback(self._forget)  # after gunicorn's: its connection counted off

    def _forget(self, fs: futures.Future[Any]) -> None:
        with self._finished:
            self.futures.discard(fs)
            self._finished_since += 1
            self._finished.notify()

    def run(self) -> None:
        """gunicorn's loop, without asking which requests have finished."""
        for sock in self.sockets:
            sock.setblocking(False)
            server = sock.getsockname()
            acceptor = partial(self.accept, server)
            self.poller.register(sock, selectors.EVENT_READ, acceptor)

        while self.alive:
            self.notify()  # the arbiter's heartbeat

            if self.nr_conns < self.worker_connections:
                # wait for an event
                for key, _mask in self.poller.select(1.0):
                    key.data(key.fileobj)
                with self._finished:
                    self._finished_since = 0
            else:
                # wait for a request to finish (or a second), as gunicorn's does
                with self._finished:
                    if not self._finished_since:
                        self._finished.wait(1.0)
                    self._finished_since = 0

            if not self.is_parent_alive():
                break

            # handle keepalive timeouts
            self.murder_keepalived()

        self.tpool.shutdown(False)
        self.poller.close()

        for sock in self.sockets:
            sock.close()

        with self._finished:
            in_progress = list(self.futures)
        futures.wait(in_progress, timeout=self.cfg.graceful_timeout)
