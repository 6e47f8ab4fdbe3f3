"""A tournament's tables: the tournament and its options, entries, rounds and pairings.

The formats' state (``tournaments.formats.Tournament.to_dict()``) is kept whole in
``Tournament.state`` from the draw on: it is what decides the next round, the standings
and the final places. ``Round`` and ``Pairing`` rows mirror its rounds, one row per
pairing keyed by the formats' pairing id (``main-1-2``), so that the admin, the API and
the pages can list, filter and link them; ``tournaments.services`` writes both in the
same transaction, and nothing else writes either.
"""

import hashlib
from decimal import Decimal

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator, RegexValidator
from django.db import models
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from club import money
from club.models import MatchResult, Player, Transaction
from matches.clocks import PRESET_LABELS
from matches.models import Match
from tournaments.formats import Bracket, Format
from tournaments.formats.payouts import PayoutTableDict

LENGTHS_PATTERN = r"^\s*[1-9][0-9]?(\s*,\s*[1-9][0-9]?)*\s*$"
CLOCKS_PATTERN = r"^\s*([a-z]+(\s*,\s*[a-z]+)*)?\s*$"


def by_round(values: list[str], number: int) -> str:
    """Round ``number``'s value of a list by round: the last one holds for every later round."""
    return values[min(number, len(values)) - 1]


def default_payout_table() -> PayoutTableDict:
    """70% to the winner, 30% to the runner-up."""
    return {"unit": "percent", "places": {"main": {"1": "70", "2": "30"}}}


BRACKET_TITLES = {
    Bracket.MAIN: _("Main bracket"),
    Bracket.LOSERS: _("Losers' bracket"),
    Bracket.GRAND_FINAL: _("Grand final"),
    Bracket.CONSOLATION: _("Consolation"),
    Bracket.LAST_CHANCE: _("Last chance"),
}


def pairing_label(key: str, *, within: Bracket | None = None) -> str:
    """How people read a pairing's key (``main-1-3``: the formats' id, never shown):
    "Round 1, match 3", its bracket named first unless it is the main one or
    ``within``, the bracket the reader is looking at."""
    name, bracket_round, position = key.rsplit("-", 2)
    bracket = Bracket(name)
    numbers = {"round": bracket_round, "match": position}
    if bracket in (Bracket.MAIN, within):
        return _("Round %(round)s, match %(match)s") % numbers
    return _("%(bracket)s, round %(round)s, match %(match)s") % {
        "bracket": BRACKET_TITLES[bracket],
        **numbers,
    }


class FormatChoice(models.TextChoices):
    """The formats, by the names ``tournaments.formats.Format`` and the API give them."""

    SINGLE_ELIMINATION = Format.SINGLE_ELIMINATION.value, _("single elimination")
    DOUBLE_ELIMINATION = Format.DOUBLE_ELIMINATION.value, _("double elimination")
    SWISS = Format.SWISS.value, _("Swiss")
    ROUND_ROBIN = Format.ROUND_ROBIN.value, _("round robin")


class Clock(models.TextChoices):
    """The clock of a tournament's online matches: the presets, in their words
    (``matches.clocks``)."""

    NONE = "none", PRESET_LABELS["none"]
    STANDARD = "standard", PRESET_LABELS["standard"]
    BLITZ = "blitz", PRESET_LABELS["blitz"]
    CORRESPONDENCE = "correspondence", PRESET_LABELS["correspondence"]


class DeadlineRule(models.TextChoices):
    """What a round's deadline does to the pairings still unfinished when it passes."""

    LIST = "list", _("list them for the director")
    FORFEIT = "forfeit", _("the side that did not play forfeits")
    LEADER = "leader", _("the leader in the match wins")


