"""Template context every page needs."""

from django.conf import settings
from django.http import HttpRequest


def club(request: HttpRequest) -> dict[str, str]:
    return {"club_name": settings.CLUB_NAME, "club_currency": settings.CLUB_CURRENCY}
