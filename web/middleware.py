"""Middleware of the web's own (beside ``web.logging``'s request log)."""

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from rest_framework.permissions import SAFE_METHODS

from web.actions_in_flight import ActionsTold


class ActionsToldMiddleware:
    """Tells the engine worker of this machine as each action (a request that may change
    something: not one of DRF's ``SAFE_METHODS``, as the write throttle counts them)
    starts and ends, so that it holds still meanwhile (``web.actions_in_flight``). The
    reads, the live channel's held requests among them, are not told: a page's waiting
    would hold the engine for nothing."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        fifo = settings.WEB_ACTIONS_FIFO
        self.told = ActionsTold(fifo) if fifo else None

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if self.told is None or request.method in SAFE_METHODS:
            return self.get_response(request)
        self.told.tell(starting=True)
        try:
            return self.get_response(request)
        finally:
            self.told.tell(starting=False)
