"""A match's analysis: its status while the worker runs it, each player's figures and
every decision judged (docs/analysis.md). The numbers of one run replace another's in
one transaction: a reader sees all of a run or none of it. The match analysed is one
played on the server or one played elsewhere and uploaded as a ``.mat`` file
(``ImportedMatch``)."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from analysis.marks import Kind, Mark
from club.models import Player
from matches.models import Match, Table

KINDS = [(Kind.CHECKER.value, _("checker play")), (Kind.CUBE.value, _("cube decision"))]
MARKS = [
    (Mark.NONE.value, _("none")),
    (Mark.DOUBTFUL.value, _("doubtful")),
    (Mark.ERROR.value, _("error")),
    (Mark.BLUNDER.value, _("blunder")),
]


class ImportedMatch(models.Model):
    """A match played elsewhere, uploaded as a ``.mat`` file to be analysed: the file as
    sent, the names it gives its players and the members they are (None: a guest, a
    name that is no member's). Unrated: it moves no rating (docs/analysis.md)."""

    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("uploaded by"),
    )
    text = models.TextField(_(".mat file"))
    length = models.PositiveSmallIntegerField(
        _("length"), help_text=_("The match length in points (0: a money session).")
    )
    name_1 = models.CharField(_("first player's name in the file"), max_length=150)
    name_2 = models.CharField(_("second player's name in the file"), max_length=150)
    player_1 = models.ForeignKey(
        Player,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("first player"),
    )
    player_2 = models.ForeignKey(
        Player,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("second player"),
    )
    games = models.PositiveIntegerField(_("games"))
    played_on = models.DateField(_("played on"), null=True, blank=True)
    uploaded_at = models.DateTimeField(_("uploaded"), auto_now_add=True)

    class Meta:
        ordering = ["-id"]
        verbose_name = _("imported match")
        verbose_name_plural = _("imported matches")
        constraints = [
            models.CheckConstraint(
                condition=~models.Q(player_1=models.F("player_2")),
                name="analysis_import_two_players",
            )
        ]

    def __str__(self) -> str:
        return f"{self.name_1} - {self.name_2} ({self.length})"