class Tournament(models.Model):
    """One tournament, from its options to its payouts."""

    class Status(models.TextChoices):
        DRAFT = "draft", _("draft")
        OPEN = "open", _("registration open")
        RUNNING = "running", _("running")
        FINISHED = "finished", _("finished")

    class Seeding(models.TextChoices):
        RATING = "rating", _("by rating")
        RANDOM = "random", _("random draw")
        MANUAL = "manual", _("by hand")

    name = models.CharField(_("name"), max_length=120)
    format = models.CharField(_("format"), max_length=30, choices=FormatChoice.choices)
    status = models.CharField(
        _("status"), max_length=20, choices=Status.choices, default=Status.DRAFT, db_index=True
    )
    seeding = models.CharField(
        _("seeding"),
        max_length=20,
        choices=Seeding.choices,
        default=Seeding.RATING,
        help_text=_(
            "Entries given a seed by hand come first (1, 2, 3...); the others follow by "
            "rating or in a random draw. By hand: every entry needs a seed."
        ),
    )
    match_lengths = models.CharField(
        _("match length per round"),
        max_length=200,
        default="5",
        validators=[RegexValidator(LENGTHS_PATTERN, _("Points per round, like 5, 5, 7, 9."))],
        help_text=_(
            "The length of round 1, round 2... in points, separated by commas; the last "
            "one is kept for every later round (5, 7, 9: round 4 is to 9 too)."
        ),
    )
    rated = models.BooleanField(
        _("rated"), default=True, help_text=_("The results change the players' ratings.")
    )
    online = models.BooleanField(
        _("played online"),
        default=False,
        help_text=_(
            "Each pairing is a match on the server, started with its round; its end "
            "records the result. Off: the director enters the results of matches played "
            "on a real board."
        ),
    )
    clock = models.CharField(
        _("clock"),
        max_length=20,
        choices=Clock.choices,
        default=Clock.NONE,
        help_text=_("The clock of the online matches."),
    )
    round_clocks = models.CharField(
        _("clock per round"),
        max_length=200,
        blank=True,
        default="",
        validators=[
            RegexValidator(CLOCKS_PATTERN, _("Clocks per round, like standard, standard, blitz."))
        ],
        help_text=_(
            "The clock of round 1, round 2... (none, standard, blitz, correspondence), "
            "separated by commas; the last one is kept for every later round. Empty: the "
            "clock above for every round."
        ),
    )
    round_deadline_hours = models.PositiveSmallIntegerField(
        _("hours per round"),
        default=0,
        validators=[MaxValueValidator(24 * 60)],
        help_text=_(
            "Each round's deadline, this many hours after it starts (0: no deadline). "
            "The director can move a round's deadline on its page."
        ),
    )
    deadline_rule = models.CharField(
        _("when a deadline passes"),
        max_length=20,
        choices=DeadlineRule.choices,
        default=DeadlineRule.LIST,
        help_text=_(
            "List: the unfinished pairings are only listed as overdue. Forfeit: the side "
            "that made fewer moves loses (equal: the better seed wins). Leader: the "
            "player ahead in the match wins (level: as forfeit)."
        ),
    )
    entry_fee = models.DecimalField(
        _("entry fee"),
        max_digits=money.LEG_DIGITS,
        decimal_places=money.PLACES,
        default=Decimal("0.00"),
        validators=[MinValueValidator(Decimal("0.00")), MaxValueValidator(money.MAX_PAYMENT)],
    )
    buy_back_fee = models.DecimalField(
        _("buy-back fee"),
        max_digits=money.LEG_DIGITS,
        decimal_places=money.PLACES,
        default=Decimal("0.00"),
        validators=[MinValueValidator(Decimal("0.00")), MaxValueValidator(money.MAX_PAYMENT)],
        help_text=_(
            "Single elimination with a last chance: a player knocked out before it pays "
            "this to play in the last chance (0: everyone out plays in it for free)."
        ),
    )
    house_cut_percent = models.DecimalField(
        _("house cut (%)"),
        max_digits=5,
        decimal_places=2,
        default=Decimal("0.00"),
        validators=[MinValueValidator(Decimal(0)), MaxValueValidator(Decimal(100))],
        help_text=_("The club's share of the fees, rounded down to the cent."),
    )
    payout_table = models.JSONField(
        _("payout table"),
        default=default_payout_table,
        help_text=_(
            'The prize pool by place: {"unit": "percent", "places": {"main": {"1": "50", '
            '"2": "30", "3-4": "20"}}}; unit percent (adding up to 100), fraction (to 1) or '
            "amount (to the pool)."
        ),
    )
    consolation_through_round = models.PositiveSmallIntegerField(
        _("consolation through round"),
        default=0,
        help_text=_(
            "Single elimination: 0 none, 1 a consolation for first-round losers, 2 or more "
            "the progressive consolation the losers of main rounds 1 to N enter."
        ),
    )
    last_chance_after_round = models.PositiveSmallIntegerField(
        _("last chance after round"),
        default=0,
        help_text=_("Single elimination: 0 none, N a last chance for everyone out after round N."),
    )
    bracket_reset = models.BooleanField(
        _("bracket reset"),
        default=True,
        help_text=_("Double elimination: a second final when the losers' champion wins the first."),
    )
    swiss_rounds = models.PositiveSmallIntegerField(
        _("Swiss rounds"), default=0, help_text=_("Swiss: how many rounds are played.")
    )
    draw_seed = models.CharField(
        _("draw seed"),
        max_length=64,
        editable=False,
        help_text=_("The random draw's seed, published once the tournament is drawn."),
    )
    state = models.JSONField(_("draw and results"), null=True, blank=True, editable=False)
    version = models.PositiveIntegerField(_("version"), default=0, editable=False)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("created by"),
    )
    started_at = models.DateTimeField(_("started"), null=True, blank=True, editable=False)
    finished_at = models.DateTimeField(_("finished"), null=True, blank=True, editable=False)
    payout_transaction = models.OneToOneField(
        Transaction,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        editable=False,
        related_name="+",
        verbose_name=_("payout transaction"),
    )

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = _("tournament")
        verbose_name_plural = _("tournaments")

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("tournament", kwargs={"pk": self.pk})

    @property
    def draw_commitment(self) -> str:
        """The SHA-256 of the draw seed, shown from the start: once the seed is
        published, anyone can check it is the seed committed to and replay the draw."""
        return hashlib.sha256(self.draw_seed.encode()).hexdigest()

    @property
    def lengths(self) -> list[int]:
        return [int(part) for part in self.match_lengths.split(",")]

    def length_of_round(self, number: int) -> int:
        return int(by_round(self.match_lengths.split(","), number))

    @property
    def clocks(self) -> list[str]:
        return [part.strip() for part in self.round_clocks.split(",") if part.strip()]

    def clock_of_round(self, number: int) -> str:
        """The clock round ``number``'s online matches start with."""
        clocks = self.clocks
        return by_round(clocks, number) if clocks else self.clock

    @property
    def buy_backs(self) -> bool:
        """Knocked-out players pay the buy-back fee to play in the last chance."""
        return self.buy_back_fee > 0

    def clean(self) -> None:
        if self.format == Format.SWISS and self.swiss_rounds < 1:
            raise ValidationError({"swiss_rounds": _("A Swiss needs one round or more.")})


