"""One shape for every API error: ``{"error": code, "detail": text}``.

Whatever refuses a request answers in it: the services' errors, DRF's own (validation,
authentication, permissions, paging), unknown paths under ``/api/``, CSRF failures, a
body too large, and what escapes every view under ``/api/`` (``ApiErrorMiddleware``,
``server_error``): a database that is busy or unreachable is a 503 with ``Retry-After``,
anything else a 500, ``DEBUG`` on or off.
"""

import logging
from collections.abc import Callable, Mapping
from typing import Any, NotRequired, TypedDict

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.db import InterfaceError, OperationalError
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views import csrf, defaults
from django.views.decorators.csrf import csrf_exempt
from rest_framework import exceptions, serializers, status
from rest_framework.response import Response

from web.errors import ServiceError

request_errors = logging.getLogger("django.request")

# What a client is told to wait before sending again a request the database could not
# take: a write held elsewhere is over in a moment, a database restarting in seconds.
RETRY_AFTER_SECONDS = 2


class BodyTooLarge(exceptions.APIException):
    """A request body over ``DATA_UPLOAD_MAX_MEMORY_SIZE`` (``web.api_parsers.JSONParser``)."""

    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_detail = gettext_lazy("The request body is too large.")


_CODES: dict[type[exceptions.APIException], str] = {
    BodyTooLarge: "too_large",
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


class ErrorBody(TypedDict):
    """The body of every error answer (``ErrorOutput``)."""

    error: str
    detail: str
    reason: NotRequired[str]
    fields: NotRequired[Any]  # DRF's validation details, as it gives them


class ErrorOutput(serializers.Serializer[ErrorBody]):
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


def error_body(
    code: str, detail: str, *, reason: str | None = None, fields: Any = None
) -> ErrorBody:
    body: ErrorBody = {"error": code, "detail": detail}
    if reason is not None:
        body["reason"] = reason
    if fields is not None:
        body["fields"] = fields
    return body


def exception_handler(exc: Exception, context: Mapping[str, object]) -> Response | None:
    """DRF's exception handler, answering in the API's error shape."""
    if isinstance(exc, ServiceError):
        return Response(
            error_body(exc.code, str(exc.message), reason=exc.reason), status=exc.status
        )
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


def _is_api(request: HttpRequest) -> bool:
    return request.path.startswith("/api/")


def database_unavailable(exc: BaseException) -> bool:
    """The database could not take the request: busy past its timeout (SQLite's
    "database is locked", PostgreSQL's lock timeout) or not reachable at all."""
    return isinstance(exc, (OperationalError, InterfaceError))


def _unavailable(request: HttpRequest) -> HttpResponse:
    """A 503 telling the client when to try again: JSON under ``/api/``, a plain page in
    the user's language elsewhere. The request's transaction was rolled back."""
    detail = _("The club's database is busy or unreachable; nothing was changed. Try again.")
    response: HttpResponse
    if _is_api(request):
        response = JsonResponse(
            error_body("unavailable", detail), status=status.HTTP_503_SERVICE_UNAVAILABLE
        )
    else:
        response = HttpResponse(
            detail,
            content_type="text/plain; charset=utf-8",
            status=status.HTTP_503_SERVICE_UNAVAILABLE,
        )
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


def _server_error_body() -> ErrorBody:
    return error_body("server_error", _("The server failed to answer; the error was logged."))


class ApiErrorMiddleware:
    """What a view raises and nobody answered: the database's unavailability is a 503
    everywhere (``Retry-After``), any other error under ``/api/`` a JSON 500, even with
    ``DEBUG`` on (its HTML page is for pages). Last in ``MIDDLEWARE``: the first asked."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exc: Exception) -> HttpResponse | None:
        if database_unavailable(exc):
            request_errors.warning(
                "Database unavailable: %s", request.path, exc_info=True, extra={"request": request}
            )
            return _unavailable(request)
        if not _is_api(request):
            return None
        request_errors.error(
            "Internal Server Error: %s", request.path, exc_info=True, extra={"request": request}
        )
        return JsonResponse(_server_error_body(), status=status.HTTP_500_INTERNAL_SERVER_ERROR)


def server_error(request: HttpRequest) -> HttpResponse:
    """``handler500``: what escaped a middleware (``DEBUG`` off) is JSON under ``/api/``,
    Django's own page elsewhere."""
    if _is_api(request):
        return JsonResponse(_server_error_body(), status=status.HTTP_500_INTERNAL_SERVER_ERROR)
    return defaults.server_error(request)