class MatchAnalysis(models.Model):
    """One analysis, queued once its match or game is over (or when a player asks
    again): of a match played on the server, of an imported one, or of one game of an
    online chouette (``table`` and ``game_number``; ``seats``: the usernames of its
    players, the box first, then the line in order), one of the three."""

    class Status(models.TextChoices):
        QUEUED = "queued", _("queued")
        RUNNING = "running", _("running")
        DONE = "done", _("done")
        FAILED = "failed", _("failed")

    match = models.OneToOneField(
        Match,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="analysis",
        verbose_name=_("match"),
    )
    imported = models.OneToOneField(
        ImportedMatch,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="analysis",
        verbose_name=_("imported match"),
    )
    table = models.ForeignKey(
        Table,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="game_analyses",
        verbose_name=_("table"),
    )
    game_number = models.PositiveIntegerField(_("game number"), null=True, blank=True)
    seats = models.JSONField(_("seats"), default=list, blank=True)
    status = models.CharField(
        _("status"), max_length=10, choices=Status.choices, default=Status.QUEUED
    )
    progress = models.FloatField(_("progress"), default=0.0)
    engine = models.CharField(_("engine"), max_length=40, blank=True)
    plies = models.PositiveSmallIntegerField(_("plies"), default=0)
    # Runs started for the request in hand: a run that dies with its process (a crash,
    # the hard time limit) is counted, so the second start is the last (docs/analysis.md).
    attempts = models.PositiveSmallIntegerField(_("attempts"), default=0)
    error = models.TextField(_("error"), blank=True)
    # The live channel's version of ``analysis:<id>`` (analysis/live.py): moved with every
    # change of status or progress, in the same statement.
    version = models.BigIntegerField(_("version"), default=0)
    queued_at = models.DateTimeField(_("queued"))
    started_at = models.DateTimeField(_("started"), null=True, blank=True)
    finished_at = models.DateTimeField(_("finished"), null=True, blank=True)

    class Meta:
        verbose_name = _("match analysis")
        verbose_name_plural = _("match analyses")
        constraints = [
            models.CheckConstraint(
                condition=models.Q(progress__gte=0) & models.Q(progress__lte=1),
                name="analysis_progress_0_to_1",
            ),
            models.CheckConstraint(
                condition=models.Q(match__isnull=False, imported__isnull=True, table__isnull=True)
                | models.Q(match__isnull=True, imported__isnull=False, table__isnull=True)
                | models.Q(
                    match__isnull=True,
                    imported__isnull=True,
                    table__isnull=False,
                    game_number__isnull=False,
                ),
                name="analysis_one_match",
            ),
            models.UniqueConstraint(
                fields=["table", "game_number"],
                condition=models.Q(table__isnull=False),
                name="analysis_one_a_table_game",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.match_id or self.imported_id or self.table_id}: {self.status}"


class PlayerFigures(models.Model):
    """One player's figures in an analysis: counted decisions, equity lost, PR. A match
    has one a side; a chouette game the box's (side 0) and one for each member (side 1,
    ``place`` in the line from 0, the captain)."""

    analysis = models.ForeignKey(MatchAnalysis, on_delete=models.CASCADE, related_name="players")
    side = models.PositiveSmallIntegerField(_("side"))
    place = models.PositiveSmallIntegerField(_("place"), default=0)
    player = models.ForeignKey(
        Player, on_delete=models.PROTECT, null=True, blank=True, verbose_name=_("player")
    )
    username = models.CharField(_("username"), max_length=150)
    checker_decisions = models.PositiveIntegerField(_("checker decisions"))
    cube_decisions = models.PositiveIntegerField(_("cube decisions"))
    checker_loss = models.FloatField(_("checker equity lost"))
    cube_loss = models.FloatField(_("cube equity lost"))
    blunders = models.PositiveIntegerField(_("blunders"))
    pr = models.FloatField(_("PR"), null=True, blank=True)
    checker_pr = models.FloatField(_("checker PR"), null=True, blank=True)
    cube_pr = models.FloatField(_("cube PR"), null=True, blank=True)

    class Meta:
        verbose_name = _("player's figures")
        verbose_name_plural = _("players' figures")
        ordering = ["side", "place"]
        constraints = [
            models.UniqueConstraint(
                fields=["analysis", "side", "place"], name="analysis_one_row_a_seat"
            )
        ]

    def __str__(self) -> str:
        return f"{self.username}: {self.pr}"

    @property
    def decisions(self) -> int:
        return self.checker_decisions + self.cube_decisions


class Decision(models.Model):
    """One checker play or cube decision of a game, as the engine judged it."""

    analysis = models.ForeignKey(MatchAnalysis, on_delete=models.CASCADE, related_name="decisions")
    game_number = models.PositiveIntegerField(_("game number"))
    seq = models.PositiveIntegerField(_("sequence"))
    move_number = models.PositiveIntegerField(_("move number"))
    side = models.PositiveSmallIntegerField(_("side"))
    kind = models.CharField(_("kind"), max_length=10, choices=KINDS)
    played = models.CharField(_("played"), max_length=60)
    best = models.CharField(_("best"), max_length=60)
    played_equity = models.FloatField(_("equity of the play made"))
    best_equity = models.FloatField(_("equity of the best"))
    equity_loss = models.FloatField(_("equity lost"))
    mark = models.CharField(_("mark"), max_length=10, choices=MARKS, blank=True)
    counted = models.BooleanField(_("counted"))
    # A chouette: the member whose cube the decision is on, or who moved for the team.
    holder = models.CharField(_("member"), max_length=150, blank=True)

    class Meta:
        verbose_name = _("decision")
        verbose_name_plural = _("decisions")
        ordering = ["game_number", "seq"]
        constraints = [
            models.UniqueConstraint(
                fields=["analysis", "game_number", "seq"], name="analysis_decision_order"
            )
        ]

    def __str__(self) -> str:
        return f"{self.game_number}.{self.move_number} {self.played}"
