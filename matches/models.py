"""Games on the server: the table that holds a game, its seats, its action log, and the
two-player match (or money session) that owns a table.

A ``Table`` is generic: it holds the game in play (the core's ``Game`` state, stored
without its history), the turn number clients check, the live ``version``, the clock and
the deadline. A ``Match`` is one owner of a table; an online chouette (later) is another,
playing through the same row, log, clock and version. ``Action`` is the append-only log
every game replays from (``manage.py matches_check``).
"""

from django.db import models
from django.utils.translation import gettext_lazy as _

from club.models import AppendOnlyModel, MatchResult, Player


class Phase(models.TextChoices):
    """What the table waits for (the API's ``phase``); ``""`` before the first game."""

    NONE = "", _("not started")
    ROLL = "roll", _("roll")
    MOVE = "move", _("move")
    TAKE_OR_PASS = "take_or_pass", _("take or pass")
    RESIGN_OFFERED = "resign_offered", _("resignation offered")
    OVER = "over", _("game over")


class Table(models.Model):
    """One board on the server and the game being played on it.

    ``version`` grows by one in the same transaction as every change (an action, a
    timeout, a game starting, the match ending): the live channel compares it. ``turn_no``
    is what a client sends back with an action: ``turn_base`` + the game's own
    ``turn_no``, so it keeps growing across the games of a match. ``state`` is
    ``Game.to_dict()`` without its history (the log keeps that), so a request reads a
    state whose size does not grow with the game. ``dice_used`` counts the dice taken from
    the match's dice stream; ``log_seq`` the log rows of the game in play. The clock:
    ``delay`` seconds per turn then each side's ``reserve_0``/``reserve_1`` seconds;
    ``clock_started`` when the side to act began to act; ``deadline`` when it runs out of
    time (None: no clock or nobody to act), ``deadline_turn`` the turn it was set at.
    """

    class Status(models.TextChoices):
        WAITING = "waiting", _("waiting for players")
        PLAYING = "playing", _("playing")
        CLOSED = "closed", _("closed")

    class OnTimeout(models.TextChoices):
        FORFEIT = "forfeit", _("the side out of time loses")
        AUTOPLAY = "autoplay", _("the server plays for the side out of time")

    status = models.CharField(
        _("status"), max_length=10, choices=Status.choices, default=Status.WAITING
    )
    version = models.BigIntegerField(_("version"), default=0)
    turn_no = models.BigIntegerField(_("turn number"), default=0)
    turn_base = models.BigIntegerField(default=0)
    game_number = models.PositiveIntegerField(_("game number"), default=0)
    log_seq = models.PositiveIntegerField(default=0)
    phase = models.CharField(
        _("phase"), max_length=16, choices=Phase.choices, default=Phase.NONE, blank=True
    )
    state = models.JSONField(_("game state"), null=True, blank=True)
    dice_used = models.PositiveIntegerField(_("dice used"), default=0)
    delay = models.PositiveIntegerField(_("delay (s)"), null=True, blank=True)
    reserve_0 = models.FloatField(_("reserve of the first player (s)"), default=0)
    reserve_1 = models.FloatField(_("reserve of the second player (s)"), default=0)
    clock_started = models.DateTimeField(null=True, blank=True)
    deadline = models.DateTimeField(_("deadline"), null=True, blank=True, db_index=True)
    # The turn_no the deadline was set at (0: set on every turn, as a chouette's): the
    # timeout task sent then is good for every turn up to the current one while the
    # deadline stands, so rolling then moving (one period of the clock) sends one task.
    deadline_turn = models.BigIntegerField(default=0)
    on_timeout = models.CharField(
        _("on timeout"), max_length=10, choices=OnTimeout.choices, default=OnTimeout.FORFEIT
    )
    updated_at = models.DateTimeField(_("updated"), auto_now=True)

    class Meta:
        verbose_name = _("table")
        verbose_name_plural = _("tables")

    def __str__(self) -> str:
        return _("Table %(id)s") % {"id": self.pk}


