"""Every read of matches and tables that is more than a ``get``."""

import datetime as dt
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from typing import NamedTuple, NotRequired, TypedDict

from django.db.models import OuterRef, Q, QuerySet, Subquery, Value
from django.db.models.functions import Coalesce

from backgammon import dice as core_dice
from backgammon.game import (
    Confirm,
    Game,
    GameOptions,
    Move,
    NoMove,
    Opening,
    Phase,
    action_from_dict,
)
from backgammon.gnubg_ids import match_id, position_id
from backgammon.match import MatchState, match_key
from backgammon.matfile import MatchRecord, export_mat
from backgammon.moves import Step
from backgammon.notation import format_play
from backgammon.position import Position
from backgammon.tavli.board import TavliBoard
from backgammon.tavli.record import export_match_record
from club.models import Player, RatingChange, RatingKind
from matches import clocks
from matches.board import landing_steps
from matches.models import CLUB_LOBBY, Action, LobbyVersion, Match, PlaySettings, Table
from web import clock
from web.documents import JSONDocument

BAR_PIPS = 25


def match_queryset() -> QuerySet[Match]:
    """Matches with what ``match_detail`` reads joined in: a fixed number of queries."""
    return Match.objects.select_related("creator__user", "opponent__user", "table")


def match_list(*, player: Player | None = None, status: str | None = None) -> QuerySet[Match]:
    """Matches, newest first; ``player``: those they play in or are invited to."""
    matches = match_queryset()
    if player is not None:
        matches = matches.filter(Q(creator=player) | Q(opponent=player))
    if status:
        matches = matches.filter(status=status)
    return matches.order_by("-id")


def open_challenges() -> QuerySet[Match]:
    """Open challenges any member may accept, newest first."""
    return match_list(status=Match.Status.INVITED).filter(opponent__isnull=True)


def lobby_versions(player_ids: Iterable[int]) -> dict[int, int]:
    """The lobby version (``LobbyVersion``) of each of these players that exists, in one
    query: the club's part plus the player's own (a part never moved counts 0)."""

    def part(key: int | OuterRef) -> Coalesce:
        return Coalesce(Subquery(LobbyVersion.objects.filter(key=key).values("version")), Value(0))

    players = Player.objects.filter(pk__in=set(player_ids)).annotate(
        club=part(CLUB_LOBBY), own=part(OuterRef("pk"))
    )
    return {pk: club + own for pk, club, own in players.values_list("pk", "club", "own")}


def live_matches() -> QuerySet[Match]:
    """Matches being played now (to watch), the most recently active first."""
    return match_list(status=Match.Status.PLAYING).order_by("-table__updated_at", "-id")


def match_state(match: Match) -> MatchState:
    """The match's score keeper (``MatchState``) as stored."""
    return MatchState.from_dict(match.state)


def match_is_tavli(match: Match) -> bool:
    """A tavli match, or a match or session of one tavli game (no gnubg ID or .mat)."""
    state = match_state(match)
    return state.tavli is not None or state.options.variant.rules is not None


def match_rating_kind(match: Match) -> str:
    """The rating a rated match moves: the tavli rating for a tavli match and for any
    tavli game played as a match of its own (plakoto to 5), FIBS's for backgammon and
    its variants (nackgammon...)."""
    return RatingKind.TAVLI if match_is_tavli(match) else RatingKind.BACKGAMMON


def table_game(table: Table) -> Game | None:
    """The game on the table as stored (without its history: the log keeps it)."""
    return None if table.state is None else Game.from_dict(table.state)


def play_settings(*, player: Player) -> PlaySettings:
    """The player's settings at the board (the defaults until they change one)."""
    return PlaySettings.objects.filter(player=player).first() or PlaySettings(player=player)


def players(match: Match) -> list[str]:
    """The players' usernames, the first player first (one for an open challenge)."""
    names = [match.creator.username]
    if match.opponent is not None:
        names.append(match.opponent.username)
    return names


