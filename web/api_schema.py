"""The OpenAPI schema of ``/api/schema/``, generated so that it says what the server does.

- Every operation documents the errors it can answer, each with the ``Error`` body
  (``web.api_errors.ErrorOutput``): what DRF itself can answer for the view (400 for
  input, 401 for authentication, 403 for permissions and CSRF, 404 for path parameters
  and pages) and what its services may raise, declared on the view as
  ``raises = (NotFound, ...)``. A new endpoint is born documented.
- Request bodies (``web.api_base.InputSerializer``) say ``additionalProperties: false``:
  the server refuses fields it does not know.
- A path answered by ``web.api_base.Operations`` documents each method from its own
  view class.
"""

from typing import Any

from django.utils.translation import gettext_lazy as _
from drf_spectacular import generators
from drf_spectacular.extensions import OpenApiSerializerExtension
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.plumbing import ComponentRegistry
from rest_framework import permissions
from rest_framework.authentication import SessionAuthentication

from web.api_base import Operations, Page
from web.api_errors import ErrorOutput
from web.errors import ServiceError

ERROR_DESCRIPTIONS = {
    400: _("Malformed or invalid input; nothing was changed."),
    401: _("Not logged in: no token or session, or a token that is not valid."),
    403: _("Not allowed."),
    404: _("Not found."),
    409: _("In conflict with the current state; nothing was changed."),
    413: _("The request body is too large; nothing was changed."),
    415: _("The request body is not of the media type the operation takes."),
    429: _(
        "Too many requests: too many writes by this user in a minute, or (logging in) too "
        "many wrong passwords for this account from this address; nothing was changed. "
        "Send it again after the seconds of the Retry-After header."
    ),
    503: _(
        "The database is busy or unreachable; nothing was changed. Send it again after "
        "the seconds of the Retry-After header."
    ),
}
# Permissions every member passes: anything else can answer 403.
OPEN_PERMISSIONS = (permissions.AllowAny, permissions.IsAuthenticated)


class ClubAutoSchema(AutoSchema):
    """drf-spectacular's schema of an operation, with the error answers it can give."""

    def get_operation(
        self,
        path: str,
        path_regex: str,
        path_prefix: str,
        method: str,
        registry: ComponentRegistry,
    ) -> dict[str, Any] | None:
        operation = super().get_operation(path, path_regex, path_prefix, method, registry)
        if operation is None:
            return None
        error = self.resolve_serializer(ErrorOutput, "response").ref
        for status in sorted(self.error_statuses(operation)):
            operation["responses"].setdefault(
                str(status),
                {
                    "content": {"application/json": {"schema": error}},
                    "description": ERROR_DESCRIPTIONS[status],
                },
            )
        return operation

    def error_statuses(self, operation: dict[str, Any]) -> set[int]:
        """The error statuses this operation can answer."""
        parameters = operation.get("parameters", [])
        located = {parameter["in"] for parameter in parameters}
        authenticators = self.view.get_authenticators()
        raises: tuple[type[ServiceError], ...] = getattr(self.view, "raises", ())
        statuses = {error.status for error in raises}
        if "requestBody" in operation or "query" in located:
            statuses.add(400)
        if "requestBody" in operation:
            statuses.add(413)
            if "application/json" not in operation["requestBody"].get("content", {}):
                statuses.add(415)  # an upload: DRF refuses the media types it cannot parse
        statuses.add(503)  # every operation reads or writes the database
        if self.method not in permissions.SAFE_METHODS:
            statuses.add(429)  # web.guard: writes are throttled, logins locked
        if authenticators:
            statuses.add(401)
        if any(
            not isinstance(permission, OPEN_PERMISSIONS)
            for permission in self.view.get_permissions()
        ):
            statuses.add(403)
        if self.method not in permissions.SAFE_METHODS and any(
            isinstance(authenticator, SessionAuthentication) for authenticator in authenticators
        ):
            statuses.add(403)
        if "path" in located or any(p["name"] == Page.page_query_param for p in parameters):
            statuses.add(404)
        return statuses


class InputSerializerExtension(OpenApiSerializerExtension):
    """Request bodies refuse unknown fields: ``additionalProperties: false``."""

    target_class = "web.api_base.InputSerializer"
    match_subclasses = True

    def map_serializer(self, auto_schema: AutoSchema, direction: Any) -> dict[str, Any]:
        schema: dict[str, Any] = auto_schema._map_serializer(
            self.target, direction, bypass_extensions=True
        )
        schema["additionalProperties"] = False
        return schema


class EndpointEnumerator(generators.EndpointEnumerator):
    """Sees through ``Operations``: each method of a shared path is its own view."""

    def should_include_endpoint(self, path: str, callback: Any) -> bool:
        return isinstance(callback, Operations) or super().should_include_endpoint(path, callback)

    def get_allowed_methods(self, callback: Any) -> list[str]:
        if isinstance(callback, Operations):
            return list(callback.callbacks)
        # mypy#16653: untyped_calls_exclude does not reach calls through super().
        methods: list[str] = super().get_allowed_methods(callback)  # type: ignore[no-untyped-call]
        return methods

    def get_api_endpoints(  # type: ignore[override]  # drf-spectacular adds the path regex
        self, patterns: Any = None, prefix: str = ""
    ) -> list[tuple[str, str, str, Any]]:
        return [
            (path, regex, method, self._callback(callback, method))
            for path, regex, method, callback in super().get_api_endpoints(  # type: ignore[no-untyped-call]  # mypy#16653
                patterns, prefix
            )
        ]

    @staticmethod
    def _callback(callback: Any, method: str) -> Any:
        return callback.callbacks[method] if isinstance(callback, Operations) else callback


class SchemaGenerator(generators.SchemaGenerator):
    endpoint_inspector_cls = EndpointEnumerator
