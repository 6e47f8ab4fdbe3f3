"""Every read the club makes that is more than a ``get``: keyword-only functions named
for what they read."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from typing import TypedDict

from django.contrib.auth.models import User
from django.db.models import Case, Count, F, Q, QuerySet, Sum, When, Window
from django.db.models.functions import RowNumber
from django.utils import timezone
from django.utils.translation import gettext as _
from django_stubs_ext import WithAnnotations

from club import settle_up
from club.auth import Viewer
from club.memos import MemoParams, memo_render
from club.models import (
    Account,
    Leg,
    MatchResult,
    Player,
    RatingChange,
    RatingKind,
    RobotStrength,
    Transaction,
)
from club.parties import CLUB, Party
from web.errors import NotFound

ZERO = Decimal("0.00")


def player_get(*, username: str) -> Player:
    """The player with that username, or ``NotFound`` in the players' words."""
    try:
        return Player.objects.select_related("user").get(user__username=username)
    except Player.DoesNotExist:
        raise NotFound(
            _("There is no player called %(username)s.") % {"username": username}
        ) from None


def robot_list() -> QuerySet[Player]:
    """The practice robots, weakest first (docs/practice.md)."""
    order = Case(
        *(When(robot=strength, then=index) for index, strength in enumerate(RobotStrength.values))
    )
    return Player.objects.select_related("user").exclude(robot="").order_by(order)


def robot_get(*, strength: str) -> Player:
    """The practice robot of that strength (``NotFound`` if there is none)."""
    try:
        return Player.objects.select_related("user").get(robot=strength)
    except Player.DoesNotExist:
        raise NotFound(_("There is no robot %(strength)s.") % {"strength": strength}) from None


def party_get(*, name: str) -> Party:
    """A payment's party: ``"club"`` (the club's cash) or the player of that username."""
    return CLUB if name == CLUB else player_get(username=name)


# Who sees what ------------------------------------------------------------------------


def ledger_visible(*, player: Player, viewer: Viewer) -> bool:
    """A player's books (balance, statement, ledger) are for the player themself and the
    club's staff."""
    if not isinstance(viewer, User):
        return False
    return viewer.is_staff or viewer.pk == player.user_id


def player_balance_shown(*, player: Player, viewer: Viewer) -> Decimal | None:
    """The player's balance if ``viewer`` may see it (``ledger_visible``), else None."""
    return player_balance(player=player) if ledger_visible(player=player, viewer=viewer) else None


# Balances -----------------------------------------------------------------------------


def _until_end_of(day: date | None, *, field: str) -> Q:
    """Rows whose ``field`` comes before the end of ``day`` in the club's time zone; all
    of them for no day, or for the last day of the calendar (it has no day after)."""
    if day is None or day == date.max:
        return Q()
    end = timezone.make_aware(datetime.combine(day + timedelta(days=1), time.min))
    return Q(**{f"{field}__lt": end})


def _legs(*, on: date | None) -> QuerySet[Leg]:
    return Leg.objects.filter(_until_end_of(on, field="transaction__at"))


def account_balance(*, account: Account, on: date | None = None) -> Decimal:
    """The balance of ``account`` at the end of the day ``on`` (default: now)."""
    total = _legs(on=on).filter(account=account).aggregate(total=Sum("amount"))["total"]
    return (total or ZERO).quantize(ZERO)


def player_balance(*, player: Player, on: date | None = None) -> Decimal:
    """A player's balance (positive: the club owes them); 0.00 if they have no account."""
    total = (
        _legs(on=on)
        .filter(account__kind=Account.Kind.PLAYER, account__player=player)
        .aggregate(total=Sum("amount"))["total"]
    )
    return (total or ZERO).quantize(ZERO)


@dataclass(frozen=True)
class StatementEntry:
    at: datetime
    transaction: int
    kind: str
    memo: str  # as stored: in English, or as written by hand
    memo_kind: str
    memo_params: MemoParams
    amount: Decimal
    balance: Decimal  # the running balance after this entry

    @property
    def memo_translated(self) -> str:
        """The memo in the reader's (the active) language (club.memos)."""
        return memo_render(kind=self.memo_kind, params=self.memo_params, memo=self.memo)


def player_statement(*, player: Player, on: date | None = None) -> list[StatementEntry]:
    """A player's legs in order (oldest first) with the running balance, up to the end of
    the day ``on`` (default: everything)."""
    legs = (
        _legs(on=on)
        .filter(account__kind=Account.Kind.PLAYER, account__player=player)
        .select_related("transaction")
        .order_by("transaction__at", "transaction_id", "id")
    )
    entries, running = [], ZERO
    for leg in legs:
        running += leg.amount
        entries.append(
            StatementEntry(
                at=leg.transaction.at,
                transaction=leg.transaction_id,
                kind=leg.transaction.kind,
                memo=leg.transaction.memo,
                memo_kind=leg.transaction.memo_kind,
                memo_params=leg.transaction.memo_params,
                amount=leg.amount,
                balance=running,
            )
        )
    return entries


@dataclass(frozen=True)
class TrialBalance:
    rows: list[tuple[Account, Decimal]]
    total: Decimal