def display_names(match: Match) -> list[str]:
    """The players' display names (what the site shows), in ``players()``' order: the
    API keeps usernames, the pages show these."""
    shown = [match.creator.display_name]
    if match.opponent is not None:
        shown.append(match.opponent.display_name)
    return shown


# API.md's ``clock``: each player's seconds left (by username, None: no clock) and
# ``"deadline"`` (ISO time or None).
ClockBody = dict[str, float | str | None]


class CubeBody(TypedDict):
    value: int
    owner: str | None


class GameIds(TypedDict):
    """GNU Backgammon's IDs of the game in play, or a tavli game's ``board``."""

    position_id: str | None
    match_id: str | None
    board: NotRequired[JSONDocument]


class GameBody(GameIds):
    """API.md's ``game`` of a match (``api.GameOutput``)."""

    number: int
    variant: str
    turn: str | None
    turn_no: int
    phase: str
    dice: list[int] | None
    cube: CubeBody
    legal_plays: list[str]
    pending: list[str]
    remaining_dice: list[int]
    awaiting_double: bool
    can_double: bool
    resignation: str | None


class MatchDetail(TypedDict):
    """A match as ``GET /api/matches/{id}/`` answers it and the pages read it
    (``api.MatchOutput``)."""

    id: int
    status: str
    players: list[str]
    length: int
    rated: bool
    stake: str | None
    options: JSONDocument
    tavli: str | None
    score: dict[str, int]
    winner: str | None
    ended_by: str | None
    crawford: bool
    dice_commitment: str
    game: GameBody | None
    clock: ClockBody
    version: int
    topic: str
    open: bool
    pip_counts: dict[str, int] | None


class MatchDice(TypedDict):
    """API.md's ``dice`` of a match (``api.DiceOutput``)."""

    commitment: str
    client_seed: str
    algorithm: str
    server_seed: NotRequired[str]
    rolls: NotRequired[list[list[int]]]


class BoardState(TypedDict):
    """What the board page's script (``static/matches/play.js``) reads, as the page's
    ``table-state`` JSON: a match's board and a chouette member's board alike."""

    version: int  # the live version drawn: a match's table's, a chouette's own
    topic: str  # the live channel's topic the page follows
    turn_no: int | None  # what an action sends back (None: no game yet)
    phase: str | None
    my_turn: bool
    steps: dict[int, dict[int, int]]  # the viewer's clickable steps (T3): from, to, die
    pending: list[tuple[int, int]]  # a chouette's steps clicked and not yet sent
    play: str  # the pending steps as one play: what a chouette's "confirm" sends


def board_state(
    *,
    version: int,
    topic: str,
    game: Game | None,
    turn_no: int | None,
    my_turn: bool,
    pending: list[tuple[int, int]] | None = None,
) -> BoardState:
    """The board page's state for one viewer: ``game`` as drawn (a chouette's with the
    steps clicked so far played), the steps to click only on the viewer's own turn."""
    return {
        "version": version,
        "topic": topic,
        "turn_no": turn_no,
        "phase": None if game is None else game.phase.value,
        "my_turn": my_turn,
        "steps": landing_steps(game) if my_turn and game is not None else {},
        "pending": pending or [],
        "play": "" if game is None else format_play(game.pending_steps),
    }


class RatingMove(TypedDict):
    """One player's rating moved by a finished match's result (``club.RatingChange``)."""

    name: str  # the display name
    before: float
    change: float
    after: float


class MatchSummary(TypedDict):
    """A finished match at a glance: the final score, how it ended, the ratings moved."""

    score: list[tuple[str, int]]  # (display name, points), the first player first
    winner: str | None  # display names
    loser: str | None
    ended_by: str  # ``MatchResult.EndedBy``'s value ("" if none was recorded)
    last_game: str | None  # how the last game ended: ``Result``'s value
    rating_changes: list[RatingMove]
    result_id: int | None


