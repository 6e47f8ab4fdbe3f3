"""The club's tables: players, the double-entry ledger, match results and ratings.

Sign convention of the ledger (the same for every account): a leg's amount is what it adds
to its account's balance, and an account's balance is the sum of its legs. A player's
balance is positive when the club owes the player and negative when the player owes the
club (or, through the club's books, other players). A payment from a payer to a payee
raises the payer's balance and lowers the payee's by the amount. The club's cash account
follows the same sign, so it reads negative while the club holds cash. The legs of every
transaction sum to exactly zero, so all balances together always sum to exactly zero.
"""

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, ClassVar, NoReturn

from django.conf import settings
from django.contrib.contenttypes.fields import GenericForeignKey
from django.contrib.contenttypes.models import ContentType
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from club import money
from club.memos import MemoKind, memo_render
from club.ratings import START_EXPERIENCE, START_RATING

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise


class RatingKind(models.TextChoices):
    """Which rating a result moves: FIBS's for backgammon (its variants too), or the
    tavli rating for the games of the Greek and Bulgarian table, whose skills differ."""

    BACKGAMMON = "backgammon", pgettext_lazy("the rating", "backgammon")
    TAVLI = "tavli", pgettext_lazy("the rating", "tavli")


class RobotStrength(models.TextChoices):
    """The practice robot's strengths (docs/practice.md): one robot player each."""

    BEGINNER = "beginner", pgettext_lazy("a robot's strength", "beginner")
    INTERMEDIATE = "intermediate", pgettext_lazy("a robot's strength", "intermediate")
    EXPERT = "expert", pgettext_lazy("a robot's strength", "expert")


class Player(models.Model):
    """A club member: one Django user with the name the club knows them by.

    ``robot``, when set, makes the player the club's practice robot at that strength
    (docs/practice.md): created by a migration, it never logs in (no usable password,
    no token) and plays only the unrated matches members invite it to.

    ``rating`` and ``experience`` are FIBS ratings (backgammon), ``tavli_rating`` and
    ``tavli_experience`` the same formula over tavli matches; all four are changed only
    by ``club.services.match_result_record`` and ``club.services.ratings_rebuild``.
    """

    RATING_FIELDS: ClassVar[tuple[str, ...]] = (
        "rating",
        "experience",
        "tavli_rating",
        "tavli_experience",
    )

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="player"
    )
    display_name = models.CharField(_("display name"), max_length=80)
    joined_at = models.DateTimeField(_("joined"), auto_now_add=True)
    rating = models.FloatField(_("rating"), default=START_RATING)
    experience = models.PositiveIntegerField(
        _("experience"),
        default=START_EXPERIENCE,
        help_text=_("The sum of the lengths of the rated matches the player has finished."),
    )
    tavli_rating = models.FloatField(_("tavli rating"), default=START_RATING)
    tavli_experience = models.PositiveIntegerField(
        _("tavli experience"),
        default=START_EXPERIENCE,
        help_text=_("The sum of the lengths of the rated tavli matches the player has finished."),
    )
    robot = models.CharField(
        _("robot"),
        max_length=20,
        blank=True,
        default="",
        choices=RobotStrength.choices,
        help_text=_("The practice robot's strength; empty for a member."),
    )

    class Meta:
        ordering = ["display_name"]
        verbose_name = _("player")
        verbose_name_plural = _("players")

    def __str__(self) -> str:
        return self.display_name

    @property
    def username(self) -> str:
        return self.user.get_username()

    def rating_of(self, kind: str) -> tuple[float, int]:
        """The player's rating and experience of that kind (``RatingKind``)."""
        if kind == RatingKind.TAVLI:
            return self.tavli_rating, self.tavli_experience
        return self.rating, self.experience

    def rating_set(self, kind: str, rating: float, experience: int) -> None:
        """Set the rating and experience of that kind (in memory: the services save)."""
        if kind == RatingKind.TAVLI:
            self.tavli_rating, self.tavli_experience = rating, experience
        else:
            self.rating, self.experience = rating, experience