class Seat(models.Model):
    """Who plays a side of a table: side 0 is the match's first player. ``place`` orders
    the players of one side: a match has one a side; an online chouette will seat the
    box on side 0 and the team on side 1 in line order (captain first)."""

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="seats")
    side = models.PositiveSmallIntegerField(_("side"))
    place = models.PositiveSmallIntegerField(_("place"), default=0)
    player = models.ForeignKey(
        Player, on_delete=models.PROTECT, related_name="seats", verbose_name=_("player")
    )

    class Meta:
        ordering = ["table", "side", "place"]
        verbose_name = _("seat")
        verbose_name_plural = _("seats")
        constraints = [
            models.UniqueConstraint(
                fields=["table", "side", "place"], name="matches_seat_one_per_place"
            ),
            models.UniqueConstraint(fields=["table", "player"], name="matches_seat_one_a_player"),
            models.CheckConstraint(condition=models.Q(side__in=[0, 1]), name="matches_seat_side"),
        ]

    def __str__(self) -> str:
        return f"{self.table}: {self.player} ({self.side})"


class Action(AppendOnlyModel):
    """One entry of a table's log: the core's action (``payload``, ``action_to_dict``)
    or, with ``kind`` ``start``, a game's opening (options and the opening rolls, ties
    included). ``seq`` counts from 0 within the game; ``turn_no`` is the table's after the
    action; ``actor`` is the player who acted (None: the server, for a timeout, an
    automatic roll or play, ``by_server``). Never updated or deleted (a PostgreSQL
    trigger refuses it too)."""

    START = "start"

    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="actions")
    game_number = models.PositiveIntegerField(_("game number"))
    seq = models.PositiveIntegerField(_("sequence"))
    turn_no = models.BigIntegerField(_("turn number"))
    kind = models.CharField(_("kind"), max_length=20)
    actor = models.ForeignKey(
        Player,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("actor"),
    )
    by_server = models.BooleanField(_("by the server"), default=False)
    payload = models.JSONField(_("payload"))
    at = models.DateTimeField(_("at"))

    append_only_refusal = _(
        "A game's action log is append-only: its rows are never changed or deleted."
    )

    class Meta:
        ordering = ["table", "game_number", "seq"]
        verbose_name = _("action")
        verbose_name_plural = _("actions")
        constraints = [
            models.UniqueConstraint(
                fields=["table", "game_number", "seq"], name="matches_action_one_per_seq"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.table} #{self.game_number}.{self.seq} {self.kind}"


class Match(models.Model):
    """A match to ``length`` points between two players (0: a money session at
        ``stake`` per point), owning one table.

        ``opponent`` is None for an open challenge until a member accepts it. ``state`` is the
        core's ``MatchState.to_dict()`` (``score_before``: the score the game in play began
    at, for its match ID); ``clock`` the clock asked for (a preset name or
        ``{"delay", "reserve"}``). The dice: ``commitment`` (public from creation) is the
        SHA-256 of ``server_seed``, which stays secret until the match is over (never in a
        repr, a log line, an error, the admin or an API answer before then).
    """

    class Status(models.TextChoices):
        INVITED = "invited", _("invited")
        PLAYING = "playing", _("playing")
        FINISHED = "finished", _("finished")
        DECLINED = "declined", _("declined")

    table = models.OneToOneField(Table, on_delete=models.PROTECT, related_name="match")
    creator = models.ForeignKey(
        Player, on_delete=models.PROTECT, related_name="matches_created", verbose_name=_("creator")
    )
    opponent = models.ForeignKey(
        Player,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="matches_invited",
        verbose_name=_("opponent"),
    )
    length = models.PositiveSmallIntegerField(
        _("length"), help_text=_("The match length in points (0: a money session).")
    )
    rated = models.BooleanField(_("rated"), default=True)
    stake = models.DecimalField(
        _("stake per point"), max_digits=9, decimal_places=2, null=True, blank=True
    )
    options = models.JSONField(_("options"), default=dict, blank=True)
    clock = models.JSONField(_("clock"))
    status = models.CharField(
        _("status"), max_length=10, choices=Status.choices, default=Status.INVITED
    )
    state = models.JSONField(_("match state"))
    score_before = models.JSONField(_("score before the game in play"), default=list)
    winner = models.ForeignKey(
        Player,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="matches_won",
        verbose_name=_("winner"),
    )
    ended_by = models.CharField(
        _("ended by"), max_length=20, choices=MatchResult.EndedBy.choices, blank=True
    )
    result = models.OneToOneField(
        MatchResult, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    server_seed = models.BinaryField(max_length=32, editable=False)
    commitment = models.CharField(_("dice commitment"), max_length=64)
    client_seed = models.CharField(_("client seed"), max_length=64, blank=True)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    started_at = models.DateTimeField(_("started"), null=True, blank=True)
    finished_at = models.DateTimeField(_("finished"), null=True, blank=True)

    class Meta:
        ordering = ["-id"]
        verbose_name = _("match")
        verbose_name_plural = _("matches")
        constraints = [
            models.CheckConstraint(
                condition=~models.Q(creator=models.F("opponent")), name="matches_two_players"
            ),
            models.CheckConstraint(
                condition=models.Q(length__gte=1) | models.Q(rated=False),
                name="matches_money_session_unrated",
            ),
        ]

    def __str__(self) -> str:
        return _("Match %(id)s") % {"id": self.pk}

    def __repr__(self) -> str:
        return f"<Match {self.pk} {self.status}>"

    @property
    def money(self) -> bool:
        return self.length == 0


class PlaySettings(models.Model):
    """A player's own settings at the board (T4, B4)."""

    class HomeBoard(models.TextChoices):
        RIGHT = "right", _("bottom right")
        LEFT = "left", _("bottom left")

    player = models.OneToOneField(Player, on_delete=models.CASCADE, related_name="play_settings")
    auto_roll = models.BooleanField(
        _("roll for me when I cannot double"),
        default=False,
        help_text=_("The server rolls for you when the cube cannot be used (T4)."),
    )
    auto_play_forced = models.BooleanField(
        _("play forced moves for me"),
        default=False,
        help_text=_("The server plays your move when only one play is legal (T4)."),
    )
    auto_bear_off = models.BooleanField(
        _("play my bear-off when there is no contact"),
        default=False,
        help_text=_(
            "When both sides are bearing off, the server plays your move: the most "
            "checkers off, then the fewest pips left (T4)."
        ),
    )
    home_board = models.CharField(
        _("home board"), max_length=5, choices=HomeBoard.choices, default=HomeBoard.RIGHT
    )
    switch_sides = models.BooleanField(_("switch sides after every game"), default=False)

    class Meta:
        verbose_name = _("play settings")
        verbose_name_plural = _("play settings")

    def __str__(self) -> str:
        return _("Play settings of %(player)s") % {"player": self.player}


# The key of the lobbies' common part (``LobbyVersion``): no player has id 0.
CLUB_LOBBY = 0


class LobbyVersion(models.Model):
    """A lobby's live version (``lobby:<player id>``, docs/live.md): ``key`` 0 is the
    club's part, which moves with what every member's lobby shows (an open challenge, a
    match starting or ending); any other ``key`` is a player's id, and that row moves
    with what only their lobby shows (an invitation to or from them). A member's lobby
    version is the sum of the two: it grows whenever either does, and a member learns
    nothing of the invitations between others. A row is made at its first change."""

    key = models.BigIntegerField(primary_key=True)
    version = models.BigIntegerField(_("version"), default=0)

    class Meta:
        verbose_name = _("lobby version")
        verbose_name_plural = _("lobby versions")

    def __str__(self) -> str:
        return f"lobby {self.key} v{self.version}"
