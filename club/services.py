"""Every write the club makes: keyword-only functions named ``<noun>_<verb>``, each one
transaction.

The ledger's only writer is ``ledger_post``; ratings change only through
``match_result_record`` (incrementally) and ``ratings_rebuild`` (from scratch). Other apps
(matches, chouettes, tournaments) call these; the club imports none of them.
"""

from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import TypeVar

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.contrib.contenttypes.models import ContentType
from django.db import IntegrityError, models
from django.db import transaction as db_transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from club import money, ratings
from club.memos import Memo, MemoKind
from club.models import (
    Account,
    Leg,
    MatchResult,
    Player,
    RatingChange,
    RatingKind,
    SourceKind,
    Transaction,
)
from club.parties import CLUB, Party
from web import clock
from web.errors import Conflict, Forbidden, Invalid
from web.names import USERNAME_RE

RESERVED_USERNAMES = {CLUB}
MEMO_LENGTH = 200
# The longest match a club plays to; longer is a typo (a 198-point match), not a match.
MAX_MATCH_LENGTH = 64
# How far in the future a result may say it was played: the recorder's clock may be ahead.
MAX_CLOCK_SKEW = timedelta(minutes=5)
# The earliest moment a result may say it was played: an older one is a typo (0001-01-01)
# that would still move the ratings, its history first of all.
EARLIEST_RESULT = datetime(1900, 1, 1, tzinfo=UTC)
# A player's columns the rating services write: FIBS's and the tavli rating's.
T = TypeVar("T")


# Players ------------------------------------------------------------------------------


def username_check(*, username: str) -> None:
    """Refuse a username that is malformed (``names.USERNAME_PATTERN``: ``Invalid``), or
    reserved or taken, in any case (``Conflict``: the name is someone else's)."""
    if not USERNAME_RE.fullmatch(username):
        raise Invalid(
            _("%(username)s is not a username: use 1 to 150 of a-z, A-Z, 0-9 and @.+-_.")
            % {"username": username}
        )
    if username.lower() in RESERVED_USERNAMES:
        raise Conflict(_("The username %(username)s is reserved.") % {"username": username})
    if get_user_model().objects.filter(username__iexact=username).exists():
        raise Conflict(_("The username %(username)s is taken.") % {"username": username})


@db_transaction.atomic
def player_create(
    *, username: str, password: str, display_name: str = "", is_staff: bool = False
) -> Player:
    """Create a member: a Django user, their player and their ledger account, or refuse
    the username (``username_check``)."""
    username_check(username=username)
    user = get_user_model().objects.create_user(username=username, password=password)
    if is_staff:
        user.is_staff = True
        user.is_superuser = True
        user.save(update_fields=["is_staff", "is_superuser"])
    player = Player.objects.create(user=user, display_name=display_name.strip() or username)
    account_open_for_player(player=player)
    return player


# Accounts -----------------------------------------------------------------------------


@db_transaction.atomic
def account_open_for_player(*, player: Player) -> Account:
    """The player's ledger account, opened now if the player has none yet."""
    account, _created = Account.objects.get_or_create(kind=Account.Kind.PLAYER, player=player)
    return account


@db_transaction.atomic
def club_account_open(*, kind: Account.Kind) -> Account:
    """One of the club's own accounts, opened now if need be."""
    if kind == Account.Kind.PLAYER or kind not in Account.Kind.values:
        raise Invalid(_("There is no club account called %(kind)s.") % {"kind": kind})
    account, _created = Account.objects.get_or_create(kind=kind, player=None)
    return account


def party_account_open(*, party: Party) -> Account:
    """The account a party's payments move: the player's own, or the club's cash."""
    if isinstance(party, Player):
        return account_open_for_player(player=party)
    return club_account_open(kind=Account.Kind.CLUB_CASH)


# The ledger ---------------------------------------------------------------------------


