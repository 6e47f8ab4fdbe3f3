"""One shape for every API error: a 4xx status and ``{"error": code, "detail": text}``."""

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.http import Http404, JsonResponse
from django.utils.translation import gettext as _
from rest_framework import exceptions, status
from rest_framework.response import Response

from club.errors import ServiceError

_CODES = {
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


def _flatten(detail, prefix: str = "") -> list[str]:
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


def error_response(code: str, detail: str, http_status: int, **extra) -> Response:
    return Response({"error": code, "detail": detail, **extra}, status=http_status)


def exception_handler(exc, context):
    """DRF's exception handler, answering in the API's error shape."""
    if isinstance(exc, ServiceError):
        return error_response(exc.code, str(exc.message), exc.status)
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied()
    if not isinstance(exc, exceptions.APIException):
        return None
    code = next((c for cls, c in _CODES.items() if isinstance(exc, cls)), "invalid")
    headers = {}
    if getattr(exc, "auth_header", None):
        headers["WWW-Authenticate"] = exc.auth_header
    if getattr(exc, "wait", None):
        headers["Retry-After"] = str(int(exc.wait))
    if isinstance(exc, exceptions.ValidationError):
        response = error_response(
            code, "; ".join(_flatten(exc.detail)), exc.status_code, fields=exc.detail
        )
    elif isinstance(exc, exceptions.ParseError):
        response = error_response(
            code, _("The request body is not valid JSON: %s") % exc.detail, exc.status_code
        )
    else:
        response = error_response(code, str(exc.detail), exc.status_code)
    for name, value in headers.items():
        response[name] = value
    return response


def api_not_found(request, path=""):
    """Unknown paths under ``/api/`` answer JSON, not the HTML 404 page."""
    return JsonResponse(
        {"error": "not_found", "detail": _("There is no API endpoint at %s.") % request.path},
        status=status.HTTP_404_NOT_FOUND,
    )
