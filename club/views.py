"""The club's pages: home, players and ratings, results, the ledger."""

import csv
from datetime import date

from django.contrib import messages
from django.contrib.admin.views.decorators import staff_member_required
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods

from club import health, selectors, services
from club.charts import rating_chart_svg
from club.errors import NotFound, ServiceError
from club.models import CLUB, Player


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


def _player_or_404(username: str) -> Player:
    try:
        return selectors.player_get(username=username)
    except NotFound as error:
        raise Http404(str(error.message)) from None


def _may_see_ledger(user, player: Player) -> bool:
    """A player's statement is for the player themself and the club's staff."""
    return user.is_staff or getattr(getattr(user, "player", None), "pk", None) == player.pk


def _date_or_none(raw: str | None) -> date | None:
    if not raw:
        return None
    try:
        return date.fromisoformat(raw)
    except ValueError:
        return None


def _short_date(moment) -> str:
    return date_format(timezone.localtime(moment), "SHORT_DATE_FORMAT")


# Players and ratings ------------------------------------------------------------------


def players(request):
    """The leaderboard: every player, best rating first."""
    return render(
        request,
        "club/players.html",
        {"players": list(enumerate(selectors.leaderboard(), start=1))},
    )


def player(request, username):
    """A player's page: rating, experience, rating chart, recent results, balance."""
    shown = _player_or_404(username)
    history = list(selectors.rating_history(player=shown))
    ratings = [history[0].rating_before if history else shown.rating]
    ratings += [change.rating_after for change in history]
    chart = rating_chart_svg(
        ratings,
        first_label=_short_date(history[0].result.played_at) if history else "",
        last_label=_short_date(history[-1].result.played_at) if history else "",
    )
    logged_in = request.user.is_authenticated
    return render(
        request,
        "club/player.html",
        {
            "shown": shown,
            # The chart escapes every label it draws.
            "chart": mark_safe(chart),
            "results": selectors.player_results(player=shown, limit=20),
            "balance": selectors.player_balance(player=shown) if logged_in else None,
            "may_see_statement": logged_in and _may_see_ledger(request.user, shown),
        },
    )


def results(request):
    """Every match result, newest first, a page at a time."""
    page = Paginator(selectors.results_list(), 50).get_page(request.GET.get("page"))
    return render(request, "club/results.html", {"page": page})


# The ledger ---------------------------------------------------------------------------


def _statement_context(request, shown: Player) -> dict:
    on = _date_or_none(request.GET.get("at"))
    entries = selectors.player_statement(player=shown, on=on)
    return {
        "shown": shown,
        "on": on,
        "bad_date": bool(request.GET.get("at")) and on is None,
        "entries": list(reversed(entries)),  # newest first on the page
        "balance": selectors.player_balance(player=shown, on=on),
    }


@login_required
def ledger(request):
    """The logged-in player's own statement; staff also find the club's books here."""
    me = getattr(request.user, "player", None)
    context = _statement_context(request, me) if me is not None else {"shown": None}
    return render(request, "club/ledger.html", context)


@login_required
def statement(request, username):
    """A player's statement, optionally as it stood at the end of ``?at=YYYY-MM-DD``."""
    shown = _player_or_404(username)
    if not _may_see_ledger(request.user, shown):
        raise PermissionDenied
    return render(request, "club/statement.html", _statement_context(request, shown))


# Fixed, untranslated column names: the file is read by spreadsheets and scripts.
CSV_HEADER = ["date", "memo", "amount", "balance"]


@login_required
def statement_csv(request, username):
    """The statement as CSV: date, memo, amount, running balance (oldest first)."""
    shown = _player_or_404(username)
    if not _may_see_ledger(request.user, shown):
        raise PermissionDenied
    on = _date_or_none(request.GET.get("at"))
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    suffix = f"-{on.isoformat()}" if on else ""
    response["Content-Disposition"] = (
        f'attachment; filename="statement-{shown.user.pk}{suffix}.csv"'
    )
    writer = csv.writer(response, lineterminator="\n")
    writer.writerow(CSV_HEADER)
    for entry in selectors.player_statement(player=shown, on=on):
        writer.writerow(
            [
                timezone.localtime(entry.at).date().isoformat(),
                entry.memo,
                f"{entry.amount:.2f}",
                f"{entry.balance:.2f}",
            ]
        )
    return response


@staff_member_required
def trial_balance(request):
    """Every account of the club's books with its balance; they sum to zero (staff)."""
    on = _date_or_none(request.GET.get("at"))
    return render(
        request,
        "club/trial_balance.html",
        {"books": selectors.trial_balance(on=on), "on": on},
    )


@staff_member_required
@require_http_methods(["GET", "POST"])
def settle_up(request):
    """The fewest payments that bring every balance to zero; staff record them here."""
    if request.method == "POST":
        try:
            payer = selectors.party_get(name=request.POST.get("payer", ""))
            payee = selectors.party_get(name=request.POST.get("payee", ""))
            services.payment_record(
                payer=payer,
                payee=payee,
                amount=request.POST.get("amount", ""),
                posted_by=request.user,
            )
        except ServiceError as error:
            messages.error(request, str(error.message))
        else:
            messages.success(request, _("The payment is recorded."))
        return redirect("ledger-settle-up")

    def name(party):
        return CLUB if party == CLUB else party.username

    def label(party):
        return _("The club") if party == CLUB else party.display_name

    payments = [
        {
            "payer": name(t.payer),
            "payee": name(t.payee),
            "payer_label": label(t.payer),
            "payee_label": label(t.payee),
            "amount": t.amount,
        }
        for t in selectors.settle_up_payments()
    ]
    return render(request, "club/settle_up.html", {"payments": payments})
