"""A match's analysis: its status while the worker runs it, each player's figures and
every decision judged (docs/analysis.md). The numbers of one run replace another's in
one transaction: a reader sees all of a run or none of it."""

from django.db import models
from django.utils.translation import gettext_lazy as _

from analysis.marks import Kind, Mark
from club.models import Player
from matches.models import Match

KINDS = [(Kind.CHECKER.value, _("checker play")), (Kind.CUBE.value, _("cube decision"))]
MARKS = [
    (Mark.NONE.value, _("none")),
    (Mark.DOUBTFUL.value, _("doubtful")),
    (Mark.ERROR.value, _("error")),
    (Mark.BLUNDER.value, _("blunder")),
]


class MatchAnalysis(models.Model):
    """One match's analysis, queued once it is over (or when a player asks again)."""

    class Status(models.TextChoices):
        QUEUED = "queued", _("queued")
        RUNNING = "running", _("running")
        DONE = "done", _("done")
        FAILED = "failed", _("failed")

    match = models.OneToOneField(
        Match, on_delete=models.CASCADE, related_name="analysis", verbose_name=_("match")
    )
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
            )
        ]

    def __str__(self) -> str:
        return f"{self.match_id}: {self.status}"


class PlayerFigures(models.Model):
    """One side's figures in an analysis: counted decisions, equity lost, PR."""

    analysis = models.ForeignKey(MatchAnalysis, on_delete=models.CASCADE, related_name="players")
    side = models.PositiveSmallIntegerField(_("side"))
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
        ordering = ["side"]
        constraints = [
            models.UniqueConstraint(fields=["analysis", "side"], name="analysis_one_row_a_side")
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
