"""The club's pages: home, players and ratings, results, the ledger."""

from datetime import date, datetime
from decimal import Decimal
from typing import TypedDict

from django import forms
from django.contrib import messages
from django.contrib.admin.views.decorators import staff_member_required
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.http import (
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponseBadRequest,
    HttpResponseBase,
    JsonResponse,
)
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods

from club import money, selectors, services
from club.auth import member
from club.charts import rating_chart_svg
from club.models import Player, RatingKind
from club.parties import party_label, party_name
from web import health
from web.errors import Invalid, NotFound, ServiceError
from web.params import at_param
from web.spreadsheets import CsvWriter


def home(request: HttpRequest) -> HttpResponse:
    return render(request, "club/home.html")


@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    """200 when the database and the broker answer and no process ``runclub`` supervises
    is down; 503 saying what is wrong."""
    problems = health.problems()
    if problems:
        return JsonResponse({"status": "unavailable", "problems": problems}, status=503)
    return JsonResponse({"status": "ok"})


def _player_or_404(username: str) -> Player:
    try:
        return selectors.player_get(username=username)
    except NotFound as error:
        raise Http404(str(error.message)) from None


def _day_shown(request: HttpRequest) -> tuple[date | None, bool]:
    """The ``?at=`` day of a page and whether it was a bad date (the page says so and
    shows everything). The page's own date field sends ``?at=`` when left empty."""
    try:
        return at_param(request.GET.get("at") or None), False
    except Invalid:
        return None, True


def _short_date(moment: datetime) -> str:
    return date_format(timezone.localtime(moment), "SHORT_DATE_FORMAT")


# Players and ratings ------------------------------------------------------------------


def players(request: HttpRequest) -> HttpResponse:
    """The leaderboard: every player, best FIBS rating first, or best tavli rating with
    ``?rating_kind=tavli`` (anything else shows FIBS's)."""
    tavli = request.GET.get("rating_kind") == RatingKind.TAVLI
    kind = RatingKind.TAVLI if tavli else RatingKind.BACKGAMMON
    ranked = [(player.rank, player) for player in selectors.leaderboard(kind=kind)]
    return render(request, "club/players.html", {"players": ranked, "tavli": tavli})


def _rating_chart(shown: Player, kind: str, title: str) -> str:
    """The SVG chart of one of the player's ratings (its labels escaped)."""
    history = list(selectors.rating_history(player=shown, kind=kind))
    ratings = [history[0].rating_before if history else shown.rating_of(kind)[0]]
    ratings += [change.rating_after for change in history]
    return rating_chart_svg(
        ratings,
        first_label=_short_date(history[0].result.played_at) if history else "",
        last_label=_short_date(history[-1].result.played_at) if history else "",
        title=title,
    )


def player(request: HttpRequest, username: str) -> HttpResponse:
    """A player's page: both ratings (FIBS and tavli) with their experience and charts,
    recent results and, for the player and staff, the balance."""
    shown = _player_or_404(username)
    chart = _rating_chart(shown, RatingKind.BACKGAMMON, _("FIBS rating history (backgammon)"))
    tavli_chart = _rating_chart(shown, RatingKind.TAVLI, _("Tavli rating history"))
    return render(
        request,
        "club/player.html",
        {
            "shown": shown,
            # The charts escape every label they draw.
            "chart": mark_safe(chart),
            "tavli_chart": mark_safe(tavli_chart),
            "results": selectors.player_results(player=shown, limit=20),
            "balance": selectors.player_balance_shown(player=shown, viewer=request.user),
        },
    )


def results(request: HttpRequest) -> HttpResponse:
    """Every match result, newest first, a page at a time."""
    page = Paginator(selectors.result_list(), 50).get_page(request.GET.get("page"))
    return render(request, "club/results.html", {"page": page})


# The ledger ---------------------------------------------------------------------------


class StatementPage(TypedDict):
    """A player's statement page (and the ledger page's own)."""

    shown: Player
    on: date | None
    bad_date: bool
    entries: list[selectors.StatementEntry]
    balance: Decimal