# The ledger ---------------------------------------------------------------------------


class RowImmutable(Exception):
    """Raised on any attempt to change or delete a row of an append-only table."""


class AppendOnlyQuerySet(models.QuerySet[Any]):
    """Refuses bulk ``update()``, ``delete()`` and ``bulk_update()``: the table only grows."""

    def _refuse(self) -> NoReturn:
        raise RowImmutable(self.model.append_only_refusal)

    def update(self, **kwargs: Any) -> int:
        self._refuse()

    def delete(self) -> tuple[int, dict[str, int]]:
        self._refuse()

    delete.queryset_only = True  # type: ignore[attr-defined]  # Django's own flag on delete

    def bulk_update(self, objs: Iterable[Any], *args: Any, **kwargs: Any) -> int:
        self._refuse()


class AppendOnlyModel(models.Model):
    """A row written once and never updated or deleted (the ledger, a game's action log,
    a chouette's games); ``append_only_refusal`` tells the user what to do instead. On
    PostgreSQL a trigger refuses the same however the row is written
    (``web.migration_operations.RefuseChanges``)."""

    append_only_refusal: "StrOrPromise"
    objects = AppendOnlyQuerySet.as_manager()

    class Meta:
        abstract = True

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self._state.adding:
            raise RowImmutable(self.append_only_refusal)
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
        raise RowImmutable(self.append_only_refusal)


ONLY_LEDGER_POST = _("Only club.services.ledger_post writes the ledger.")


class LedgerQuerySet(AppendOnlyQuerySet):
    """The ledger's rows, which only ``ledger_post`` creates, even in bulk."""

    def bulk_create(self, objs: Iterable[Any], *args: Any, **kwargs: Any) -> list[Any]:
        rows = list(objs)
        if not all(row._posting for row in rows):
            raise RowImmutable(ONLY_LEDGER_POST)
        return super().bulk_create(rows, *args, **kwargs)


class LedgerModel(AppendOnlyModel):
    """A row of the books: written once, by ``ledger_post``, never updated or deleted."""

    append_only_refusal = _("The ledger is append-only: post a reversing transaction instead.")
    objects: ClassVar[models.Manager[Any]] = LedgerQuerySet.as_manager()
    # Set by ``ledger_post`` on the rows it writes; any other writer is refused.
    _posting: bool = False

    class Meta:
        abstract = True

    def save(self, *args: Any, **kwargs: Any) -> None:
        if self._state.adding and not self._posting:
            raise RowImmutable(ONLY_LEDGER_POST)
        super().save(*args, **kwargs)