def match_summary(match: Match) -> MatchSummary:
    """The summary the finished match's page shows; the ratings' changes are those its
    recorded result made (none for an unrated match)."""
    shown = display_names(match)
    state = match_state(match)
    winner = loser = None
    if match.winner_id is not None and len(shown) == 2:
        side = 0 if match.winner_id == match.creator_id else 1
        winner, loser = shown[side], shown[1 - side]
    game = table_game(match.table)
    changes: list[RatingMove] = []
    if match.result_id is not None:
        for row in RatingChange.objects.filter(result_id=match.result_id).select_related("player"):
            changes.append(
                {
                    "name": row.player.display_name,
                    "before": row.rating_before,
                    "change": row.change,
                    "after": row.rating_after,
                }
            )
    return {
        "score": [(name, state.score[side]) for side, name in enumerate(shown)],
        "winner": winner,
        "loser": loser,
        "ended_by": str(match.ended_by),
        "last_game": None if game is None or game.result is None else game.result.value,
        "rating_changes": changes,
        "result_id": match.result_id,
    }


def match_clock(
    match: Match, *, now: dt.datetime | None = None, game: Game | None = None
) -> ClockBody:
    """API.md's ``clock``: each player's time left (seconds; the side acting: delay and
    reserve left together, counting down; the other: its reserve) and the deadline.
    ``game``: the table's game, when the caller has read it already."""
    table = match.table
    names = players(match)
    if table.delay is None or len(names) < 2:
        return {**{name: None for name in names}, "deadline": None}
    now = now or clock.now()
    game = game or table_game(table)
    acting = game.turn if game is not None and table.deadline is not None else None
    left: ClockBody = {}
    for side, name in enumerate(names):
        reserve = table.reserve_0 if side == 0 else table.reserve_1
        if side == acting and table.clock_started is not None:
            reserve = clocks.left(
                delay=table.delay, reserve=reserve, started=table.clock_started, now=now
            )
        left[name] = round(reserve, 1)
    left["deadline"] = None if table.deadline is None else table.deadline.isoformat()
    return left


def match_detail(match: Match, *, now: dt.datetime | None = None) -> MatchDetail:
    """The match as API.md's ``GET /api/matches/{id}/`` answers it, plus, for the pages:
    ``version`` and ``topic`` (the live channel's), ``rated``, ``stake``, ``options``,
    ``ended_by``, ``open`` (an open challenge still waiting), ``pip_counts``; and in
    ``game``: ``pending`` (steps not yet confirmed), ``remaining_dice``, ``can_double``
    (the side on turn may double now), ``resignation`` (the value on offer). Never the
    server seed. Read the match through ``match_queryset()``: no further queries."""
    table = match.table
    state = match_state(match)
    names = players(match)
    winner = None
    if match.winner_id is not None:
        winner = names[0] if match.winner_id == match.creator_id else names[1]
    game = table_game(table)
    body: MatchDetail = {
        "id": match.pk,
        "status": str(match.status),
        "players": names,
        "length": match.length,
        "rated": match.rated,
        "stake": None if match.stake is None else f"{match.stake:.2f}",
        "options": match.options,
        "tavli": state.tavli,
        "score": {name: state.score[side] for side, name in enumerate(names)},
        "winner": winner,
        "ended_by": str(match.ended_by) or None,
        "crawford": False,
        "dice_commitment": match.commitment,
        "game": None,
        "clock": match_clock(match, now=now, game=game),
        "version": table.version,
        "topic": f"table:{table.pk}",
        "open": match.status == Match.Status.INVITED and match.opponent_id is None,
        "pip_counts": None,
    }
    if game is None or len(names) < 2:
        return body
    body["crawford"] = game.options.crawford
    game_start = (match.score_before[0], match.score_before[1])
    turn = game.turn
    view = game.on_roll if turn is None else turn
    board = game.position_for(view)
    cube = game.cube
    game_body: GameBody = {
        "number": table.game_number,
        "variant": game.options.variant.name,
        "turn": None if turn is None else names[turn],
        "turn_no": table.turn_no,
        "phase": game.phase.value,
        "dice": None if game.dice is None else list(game.dice),
        "cube": {"value": cube.value, "owner": None if cube.owner is None else names[cube.owner]},
        **_ids(state, game, board, game_start),
        "legal_plays": [format_play(play.steps) for play in game.legal_plays()],
        "pending": [format_play([step]) for step in game.pending_steps],
        "remaining_dice": list(game.remaining_dice),
        "awaiting_double": game.awaiting_double,
        "can_double": turn is not None and game.phase is Phase.ROLL and can_double(game, turn),
        "resignation": None
        if game.phase is not Phase.RESIGN_OFFERED or game.resignation is None
        else game.resignation.value,
    }
    body["game"] = game_body
    body["pip_counts"] = dict(zip(names, _pips(game.position_for(0)), strict=True))
    return body


