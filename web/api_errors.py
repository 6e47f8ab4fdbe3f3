"""One shape for every API error: a 4xx status and ``{"error": code, "detail": text}``.

Whatever refuses a request answers in it: the services' errors, DRF's own (validation,
authentication, permissions, paging), unknown paths under ``/api/`` and CSRF failures.
"""

from typing import Any

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views import csrf
from django.views.decorators.csrf import csrf_exempt
from rest_framework import exceptions, serializers, status
from rest_framework.response import Response

from web.errors import ServiceError

_CODES: dict[type[exceptions.APIException], str] = {
    exceptions.ParseError: "malformed",
    exceptions.ValidationError: "invalid",
    exceptions.NotAuthenticated: "not_authenticated",
    exceptions.AuthenticationFailed: "not_authenticated",
    exceptions.PermissionDenied: "forbidden",
    exceptions.NotFound: "not_found",
    exceptions.MethodNotAllowed: "method_not_allowed",
    exceptions.NotAcceptable: "not_acceptable",
    exceptions.UnsupportedMediaType: "unsupported_media_type",
    exceptions.Throttled: "throttled",
}


class ErrorOutput(serializers.Serializer[dict[str, Any]]):
    """The body of every error answer."""

    error = serializers.CharField(
        help_text=gettext_lazy('What went wrong, for programs: "invalid", "not_found"...')
    )
    detail = serializers.CharField(help_text=gettext_lazy("What went wrong, for people."))
    reason = serializers.CharField(
        required=False,
        help_text=gettext_lazy(
            'Why, more precisely, for programs: an illegal play\'s rule ("blocked_point", '
            '"must_use_both_dice"...).'
        ),
    )
    # The body's key is "fields"; DRF takes declared fields off the class, so the
    # serializer's own ``fields`` is untouched.
    fields = serializers.DictField(  # type: ignore[assignment]
        required=False,
        help_text=gettext_lazy("With invalid input: the messages for each field."),
    )


def _flatten(detail: Any, prefix: str = "") -> list[str]:
    """Validation details as ``field: message`` lines a person can read."""
    if isinstance(detail, dict):
        lines = []
        for key, value in detail.items():
            name = "" if key == "non_field_errors" else f"{prefix}{key}"
            lines += _flatten(value, f"{name}." if name else "")
        return lines
    if isinstance(detail, list):
        return [line for item in detail for line in _flatten(item, prefix)]
    field = prefix.rstrip(".")
    return [f"{field}: {detail}" if field else str(detail)]


def error_body(code: str, detail: str, **extra: Any) -> dict[str, Any]:
    return {"error": code, "detail": detail, **extra}


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """DRF's exception handler, answering in the API's error shape."""
    if isinstance(exc, ServiceError):
        extra = {} if exc.reason is None else {"reason": exc.reason}
        return Response(error_body(exc.code, str(exc.message), **extra), status=exc.status)
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied()
    if not isinstance(exc, exceptions.APIException):
        return None
    code = next((c for cls, c in _CODES.items() if isinstance(exc, cls)), "invalid")
    if isinstance(exc, exceptions.ValidationError):
        body = error_body(code, "; ".join(_flatten(exc.detail)), fields=exc.detail)
    elif isinstance(exc, exceptions.ParseError):
        body = error_body(code, _("The request body is not valid JSON: %s") % exc.detail)
    else:
        body = error_body(code, str(exc.detail))
    response = Response(body, status=exc.status_code)
    auth_header = getattr(exc, "auth_header", None)
    if auth_header:
        response["WWW-Authenticate"] = auth_header
    wait = getattr(exc, "wait", None)
    if wait:
        response["Retry-After"] = str(int(wait))
    return response


@csrf_exempt  # it changes nothing, whatever the method: no forgery to guard against
def api_not_found(request: HttpRequest) -> JsonResponse:
    """Unknown paths under ``/api/`` answer JSON, not the HTML 404 page, to any method."""
    return JsonResponse(
        error_body("not_found", _("There is no API endpoint at %s.") % request.path),
        status=status.HTTP_404_NOT_FOUND,
    )


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """``CSRF_FAILURE_VIEW``: a JSON 403 under ``/api/``, Django's own page elsewhere."""
    if request.path.startswith("/api/"):
        return JsonResponse(
            error_body("forbidden", _("CSRF check failed: %s") % reason),
            status=status.HTTP_403_FORBIDDEN,
        )
    return csrf.csrf_failure(request, reason=reason)