def _statement_context(request: HttpRequest, shown: Player) -> StatementPage:
    on, bad_date = _day_shown(request)
    entries = selectors.player_statement(player=shown, on=on)
    return {
        "shown": shown,
        "on": on,
        "bad_date": bad_date,
        "entries": list(reversed(entries)),  # newest first on the page
        "balance": selectors.player_balance(player=shown, on=on),
    }


def _statement_player(request: HttpRequest, username: str) -> Player:
    """The player whose statement is asked for, if the viewer may see it."""
    shown = _player_or_404(username)
    if not selectors.ledger_visible(player=shown, viewer=request.user):
        raise PermissionDenied
    return shown


@login_required
def ledger(request: HttpRequest) -> HttpResponse:
    """The logged-in player's own statement; staff also find the club's books here."""
    me = getattr(request.user, "player", None)
    context = _statement_context(request, me) if me is not None else {"shown": None}
    return render(request, "club/ledger.html", context)


@login_required
def statement(request: HttpRequest, username: str) -> HttpResponse:
    """A player's statement, optionally as it stood at the end of ``?at=YYYY-MM-DD``."""
    shown = _statement_player(request, username)
    return render(request, "club/statement.html", _statement_context(request, shown))


# Fixed, untranslated column names: the file is read by spreadsheets and scripts; the
# memos in the reader's language, as the page shows them (club.memos).
CSV_HEADER = ["date", "memo", "amount", "balance"]


@login_required
def statement_csv(request: HttpRequest, username: str) -> HttpResponseBase:
    """The statement as CSV: date, memo, amount, running balance (oldest first)."""
    shown = _statement_player(request, username)
    try:
        on = at_param(request.GET.get("at"))
    except Invalid as error:
        return HttpResponseBadRequest(str(error.message), content_type="text/plain")
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    suffix = f"-{on.isoformat()}" if on else ""
    response["Content-Disposition"] = (
        f'attachment; filename="statement-{shown.user.pk}{suffix}.csv"'
    )
    writer = CsvWriter(response)
    writer.writerow(CSV_HEADER)
    for entry in selectors.player_statement(player=shown, on=on):
        writer.writerow(
            [
                timezone.localtime(entry.at).date().isoformat(),
                entry.memo_translated,
                f"{entry.amount:.2f}",
                f"{entry.balance:.2f}",
            ]
        )
    return response


@staff_member_required
def trial_balance(request: HttpRequest) -> HttpResponse:
    """Every account of the club's books with its balance; they sum to zero (staff)."""
    on, bad_date = _day_shown(request)
    return render(
        request,
        "club/trial_balance.html",
        {"books": selectors.trial_balance(on=on), "on": on, "bad_date": bad_date},
    )


class SettleUpPaymentForm(forms.Form):
    """One of the settle-up page's payments, as its "Record as paid" button sends it."""

    payer = forms.CharField(strip=False)
    payee = forms.CharField(strip=False)
    amount = forms.DecimalField(max_digits=money.LEG_DIGITS, decimal_places=money.PLACES)


@staff_member_required
@require_http_methods(["GET", "POST"])
def settle_up(request: HttpRequest) -> HttpResponse:
    """The fewest payments that bring every balance to zero; staff record them here."""
    if request.method == "POST":
        _settle_up_record(request)
        return redirect("ledger-settle-up")
    payments = [
        {
            "payer": party_name(transfer.payer),
            "payee": party_name(transfer.payee),
            "payer_label": party_label(transfer.payer),
            "payee_label": party_label(transfer.payee),
            "amount": transfer.amount,
        }
        for transfer in selectors.settle_up_payments()
    ]
    return render(request, "club/settle_up.html", {"payments": payments})


def _settle_up_record(request: HttpRequest) -> None:
    """Record the payment a settle-up button sent; the page says how it went."""
    form = SettleUpPaymentForm(request.POST)
    if not form.is_valid():  # the page's own buttons always send a whole payment
        messages.error(request, str(Invalid.default_message))
        return
    try:
        services.payment_record(
            payer=selectors.party_get(name=form.cleaned_data["payer"]),
            payee=selectors.party_get(name=form.cleaned_data["payee"]),
            amount=form.cleaned_data["amount"],
            recorded_by=member(request.user),
        )
    except ServiceError as error:
        messages.error(request, str(error.message))
    else:
        messages.success(request, _("The payment is recorded."))