def trial_balance(*, on: date | None = None) -> TrialBalance:
    """Every account with its balance at the end of the day ``on``; they sum to zero."""
    accounts = (
        Account.objects.select_related("player__user")
        .annotate(
            balance=Sum("legs__amount", filter=_until_end_of(on, field="legs__transaction__at"))
        )
        .order_by("kind", "player__display_name", "id")
    )
    club_first = sorted(accounts, key=lambda a: a.kind == Account.Kind.PLAYER)
    rows: list[tuple[Account, Decimal]] = [
        (account, (account.balance or ZERO).quantize(ZERO)) for account in club_first
    ]
    return TrialBalance(rows=rows, total=sum((b for _a, b in rows), ZERO))


def settle_up_payments() -> list[settle_up.Transfer[Party]]:
    """The fewest payments that bring every player's balance to zero, the club's cash
    taking up whatever the players' balances do not cancel among themselves."""
    rows = (
        Account.objects.filter(kind=Account.Kind.PLAYER)
        .select_related("player__user")
        .annotate(balance=Sum("legs__amount"))
        .order_by("player__display_name", "id")
    )
    balances: dict[Party, Decimal] = {
        account.player: account.balance.quantize(ZERO)
        for account in rows
        if account.player is not None and account.balance
    }
    club_share = -sum(balances.values(), ZERO)
    if club_share:
        balances[CLUB] = club_share
    return settle_up.settle_up(balances)


class LegTotals(TypedDict):
    total: Decimal | None
    leg_count: int


def transactions_with_totals() -> QuerySet[WithAnnotations[Transaction, LegTotals]]:
    """Every transaction with the sum and the number of its legs (for ``ledger_check``)."""
    return Transaction.objects.annotate(
        total=Sum("legs__amount"), leg_count=Count("legs")
    ).order_by("id")


def transactions_with_amount_moved(*, transactions: QuerySet[Transaction]) -> QuerySet[Transaction]:
    """``transactions``, each with ``moved``: the sum of its positive legs."""
    return transactions.annotate(moved=Sum("legs__amount", filter=Q(legs__amount__gt=0)))


def ledger_total() -> Decimal:
    """The sum of every leg in the books: exactly zero when the ledger balances."""
    return (Leg.objects.aggregate(total=Sum("amount"))["total"] or ZERO).quantize(ZERO)


# Results and ratings ------------------------------------------------------------------


class Ranked(TypedDict):
    rank: int


def leaderboard(*, kind: str = RatingKind.BACKGAMMON) -> QuerySet[WithAnnotations[Player, Ranked]]:
    """Every player but the practice robots (never rated), best rating of ``kind``
    first (then the more experienced, then by name), each with ``rank``: 1 for the
    best, counted over the whole club whatever page is read."""
    rating, experience = (
        ("tavli_rating", "tavli_experience")
        if kind == RatingKind.TAVLI
        else ("rating", "experience")
    )
    order = [F(rating).desc(), F(experience).desc(), F("display_name").asc(), F("id").asc()]
    return (
        Player.objects.select_related("user")
        .filter(robot="")
        .annotate(rank=Window(RowNumber(), order_by=order))
        .order_by(*order)
    )


def result_list(*, player: Player | None = None) -> QuerySet[MatchResult]:
    """Match results, newest first; only those ``player`` played if given."""
    results = MatchResult.objects.select_related("winner__user", "loser__user").order_by("-id")
    if player is not None:
        results = results.filter(Q(winner=player) | Q(loser=player))
    return results


def result_rating_changes(*, result: MatchResult) -> dict[str, float]:
    """``{username: change}`` for the two players (0.0 each for an unrated result)."""
    changes = {result.winner.username: 0.0, result.loser.username: 0.0}
    for change in result.rating_changes.all():
        changes[change.player.username] = change.change
    return changes


@dataclass(frozen=True)
class PlayerResult:
    result: MatchResult
    opponent: Player
    won: bool
    change: float | None  # None: unrated


def player_results(*, player: Player, limit: int = 20) -> list[PlayerResult]:
    """A player's most recent results, from their side of the board."""
    results = list(result_list(player=player)[:limit])
    changes = {
        change.result_id: change.change
        for change in RatingChange.objects.filter(player=player, result__in=results)
    }
    return [
        PlayerResult(
            result=result,
            opponent=result.loser if result.winner_id == player.pk else result.winner,
            won=result.winner_id == player.pk,
            change=changes.get(result.pk),
        )
        for result in results
    ]


def rating_history(*, player: Player, kind: str = RatingKind.BACKGAMMON) -> QuerySet[RatingChange]:
    """The player's changes of the rating of ``kind``, oldest first, with the results
    that caused them."""
    return (
        RatingChange.objects.filter(player=player, result__rating_kind=kind)
        .select_related("result")
        .order_by("result_id", "id")
    )


def result_get(*, pk: int) -> MatchResult:
    """The result with that id, with its players and their rating changes."""
    try:
        return (
            MatchResult.objects.select_related("winner__user", "loser__user")
            .prefetch_related("rating_changes__player__user")
            .get(pk=pk)
        )
    except MatchResult.DoesNotExist:
        raise NotFound(_("There is no result %(id)s.") % {"id": pk}) from None