@dataclass(frozen=True)
class LegSpec:
    """One leg to post: ``amount`` is what it adds to ``account``'s balance."""

    account: Account
    amount: Decimal


def money_check(*, amount: Decimal, positive: bool = False) -> Decimal:
    """A money amount with two places, or ``Invalid``.

    Refuses anything but a ``Decimal`` (a float cannot hold cents exactly), non-finite
    values, more than two decimal places, amounts too large for the books and, with
    ``positive``, zero or negative amounts.
    """
    if not isinstance(amount, Decimal):
        raise Invalid(_("Amounts are decimal numbers with two places, like 12.50."))
    if not amount.is_finite() or abs(amount) > money.MAX_LEG_AMOUNT:
        raise Invalid(_("%(amount)s is not an amount of money.") % {"amount": amount})
    if amount != amount.quantize(money.CENT):
        raise Invalid(_("%(amount)s has more than two decimal places.") % {"amount": amount})
    if positive and amount <= 0:
        raise Invalid(_("The amount must be more than zero."))
    return amount.quantize(money.CENT)


def _memo_check(memo: str) -> str:
    memo = memo.strip()
    if not memo:
        raise Invalid(_("Every transaction needs a memo saying what it is for."))
    if len(memo) > MEMO_LENGTH:
        raise Invalid(_("The memo is longer than %(limit)s characters.") % {"limit": MEMO_LENGTH})
    return memo


def _source_link(source: models.Model | None) -> tuple[ContentType | None, int | None]:
    if source is None:
        return None, None
    if not isinstance(source.pk, int):
        raise Invalid(_("A source is a saved object with a whole-number id."))
    return ContentType.objects.get_for_model(source), source.pk


@db_transaction.atomic
def ledger_post(
    *,
    legs: Sequence[LegSpec],
    memo: str | Memo,
    kind: str = SourceKind.OTHER,
    source: models.Model | None = None,
    recorded_by: User | None = None,
    reverses: Transaction | None = None,
    at: datetime | None = None,
) -> Transaction:
    """Post one balanced transaction: the only way anything enters the ledger.

    ``legs``: two or more whose non-zero amounts, each with at most two decimal places,
    sum to exactly zero. ``kind`` says what the money is (``SourceKind``), ``source``
    links the object it comes from (a chouette session, a money session, a
    tournament...), ``recorded_by`` the user who recorded it (None for the server itself),
    ``at`` when the money changed hands (default: now). ``reverses`` is set only by
    ``ledger_reverse``. ``memo``: a ``Memo`` the server writes (its kind and parameters,
    read in each reader's language; its English text kept, cut to the column), or a text
    written by hand, kept as written. Raises ``Invalid`` (nothing posted) for anything
    else.
    """
    written = memo if isinstance(memo, Memo) else Memo(MemoKind.TEXT.value)
    if isinstance(memo, Memo):
        text = _memo_check(memo.source_text()[:MEMO_LENGTH])
    else:
        text = _memo_check(memo)
    if kind not in SourceKind.values:
        raise Invalid(_("%(kind)s is not a kind of transaction.") % {"kind": kind})
    if len(legs) < 2:
        raise Invalid(_("A transaction has at least two legs."))
    amounts = [money_check(amount=leg.amount) for leg in legs]
    if any(amount == 0 for amount in amounts):
        raise Invalid(_("A leg of zero changes nothing: leave it out."))
    total = sum(amounts, Decimal("0.00"))
    if total != 0:
        raise Invalid(
            _("The legs sum to %(total)s; a transaction's legs sum to exactly zero.")
            % {"total": total}
        )
    source_type, source_id = _source_link(source)
    accounts = [leg.account for leg in legs]
    # Lock the accounts posted to, in id order (no deadlocks between two postings).
    list(
        Account.objects.select_for_update()
        .filter(pk__in={account.pk for account in accounts})
        .order_by("pk")
    )
    if reverses is not None:
        _reversal_check(reverses, kind, list(zip(accounts, amounts, strict=True)))
    posted = Transaction(
        at=at or timezone.now(),
        recorded_by=recorded_by,
        memo=text,
        memo_kind=written.kind,
        memo_params=dict(written.params),
        kind=kind,
        source_type=source_type,
        source_id=source_id,
        reverses=reverses,
    )
    posted._posting = True
    posted.save()
    rows = []
    for account, amount in zip(accounts, amounts, strict=True):
        leg = Leg(transaction=posted, account=account, amount=amount)
        leg._posting = True
        rows.append(leg)
    Leg.objects.bulk_create(rows)
    return posted


