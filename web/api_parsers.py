"""The API's request bodies: JSON, within limits of size and depth."""

import io
from collections.abc import Mapping
from typing import IO, Any

from django.conf import settings
from django.utils.translation import gettext as _
from rest_framework import exceptions, parsers

from web.api_errors import BodyTooLarge

# Deeper than any body the API reads (a few levels), far shallower than what runs
# Python's parser out of stack (about 1,000 levels: a RecursionError, a 500).
MAX_JSON_DEPTH = 64


def _deeper_than(data: Any, limit: int) -> bool:
    """Whether lists and objects nest more than ``limit`` levels in ``data`` (level by
    level, without recursion: the depth is what is in doubt)."""
    level = [data] if isinstance(data, list | dict) else []
    for _depth in range(limit):
        level = [
            child
            for container in level
            for child in (container.values() if isinstance(container, dict) else container)
            if isinstance(child, list | dict)
        ]
    return bool(level)


def body_too_large(limit: int) -> BodyTooLarge:
    """The 413 of a body over ``limit`` bytes, whatever its media type."""
    return BodyTooLarge(_("The request body is larger than %(limit)d bytes.") % {"limit": limit})


class JSONParser(parsers.JSONParser):
    """DRF's JSON parser within limits: a body over ``DATA_UPLOAD_MAX_MEMORY_SIZE`` bytes
    is a 413 (``too_large``, read no further), one nesting lists or objects more than
    ``MAX_JSON_DEPTH`` levels a 400 (``malformed``)."""

    def parse(
        self,
        stream: IO[Any],
        media_type: str | None = None,
        parser_context: Mapping[str, Any] | None = None,
    ) -> Any:
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        body = stream.read(limit + 1)
        if len(body) > limit:
            raise body_too_large(limit)
        too_deep = exceptions.ParseError(
            _("lists and objects nest more than %(limit)d levels.") % {"limit": MAX_JSON_DEPTH}
        )
        try:
            data = super().parse(io.BytesIO(body), media_type, parser_context)
        except RecursionError:
            raise too_deep from None
        if _deeper_than(data, MAX_JSON_DEPTH):
            raise too_deep
        return data


class MultiPartParser(parsers.MultiPartParser):
    """DRF's multipart parser (a file upload) within the same body size limit as JSON:
    a body declared over ``DATA_UPLOAD_MAX_MEMORY_SIZE`` bytes is a 413 before any of it
    is read (Django keeps the limit for a form's fields, not for its files); a body that
    is not a valid form is a 400 saying so."""

    def parse(
        self,
        stream: IO[Any],
        media_type: str | None = None,
        parser_context: Mapping[str, Any] | None = None,
    ) -> Any:
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        meta = (parser_context or {})["request"].META
        try:
            declared = int(meta.get("CONTENT_LENGTH") or 0)
        except ValueError:
            declared = 0
        if declared > limit:
            raise body_too_large(limit)
        try:
            return super().parse(stream, media_type, parser_context)
        except exceptions.ParseError as error:
            raise exceptions.ValidationError(
                _("The request body is not a valid multipart form: %(error)s")
                % {"error": error.detail}
            ) from None
