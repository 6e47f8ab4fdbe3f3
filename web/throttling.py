"""The API's write throttle (docs/operations.md, "Guessing and throttling")."""

import logging
from typing import TYPE_CHECKING, Any

from django.core.cache import caches
from rest_framework import permissions
from rest_framework.throttling import UserRateThrottle

if TYPE_CHECKING:  # DRF imports this module while loading its views
    from rest_framework.request import Request
    from rest_framework.views import APIView

log = logging.getLogger(__name__)


class WriteRateThrottle(UserRateThrottle):
    """The API's writes (every method but GET, HEAD, OPTIONS), per user (per address
    when anonymous): ``DEFAULT_THROTTLE_RATES["writes"]``, far above what a player
    clicking or a bot playing by the rules sends. Reads are free: the live channel polls."""

    scope = "writes"

    @property
    def cache(self) -> Any:  # type: ignore[override]  # DRF's is a class attribute
        return caches["throttle"]

    def allow_request(self, request: "Request", view: "APIView") -> bool:
        """Reads pass; a write counts against its user's rate. A count that cannot be
        read or kept (Redis restarting) lets the write through, logged: the throttle
        guards against floods, and a club night must not stop for its cache."""
        if request.method in permissions.SAFE_METHODS:
            return True
        try:
            return super().allow_request(request, view)
        except Exception:
            log.warning("throttle: the write counts could not be read or kept", exc_info=True)
            return True