def _ids(state: MatchState, game: Game, board: object, score: tuple[int, int]) -> GameIds:
    """GNU Backgammon's position and match IDs; the tavli games, which those IDs cannot
    hold (a pin, both sides running the same way), give the board in API.md's form ``B``
    instead, from the same view, with both IDs null."""
    rules = game.options.variant.rules
    if rules is not None:
        assert isinstance(board, TavliBoard)
        return {"position_id": None, "match_id": None, "board": rules.board_to_json(board)}
    assert isinstance(board, Position)
    return {
        "position_id": position_id(board),
        "match_id": match_id(match_key(replace(state, score=score), game)),
    }


def can_double(game: Game, side: int) -> bool:
    """``side`` may double now if it is on roll: the cube is in play in this game (not
    the Crawford game, P2) and centred or its own, below the maximum (C1, C2)."""
    options = game.options
    return options.cube_allowed and not options.crawford and game.cube.can_offer(side)


def _pips(board: object) -> tuple[int, int]:
    """Each side's pips to bear off; a tavli checker on the bar or waiting to enter has
    the whole board to go."""
    if isinstance(board, TavliBoard):
        mine, other = (
            sum(point * count for point, count in enumerate(side.points))
            + BAR_PIPS * (side.bar + side.waiting)
            for side in board
        )
        return mine, other
    assert isinstance(board, Position)
    own, other = board.pips()
    return own, other


class LastPlay(NamedTuple):
    """A play as the board marks it: the mover's side, its steps in the mover's
    numbering, the dice it played."""

    side: int
    steps: tuple[Step, ...]
    dice: tuple[int, ...]


def _opening(start: Action) -> tuple[GameOptions, Opening]:
    """A game's options and opening, from its log's ``start`` row."""
    if start.kind != Action.START:
        raise ValueError(f"game {start.game_number} does not begin with its opening")
    options = GameOptions.from_dict(start.payload["options"])
    rolls = [tuple(roll) for roll in start.payload["rolls"]]
    starter = start.payload.get("starter")
    opening = (
        Opening.from_rolls(rolls, options) if starter is None else Opening.winner_starts(starter)
    )
    return options, opening


def replay_game(rows: Iterable[Action]) -> Game:
    """The game a log's rows (its ``start`` row first) replay to, every rule checked."""
    rows = list(rows)
    options, opening = _opening(rows[0])
    return Game.replay(options, opening, [action_from_dict(row.payload) for row in rows[1:]])


def last_play(table: Table) -> LastPlay | None:
    """The last whole play made in the game on the table, a play entered step by step
    counted once confirmed; ``None`` before the game's first play. The log is replayed:
    the stored game keeps no history."""
    rows = list(Action.objects.filter(table=table, game_number=table.game_number).order_by("seq"))
    if not rows:
        return None
    options, opening = _opening(rows[0])
    game = Game.start(options, opening)
    found = None
    for row in rows[1:]:
        action = action_from_dict(row.payload)
        if isinstance(action, NoMove):  # the record of a roll that could not be played
            continue
        if isinstance(action, Move | Confirm) and game.dice is not None:
            steps = action.steps if isinstance(action, Move) else game.pending_steps
            found = LastPlay(game.on_roll, tuple(steps), tuple(game.dice))
        game = game.apply(action)
    return found


