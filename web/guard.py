"""Guessing and flooding held back (docs/operations.md, "Guessing and throttling").

- Passwords: django-axes counts the wrong ones per account and address, in the database
  (every process sees the same count); at ``AXES_FAILURE_LIMIT`` that account is locked
  from that address for ``AXES_COOLOFF_TIME``, the right password refused too, on the
  login page and on ``POST /api/auth/token/`` alike. ``lockout_response`` answers it.
- API writes: ``web.throttling.WriteRateThrottle`` (a module of its own: DRF imports it
  while loading its views).
"""

from collections.abc import Mapping
from datetime import timedelta
from math import ceil
from typing import Any

from axes.backends import AxesStandaloneBackend
from axes.helpers import get_client_username, get_cool_off
from axes.models import AccessAttempt
from django.conf import settings
from django.contrib.auth.forms import AuthenticationForm
from django.db.models import Max
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils import timezone
from django.utils.translation import gettext as _
from rest_framework import status

from web.api_errors import error_body


def client_address(request: HttpRequest) -> str | None:
    """``AXES_CLIENT_IP_CALLABLE``: the address the request came from. Behind
    ``TRUSTED_PROXIES`` proxies (a TLS proxy in front: 1), the one the outermost of them
    saw, from ``X-Forwarded-For``'s right end (what a client writes to its left is not
    believed); with none, the connection's. As DRF's ``NUM_PROXIES`` reads it."""
    proxies: int = settings.TRUSTED_PROXIES
    forwarded: str = request.META.get("HTTP_X_FORWARDED_FOR", "")
    if proxies and forwarded:
        hops = [hop.strip() for hop in forwarded.split(",")]
        return hops[-min(proxies, len(hops))]
    remote: str | None = request.META.get("REMOTE_ADDR")
    return remote


class GuessingGuardBackend(AxesStandaloneBackend):  # type: ignore[misc]  # untyped
    """axes' backend, first in ``AUTHENTICATION_BACKENDS``: a locked account and address
    is refused before its password is checked. A call without a request (``manage.py``,
    the test client's ``login``) is nobody guessing over the network: let through."""

    def authenticate(self, request: HttpRequest | None, *args: Any, **kwargs: Any) -> None:
        if request is not None:
            super().authenticate(request, *args, **kwargs)


def lock_seconds_left(request: HttpRequest, credentials: Mapping[str, object] | None) -> int:
    """How long the lock of this account and address still lasts: the cool-off from its
    last counted failure (failures while locked are not counted, so they do not extend
    it: ``AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT``)."""
    cool_off = get_cool_off(request) or timedelta(0)
    last = AccessAttempt.objects.filter(
        username=get_client_username(request, credentials),
        ip_address=getattr(request, "axes_ip_address", None),
    ).aggregate(last=Max("attempt_time"))["last"]
    left = cool_off if last is None else last + cool_off - timezone.now()
    return max(1, ceil(left.total_seconds()))


def lockout_response(
    request: HttpRequest,
    original_response: HttpResponse | None,
    credentials: Mapping[str, object] | None,
) -> HttpResponse:
    """``AXES_LOCKOUT_CALLABLE``: a 429 with ``Retry-After``, in the API's error shape
    under ``/api/``, the login page saying why and for how long elsewhere."""
    seconds = lock_seconds_left(request, credentials)
    response: HttpResponse
    if request.path.startswith("/api/"):
        detail = _(
            "Too many wrong passwords for this account from your address: logging in is "
            "locked for %(seconds)d seconds; the club's staff can lift it sooner."
        ) % {"seconds": seconds}
        response = JsonResponse(
            error_body("locked", detail), status=status.HTTP_429_TOO_MANY_REQUESTS
        )
    else:
        response = render(
            request,
            "registration/login.html",
            {
                "form": AuthenticationForm(
                    request, initial={"username": request.POST.get("username", "")}
                ),
                "locked_minutes": ceil(seconds / 60),
                "next": request.POST.get("next", ""),
            },
            status=status.HTTP_429_TOO_MANY_REQUESTS,
        )
    response["Retry-After"] = str(seconds)
    return response
