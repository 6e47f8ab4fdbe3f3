"""The tournament pages: the list, and a tournament's draw, rounds and prizes."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from club.auth import member
from club.models import Player
from tournaments import selectors, services
from tournaments.models import Entry, Tournament
from web.errors import Conflict, NotFound, ServiceError
from web.pages import big_screen, live_template


def tournaments(request: HttpRequest) -> HttpResponse:
    """Every tournament, newest first, a page at a time."""
    page = Paginator(selectors.tournament_list(), 50).get_page(request.GET.get("page"))
    return render(request, "tournaments/tournaments.html", {"page": page})


def tournament(request: HttpRequest, pk: int) -> HttpResponse:
    """A tournament: the bracket (eliminations) or the standings, every round's
    pairings, and the prizes once paid out; its live region alone on each new version.
    With ``?screen=big``, the room's TV: no site header, the bracket filling the screen."""
    shown = _tournament_or_404(pk)
    context = selectors.tournament_draw(tournament=shown)
    context["big_screen"] = big_screen(request)
    if request.user.is_authenticated:
        context["my_entry"] = next(
            (entry for entry in shown.entries.all() if entry.player.user_id == request.user.pk),
            None,
        )
    template = live_template(
        request, page="tournaments/tournament.html", region="tournaments/_live.html"
    )
    return render(request, template, context)


def _tournament_or_404(pk: int) -> Tournament:
    try:
        return selectors.tournament_get(pk=pk)
    except NotFound as error:
        raise Http404(str(error.message)) from None


@login_required
@require_POST
def tournament_enter(request: HttpRequest, pk: int) -> HttpResponseBase:
    """A member enters a tournament whose registration is open (the fee is posted to
    their account), or withdraws while it is open (refunded)."""
    shown = _tournament_or_404(pk)
    user = member(request.user)
    try:
        if shown.status != Tournament.Status.OPEN:
            raise Conflict(_("Registration for %(name)s is not open.") % {"name": shown.name})
        if request.POST.get("withdraw"):
            entry = Entry.objects.filter(tournament=shown, player__user=user).first()
            if entry is None:
                raise NotFound(_("You have not entered %(name)s.") % {"name": shown.name})
            services.entry_withdraw(entry=entry, recorded_by=user)
            messages.success(request, _("You have withdrawn from %(name)s.") % {"name": shown.name})
        else:
            player = Player.objects.filter(user=user).first()
            if player is None:
                raise NotFound(_("Only the club's players enter tournaments."))
            services.entry_add(tournament=shown, player=player, recorded_by=user)
            messages.success(request, _("You have entered %(name)s.") % {"name": shown.name})
    except ServiceError as error:
        messages.error(request, str(error.message))
    return redirect(shown)
