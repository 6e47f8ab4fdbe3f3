"""Match pages."""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


def play(request: HttpRequest) -> HttpResponse:
    return render(request, "matches/play.html")
