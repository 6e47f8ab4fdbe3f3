"""Template context every page needs."""

from django.conf import settings


def club(request):
    return {"club_name": settings.CLUB_NAME, "club_currency": settings.CLUB_CURRENCY}