def _reversal_check(original: Transaction, kind: str, legs: list[tuple[Account, Decimal]]) -> None:
    locked = Transaction.objects.select_for_update().get(pk=original.pk)
    if kind != SourceKind.CORRECTION:
        raise Invalid(_("A reversal is a correction."))
    if Transaction.objects.filter(reverses=locked).exists():
        raise Conflict(_("Transaction #%(id)s has already been reversed.") % {"id": original.pk})
    wanted = Counter((leg.account_id, -leg.amount) for leg in locked.legs.all())
    if Counter((account.pk, amount) for account, amount in legs) != wanted:
        raise Invalid(_("A reversal's legs are the original's legs with the signs turned."))


@db_transaction.atomic
def ledger_reverse(
    *,
    transaction: Transaction,
    recorded_by: User | None,
    memo: str = "",
    at: datetime | None = None,
) -> Transaction:
    """Post the correction that undoes ``transaction``: the same legs, signs turned,
    pointing at the original (``reverses`` and ``source``). Each transaction can be
    reversed once (``Conflict`` the second time)."""
    original = Transaction.objects.select_for_update().get(pk=transaction.pk)
    reversal: str | Memo = memo
    if not memo.strip():
        reversal = Memo.of(
            MemoKind.REVERSAL,
            id=original.pk,
            memo={
                "kind": original.memo_kind,
                "params": original.memo_params,
                "memo": original.memo,
            },
        )
    legs = [
        LegSpec(account=leg.account, amount=-leg.amount)
        for leg in original.legs.select_related("account")
    ]
    return ledger_post(
        legs=legs,
        memo=reversal,
        kind=SourceKind.CORRECTION,
        source=original,
        recorded_by=recorded_by,
        reverses=original,
        at=at,
    )


def payment_check(*, payer: Party, payee: Party, amount: Decimal) -> Decimal:
    """Check a payment without posting it: payer and payee are different parties; the
    amount is positive, with at most two places, and at most ``money.MAX_PAYMENT``."""
    for party in (payer, payee):
        if party != CLUB and not isinstance(party, Player):
            raise Invalid(_("A payment is made by and to players or the club."))
    if isinstance(payer, Player) and isinstance(payee, Player):
        same = payer.pk == payee.pk
    else:
        same = payer == payee
    if same:
        raise Invalid(_("The payer and the payee must be different."))
    amount = money_check(amount=amount, positive=True)
    if amount > money.MAX_PAYMENT:
        raise Invalid(
            _("A payment moves at most %(most)s; %(amount)s is more.")
            % {"most": money.MAX_PAYMENT, "amount": amount}
        )
    return amount


@db_transaction.atomic
def payment_record(
    *,
    payer: Party,
    payee: Party,
    amount: Decimal,
    recorded_by: User,
    memo: str = "",
    at: datetime | None = None,
) -> Transaction:
    """Staff record cash changing hands between two players or a player and the club
    (``"club"``: the club's cash account). The payer's balance rises by ``amount`` and
    the payee's falls by it. Posted as one transaction of kind ``payment``."""
    if not recorded_by.is_staff:
        raise Forbidden(_("Only the club's staff record payments."))
    amount = payment_check(payer=payer, payee=payee, amount=amount)
    written: str | Memo = memo
    if not memo.strip():
        written = Memo.of(
            MemoKind.PAYMENT,
            payer=payer.display_name if isinstance(payer, Player) else None,
            payee=payee.display_name if isinstance(payee, Player) else None,
        )
    return ledger_post(
        legs=[
            LegSpec(account=party_account_open(party=payer), amount=amount),
            LegSpec(account=party_account_open(party=payee), amount=-amount),
        ],
        memo=written,
        kind=SourceKind.PAYMENT,
        recorded_by=recorded_by,
        at=at,
    )