class Recorded(models.Model):
    """Who recorded a row and when, and the object it comes from (a match, a chouette
    session, a tournament...) without the club importing the app that defines it."""

    recorded_at = models.DateTimeField(_("recorded"), auto_now_add=True)
    recorded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("recorded by"),
    )
    source_type = models.ForeignKey(
        ContentType, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    source_id = models.PositiveBigIntegerField(null=True, blank=True)
    source = GenericForeignKey("source_type", "source_id")

    class Meta:
        abstract = True
        constraints = [
            models.CheckConstraint(
                condition=models.Q(source_type__isnull=True, source_id__isnull=True)
                | models.Q(source_type__isnull=False, source_id__isnull=False),
                name="%(app_label)s_%(class)s_source_whole",
            ),
        ]


class Account(models.Model):
    """An account in the club's books: one per player, and the club's own accounts.

    Its balance is the sum of its legs' amounts. For a player's account a positive
    balance means the club owes the player. The club's accounts use the same sign:
    ``club_cash`` is negative by the cash the club holds, ``prize_pool`` positive by the
    prize money it holds for winners, ``fees`` positive by the fees it has earned.
    """

    class Kind(models.TextChoices):
        PLAYER = "player", _("player")
        CLUB_CASH = "club_cash", _("club cash")
        PRIZE_POOL = "prize_pool", _("prize pool")
        FEES = "fees", _("fees")

    kind = models.CharField(_("kind"), max_length=20, choices=Kind.choices)
    player = models.OneToOneField(
        Player,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="account",
        verbose_name=_("player"),
    )
    created_at = models.DateTimeField(_("opened"), auto_now_add=True)

    class Meta:
        ordering = ["kind", "id"]
        verbose_name = _("account")
        verbose_name_plural = _("accounts")
        constraints = [
            models.CheckConstraint(
                condition=(models.Q(kind="player") & models.Q(player__isnull=False))
                | (~models.Q(kind="player") & models.Q(player__isnull=True)),
                name="club_account_player_iff_player_kind",
            ),
            models.UniqueConstraint(
                fields=["kind"],
                condition=~models.Q(kind="player"),
                name="club_account_one_per_club_kind",
            ),
        ]

    def __str__(self) -> str:
        if self.kind == self.Kind.PLAYER:
            return str(self.player)
        return str(self.get_kind_display()).capitalize()


class SourceKind(models.TextChoices):
    """What a ledger transaction comes from."""

    CHOUETTE = "chouette", _("chouette session")
    MONEY_SESSION = "money_session", _("money session")
    TOURNAMENT = "tournament", _("tournament")
    PAYMENT = "payment", _("payment")
    CORRECTION = "correction", _("correction")
    FEE = "fee", _("fee")
    PRIZE = "prize", _("prize")
    OTHER = "other", _("other")


class Transaction(LedgerModel, Recorded):
    """One posting to the books: two or more legs whose amounts sum to exactly zero.

    Written only by ``club.services.ledger_post``, never updated or deleted: a correction
    is a new transaction that ``reverses`` the original. ``at`` is when the money changed
    hands, ``recorded_at`` when it was written down.
    """

    at = models.DateTimeField(_("when"), db_index=True)
    memo = models.CharField(_("memo"), max_length=200)
    # What the memo says, read in the reader's language (club.memos); ``memo`` keeps its
    # text in English, or as written by hand (kind ``text``: a row written by raw SQL too).
    memo_kind = models.CharField(
        _("memo kind"),
        max_length=30,
        choices=MemoKind.choices,
        default=MemoKind.TEXT,
        db_default=MemoKind.TEXT,
    )
    memo_params = models.JSONField(
        _("memo parameters"),
        default=dict,
        db_default=models.Value({}, models.JSONField()),
        blank=True,
    )
    kind = models.CharField(_("kind"), max_length=20, choices=SourceKind.choices)
    reverses = models.OneToOneField(
        "self",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="reversed_by",
        verbose_name=_("reverses"),
    )

    class Meta(Recorded.Meta):
        ordering = ["at", "id"]
        verbose_name = _("transaction")
        verbose_name_plural = _("transactions")
        indexes = [models.Index(fields=["source_type", "source_id"])]

    def __str__(self) -> str:
        return f"#{self.pk} {self.memo_translated}"

    @property
    def memo_translated(self) -> str:
        """The memo in the active language (club.memos)."""
        return memo_render(kind=self.memo_kind, params=self.memo_params, memo=self.memo)


class Leg(LedgerModel):
    """One side of a transaction: an amount added to one account's balance."""

    transaction = models.ForeignKey(
        Transaction, on_delete=models.PROTECT, related_name="legs", verbose_name=_("transaction")
    )
    account = models.ForeignKey(
        Account, on_delete=models.PROTECT, related_name="legs", verbose_name=_("account")
    )
    amount = models.DecimalField(
        _("amount"), max_digits=money.LEG_DIGITS, decimal_places=money.PLACES
    )

    class Meta:
        ordering = ["id"]
        verbose_name = _("leg")
        verbose_name_plural = _("legs")
        constraints = [
            models.CheckConstraint(condition=~models.Q(amount=0), name="club_leg_amount_not_zero"),
        ]

    def __str__(self) -> str:
        return f"{self.account}: {self.amount}"


class PaymentManager(models.Manager["Payment"]):
    """The payment transactions, as append-only as every other."""

    def get_queryset(self) -> LedgerQuerySet:
        return LedgerQuerySet(self.model, using=self._db).filter(kind=SourceKind.PAYMENT)


class Payment(Transaction):
    """Cash changing hands, as the admin shows it: the payment transactions."""

    objects: ClassVar[PaymentManager] = PaymentManager()  # type: ignore[assignment]

    class Meta:
        proxy = True
        verbose_name = _("payment")
        verbose_name_plural = _("payments")


# Results and ratings ------------------------------------------------------------------


class MatchResult(Recorded):
    """The result of a match between two players: what ratings are computed from.

    Matches played on the server write it when they end (``source`` links the match);
    staff record matches played on a real board. Rated results change the players'
    ratings in the order they are recorded (``id`` order), the order
    ``ratings_rebuild`` replays them in.
    """

    class EndedBy(models.TextChoices):
        PLAYED = "played", _("played to the end")
        RESIGNED = "resigned", _("resigned")
        TIMEOUT = "timeout", _("lost on time")
        ABANDONED = "abandoned", _("abandoned")

    winner = models.ForeignKey(
        Player, on_delete=models.PROTECT, related_name="results_won", verbose_name=_("winner")
    )
    loser = models.ForeignKey(
        Player, on_delete=models.PROTECT, related_name="results_lost", verbose_name=_("loser")
    )
    length = models.PositiveSmallIntegerField(
        _("length"), help_text=_("The match length in points (0: a money session).")
    )
    rated = models.BooleanField(_("rated"), default=True)
    rating_kind = models.CharField(
        _("rating"),
        max_length=20,
        choices=RatingKind.choices,
        default=RatingKind.BACKGAMMON,
        help_text=_("Which rating a rated result moves: backgammon's (FIBS) or the tavli one."),
    )
    ended_by = models.CharField(
        _("ended by"), max_length=20, choices=EndedBy.choices, default=EndedBy.PLAYED
    )
    played_at = models.DateTimeField(_("played"), default=timezone.now, db_index=True)

    class Meta(Recorded.Meta):
        ordering = ["-id"]
        verbose_name = _("match result")
        verbose_name_plural = _("match results")
        constraints = [
            *Recorded.Meta.constraints,
            models.CheckConstraint(
                condition=~models.Q(winner=models.F("loser")), name="club_result_two_players"
            ),
            models.CheckConstraint(
                condition=models.Q(length__gte=1) | models.Q(rated=False),
                name="club_result_money_session_unrated",
            ),
            models.UniqueConstraint(
                fields=["source_type", "source_id"],
                condition=models.Q(source_type__isnull=False),
                name="club_result_one_per_source",
            ),
        ]

    def __str__(self) -> str:
        return _("%(winner)s beat %(loser)s (%(length)s points)") % {
            "winner": self.winner,
            "loser": self.loser,
            "length": self.length,
        }


class RatingChange(models.Model):
    """One player's rating change caused by one rated result (the rating history); the
    result's ``rating_kind`` says which rating it moved.

    Derived data: ``ratings_rebuild`` deletes and recomputes all of them.
    """

    result = models.ForeignKey(
        MatchResult,
        on_delete=models.PROTECT,
        related_name="rating_changes",
        verbose_name=_("result"),
    )
    player = models.ForeignKey(
        Player, on_delete=models.PROTECT, related_name="rating_changes", verbose_name=_("player")
    )
    rating_before = models.FloatField(_("rating before"))
    change = models.FloatField(_("change"))
    rating_after = models.FloatField(_("rating after"))
    k = models.FloatField(_("K"))
    experience_before = models.PositiveIntegerField(_("experience before"))
    experience_after = models.PositiveIntegerField(_("experience after"))

    class Meta:
        ordering = ["result_id", "id"]
        verbose_name = _("rating change")
        verbose_name_plural = _("rating changes")
        constraints = [
            models.UniqueConstraint(
                fields=["result", "player"], name="club_rating_change_once_per_result"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.player}: {self.change:+.1f}"
