"""A chouette session's tables: the session and its seats, who sat when, and its games.

The arithmetic (order, rotation, points, settlement) is ``backgammon.chouette``'s; these
tables keep what it needs between requests, and what happened:
- ``Chouette``: the session, its options (API.md), its status, the seating between games
  (``seats``: player ids, box first, then the line in order with the partner in place),
  its verifiable dice and a ``version`` every write moves on (a repeated or stale
  request is refused, not applied twice);
- ``Membership``: each stint of a player at the table, in order (H13), with the ledger
  transaction a player who left settled with;
- ``ChouetteGame`` and ``GamePoints``: every game as posted and the points it gave each
  player. Both are append-only (the models refuse changes; on PostgreSQL a trigger does
  too): an undo is a reversing row with the points negated, never a deletion. Scores are
  the sums of the points rows.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.db import models
from django.utils.translation import gettext_lazy as _

from club import money
from club.models import AppendOnlyModel, Player, Recorded, Transaction

if TYPE_CHECKING:
    from chouette.selectors import Standing


class Chouette(Recorded):
    """One chouette session (API.md's chouette). ``recorded_by`` is its scorekeeper, the
    member who opened it."""

    class Mode(models.TextChoices):
        RECORDED = "recorded", _("recorded (played on a real board)")
        ONLINE = "online", _("online (played on the server)")

    class Status(models.TextChoices):
        OPEN = "open", _("open")
        CLOSED = "closed", _("closed")

    class Cube(models.TextChoices):
        SINGLE = "single", _("single cube")
        MULTIPLE = "multiple", _("multiple cubes")

    class BoxKeeps(models.TextChoices):
        BEATS_CAPTAIN = "beats_captain", _("the box beats the captain")
        NO_NET_LOSS = "no_net_loss", _("the box loses nothing net")

    class NoAnswer(models.TextChoices):
        PASS = "pass", _("passes")
        TAKE = "take", _("takes")

    class Consulting(models.TextChoices):
        FULL = "full", _("full consulting")
        CUBE = "cube", _("no cube, no talk (cube decisions only)")
        NONE = "none", _("no consulting")

    mode = models.CharField(_("mode"), max_length=10, choices=Mode.choices)
    status = models.CharField(
        _("status"), max_length=10, choices=Status.choices, default=Status.OPEN
    )
    stake = models.DecimalField(
        _("stake per point"), max_digits=money.LEG_DIGITS, decimal_places=money.PLACES
    )
    cube = models.CharField(_("cube"), max_length=10, choices=Cube.choices, default=Cube.SINGLE)
    jacoby = models.BooleanField(_("Jacoby rule"), default=True)
    beavers = models.BooleanField(_("beavers"), default=False)
    box_keeps = models.CharField(
        _("the box keeps the box when"),
        max_length=20,
        choices=BoxKeeps.choices,
        default=BoxKeeps.BEATS_CAPTAIN,
    )
    partner_from = models.PositiveSmallIntegerField(
        _("box partner from"),
        null=True,
        blank=True,
        help_text=_("The number of players from which the box takes a partner (empty: never)."),
    )
    # Not a field: an online action leaves on the row it returns the standing its answer
    # reads (chouette.selectors.Standing), kept up to date from what it wrote; the live
    # channel's states (chouette/live.py) leave on each row the standing read for them all.
    standing: Standing | None = None
    # Online mode: the engine's table the games are played on, and the session's options
    # for play on the server (docs/chouette.md, "Online chouettes").
    table = models.OneToOneField(
        "matches.Table",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="chouette",
        verbose_name=_("table"),
    )
    turn_time = models.PositiveIntegerField(
        _("seconds a turn"),
        null=True,
        blank=True,
        help_text=_("Online: the time to roll, move or answer a double (empty: no clock)."),
    )
    no_answer = models.CharField(
        _("a member who does not answer in time"),
        max_length=4,
        choices=NoAnswer.choices,
        default=NoAnswer.PASS,
    )
    consulting = models.CharField(
        _("consulting"), max_length=4, choices=Consulting.choices, default=Consulting.FULL
    )
    # Online: the cube options of H9 and H11 the engine plays the games under.
    same_action = models.BooleanField(
        _("same value, same action"),
        default=False,
        help_text=_("Multiple cubes (H9): the box takes at least half of the team's doubles."),
    )
    automatic_doubles = models.PositiveSmallIntegerField(
        _("automatic doubles"),
        default=0,
        help_text=_("The most tied opening rolls that double every cube (0: off)."),
    )
    cube_max = models.PositiveIntegerField(
        _("maximum cube"), null=True, blank=True, help_text=_("Empty: no maximum.")
    )
    seats = models.JSONField(
        _("seats"),
        help_text=_("Player ids, box first, then the line in order (the partner in place)."),
    )
    version = models.PositiveIntegerField(_("version"), default=0)
    # The order by rolls (H1): the session's verifiable dice (backgammon.dice). The seed
    # stays secret until the session closes; ``throws`` is every throw of the order.
    server_seed = models.BinaryField(_("server seed"), max_length=32, null=True, blank=True)
    client_seed = models.CharField(_("client seed"), max_length=64, blank=True)
    dice_commitment = models.CharField(_("dice commitment"), max_length=64, blank=True)
    dice_used = models.PositiveIntegerField(_("dice used"), default=0)
    throws = models.JSONField(_("throws for the order"), default=list, blank=True)
    closed_at = models.DateTimeField(_("closed"), null=True, blank=True)
    settlement = models.OneToOneField(
        Transaction,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("closing settlement"),
    )

    class Meta(Recorded.Meta):
        ordering = ["-id"]
        verbose_name = _("chouette")
        verbose_name_plural = _("chouettes")
        constraints = [
            *Recorded.Meta.constraints,
            models.CheckConstraint(condition=models.Q(stake__gt=0), name="chouette_stake_positive"),
            models.CheckConstraint(
                condition=models.Q(partner_from__isnull=True) | models.Q(partner_from__gte=4),
                name="chouette_partner_from_4_or_more",
            ),
            models.CheckConstraint(
                condition=models.Q(status="open", closed_at__isnull=True)
                | models.Q(status="closed", closed_at__isnull=False),
                name="chouette_closed_when_closed",
            ),
            models.CheckConstraint(
                condition=models.Q(mode="online") | models.Q(table__isnull=True),
                name="chouette_table_online_only",
            ),
            models.CheckConstraint(
                condition=models.Q(same_action=False) | models.Q(cube="multiple"),
                name="chouette_same_action_multiple_cubes",
            ),
        ]

    def __str__(self) -> str:
        return _("Chouette #%(id)s") % {"id": self.pk}


class Membership(models.Model):
    """One stint of a player at a chouette's table (H13), in the order they happened.

    ``joined_after`` and ``left_after`` count the game rows the session had when the
    player sat down and stood up (0: from the start), so the settlement can replay the
    session in order; ``settlement`` is the transaction a player who left settled with
    (none when they had nothing to settle).
    """

    chouette = models.ForeignKey(
        Chouette, on_delete=models.PROTECT, related_name="memberships", verbose_name=_("chouette")
    )
    player = models.ForeignKey(
        Player,
        on_delete=models.PROTECT,
        related_name="chouette_memberships",
        verbose_name=_("player"),
    )
    joined_at = models.DateTimeField(_("joined"), auto_now_add=True)
    joined_after = models.PositiveIntegerField(_("joined after game row"), default=0)
    left_at = models.DateTimeField(_("left"), null=True, blank=True)
    left_after = models.PositiveIntegerField(_("left after game row"), null=True, blank=True)
    settlement = models.OneToOneField(
        Transaction,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("settlement on leaving"),
    )

    class Meta:
        ordering = ["id"]
        verbose_name = _("membership")
        verbose_name_plural = _("memberships")
        constraints = [
            models.UniqueConstraint(
                fields=["chouette", "player"],
                condition=models.Q(left_after__isnull=True),
                name="chouette_membership_seated_once",
            ),
            models.CheckConstraint(
                condition=models.Q(left_at__isnull=True, left_after__isnull=True)
                | models.Q(left_at__isnull=False, left_after__gte=models.F("joined_after")),
                name="chouette_membership_left_whole",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.player} @ {self.chouette}"


class ChouetteGame(AppendOnlyModel, Recorded):
    """One game row of a session: a game as posted (``record``: API.md's recorded form,
    every member's entry filled in), or the reversal of one (``undoes``: the same record,
    the points negated, the seating turned back). ``number`` counts the rows from 1.
    ``seats_before`` and ``seats_after``: the seating (player ids) the row found and
    left. ``source``: the engine's game row, for a game played online."""

    chouette = models.ForeignKey(
        Chouette, on_delete=models.PROTECT, related_name="game_rows", verbose_name=_("chouette")
    )
    number = models.PositiveIntegerField(_("number"))
    record = models.JSONField(_("record"))
    seats_before = models.JSONField(_("seats before"))
    seats_after = models.JSONField(_("seats after"))
    undoes = models.OneToOneField(
        "self",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="undone_by",
        verbose_name=_("undoes"),
    )

    append_only_refusal = _(
        "A chouette's games are append-only: undo a game with a reversing game."
    )

    class Meta(Recorded.Meta):
        ordering = ["chouette", "number"]
        verbose_name = _("chouette game")
        verbose_name_plural = _("chouette games")
        constraints = [
            *Recorded.Meta.constraints,
            models.UniqueConstraint(fields=["chouette", "number"], name="chouette_game_number"),
            models.CheckConstraint(condition=models.Q(number__gte=1), name="chouette_game_from_1"),
        ]

    def __str__(self) -> str:
        return _("Game %(number)s of %(chouette)s") % {
            "number": self.number,
            "chouette": self.chouette,
        }


class GamePoints(AppendOnlyModel):
    """What one game row gave one player (H6, H12): the points of a row sum to zero."""

    game = models.ForeignKey(
        ChouetteGame, on_delete=models.PROTECT, related_name="points", verbose_name=_("game")
    )
    player = models.ForeignKey(
        Player, on_delete=models.PROTECT, related_name="chouette_points", verbose_name=_("player")
    )
    points = models.IntegerField(_("points"))

    append_only_refusal = _(
        "A chouette's games are append-only: undo a game with a reversing game."
    )

    class Meta:
        ordering = ["game", "id"]
        verbose_name = _("game points")
        verbose_name_plural = _("game points")
        constraints = [
            models.UniqueConstraint(fields=["game", "player"], name="chouette_points_once"),
        ]

    def __str__(self) -> str:
        return f"{self.player}: {self.points:+d}"


class Proposal(models.Model):
    """Consulting (H2), online: what a team member proposes to the captain for the turn
    in play (a play, or a cube action), seen by the team only. The captain's own action
    is what stands; a proposal is advice, kept for the turn it was made at (``turn_no``,
    the table's). A member's newer proposal for the same turn replaces the older one."""

    class Kind(models.TextChoices):
        PLAY = "play", _("a play")
        DOUBLE = "double", _("double")
        NO_DOUBLE = "no_double", _("no double")
        TAKE = "take", _("take")
        PASS = "pass", _("pass")

    chouette = models.ForeignKey(
        Chouette, on_delete=models.PROTECT, related_name="proposals", verbose_name=_("chouette")
    )
    game_number = models.PositiveIntegerField(_("game number"))
    turn_no = models.BigIntegerField(_("turn number"))
    player = models.ForeignKey(
        Player, on_delete=models.PROTECT, related_name="+", verbose_name=_("player")
    )
    kind = models.CharField(_("kind"), max_length=10, choices=Kind.choices)
    play = models.CharField(_("play"), max_length=40, blank=True)
    at = models.DateTimeField(_("at"))

    class Meta:
        ordering = ["chouette", "turn_no", "id"]
        verbose_name = _("proposal")
        verbose_name_plural = _("proposals")
        constraints = [
            models.UniqueConstraint(
                fields=["chouette", "turn_no", "player"], name="chouette_proposal_one_a_turn"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.player} @ {self.chouette}: {self.kind} {self.play}".rstrip()
