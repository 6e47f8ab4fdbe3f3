"""Query parameters the API and the pages read alike."""

import re
from contextlib import suppress
from datetime import date

from django.utils.translation import gettext as _

from web.errors import Invalid

ISO_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


def at_param(raw: str | None) -> date | None:
    """The day of ``?at=YYYY-MM-DD`` (the books as they stood at its end), None when there
    is none; ``Invalid`` naming the value when it is not such a date."""
    if raw is None:
        return None
    if ISO_DATE.fullmatch(raw):
        with suppress(ValueError):  # 2026-02-30 has the shape of a date, but is none
            return date.fromisoformat(raw)
    raise Invalid(_("at: %(value)s is not a date (YYYY-MM-DD).") % {"value": raw})
