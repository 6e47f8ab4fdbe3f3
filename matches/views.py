"""Match and tournament pages."""

from django.shortcuts import render


def play(request):
    return render(request, "matches/play.html")


def tournaments(request):
    return render(request, "matches/tournaments.html")
