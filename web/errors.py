"""Errors a service raises when a request cannot be carried out.

Each carries the API's error ``code`` and HTTP ``status``; the API's exception handler
turns them into ``{"error": code, "detail": message}``. Services raise them before they
write anything, inside the transaction, so a refused request changes nothing.
"""

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _


class ServiceError(Exception):
    """``reason``, when set, says more precisely why, for programs (an illegal play's
    rule: ``blocked_point``, ``must_use_both_dice``...); the API answers it as ``reason``."""

    code = "invalid"
    status = 400
    default_message: str | Promise = _("The request is not valid.")

    def __init__(self, message: str | Promise | None = None, *, reason: str | None = None) -> None:
        self.message = message if message is not None else self.default_message
        self.reason = reason
        super().__init__(str(self.message))


class Invalid(ServiceError):
    pass


class Forbidden(ServiceError):
    code = "forbidden"
    status = 403
    default_message = _("You are not allowed to do that.")


class NotFound(ServiceError):
    code = "not_found"
    status = 404
    default_message = _("Not found.")


class Conflict(ServiceError):
    code = "conflict"
    status = 409
    default_message = _("That conflicts with the current state.")