# Results and ratings ------------------------------------------------------------------


def match_result_check(
    *,
    winner: Player,
    loser: Player,
    length: int,
    rated: bool,
    ended_by: str,
    played_at: datetime | None = None,
    rating_kind: str = RatingKind.BACKGAMMON,
) -> None:
    """Check a result without recording it (``Invalid`` if it cannot be recorded)."""
    if winner.pk == loser.pk:
        raise Invalid(_("A player cannot play a match against themself."))
    if isinstance(length, bool) or not isinstance(length, int):
        raise Invalid(_("The match length is a whole number of points."))
    if not 0 <= length <= MAX_MATCH_LENGTH:
        raise Invalid(
            _("The match length is between 1 and %(most)s points (0: a money session).")
            % {"most": MAX_MATCH_LENGTH}
        )
    if length == 0 and rated:
        raise Invalid(_("A money session is never rated."))
    if rated and (winner.robot or loser.robot):
        raise Invalid(_("A match against the practice robot is never rated."))
    if ended_by not in MatchResult.EndedBy.values:
        raise Invalid(_("%(how)s is not a way a match ends.") % {"how": ended_by})
    if rating_kind not in RatingKind.values:
        raise Invalid(_("%(kind)s is not a rating: backgammon or tavli.") % {"kind": rating_kind})
    if played_at is not None and played_at > clock.now() + MAX_CLOCK_SKEW:
        raise Invalid(
            _("A result is recorded once the match is played: %(at)s is in the future.")
            % {"at": played_at.isoformat()}
        )
    if played_at is not None and played_at < EARLIEST_RESULT:
        raise Invalid(
            _("%(at)s is before %(earliest)s: no match of the club's was played then.")
            % {"at": played_at.isoformat(), "earliest": EARLIEST_RESULT.date().isoformat()}
        )


def _rate(result: MatchResult, winner: Player, loser: Player) -> list[RatingChange]:
    """Apply one rated result to the rating of its kind of the two (locked, in-memory)
    players; the history rows."""
    kind = result.rating_kind
    winner_rating, winner_experience = winner.rating_of(kind)
    loser_rating, loser_experience = loser.rating_of(kind)
    update = ratings.rate_match(
        winner_rating=winner_rating,
        winner_experience=winner_experience,
        loser_rating=loser_rating,
        loser_experience=loser_experience,
        length=result.length,
    )
    sides = (
        (
            winner,
            update.winner_change,
            update.winner_rating,
            update.winner_k,
            update.winner_experience,
        ),
        (loser, update.loser_change, update.loser_rating, update.loser_k, update.loser_experience),
    )
    changes = []
    for player, change, rating_after, k, experience_after in sides:
        rating_before, experience_before = player.rating_of(kind)
        changes.append(
            RatingChange(
                result=result,
                player=player,
                rating_before=rating_before,
                change=change,
                rating_after=rating_after,
                k=k,
                experience_before=experience_before,
                experience_after=experience_after,
            )
        )
        player.rating_set(kind, rating_after, experience_after)
    return changes