def _games(table: Table) -> Iterator[list[Action]]:
    """The table's log, one list of rows per game, in order."""
    rows: list[Action] = []
    for row in Action.objects.filter(table=table).order_by("game_number", "seq").iterator():
        if rows and row.game_number != rows[0].game_number:
            yield rows
            rows = []
        rows.append(row)
    if rows:
        yield rows


def match_games(match: Match) -> list[Game]:
    """Every game of the match replayed from the log, in order."""
    return [replay_game(rows) for rows in _games(match.table)]


def match_record(match: Match) -> MatchRecord:
    """The match as a ``.mat`` record: every game replayed from the log."""
    start = MatchState.from_dict(match.state)
    start = MatchState(length=match.length, options=start.options)
    names = tuple(players(match))
    return MatchRecord(
        players=(names[0], names[1] if len(names) > 1 else ""),
        start=start,
        games=tuple(match_games(match)),
        event_date=(match.started_at or match.created_at).date(),
    )


def match_export_mat(match: Match) -> str:
    """The match in ``.mat`` format (GNU Backgammon and eXtreme Gammon import it)."""
    return export_mat(match_record(match))


def match_export_tavli_record(match: Match) -> str:
    """A match of the tavli games as the core's text record (docs/tavli.md): the header
    (players, length, order, the score after each game) and every game's record."""
    names = tuple(players(match))
    stored = MatchState.from_dict(match.state)
    start = MatchState(length=match.length, options=stored.options, tavli=stored.tavli)
    return export_match_record(
        players=(names[0], names[1] if len(names) > 1 else ""),
        start=start,
        games=match_games(match),
    )


def match_rolls(match: Match) -> list[list[int]]:
    """Every roll of the match in order, opening rolls and their ties included."""
    rolls: list[list[int]] = []
    for row in Action.objects.filter(table=match.table).order_by("game_number", "seq"):
        if row.kind == Action.START:
            rolls += row.payload["rolls"]
        elif row.kind == "roll":
            rolls.append(row.payload["dice"])
    return rolls


def match_dice(match: Match) -> MatchDice:
    """API.md's ``dice``: the commitment, client seed and algorithm; once the match is
    over, also the server seed and every roll."""
    body: MatchDice = {
        "commitment": match.commitment,
        "client_seed": match.client_seed,
        "algorithm": core_dice.ALGORITHM,
    }
    if match.status == Match.Status.FINISHED:
        body["server_seed"] = bytes(match.server_seed).hex()
        body["rolls"] = match_rolls(match)
    return body


def tables_check(
    *, progress: Callable[[Iterable[Table], int], Iterable[Table]] | None = None
) -> list[str]:
    """Replay every table's games from the log and compare the last with the stored
    state; the problems found (empty: all agree)."""
    tables = Table.objects.exclude(state=None).order_by("pk")
    items: Iterable[Table] = tables.iterator()
    if progress is not None:
        items = progress(items, tables.count())
    problems = []
    for table in items:
        try:
            games = list(_games(table))
            if not games or games[-1][0].game_number != table.game_number:
                problems.append(f"table {table.pk}: the log has not game {table.game_number}")
                continue
            replayed = replay_game(games[-1]).to_dict()
        except Exception as exc:  # a log that does not replay is what this looks for
            problems.append(f"table {table.pk}: the log does not replay: {exc}")
            continue
        replayed["history"] = []
        stored = dict(table.state or {})
        if replayed != stored:
            differ = sorted(k for k in replayed if replayed.get(k) != stored.get(k))
            problems.append(f"table {table.pk}: stored state differs in {', '.join(differ)}")
        expected_turn = table.turn_base + replayed["turn_no"]
        if expected_turn != table.turn_no:
            problems.append(f"table {table.pk}: turn_no {table.turn_no}, log {expected_turn}")
    return problems