class Entry(models.Model):
    """A player entered in a tournament, with the seed set by hand if any.

    ``fee_transaction`` is the posting of the entry fee (player to prize pool); it is
    empty for a free tournament.
    """

    tournament = models.ForeignKey(
        Tournament, on_delete=models.PROTECT, related_name="entries", verbose_name=_("tournament")
    )
    player = models.ForeignKey(
        Player, on_delete=models.PROTECT, related_name="entries", verbose_name=_("player")
    )
    seed = models.PositiveSmallIntegerField(
        _("seed"), null=True, blank=True, help_text=_("Set by hand: 1, 2, 3... (optional).")
    )
    rating = models.FloatField(_("rating at the draw"), null=True, blank=True, editable=False)
    fee_transaction = models.OneToOneField(
        Transaction,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        editable=False,
        related_name="+",
        verbose_name=_("entry fee posting"),
    )
    buy_back_transaction = models.OneToOneField(
        Transaction,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        editable=False,
        related_name="+",
        verbose_name=_("buy-back posting"),
    )
    entered_at = models.DateTimeField(_("entered"), auto_now_add=True)

    class Meta:
        ordering = ["tournament", "seed", "id"]
        verbose_name = _("entry")
        verbose_name_plural = _("entries")
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "player"], name="tournaments_entry_once_per_player"
            ),
            models.UniqueConstraint(
                fields=["tournament", "seed"],
                condition=models.Q(seed__isnull=False),
                name="tournaments_entry_seed_once",
            ),
        ]

    def __str__(self) -> str:
        return str(self.player)

    @property
    def paid(self) -> bool:
        """The entry fee is in the books (a free tournament's entries have nothing to pay)."""
        return self.fee_transaction_id is not None or self.tournament.entry_fee == 0

    @property
    def bought_back(self) -> bool:
        return self.buy_back_transaction_id is not None


