"""The club's pages."""

from django.http import JsonResponse
from django.shortcuts import render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from club import health
from club.models import Player


def home(request):
    return render(request, "club/home.html")


@never_cache
@require_GET
def healthz(request):
    """200 when the database and the broker answer; 503 saying which one did not."""
    problems = [p for p in (health.database_problem(), health.broker_problem()) if p]
    if problems:
        return JsonResponse({"status": "unavailable", "problems": problems}, status=503)
    return JsonResponse({"status": "ok"})


def players(request):
    return render(
        request,
        "club/players.html",
        {"players": Player.objects.select_related("user").order_by("display_name")},
    )


def ledger(request):
    return render(request, "club/ledger.html")
