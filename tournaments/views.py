"""The tournament pages: the list, and a tournament's draw, rounds and prizes."""

from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from club.errors import NotFound
from tournaments import selectors


def tournaments(request: HttpRequest) -> HttpResponse:
    """Every tournament, newest first, a page at a time."""
    page = Paginator(selectors.tournament_list(), 50).get_page(request.GET.get("page"))
    return render(request, "tournaments/tournaments.html", {"page": page})


def tournament(request: HttpRequest, pk: int) -> HttpResponse:
    """A tournament: the bracket (eliminations) or the standings, every round's
    pairings, and the prizes once paid out."""
    try:
        shown = selectors.tournament_get(pk=pk)
    except NotFound as error:
        raise Http404(str(error.message)) from None
    return render(
        request, "tournaments/tournament.html", selectors.tournament_draw(tournament=shown)
    )