@db_transaction.atomic
def match_result_record(
    *,
    winner: Player,
    loser: Player,
    length: int,
    rated: bool = True,
    ended_by: str = MatchResult.EndedBy.PLAYED,
    source: models.Model | None = None,
    played_at: datetime | None = None,
    recorded_by: User | None = None,
    rating_kind: str = RatingKind.BACKGAMMON,
) -> MatchResult:
    """Record a finished match and, if rated, apply its rating change at once: to the
    FIBS rating (``rating_kind`` ``"backgammon"``) or to the tavli rating (``"tavli"``).

    A match lost on time (``"timeout"``) or by abandonment (``"abandoned"``) is recorded
    with the player who lost it as ``loser``: it counts as an ordinary loss. Unrated
    results and money sessions (``length`` 0, always unrated) change no rating. ``source``
    links the match object (one result per source: ``Conflict`` the second time).
    Both players' rows are locked while their ratings change.
    """
    match_result_check(
        winner=winner,
        loser=loser,
        length=length,
        rated=rated,
        ended_by=ended_by,
        played_at=played_at,
        rating_kind=rating_kind,
    )
    source_type, source_id = _source_link(source)
    if (
        source_type is not None
        and MatchResult.objects.filter(source_type=source_type, source_id=source_id).exists()
    ):
        raise Conflict(_("The result of that match has already been recorded."))
    locked = {
        player.pk: player
        for player in Player.objects.select_for_update()
        .select_related("user")
        .filter(pk__in=[winner.pk, loser.pk])
        .order_by("pk")
    }
    winner_row, loser_row = locked[winner.pk], locked[loser.pk]
    try:
        with db_transaction.atomic():
            result = MatchResult.objects.create(
                winner=winner_row,
                loser=loser_row,
                length=length,
                rated=rated,
                rating_kind=rating_kind,
                ended_by=ended_by,
                played_at=played_at or clock.now(),
                recorded_by=recorded_by,
                source_type=source_type,
                source_id=source_id,
            )
    except IntegrityError:
        raise Conflict(_("The result of that match has already been recorded.")) from None
    if rated:
        RatingChange.objects.bulk_create(_rate(result, winner_row, loser_row))
        for row in (winner_row, loser_row):
            row.save(update_fields=Player.RATING_FIELDS)
    # The caller's objects show the new numbers too.
    for given, row in ((winner, winner_row), (loser, loser_row)):
        for field in Player.RATING_FIELDS:
            setattr(given, field, getattr(row, field))
    return result


def _unwatched(items: Iterable[T], total: int) -> Iterator[T]:
    yield from items


@db_transaction.atomic
def ratings_rebuild(
    *, progress: Callable[[Iterable[MatchResult], int], Iterable[MatchResult]] = _unwatched
) -> int:
    """Recompute every rating and the whole rating history from the results, in the
    order they were recorded, from 1500 and experience 0 for everyone. Arrives at exactly
    the numbers the incremental updates gave. ``progress(items, total)`` may wrap the
    results to show progress. Returns how many rated results were replayed."""
    players = {player.pk: player for player in Player.objects.select_for_update().order_by("pk")}
    for player in players.values():
        for kind in RatingKind.values:
            player.rating_set(kind, ratings.START_RATING, ratings.START_EXPERIENCE)
    RatingChange.objects.all().delete()
    results = MatchResult.objects.filter(rated=True).order_by("id")
    total = results.count()
    changes: list[RatingChange] = []
    for result in progress(results.iterator(chunk_size=1000), total):
        changes += _rate(result, players[result.winner_id], players[result.loser_id])
    RatingChange.objects.bulk_create(changes, batch_size=1000)
    # No post_save: none is needed, the tokens' cache holds no rating (club/auth.py).
    Player.objects.bulk_update(list(players.values()), Player.RATING_FIELDS, batch_size=500)
    return total


@db_transaction.atomic
def match_result_delete(*, result: MatchResult, deleted_by: User) -> None:
    """Staff remove a wrongly recorded result; every rating is then rebuilt without it."""
    if not deleted_by.is_staff:
        raise Forbidden(_("Only the club's staff remove results."))
    locked = MatchResult.objects.select_for_update().get(pk=result.pk)
    RatingChange.objects.filter(result=locked).delete()
    locked.delete()
    ratings_rebuild()
