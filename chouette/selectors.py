"""Every read of a chouette that is more than a ``get``: keyword-only, named for what
they read. The seating and the money come from ``backgammon.chouette``: the tables
keep player ids, the arithmetic names players by username."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import Any, TypedDict

from django.contrib.auth import get_user_model
from django.db import connection
from django.db.models import IntegerField, Q, QuerySet, Sum
from django.db.models.expressions import RawSQL
from django.utils.translation import gettext as _

from backgammon.chouette import BoxKeeps, ChouetteOptions, Seating, Tally
from backgammon.errors import BackgammonError
from backgammon.game import Game, Phase, Result
from backgammon.gnubg_ids import position_id
from backgammon.notation import format_play
from backgammon.position import Position
from backgammon.team import BOX, TEAM
from chouette.models import Chouette, ChouetteGame, GamePoints, Membership, Proposal
from club.models import Player
from matches.models import Phase as TablePhase
from matches.models import Table
from web import live
from web.errors import Forbidden, NotFound


def chouette_get(*, pk: int) -> Chouette:
    """The chouette with that id, or ``NotFound``."""
    try:
        return Chouette.objects.select_related("recorded_by").get(pk=pk)
    except Chouette.DoesNotExist:
        raise NotFound(_("There is no chouette #%(id)s.") % {"id": pk}) from None


def _games_played() -> RawSQL:
    """The games in effect of the chouette of the outer query, a query on the sessions
    (API.md's ``games``): its game rows that neither undo a game nor are undone. Written
    out: the ORM's ``Subquery`` of the same count (``chouette_games_played``'s filter)
    costs about 1.3 ms of CPU to build and compile, and every action, GET and table page
    reads it; this, next to nothing."""
    games = ChouetteGame._meta.db_table
    session = f'"{Chouette._meta.db_table}"."id"'
    return RawSQL(
        f'SELECT COUNT(*) FROM "{games}" game WHERE game."chouette_id" = {session}'
        ' AND game."undoes_id" IS NULL'
        f' AND NOT EXISTS (SELECT 1 FROM "{games}" later WHERE later."undoes_id" = game."id")',
        (),
        output_field=IntegerField(),
    )


def chouette_list() -> QuerySet[Chouette]:
    """Chouettes, newest first, each with ``games_played`` (the games in effect) and
    its players at hand."""
    return (
        Chouette.objects.annotate(games_played=_games_played())
        .prefetch_related("memberships__player__user")
        .order_by("-id")
    )


def chouette_card_rows(
    queryset: QuerySet[Chouette] | None = None, *, table: bool = True
) -> QuerySet[Chouette]:
    """Chouettes as ``GET /api/chouettes/{id}/`` reads them in one query: with their
    scorekeeper, ``games_played`` and (``table``) their table; ``queryset`` a locking
    one, for a caller that holds the table already."""
    rows = Chouette.objects.all() if queryset is None else queryset
    rows = (
        rows.select_related("recorded_by", "table") if table else rows.select_related("recorded_by")
    )
    return rows.annotate(games_played=_games_played())


def chouette_card_get(*, pk: int) -> Chouette:
    """The chouette with that id as its card reads it (``chouette_card_rows``), or
    ``NotFound``."""
    try:
        return chouette_card_rows().get(pk=pk)
    except Chouette.DoesNotExist:
        raise NotFound(_("There is no chouette #%(id)s.") % {"id": pk}) from None


@dataclass(frozen=True)
class Standing:
    """What a chouette's card and its table page read besides its row: everyone who ever
    sat at the table (player id to username, and to display name), each one's points over
    the session (undone games cancelled by their reversals) and the games in effect. An
    online action keeps it up to date from what it writes, so its answer reads nothing
    again."""

    names: dict[int, str]
    display_names: dict[int, str]
    totals: dict[int, int]
    games: int
    robots: dict[int, str] = field(default_factory=dict)  # a practice robot's strength

    def scores(self, seats: Sequence[int]) -> dict[str, int]:
        """API.md's ``scores``: each seated player's points, in seating order."""
        return {self.names[pk]: self.totals.get(pk, 0) for pk in seats}

    def game_written(self, points: Mapping[int, int]) -> Standing:
        """The standing after one more game giving ``points`` (player id to points)."""
        totals = dict(self.totals)
        for pk, value in points.items():
            totals[pk] = totals.get(pk, 0) + value
        return replace(self, totals=totals, games=self.games + 1)


def chouette_standing(*, chouette: Chouette) -> Standing:
    """The chouette's ``Standing``: its players with their points in one query, the
    games from ``games_played`` when the row was read with it (``chouette_card_rows``)."""
    return chouette_standings(chouettes=[chouette])[chouette.pk]


def _standing_rows(pks: Collection[int], *, game_rows: bool = False) -> list[tuple[Any, ...]]:
    """The players of the chouettes ``pks`` (everyone who ever sat, once a stint), each
    as (its session's id, player id, username, display name, their points over it: undone
    games cancelled by their reversals, its practice robot's strength or ""), in
    display-name order; with ``game_rows``, each row ends with the count of its
    chouette's game rows, read in the same statement.
    Written in SQL: the ORM's building and compiling the query with its subquery of the
    points cost about 2 ms of CPU a call, in every online action and every read of the
    live channel's chouette states; this, a tenth of it."""
    if not pks:
        return []
    points, games = GamePoints._meta.db_table, ChouetteGame._meta.db_table
    players, users = Player._meta.db_table, get_user_model()._meta.db_table
    stints = Membership._meta.db_table
    count = f', (SELECT COUNT(*) FROM "{games}" WHERE chouette_id = m.chouette_id)'
    sql = (
        f"SELECT m.chouette_id, p.id, u.username, p.display_name, COALESCE(("
        f'SELECT SUM(gp.points) FROM "{points}" gp JOIN "{games}" g ON gp.game_id = g.id '
        "WHERE g.chouette_id = m.chouette_id AND gp.player_id = p.id), 0), p.robot"
        f"{count if game_rows else ''} "
        f'FROM "{players}" p INNER JOIN "{stints}" m ON m.player_id = p.id '
        f'INNER JOIN "{users}" u ON u.id = p.user_id '
        f"WHERE m.chouette_id IN ({', '.join(['%s'] * len(pks))}) ORDER BY p.display_name"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, sorted(pks))
        rows: list[tuple[Any, ...]] = cursor.fetchall()
    return rows


def chouette_standings(*, chouettes: Collection[Chouette]) -> dict[int, Standing]:
    """Each chouette's ``Standing`` (by id), their players with their points in one query
    whatever their number (the live channel reads many sessions at once), the games as
    ``chouette_standing`` reads them."""
    rows = _standing_rows([chouette.pk for chouette in chouettes])
    read: dict[int, tuple[dict[int, str], dict[int, str], dict[int, int], dict[int, str]]] = {
        chouette.pk: ({}, {}, {}, {}) for chouette in chouettes
    }
    for chouette_pk, pk, username, display_name, total, robot in rows:
        names, display_names, totals, robots = read[chouette_pk]
        names[pk], display_names[pk], totals[pk] = username, display_name, total
        if robot:
            robots[pk] = robot
    standings = {}
    for chouette in chouettes:
        games = getattr(chouette, "games_played", None)
        if games is None:
            games = chouette_games_played(chouette=chouette)
        names, display_names, totals, robots = read[chouette.pk]
        standings[chouette.pk] = Standing(
            names=names, display_names=display_names, totals=totals, games=games, robots=robots
        )
    return standings


def game_rows() -> RawSQL:
    """How many game rows (games and their reversals) the chouette of the outer query (a
    query on the sessions) has: append-only, so the same count means the same points.
    Written out: the ORM's ``Subquery`` of the count costs about a millisecond of CPU to
    build and compile, under the online action's lock; this, next to nothing."""
    games = ChouetteGame._meta.db_table
    return RawSQL(
        f'SELECT COUNT(*) FROM "{games}" WHERE "{games}"."chouette_id" = '
        f'"{Chouette._meta.db_table}"."id"',
        (),
        output_field=IntegerField(),
    )


@dataclass(frozen=True)
class StandingAhead:
    """A chouette's players and points read before its lock, with the count of its game
    rows in the same statement (so at the same moment): ``standing_if_current`` keeps it
    when the locked row shows the same count and no one seated it does not name."""

    names: dict[int, str]
    display_names: dict[int, str]
    totals: dict[int, int]
    robots: dict[int, str]
    rows: int | None  # None: no player read (an unknown session)

    def standing_if_current(self, *, locked: Chouette) -> Standing | None:
        """The standing of ``locked`` (read with ``game_rows()`` as ``rows_count``, and
        with ``games_played``) if nothing it shows moved since: no game row written (they
        are append-only, so the points are the same) and every seated player named (a
        player joins seated).
        None: read it again, under the lock."""
        games = getattr(locked, "games_played", None)
        if games is None or self.rows is None or self.rows != getattr(locked, "rows_count", None):
            return None
        if any(pk not in self.names for pk in locked.seats):
            return None
        return Standing(
            names=self.names,
            display_names=self.display_names,
            totals=self.totals,
            games=games,
            robots=self.robots,
        )


def chouette_standing_ahead(*, pk: int) -> StandingAhead:
    """The players and points of chouette ``pk`` and its game rows, in one query: what an
    online action reads before it locks the session, so that the lock is held for less
    (``StandingAhead.standing_if_current``)."""
    rows = _standing_rows([pk], game_rows=True)
    return StandingAhead(
        names={row[1]: row[2] for row in rows},
        display_names={row[1]: row[3] for row in rows},
        totals={row[1]: row[4] for row in rows},
        robots={row[1]: row[5] for row in rows if row[5]},
        rows=rows[0][6] if rows else None,
    )


def chouette_options(*, chouette: Chouette) -> ChouetteOptions:
    """The options the arithmetic reads (H3, H6, H11, H12)."""
    return ChouetteOptions(
        jacoby=chouette.jacoby,
        box_keeps=BoxKeeps(chouette.box_keeps),
        partner_from=chouette.partner_from,
    )


def chouette_names(*, chouette: Chouette) -> dict[int, str]:
    """Every player who ever sat at the table: player id to username."""
    players = Player.objects.filter(chouette_memberships__chouette=chouette).select_related("user")
    return {player.pk: player.username for player in players}


def chouette_seating(*, chouette: Chouette, names: Mapping[int, str] | None = None) -> Seating:
    """The seating between games, as the arithmetic holds it."""
    names = chouette_names(chouette=chouette) if names is None else names
    return seating_from(
        seats=chouette.seats, names=names, options=chouette_options(chouette=chouette)
    )


def seating_from(
    *, seats: Sequence[int], names: Mapping[int, str], options: ChouetteOptions
) -> Seating:
    """The seating of stored seats (player ids, box first)."""
    return Seating(
        box=names[seats[0]], waiting=tuple(names[pk] for pk in seats[1:]), options=options
    )


def chouette_seated(*, chouette: Chouette) -> QuerySet[Player]:
    """The players seated now."""
    return Player.objects.filter(pk__in=chouette.seats).select_related("user")


def chouette_games_played(*, chouette: Chouette) -> int:
    """API.md's ``games``: the games in effect (recorded, not undone)."""
    return (
        chouette.game_rows.filter(undoes__isnull=True, undone_by__isnull=True).values("pk").count()
    )


def chouette_rows(*, chouette: Chouette) -> int:
    """How many game rows the session has (games and their reversals)."""
    return chouette.game_rows.values("pk").count()


def chouette_game_list(*, chouette: Chouette) -> QuerySet[ChouetteGame]:
    """Every game row, oldest first, with its points (by player id: ``chouette_names``
    names them, so no player or user is read again) and whether it was undone."""
    return (
        chouette.game_rows.select_related("undoes", "undone_by")
        .prefetch_related("points")
        .order_by("number")
    )


def chouette_last_game(*, chouette: Chouette) -> ChouetteGame | None:
    """The last game in effect: the one an undo takes back."""
    return (
        chouette.game_rows.filter(undoes__isnull=True, undone_by__isnull=True)
        .order_by("-number")
        .first()
    )


def chouette_scores(
    *, chouette: Chouette, names: Mapping[int, str] | None = None
) -> dict[str, int]:
    """Each seated player's points over the session, in seating order (API.md's
    ``scores``); the sums of the points rows, undone games cancelled by their reversals."""
    names = chouette_names(chouette=chouette) if names is None else names
    totals = dict(
        GamePoints.objects.filter(game__chouette=chouette)
        .values_list("player")
        .annotate(total=Sum("points"))
        .values_list("player", "total")
    )
    return {names[pk]: totals.get(pk, 0) for pk in chouette.seats}


def membership_changes_since(*, chouette: Chouette, row: int) -> QuerySet[Membership]:
    """The joins and leaves made after the session had ``row`` game rows."""
    return chouette.memberships.filter(Q(joined_after__gte=row) | Q(left_after__gte=row))


def chouette_tally(*, chouette: Chouette, names: Mapping[int, str] | None = None) -> Tally:
    """The points still unsettled between each pair of players (H13, H14): the session
    replayed in order, every game row's points added and every leaver's share settled
    where they left."""
    names = chouette_names(chouette=chouette) if names is None else names
    leaves = list(
        chouette.memberships.filter(left_after__isnull=False)
        .select_related("player__user")
        .order_by("left_after", "id")
    )
    tally = Tally()

    def settle_leaves_until(row: int) -> None:
        nonlocal tally
        while leaves and leaves[0].left_after is not None and leaves[0].left_after < row:
            _amounts, tally = tally.settle_leaver(leaves.pop(0).player.username, chouette.stake)

    for game in chouette_game_list(chouette=chouette):
        settle_leaves_until(game.number)
        # A reversal's box is the box of the game it reverses: the seating it went back to.
        box = (game.seats_after if game.undoes_id else game.seats_before)[0]
        points = {names[row.player_id]: row.points for row in game.points.all()}
        tally = tally.add_game(points=points, box=names[box])
    settle_leaves_until(chouette.game_rows.count() + 1)
    return tally


def chouette_game_on(*, chouette: Chouette) -> bool:
    """Whether an online game is being played (not before the first, not between two):
    joining, leaving and closing wait for its end (H13)."""
    if chouette.table_id is None:
        return False
    phase = Table.objects.filter(pk=chouette.table_id).values_list("phase", flat=True).get()
    return phase not in (TablePhase.NONE, TablePhase.OVER)


def chouette_closing_amounts(
    *, chouette: Chouette, names: Mapping[int, str] | None = None
) -> dict[str, Decimal]:
    """What closing the session settles (H14), by username: every seated player named,
    0.00 included; what the close posts and what its confirmation shows beforehand."""
    names = chouette_names(chouette=chouette) if names is None else names
    owed = chouette_tally(chouette=chouette, names=names).settle_all(chouette.stake)
    zero = Decimal("0.00")
    amounts = {names[pk]: owed.get(names[pk], zero) for pk in chouette.seats}
    amounts.update(owed)
    return amounts


def chouette_leaving_amounts(
    *, chouette: Chouette, username: str, names: Mapping[int, str] | None = None
) -> dict[str, Decimal]:
    """What ``username`` leaving now settles (H13), by username, theirs first: what the
    leave posts and what its confirmation shows beforehand."""
    tally = chouette_tally(chouette=chouette, names=names)
    amounts, _rest = tally.settle_leaver(username, chouette.stake)
    return amounts


def player_chouettes(*, player: Player) -> list[tuple[Chouette, int]]:
    """The chouettes ``player`` sat at, newest first, with their points in each."""
    totals = dict(
        GamePoints.objects.filter(player=player)
        .values_list("game__chouette")
        .annotate(total=Sum("points"))
        .values_list("game__chouette", "total")
    )
    chouettes = Chouette.objects.filter(memberships__player=player).distinct().order_by("-id")
    return [(chouette, totals.get(chouette.pk, 0)) for chouette in chouettes]


def topic_ids(keys: Collection[str]) -> list[int]:
    """The session ids of the live channel's ``chouette:<id>`` keys (the digits of a
    BigAutoField, no more; anything else names no session)."""
    return [int(key) for key in keys if key.isascii() and key.isdigit() and len(key) < 19]


def chouette_versions(keys: Collection[str]) -> dict[str, int]:
    """The live channel's ``chouette:<id>`` topics: each existing session's version."""
    versions = live.versions_by_id(Chouette, topic_ids(keys))
    return {str(pk): version for pk, version in versions.items()}


# Online mode ---------------------------------------------------------------------------


class OnlineCube(TypedDict):
    """A team member's cube in an online game (``api.OnlineCubeOutput``)."""

    value: int
    owner: str | None
    state: str
    offered_at: int | None


class OnlineResignation(TypedDict):
    """The resignation on offer in an online game (``api.OnlineResignationOutput``)."""

    value: str
    offered_by: str
    contracts: list[str]
    offered_at: int


class OnlineGameFields(TypedDict):
    """API.md's ``game`` of an online chouette but its deadline."""

    number: int
    turn_no: int
    phase: str
    awaiting: list[str]
    captain: str | None
    dice: list[int] | None
    position_id: str
    legal_plays: list[str]
    cubes: dict[str, OnlineCube]
    resignation: OnlineResignation | None


class OnlineGame(OnlineGameFields):
    """The online game as the pages read it: its deadline a time."""

    deadline: dt.datetime | None


def chouette_online_game(
    *, chouette: Chouette, names: Mapping[int, str] | None = None
) -> OnlineGame | None:
    """API.md's ``game`` of an online chouette (None before its first game): ``number``,
    ``turn_no``, ``phase``, ``awaiting`` (usernames: the box or the captain to roll or
    move, each member who owes an answer), ``dice``, ``position_id`` and ``legal_plays``
    from the view of the side on roll, ``cubes`` (one per team member: ``value``,
    ``owner`` None, "box" or the member, ``state`` live, offered or passed, and
    ``offered_at``: the ``turn_no`` an answer to that cube's offer carries, else None);
    plus ``captain`` (who moves for the team now, H7) and ``deadline``."""
    table = chouette.table
    if table is None or table.state is None:
        return None
    game = Game.from_dict(table.state)
    names = chouette_names(chouette=chouette) if names is None else names
    box = names[chouette.seats[0]]
    awaiting = game.awaiting
    board = game.position_for(game.on_roll)
    assert isinstance(board, Position)
    cubes: dict[str, OnlineCube] = {}
    for contract in game.contracts:
        holder = str(contract.holder)
        offered = game.offered_at(contract.holder)
        owner = None if contract.owner is None else "box" if contract.owner == BOX else holder
        state = "passed" if not game.in_play(contract.holder) else "live"
        cubes[holder] = {
            "value": contract.value,
            "owner": owner,
            "state": "offered" if contract.pending is not None else state,
            "offered_at": None if offered is None else table.turn_base + offered,
        }
    return {
        "number": table.game_number,
        "turn_no": table.turn_no,
        "phase": game.phase.value,
        "awaiting": ([box] if awaiting.box else []) + [str(m) for m in awaiting.members],
        "captain": None if game.captain is None else str(game.captain),
        "dice": None if game.dice is None else list(game.dice),
        "position_id": position_id(board),
        "legal_plays": [format_play(play.steps) for play in game.legal_plays()],
        "cubes": cubes,
        "resignation": _resignation(game, table.turn_base),
        "deadline": table.deadline,
    }


def _resignation(game: Game, turn_base: int) -> OnlineResignation | None:
    """The resignation on offer (S4): its value a cube (the matches' words), which side
    offered it, the contracts still waiting on an answer (in line order) and the
    ``turn_no`` its answers carry."""
    team = game.team
    if game.resignation is None or team is None:
        return None
    waiting = (team.resigner,) if team.resigner is not None else team.resign_to
    offered = game.offered_at(waiting[0])
    assert offered is not None
    return {
        "value": game.resignation.value,
        "offered_by": "box" if game.on_roll == BOX else "team",
        "contracts": [str(holder) for holder in waiting],
        "offered_at": turn_base + offered,
    }


def chouette_proposals(*, chouette: Chouette, player: Player) -> QuerySet[Proposal]:
    """Consulting (H2): the team's proposals for the turn in play, for a member of the
    team in the game (the box and anyone else: ``Forbidden``)."""
    table = chouette.table
    game = None if table is None or table.state is None else Game.from_dict(table.state)
    if game is None or player.username not in game.options.holders:
        raise Forbidden(_("The team's proposals are for the team's eyes only (H2)."))
    assert table is not None
    return (
        Proposal.objects.filter(chouette=chouette, turn_no=table.turn_no)
        .select_related("player__user")
        .order_by("id")
    )


# A member's own board page ---------------------------------------------------------------


@dataclass(frozen=True)
class MemberChoices:
    """What one player may do at an online chouette's board now, asked of the rules core
    itself (a button is shown only when the core would take the action; the server still
    decides). ``role``: ``box``, ``captain`` (moves for the team now, H7), ``crew``,
    ``out`` (passed or resigned this game), ``watcher``; ``side`` the board is drawn
    from. ``answer_turn_no``: the ``turn_no`` of the double the player answers, if any;
    ``answer_for``: whose cube the box answers (the team's doubles, in line, H10).
    ``resign``: may offer a resignation (S4: the box to every member still in, the
    captain for every contract still in); ``resign_answer_turn_no``: the offer the
    player answers, of ``resign_value`` a cube; ``resign_from``: for the box, whose
    contract it answers next (the team's offer, in line order)."""

    role: str
    side: int
    seated: bool
    start: bool = False
    roll: bool = False
    send_doubles: bool = False
    move: bool = False
    double: bool = False
    double_to: tuple[str, ...] = ()
    answer_turn_no: int | None = None
    answer_value: int | None = None
    answer_for: str | None = None
    beaver: bool = False
    propose: tuple[str, ...] = ()
    sees_proposals: bool = False
    resign: bool = False
    resign_answer_turn_no: int | None = None
    resign_value: str | None = None
    resign_from: str | None = None


def _core_takes(call: Callable[..., object], *args: object) -> bool:
    """Whether the rules core accepts an action (tried on a frozen game, so nothing
    changes)."""
    try:
        call(*args)
    except (BackgammonError, ValueError):
        return False
    return True


def chouette_member_choices(
    *, chouette: Chouette, player: Player, names: Mapping[int, str] | None = None
) -> MemberChoices:
    """What ``player`` may do at the online board of ``chouette`` now (docs/chouette.md,
    "Each member's board"): between games anyone seated starts the next one; in a game
    the box and the captain roll and move, every member still in doubles on their own
    cube round and answers their own cube, the box doubles and answers the team's
    doubles in line, and the crew proposes per the session's ``consulting`` (H2)."""
    names = chouette_names(chouette=chouette) if names is None else names
    box, name = names[chouette.seats[0]], player.username
    seated = player.pk in chouette.seats
    table = chouette.table
    game = None if table is None or table.state is None else Game.from_dict(table.state)
    is_open = chouette.status == Chouette.Status.OPEN
    if game is None or game.over:
        next_captain = chouette_seating(chouette=chouette, names=names).captain
        role = {box: "box", next_captain: "captain"}.get(name, "crew" if seated else "watcher")
        return MemberChoices(
            role=role, side=BOX if name == box else TEAM, seated=seated, start=seated and is_open
        )
    assert table is not None
    holders = game.options.holders
    if name == box:
        return _box_choices(game, turn_base=table.turn_base, seated=seated, box=box)
    if name not in holders:
        return MemberChoices(role="watcher", side=TEAM, seated=seated)
    if not game.in_play(name):
        return MemberChoices(role="out", side=TEAM, seated=seated, sees_proposals=True)
    captain = name == game.captain
    team_rolls = game.on_roll == TEAM and game.phase is Phase.ROLL
    contract = game.contract(name)
    offered = game.offered_at(name) if contract.pending == BOX else None
    return MemberChoices(
        role="captain" if captain else "crew",
        side=TEAM,
        seated=seated,
        roll=captain and team_rolls and not game.doubles_to_send,
        send_doubles=captain and team_rolls and bool(game.doubles_to_send),
        move=captain and game.on_roll == TEAM and game.phase is Phase.MOVE,
        double=team_rolls and _core_takes(game.double, [name]),
        answer_turn_no=None if offered is None else table.turn_base + offered,
        answer_value=None if offered is None else contract.value * 2,
        beaver=offered is not None and _core_takes(game.beaver, name),
        propose=() if captain else _proposals_open(chouette, game, name),
        sees_proposals=True,
        **_resign_choices(game, name, turn_base=table.turn_base, box=box),
    )


class ResignChoices(TypedDict):
    """``MemberChoices``' resignation fields."""

    resign: bool
    resign_answer_turn_no: int | None
    resign_value: str | None
    resign_from: str | None


def _resign_choices(game: Game, name: str, *, turn_base: int, box: str) -> ResignChoices:
    """Resignations per contract (S4): whether ``name`` may offer one on their side's
    turn (the box, or the captain for the team, H2), and the offer they answer: the
    box's to each member still in, or the team's to the box, contract by contract."""
    is_box = name == box
    own_turn = game.on_roll == (BOX if is_box else TEAM)
    team = game.team
    answering = None
    if game.phase is Phase.RESIGN_OFFERED and team is not None and not own_turn:
        if is_box:
            answering = team.resigner if team.resigner is not None else team.resign_to[0]
        elif name in team.resign_to:
            answering = name
    offered = None if answering is None else game.offered_at(answering)
    return {
        "resign": own_turn
        and (is_box or name == game.captain)
        and game.phase in (Phase.ROLL, Phase.MOVE)
        and _core_takes(game.resign, Result.SINGLE),
        "resign_answer_turn_no": None if offered is None else turn_base + offered,
        "resign_value": None
        if offered is None or game.resignation is None
        else game.resignation.value,
        "resign_from": None if offered is None or not is_box else str(answering),
    }


def _box_choices(game: Game, *, turn_base: int, seated: bool, box: str) -> MemberChoices:
    box_rolls = game.on_roll == BOX and game.phase is Phase.ROLL
    answered = next((c for c in game.contracts if c.pending == TEAM), None)
    offered = None if answered is None else game.offered_at(answered.holder)
    several = game.options.chouette is not None and not game.options.chouette.single
    double = box_rolls and _core_takes(game.double)
    return MemberChoices(
        role="box",
        side=BOX,
        seated=seated,
        roll=box_rolls,
        move=game.on_roll == BOX and game.phase is Phase.MOVE,
        double=double,
        double_to=tuple(
            str(holder)
            for holder in game.live_holders
            if double and several and _core_takes(game.double, [holder])
        ),
        answer_turn_no=None if offered is None else turn_base + offered,
        answer_value=None if answered is None else answered.value * 2,
        answer_for=None if answered is None else str(answered.holder),
        beaver=offered is not None and _core_takes(game.beaver),
        **_resign_choices(game, box, turn_base=turn_base, box=box),
    )


def _proposals_open(chouette: Chouette, game: Game, name: str) -> tuple[str, ...]:
    """The proposals a crew member may make now (H2; the ``consulting`` option)."""
    if chouette.consulting == Chouette.Consulting.NONE:
        return ()
    if game.on_roll == TEAM and game.phase is Phase.ROLL:
        return (Proposal.Kind.DOUBLE, Proposal.Kind.NO_DOUBLE)
    if game.on_roll == TEAM and game.phase is Phase.MOVE:
        full = chouette.consulting == Chouette.Consulting.FULL
        return (Proposal.Kind.PLAY,) if full and game.legal_plays() else ()
    if game.phase is Phase.TAKE_OR_PASS and game.on_roll == BOX:
        return (Proposal.Kind.TAKE, Proposal.Kind.PASS)
    return ()