class Round(models.Model):
    """A round of the tournament: every pairing in it can be played at once."""

    tournament = models.ForeignKey(
        Tournament, on_delete=models.PROTECT, related_name="rounds", verbose_name=_("tournament")
    )
    number = models.PositiveSmallIntegerField(_("round"))
    length = models.PositiveSmallIntegerField(_("match length"))
    clock = models.CharField(
        _("clock"), max_length=20, choices=Clock.choices, default=Clock.NONE, editable=False
    )
    started_at = models.DateTimeField(_("started"), default=timezone.now, editable=False)
    deadline = models.DateTimeField(
        _("deadline"),
        null=True,
        blank=True,
        help_text=_("When it passes, the unfinished pairings are overdue (empty: no deadline)."),
    )
    deadline_applied_at = models.DateTimeField(
        _("deadline applied"), null=True, blank=True, editable=False
    )

    class Meta:
        ordering = ["tournament", "number"]
        verbose_name = _("round")
        verbose_name_plural = _("rounds")
        constraints = [
            models.UniqueConstraint(fields=["tournament", "number"], name="tournaments_round_once"),
        ]

    def __str__(self) -> str:
        return _("%(tournament)s, round %(number)s") % {
            "tournament": self.tournament,
            "number": self.number,
        }


class Pairing(models.Model):
    """Two entries to play each other in a round, or one with a bye.

    ``key`` is the formats' pairing id (``main-1-2``: bracket, bracket round, position).
    A result comes from the director (a match played on a real board: ``result`` is
    the ``MatchResult`` recorded for it) or, for a pairing played online, from its
    server match (``match``) when it ends.
    """

    class Source(models.TextChoices):
        BYE = "bye", _("bye")
        WALKOVER = "walkover", _("walkover (no buy-back)")
        OVER_THE_BOARD = "over_the_board", _("over the board")
        ONLINE = "online", _("online")

    round = models.ForeignKey(
        Round, on_delete=models.PROTECT, related_name="pairings", verbose_name=_("round")
    )
    key = models.CharField(_("pairing"), max_length=40)
    bracket = models.CharField(_("bracket"), max_length=20)
    position = models.PositiveSmallIntegerField(_("table"))
    first = models.ForeignKey(
        Entry, on_delete=models.PROTECT, related_name="+", verbose_name=_("first player")
    )
    second = models.ForeignKey(
        Entry,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("second player"),
    )
    winner = models.ForeignKey(
        Entry,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("winner"),
    )
    source = models.CharField(
        _("result from"), max_length=20, choices=Source.choices, blank=True, default=""
    )
    match = models.OneToOneField(
        Match,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="tournament_pairing",
        verbose_name=_("online match"),
    )
    result = models.OneToOneField(
        MatchResult,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("match result"),
    )
    decided_at = models.DateTimeField(_("decided"), null=True, blank=True)

    class Meta:
        ordering = ["round", "id"]
        verbose_name = _("pairing")
        verbose_name_plural = _("pairings")
        constraints = [
            models.UniqueConstraint(fields=["round", "key"], name="tournaments_pairing_once"),
            models.CheckConstraint(
                condition=models.Q(winner__isnull=True)
                | models.Q(winner=models.F("first"))
                | models.Q(winner=models.F("second")),
                name="tournaments_pairing_winner_plays",
            ),
        ]

    def __str__(self) -> str:
        if self.second_id is None:
            return _("%(player)s (bye)") % {"player": self.first}
        return _("%(first)s v %(second)s") % {"first": self.first, "second": self.second}

    @property
    def bye(self) -> bool:
        return self.second_id is None

    @property
    def label(self) -> str:
        """ "Round 1, match 3" (its key, ``main-1-3``, is the formats' id)."""
        return pairing_label(self.key)

    @property
    def entries(self) -> list[Entry]:
        return [self.first] if self.second is None else [self.first, self.second]

    @property
    def loser(self) -> Entry | None:
        if self.winner_id is None or self.second is None:
            return None
        return self.second if self.winner_id == self.first_id else self.first
