"""What every endpoint of every app builds on (see docs/api.md, "Adding an endpoint").

- ``InputSerializer``: the base of every request body: the declared fields only, each of
  the JSON type the schema says.
- ``UsernameField``: the field naming a player, with its pattern in the schema;
  ``UsernameFilter`` and ``choice_filter`` for lists. (The fields carrying money are the
  club's: ``club.api_money``.)
- ``Page``: how every list is paged (the DRF default).
- ``Operations``: one path answered by one view class per method.
"""

from collections.abc import Mapping, Sequence
from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.core.validators import RegexValidator
from django.http import HttpRequest, HttpResponseBase, JsonResponse
from django.utils.functional import Promise
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django_filters import rest_framework as filters
from django_stubs_ext import StrOrPromise
from drf_spectacular.utils import extend_schema_field
from rest_framework import exceptions, pagination, serializers
from rest_framework.request import Request
from rest_framework.views import APIView

from web.api_errors import error_body
from web.names import USERNAME_PATTERN

# The JSON type each kind of field takes, as the schema says it: left alone, DRF would
# also take 5 for "5", "yes" for true and 12.5 for "12.50". Most specific first.
JSON_TYPES: list[tuple[type[serializers.Field[Any, Any, Any, Any]], type, Promise]] = [
    (serializers.BooleanField, bool, gettext_lazy("Must be true or false.")),
    (serializers.IntegerField, int, gettext_lazy("Must be a whole number.")),
    (serializers.DecimalField, str, gettext_lazy('Must be a decimal string, like "12.50".')),
    (serializers.CharField, str, gettext_lazy("Must be a string.")),
    (serializers.ChoiceField, str, gettext_lazy("Must be a string.")),
    (serializers.DateTimeField, str, gettext_lazy("Must be a string.")),
    (serializers.DateField, str, gettext_lazy("Must be a string.")),
]


def _json_type_problem(field: serializers.Field[Any, Any, Any, Any], value: Any) -> Promise | None:
    """Why ``value`` is not of the JSON type the schema gives ``field`` (None: it is)."""
    for kind, wanted, problem in JSON_TYPES:
        if isinstance(field, kind):
            fits = isinstance(value, wanted) and (wanted is bool or not isinstance(value, bool))
            return None if fits else problem
    return None


class InputSerializer(serializers.Serializer[Any]):
    """A request body, exactly as the schema describes it: the declared fields and no
    other (a misspelt field is an error, not a silently ignored default), each of the
    JSON type the schema says (``JSON_TYPES``), strings taken as sent (never trimmed:
    "  " is not blank to the schema, so it is not blank to the server either)."""

    def get_fields(self) -> dict[str, serializers.Field[Any, Any, Any, Any]]:
        fields = super().get_fields()
        for field in fields.values():
            if isinstance(field, serializers.CharField):
                field.trim_whitespace = False
        return fields

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, Mapping):
            problems = {
                name: [_("There is no such field.")]
                for name in sorted(set(data) - set(self.fields))
            }
            for name, field in self.fields.items():
                problem = None if data.get(name) is None else _json_type_problem(field, data[name])
                if problem is not None:
                    problems[name] = [str(problem)]
            if problems:
                raise serializers.ValidationError(problems)
        return super().to_internal_value(data)


class UsernameField(serializers.RegexField):
    """A player named by username (``names.USERNAME_PATTERN``)."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("help_text", gettext_lazy("A player's username."))
        super().__init__(rf"^{USERNAME_PATTERN}$", **kwargs)


# Left empty, a filter filters nothing (as an empty form field does): the schema says so.
@extend_schema_field({"type": "string", "pattern": f"^({USERNAME_PATTERN})?$"})
class UsernameFilter(filters.CharFilter):
    """A list filter naming a player by username, checked against the same pattern."""

    def __init__(self, **kwargs: Any) -> None:
        validator = RegexValidator(rf"^{USERNAME_PATTERN}$")
        super().__init__(validators=[validator], strip=False, **kwargs)


class _BooleanField(forms.NullBooleanField):
    """``true`` or ``false`` (also ``1``/``0``, ``True``/``False``); left empty, none."""

    def to_python(self, value: Any) -> bool | None:  # type: ignore[override]  # as NullBooleanField
        if value in (None, ""):
            return None
        if value in ("true", "True", "1"):
            return True
        if value in ("false", "False", "0"):
            return False
        raise ValidationError(
            _("%(value)s is not true or false."), code="invalid", params={"value": value}
        )


class BooleanFilter(filters.BooleanFilter):
    """A list filter taking ``true`` or ``false``: anything else is a 400 naming it
    (django-filter's own reads it as left empty, filtering nothing)."""

    field_class = _BooleanField

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(widget=forms.TextInput, **kwargs)  # the text as sent, unread


def choice_filter(
    *, choices: Sequence[tuple[str, Any]], label: StrOrPromise
) -> filters.ChoiceFilter:
    """A list filter taking one of ``choices``; left empty, it filters nothing, and the
    schema says so (``""`` is in its enum)."""

    @extend_schema_field({"type": "string", "enum": ["", *(value for value, _ in choices)]})
    class Choice(filters.ChoiceFilter):
        pass

    return Choice(choices=choices, label=label)


class Page(pagination.PageNumberPagination):
    """Every list: ``{"count", "next", "previous", "results"}``, 50 a page, ``?page=N``.

    A page that is not a whole number from 1 is malformed (400); a page past the last
    one is unknown (404).
    """

    page_size = 50
    last_page_strings = ()

    def get_page_number(self, request: Request, paginator: Any) -> int:
        raw = request.query_params.get(self.page_query_param, "1")
        if not raw.isascii() or not raw.isdigit() or int(raw) < 1:
            raise exceptions.ValidationError(
                {self.page_query_param: [_("A page is a whole number from 1.")]}
            )
        return int(raw)

    def get_schema_operation_parameters(self, view: APIView) -> list[dict[str, Any]]:
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            if parameter["name"] == self.page_query_param:
                parameter["schema"] = {"type": "integer", "minimum": 1}
        return parameters


class Operations:
    """One path answered by one view class per method, so that each operation keeps its
    own permissions and serializers: ``Operations(ResultListView, ResultCreateView)``.
    ``web.api_schema`` documents each method from its own class."""

    csrf_exempt = True  # each DRF view makes its own CSRF check

    def __init__(self, *views: type[APIView]) -> None:
        self.callbacks = {
            method: view.as_view()
            for view in views
            for method in view().allowed_methods
            if method not in ("HEAD", "OPTIONS")
        }
        self.allow = ", ".join([*self.callbacks, "OPTIONS"])

    def __call__(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        method = request.method or ""
        if method == "OPTIONS":
            response = next(iter(self.callbacks.values()))(request, *args, **kwargs)
            response["Allow"] = self.allow
            return response
        callback = self.callbacks.get("GET" if method == "HEAD" else method)
        if callback is not None:
            return callback(request, *args, **kwargs)
        detail = exceptions.MethodNotAllowed(method).detail
        return JsonResponse(
            error_body("method_not_allowed", str(detail)),
            status=405,
            headers={"Allow": self.allow},
        )
