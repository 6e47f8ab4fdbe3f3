"""Every write to a match or a table: keyword-only functions named ``<noun>_<verb>``.

Each is one transaction through the table engine (``matches.table_engine``): the match
and its table locked in one query (``select_for_update``), the ``turn_no`` checked, the
action applied through the rules core, the log appended, the clock run, and the table
written with a conditional ``UPDATE ... WHERE id = ... AND version = <read>``; a refused
request writes nothing: no state, no log row. ``MatchTurn`` is the match's part of the
engine.

How a request flows: load the stored ``Game`` (no history) and ``MatchState``; apply the
player's action through the rules core; then ``_settle``: the game's new actions go to
the log, a finished game is scored (the next game starts by its opening roll, or the
match ends: result, ratings, the money session's settlement), the server rolls or plays
for a player whose settings ask it (T4); then the clock is charged and the next
deadline set; a timeout task is scheduled for it after commit.
"""

import enum
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Any, ClassVar, assert_never

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils.translation import gettext as _

from backgammon import dice as core_dice
from backgammon import errors as core
from backgammon.bearoff import no_contact_play
from backgammon.game import (
    ForfeitReason,
    Game,
    GameOptions,
    MoveStep,
    Phase,
    Result,
    Roll,
    Undo,
)
from backgammon.match import TAVLI_ORDERS as TAVLI_ORDERS_BY_NAME
from backgammon.match import MatchState
from backgammon.variants import STANDARD, Variants
from club import services as club_services
from club.memos import Memo, MemoKind
from club.models import MatchResult, Player, SourceKind
from club.services import LegSpec
from matches import clocks, selectors, signals, table_engine
from matches.errors import NotYourTurn
from matches.models import CLUB_LOBBY, Action, LobbyVersion, Match, PlaySettings, Seat, Table
from web import clock
from web.documents import JSONDocument
from web.errors import Conflict, Forbidden, Invalid, NotFound
from web.prepared import OneRow

log = logging.getLogger(__name__)

# The variants a match on the server may play: backgammon's and the tavli games.
VARIANTS = tuple(member.value.name for member in Variants)
# The orders of a tavli match (TM1): its games in turn, no cube.
TAVLI_ORDERS = tuple(TAVLI_ORDERS_BY_NAME)
CUBE_OPTIONS = ("jacoby", "beavers", "automatic_doubles")
OPTION_NAMES = frozenset({"jacoby", "beavers", "automatic_doubles", "backgammon_value", "variant"})
MAX_STAKE = Decimal("1000.00")
SEED_LENGTH = 64
# The most actions the server makes on its own in one request (automatic rolls, forced
# plays and no-contact bear-offs, timeouts played for a side): a bound, never reached in
# a real game, where a bear-off both sides' settings play out to its end (T4: a roll and
# a play a turn, in a Crawford game) takes a few dozen.
MAX_SERVER_ACTIONS = 64


class Act(enum.StrEnum):
    """The actions a player takes at the board (API.md's action paths, plus the steps of
    a move made checker by checker and its confirmation, T3)."""

    ROLL = "roll"
    MOVE_STEP = "move_step"
    UNDO = "undo"
    CONFIRM = "confirm"
    NAME_DOUBLE = "name_double"
    MOVE = "move"
    DOUBLE = "double"
    TAKE = "take"
    PASS = "pass"
    BEAVER = "beaver"
    RESIGN = "resign"
    ACCEPT_RESIGN = "accept_resign"
    REJECT_RESIGN = "reject_resign"


# Creating, accepting, declining ---------------------------------------------------------


def _options(options: Mapping[str, Any] | None, *, length: int) -> GameOptions:
    given = dict(options or {})
    unknown = set(given) - OPTION_NAMES
    if unknown:
        raise Invalid(_("Unknown options: %(names)s.") % {"names": ", ".join(sorted(unknown))})
    variant = given.get("variant", "standard")
    if variant not in VARIANTS:
        raise Invalid(
            _("A match on the server plays one of: %(names)s.") % {"names": ", ".join(VARIANTS)}
        )
    flags = {name: given.get(name, False) for name in ("jacoby", "beavers")}
    numbers = {
        "automatic_doubles": given.get("automatic_doubles", 0),
        "backgammon_value": given.get("backgammon_value", 3),
    }
    if any(not isinstance(value, bool) for value in flags.values()) or any(
        isinstance(value, bool) or not isinstance(value, int) for value in numbers.values()
    ):
        raise Invalid(_("jacoby and beavers are true or false; the other options are numbers."))
    if length and (flags["jacoby"] or flags["beavers"] or numbers["automatic_doubles"]):
        raise Invalid(
            _("The Jacoby rule, beavers and automatic doubles are for money sessions (P3).")
        )
    if Variants.by_name(variant).rules is not None:
        if any(flags[name] if name in flags else numbers[name] for name in CUBE_OPTIONS):
            raise Invalid(
                _("The tavli games have no cube (TV1): no Jacoby rule, beavers or doubles.")
            )
        if numbers["backgammon_value"] != 3:
            raise Invalid(_("The tavli games have no backgammons (TV4): give no backgammon_value."))
    try:
        return GameOptions(variant=Variants.by_name(variant), **flags, **numbers)
    except ValueError as exc:
        raise Invalid(str(exc)) from None


def _state(options: Mapping[str, Any] | None, *, length: int, tavli: str | None) -> MatchState:
    """The match's starting state: one variant for every game, or a tavli match's games
    in turn (TM1), which takes no variant of its own and no cube options."""
    if tavli is None:
        return MatchState(length=length, options=_options(options, length=length))
    if tavli not in TAVLI_ORDERS:
        raise Invalid(
            _("A tavli match is played in the %(orders)s order.")
            % {"orders": " or ".join(TAVLI_ORDERS)}
        )
    given = dict(options or {})
    if "variant" in given:
        raise Invalid(_("A tavli match plays its games in turn (TM1): give no variant with it."))
    return MatchState.tavli_match(
        tavli, length, _options({"variant": "portes", **given}, length=length)
    )


def plays_tavli(*, options: Mapping[str, Any] | None, tavli: str | None) -> bool:
    """A match of the tavli games: a tavli match, or one tavli game alone (rated, it
    moves the tavli rating: FIBS ratings are for backgammon)."""
    variant = (options or {}).get("variant", "standard")
    return tavli is not None or (
        variant in VARIANTS and Variants.by_name(variant).rules is not None
    )


def _seed(seed: str) -> str:
    if len(seed) > SEED_LENGTH:
        raise Invalid(_("A dice seed is at most %(most)s characters.") % {"most": SEED_LENGTH})
    return seed


@dataclass(frozen=True, kw_only=True)
class MatchOptions:
    """What a match is created with, checked once here when made (``Invalid``): built by
    the API's serializer, the page's form, a tournament's pairing and the demo alike.
    ``length`` points (0: a money session at ``stake`` per point); ``game_options`` the
    API's ``options`` (``jacoby``, ``beavers``, ``automatic_doubles``,
    ``backgammon_value``, ``variant``); ``tavli`` ``"greek"`` or ``"bulgarian"``: a tavli
    match, its games in that order (TM1); ``on_timeout`` ``autoplay`` (unrated matches
    only): a side out of time is played for instead of losing; ``seed`` the creator's
    part of the client seed. ``spec`` and ``state`` are read from them: the clock and
    the match's starting state."""

    length: int
    rated: bool = True
    clock: str | Mapping[str, Any] = "none"
    stake: Decimal | None = None
    game_options: Mapping[str, Any] | None = None
    tavli: str | None = None
    on_timeout: str = Table.OnTimeout.FORFEIT
    seed: str = ""
    spec: clocks.ClockSpec = field(init=False, repr=False, compare=False)
    state: MatchState = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        length, rated, stake = self.length, self.rated, self.stake
        if isinstance(length, bool) or not isinstance(length, int):
            raise Invalid(_("The match length is a whole number of points."))
        if not 0 <= length <= club_services.MAX_MATCH_LENGTH:
            raise Invalid(
                _("The match length is between 1 and %(most)s points (0: a money session).")
                % {"most": club_services.MAX_MATCH_LENGTH}
            )
        if length == 0 and rated:
            raise Invalid(_("A money session is never rated."))
        if length == 0:
            if stake is None:
                raise Invalid(_("A money session needs a stake per point."))
            stake = club_services.money_check(amount=stake, positive=True)
            if stake > MAX_STAKE:
                raise Invalid(_("The stake is at most %(most)s a point.") % {"most": MAX_STAKE})
            object.__setattr__(self, "stake", stake)
        elif stake is not None:
            raise Invalid(_("Only a money session has a stake."))
        if self.on_timeout not in Table.OnTimeout.values:
            raise Invalid(_("On timeout: forfeit or autoplay."))
        if self.on_timeout == Table.OnTimeout.AUTOPLAY and rated:
            raise Invalid(_("Only an unrated match plays on for a side out of time."))
        try:
            object.__setattr__(self, "spec", clocks.clock_spec(self.clock))
        except ValueError as exc:
            raise Invalid(str(exc)) from None
        state = _state(self.game_options, length=length, tavli=self.tavli)
        object.__setattr__(self, "state", state)
        _seed(self.seed)


@transaction.atomic
def match_create(*, creator: Player, opponent: Player | None, options: MatchOptions) -> Match:
    """Invite ``opponent`` to a match as ``options`` say, or with ``opponent`` None open a
    challenge any member may accept. The dice commitment is public from now on. Raises
    ``Invalid``."""
    if opponent is not None and opponent.pk == creator.pk:
        raise Invalid(_("A player cannot play a match against themself."))
    if opponent is not None and opponent.robot:
        _robot_check(options)
    server_seed = core_dice.new_server_seed()
    table = Table.objects.create(delay=options.spec.delay, on_timeout=options.on_timeout)
    match = Match.objects.create(
        table=table,
        creator=creator,
        opponent=opponent,
        length=options.length,
        rated=options.rated,
        stake=options.stake,
        options=dict(options.game_options or {}),
        clock=options.spec.to_json(),
        state=options.state.to_dict(),
        server_seed=server_seed,
        commitment=core_dice.commitment(server_seed),
        client_seed=options.seed,
    )
    _lobby_move(match)
    if opponent is not None and opponent.robot:  # a robot accepts at once
        return match_accept(match=match, player=opponent)
    return match


def _robot_check(options: MatchOptions) -> None:
    """A match against the practice robot: unrated (it has no rating to move), standard
    backgammon (the engine's only game). Raises ``Invalid``."""
    if options.rated:
        raise Invalid(_("A match against the practice robot is never rated."))
    if options.tavli is not None or options.state.options.variant != STANDARD:
        raise Invalid(_("The practice robot plays standard backgammon only."))


def _lobby_move(match: Match) -> None:
    """Move the live version of the lobbies that show ``match`` (``lobby:<player id>``,
    matches/live.py) once the change is committed: an invitation's two players' only,
    while it waits for an answer; every member's for an open challenge and a match that
    starts or ends (each lobby lists the challenges and the matches being played).

    After the commit, in a transaction of its own, rather than in the change's: the
    club's row is every member's, and locked in the change's transaction it would make
    every match that starts or ends in the club wait for the others' ledger and rating
    writes, and two that also lock players' rows (a tournament's round starting its
    matches) could deadlock. The page then fetches what is already committed. A process
    stopped between the two leaves the lobbies one change behind until the next one
    (or a reload): they show the matches, they are not the truth of any."""
    opponent = match.opponent_id
    if opponent is not None and match.started_at is None:  # an invitation, never started
        keys = sorted([match.creator_id, opponent])
    else:
        keys = [CLUB_LOBBY]
    transaction.on_commit(lambda: _lobby_versions_move(keys), robust=True)


@transaction.atomic
def _lobby_versions_move(keys: list[int]) -> None:
    """One more to each of these ``LobbyVersion`` rows, made at their first move; locked
    in the order of their keys, so no two of these wait on each other."""
    LobbyVersion.objects.bulk_create([LobbyVersion(key=key) for key in keys], ignore_conflicts=True)
    rows = LobbyVersion.objects.select_for_update().filter(key__in=keys).order_by("key")
    list(rows.values_list("key", flat=True))  # the rows locked, in order
    LobbyVersion.objects.filter(key__in=keys).update(version=F("version") + 1)


# What a locked match is read with: its players, their users (the answer's names) and
# their play settings (the server's rolls and plays for them, T4).
_PLAYERS = ("creator__user", "opponent__user", "creator__play_settings", "opponent__play_settings")


# The match and its table, locked, with the players as ``_PLAYERS`` says: its SQL
# compiled once (``web.prepared``), a third of an action's CPU when compiled each time.
_LOCKED_MATCH = OneRow(
    lambda pk: (
        Match.objects.select_for_update(of=("table", "self"))
        .select_related("table", *_PLAYERS)
        .filter(pk=pk)
    )
)


def _locked(match: Match) -> tuple[Match, Table]:
    """The match and its table, fresh and locked, in one query: ``of`` lists the table
    first, and PostgreSQL locks a row's tables in that order, so the table is locked
    before the match as every writer does. Only ``match.pk`` is read: the view passes
    the id it was given, unread, so the request reads the match once. Raises
    ``NotFound``."""
    found = _LOCKED_MATCH.get(match.pk)
    if found is None:
        raise NotFound(_("There is no match %(id)s.") % {"id": match.pk})
    return found, found.table


def _match_of(table: Table) -> Match:
    """The (locked) table's match, locked, its players and their play settings joined
    in (one query) and the table on it as this request leaves it: the answer is read
    from it, with no further query."""
    match = Match.objects.select_for_update(of=("self",)).select_related(*_PLAYERS).get(table=table)
    match.table = table
    return match


@transaction.atomic
def match_accept(*, match: Match, player: Player, seed: str = "") -> Match:
    """The invited player (or, for an open challenge, any member but its creator)
    accepts: the players take their seats (the creator is the first player), the client
    seed is fixed from both players' seeds, the opening roll is made and the first game
    starts. Raises ``Forbidden``, ``Conflict`` (not waiting for an answer)."""
    match, table = _locked(match)
    _check_answerable(match, player)
    if player.pk == match.creator_id:
        raise Forbidden(_("You cannot accept your own invitation or challenge."))
    work = MatchTurn(match=match, table=table, now=clock.now())
    match.opponent = player
    match.status = Match.Status.PLAYING
    match.started_at = work.now
    match.client_seed = core_dice.make_client_seed(match.client_seed, _seed(seed))
    table.status = Table.Status.PLAYING
    _lobby_move(match)
    work.players = (match.creator, player)
    spec = clocks.clock_spec(match.clock)
    table.reserve_0 = table.reserve_1 = float(spec.reserve)
    _start_game(work)
    _settle(work)
    work.save()
    Seat.objects.bulk_create(
        [
            Seat(table=table, side=0, player_id=match.creator_id),
            Seat(table=table, side=1, player=player),
        ]
    )
    return match


@transaction.atomic
def match_decline(*, match: Match, player: Player) -> Match:
    """The invited player declines (or the creator withdraws the invitation or the open
    challenge). Raises ``Forbidden``, ``Conflict``."""
    match, table = _locked(match)
    _check_answerable(match, player)
    if match.opponent is None and player.pk != match.creator_id:
        raise Forbidden(_("Only its creator withdraws an open challenge."))
    work = MatchTurn(match=match, table=table, now=clock.now())
    match.status = Match.Status.DECLINED
    match.finished_at = work.now
    table.status = Table.Status.CLOSED
    _lobby_move(match)
    work.save()
    return match


@transaction.atomic
def match_call_off(*, match: Match) -> Match:
    """Call off a match nobody has acted in yet (its log holds only the first game's
    opening roll): closed without a result, no rating moved, like a declined invitation
    (a tournament director moving a pairing to a real board). Raises ``Conflict`` once
    a player has acted, or when the match is not being played."""
    match, table = _locked(match)
    if match.status != Match.Status.PLAYING:
        raise Conflict(_("That match is not being played."))
    acted = Action.objects.filter(table=table).exclude(kind=Action.START).exists()
    if table.game_number > 1 or acted:
        raise Conflict(_("That match has begun: it can no longer be called off."))
    work = MatchTurn(match=match, table=table, now=clock.now())
    match.status = Match.Status.DECLINED
    match.finished_at = work.now
    table.status = Table.Status.CLOSED
    table.clock_started = None
    _lobby_move(match)
    work.save()
    return match


def _check_answerable(match: Match, player: Player) -> None:
    if match.status != Match.Status.INVITED:
        raise Conflict(_("That match is not waiting for an answer."))
    if match.opponent_id is not None and player.pk not in (match.opponent_id, match.creator_id):
        raise Forbidden(_("That invitation is for another player."))


# Playing ---------------------------------------------------------------------------


_MATCH_FIELDS = tuple(f.attname for f in Match._meta.concrete_fields if not f.primary_key)


@dataclass(kw_only=True)
class MatchTurn(table_engine.TableTurn):
    """One request's view of a match and its table in memory, written once by ``save``."""

    owner: ClassVar[str] = "match"
    robot_seat: ClassVar[str | None] = "seats__player__robot"

    match: Match
    state: MatchState | None = None
    players: tuple[Player, Player] | None = None
    acting: int | None = None  # the side to act when the request came in
    continuing: bool = True  # the acting side's period of the clock goes on
    game_at_start: int = 0
    settings: dict[int, PlaySettings] = field(default_factory=dict)
    ended: Game | None = None  # the game that ended in this request, with its history
    match_was: dict[str, Any] = field(default_factory=dict)  # to write only what changed

    def __post_init__(self) -> None:
        super().__post_init__()
        self.match_was = {name: getattr(self.match, name) for name in _MATCH_FIELDS}
        self.game_at_start = self.table.game_number
        if self.game is not None:
            self.acting = self.game.turn
        self.state = MatchState.from_dict(self.match.state)
        if self.match.opponent_id is not None:
            assert self.match.opponent is not None
            self.players = (self.match.creator, self.match.opponent)

    @classmethod
    def locked_turn(cls, table: Table, now: datetime) -> "MatchTurn":
        return cls(match=_match_of(table), table=table, now=now)

    def robot_request(self) -> JSONDocument | None:
        """The robot's request when the side to act is a practice robot (docs/practice.md):
        the game and the match as the rules core serializes them, its strength, the
        table and the turn, and the queue its answer goes to."""
        game, players = self.game, self.players
        if game is None or game.turn is None or players is None:
            return None
        strength = players[game.turn].robot
        if not strength or self.match.status != Match.Status.PLAYING:
            return None
        return {
            "table": self.table.pk,
            "turn_no": self.table.turn_no,
            "strength": strength,
            "game": game.to_dict(),
            "match": dict(self.match.state),
            "reply_queue": settings.ROBOT_REPLY_QUEUE,
        }

    def robot_answer(self, action: JSONDocument) -> None:
        """The robot's action (one of ``ROBOT_ACTS``) as its player's, then what follows
        it as after any player's action (``_settle``)."""
        game = _game(self)
        assert game.turn is not None and self.players is not None
        name = action.get("act")
        if not isinstance(name, str) or name not in ROBOT_ACTS:
            raise Invalid(_("%(act)s is not an action.") % {"act": name})
        act = Act(name)
        play = action.get("play", "")
        play = play if isinstance(play, str) else ""
        after = _core_call(self, game, act, play=play, origin=None, die=None, value="")
        self.record(after, actor=self.players[game.turn])
        _settle(self)

    @classmethod
    def timed_out(cls, table: Table, now: datetime) -> bool:
        """The side out of time loses (the core's forfeit, ``timeout``), or, at a table
        set to ``autoplay``, the server acts for it (``_autoplay``)."""
        work = cls.locked_turn(table, now)
        game = _game(work)
        side = game.turn
        if side is None:
            return False
        if table.on_timeout == Table.OnTimeout.AUTOPLAY:
            work.reserve_set(side, 0.0)
            _autoplay(work, side)
        else:
            work.record(game.forfeit(side, ForfeitReason.TIMEOUT), actor=None)
        _settle(work)
        work.save()
        return True

    def dice_stream(self) -> core_dice.DiceStream:
        return core_dice.DiceStream(
            bytes(self.match.server_seed), self.match.client_seed, used=self.table.dice_used
        )

    def dice_keep(self, used: int) -> None:
        self.table.dice_used = used

    def record(self, after: Game, *, actor: Player | None) -> None:
        """The engine's, noting whether the acting side's period of the clock goes on
        and the game that ended (with its last actions: ``MatchState`` reads a forfeit
        there)."""
        if self.acting is not None and any(
            not isinstance(action, _CONTINUING) for action in after.history
        ):
            self.continuing = False
        super().record(after, actor=actor)
        if after.over:
            self.ended = after

    def save(self) -> None:
        """The table (the engine's), then the match's changed fields."""
        match = self.match
        if match.status != Match.Status.PLAYING:
            self.table.deadline = None
        super().save()
        changed = [name for name in _MATCH_FIELDS if getattr(match, name) != self.match_was[name]]
        if changed:  # most actions change the table alone
            match.save(update_fields=changed)


def _game(work: MatchTurn) -> Game:
    if work.game is None:
        raise Conflict(_("No game is being played at this table."))
    return work.game


def _load(match: Match, player: Player, turn_no: int | None) -> MatchTurn:
    """Lock and load for a player's action: the player must sit at the table, the match
    be in play and ``turn_no`` the current one."""
    match, table = _locked(match)
    if player.pk not in (match.creator_id, match.opponent_id):
        raise Forbidden(_("Only the players of a match act in it; watchers watch."))
    if match.status != Match.Status.PLAYING:
        raise Conflict(_("That match is not being played."))
    if turn_no is not None:
        table_engine.turn_check(table, turn_no)
    return MatchTurn(match=match, table=table, now=clock.now())


def _side(work: MatchTurn, player: Player) -> int:
    return 0 if player.pk == work.match.creator_id else 1


def _core_call(
    work: MatchTurn,
    game: Game,
    act: Act,
    *,
    play: str,
    origin: int | None,
    die: int | None,
    value: str,
) -> Game:
    match act:
        case Act.ROLL:
            if game.phase is not Phase.ROLL:
                raise Conflict(_("You cannot roll now: you have rolled, or an answer is awaited."))
            return work.roll(game)
        case Act.MOVE_STEP:
            if origin is None or die is None:
                raise Invalid(_("A step names the point it starts from and the die it plays."))
            return table_engine.rules_apply(game.move_step, origin, die)
        case Act.UNDO:
            return table_engine.rules_apply(game.undo)
        case Act.CONFIRM:
            return table_engine.rules_apply(game.confirm)
        case Act.MOVE:
            return table_engine.rules_apply(game.play, play)
        case Act.NAME_DOUBLE:
            if die is None:
                raise Invalid(_("Name the double to play: a number from 1 to 6."))
            return table_engine.rules_apply(game.name_double, die)
        case Act.DOUBLE:
            return table_engine.rules_apply(game.double)
        case Act.TAKE:
            return table_engine.rules_apply(game.take)
        case Act.PASS:
            return table_engine.rules_apply(game.pass_)
        case Act.BEAVER:
            return table_engine.rules_apply(game.beaver)
        case Act.RESIGN:
            if value not in {r.value for r in (Result.SINGLE, Result.GAMMON, Result.BACKGAMMON)}:
                raise Invalid(_("Resign a single, a gammon or a backgammon."))
            return table_engine.rules_apply(game.resign, value)
        case Act.ACCEPT_RESIGN:
            return table_engine.rules_apply(game.accept_resign)
        case Act.REJECT_RESIGN:
            return table_engine.rules_apply(game.reject_resign)
    assert_never(act)


# What the practice robot does at the board: it never resigns, and never plays a move
# checker by checker.
ROBOT_ACTS = frozenset(
    {
        Act.ROLL,
        Act.MOVE,
        Act.DOUBLE,
        Act.TAKE,
        Act.PASS,
        Act.BEAVER,
        Act.ACCEPT_RESIGN,
        Act.REJECT_RESIGN,
    }
)
# The robot's settings at the board: the server rolls for it when it cannot double and
# plays its forced moves, so the engine is asked only for a decision.
ROBOT_SETTINGS = PlaySettings(auto_roll=True, auto_play_forced=True)

# Actions that keep the acting side's period of the clock going (rolling, then moving).
_CONTINUING = (Roll, MoveStep, Undo)


@transaction.atomic
def match_act(
    *,
    match: Match,
    player: Player,
    turn_no: int,
    act: Act | str,
    play: str = "",
    origin: int | None = None,
    die: int | None = None,
    value: str = "",
) -> Match:
    """``player`` takes ``act`` at the board, having seen ``turn_no``.

    ``play`` is the whole play for ``move`` (standard notation), ``origin`` (25: the bar)
    and ``die`` one checker's step for ``move_step`` (for ``name_double``, acey-deucey's
    double named after a 1-2, AD4), ``value`` (``single``, ``gammon``,
    ``backgammon``) for ``resign``. Raises ``Forbidden`` (a watcher), ``Conflict`` (the
    match is not in play, or the action does not fit the phase), ``StaleTurn``,
    ``NotYourTurn``, ``IllegalPlay`` (with the core's reason), ``Invalid``.
    """
    try:
        act = Act(act)
    except ValueError:
        raise Invalid(_("%(act)s is not an action.") % {"act": act}) from None
    work = _load(match, player, turn_no)
    game = _game(work)
    side = _side(work, player)
    if game.turn != side:
        raise NotYourTurn(
            _("The game is over: start the next game or stop the session.")
            if game.turn is None
            else None
        )
    after = _core_call(work, game, act, play=play, origin=origin, die=die, value=value)
    work.record(after, actor=player)
    _settle(work)
    work.save()
    return work.match


@transaction.atomic
def match_continue(*, match: Match, player: Player, turn_no: int) -> Match:
    """A money session: either player starts the next game (its opening roll) once the
    last one is over. Raises ``Conflict`` (not between games), ``StaleTurn``..."""
    work = _load(match, player, turn_no)
    if not work.match.money or _game(work).phase is not Phase.OVER:
        raise Conflict(_("The next game starts only between the games of a money session."))
    _start_game(work)
    _settle(work)
    work.save()
    return work.match


@transaction.atomic
def match_stop(*, match: Match, player: Player, turn_no: int) -> Match:
    """A money session: either player stops it between games; the net is posted to the
    ledger at the stake per point, one balanced transaction."""
    work = _load(match, player, turn_no)
    if not work.match.money or _game(work).phase is not Phase.OVER:
        raise Conflict(_("A money session stops between games."))
    _finish(work, ended_by=MatchResult.EndedBy.PLAYED)
    work.save()
    return work.match


@transaction.atomic
def match_abandon(*, match: Match, player: Player) -> Match:
    """``player`` leaves a match in play: they lose it (the core's forfeit,
    ``abandoned``), in whatever phase the game is. Raises ``Forbidden``, ``Conflict``."""
    work = _load(match, player, None)
    game = _game(work)
    side = _side(work, player)
    if game.over:  # a money session between games: the leaver loses nothing more
        _finish(work, ended_by=MatchResult.EndedBy.ABANDONED, loser=side)
    else:
        work.record(
            table_engine.rules_apply(game.forfeit, side, ForfeitReason.ABANDONED), actor=player
        )
        _settle(work)
    work.save()
    return work.match


@transaction.atomic
def play_settings_update(*, player: Player, **changes: Any) -> PlaySettings:
    """Change ``player``'s settings at the board (``auto_roll``, ``auto_play_forced``,
    ``auto_bear_off``, ``home_board``, ``switch_sides``); the others stay. Raises
    ``Invalid``."""
    row, _created = PlaySettings.objects.select_for_update().get_or_create(player=player)
    for name, value in changes.items():
        if name in ("auto_roll", "auto_play_forced", "auto_bear_off", "switch_sides"):
            if not isinstance(value, bool):
                raise Invalid(_("%(name)s is true or false.") % {"name": name})
        elif name == "home_board":
            if value not in PlaySettings.HomeBoard.values:
                raise Invalid(_("The home board is right or left."))
        else:
            raise Invalid(_("There is no setting called %(name)s.") % {"name": name})
        setattr(row, name, value)
    row.save()
    return row


# The machinery ---------------------------------------------------------------------


def _start_game(work: MatchTurn) -> None:
    """The next game of the match: its opening roll from the dice stream (ties
    included, in the log's ``start`` row) and each side's reserve for it."""
    state, match = work.state, work.match
    assert state is not None
    options = state.next_game_options()
    opening = state.next_opening()  # TV2: a tavli game's winner starts the next one
    rolls = [] if opening is not None else work.opening_rolls()
    game = Game.start(options, opening or rolls)
    work.continuing = False
    work.game_begin(
        game,
        payload={
            "options": options.to_dict(),
            "rolls": [list(roll) for roll in rolls],
            "starter": None if opening is None else opening.starter,
        },
        actor=None,
    )
    match.score_before = list(state.score)
    spec = clocks.clock_spec(match.clock)
    for side in (0, 1):
        reserve = clocks.game_reserve(
            spec, length=match.length, score=state.score, left=work.reserve(side)
        )
        work.reserve_set(side, reserve)


def _settings(work: MatchTurn, side: int) -> PlaySettings:
    """The side's player's settings: joined in by ``_locked`` and ``_match_of`` (read
    here only for a player who just sat down, accepting)."""
    if side not in work.settings:
        player = work.players[side] if work.players else None
        try:
            found = None if player is None else player.play_settings
        except PlaySettings.DoesNotExist:
            found = None
        if player is not None and player.robot:  # whatever a row says
            found = ROBOT_SETTINGS
        work.settings[side] = found or PlaySettings()
    return work.settings[side]


def _settle(work: MatchTurn) -> None:
    """What follows the action: a finished game scored and the next begun (or the match
    ended), and the rolls, forced plays and no-contact bear-offs the players' settings
    ask the server to make (T4); then the clock."""
    for _step in range(MAX_SERVER_ACTIONS):
        game = _game(work)
        if game.over:
            if work.ended is None or not _game_over(work):
                break
            continue
        side = game.turn
        assert side is not None
        wants = _settings(work, side)
        if game.phase is Phase.ROLL and wants.auto_roll and not selectors.can_double(game, side):
            work.record(work.roll(game), actor=None)
            continue
        if game.phase is Phase.MOVE and not game.pending and wants.auto_play_forced:
            plays = game.legal_plays()
            if len(plays) == 1:
                work.record(game.play(plays[0]), actor=None)
                continue
        if wants.auto_bear_off:
            chosen = no_contact_play(game)
            if chosen is not None:
                work.record(game.play(chosen), actor=None)
                continue
        break
    if work.match.status == Match.Status.PLAYING:
        _clock(work)


def _game_over(work: MatchTurn) -> bool:
    """Score the game just ended; True if the next game has started."""
    game, state = work.ended, work.state
    assert state is not None and game is not None
    work.ended = None
    if game.result is Result.FORFEIT:
        state = state.apply_forfeit(game)
    else:
        state = state.apply_game(game.points_for(0))
    work.state = state
    work.match.state = state.to_dict()
    if state.over:
        if state.forfeit is not None:
            ended_by = state.forfeit.reason.value
        elif game.result is Result.RESIGNED:
            ended_by = MatchResult.EndedBy.RESIGNED
        else:
            ended_by = MatchResult.EndedBy.PLAYED
        _finish(work, ended_by=ended_by)
        return False
    if work.match.money:  # the players start the next game or stop the session
        return False
    _start_game(work)
    return True


def _finish(work: MatchTurn, *, ended_by: str, loser: int | None = None) -> None:
    """The match is over: the result recorded (rated matches move ratings), a money
    session's net posted to the ledger, the table closed."""
    match, table, state = work.match, work.table, work.state
    assert state is not None and work.players is not None
    score = state.score
    if loser is not None:
        winner: int | None = 1 - loser
    elif state.winner is not None:
        winner = state.winner
    else:
        winner = None if score[0] == score[1] else (0 if score[0] > score[1] else 1)
    match.status = Match.Status.FINISHED
    match.ended_by = ended_by
    match.finished_at = work.now
    match_id = match.pk
    transaction.on_commit(
        lambda: signals.match_finished.send(sender=Match, match_id=match_id), robust=True
    )
    table.status = Table.Status.CLOSED
    table.deadline = None
    table.clock_started = None
    _lobby_move(match)
    if winner is None:
        return
    match.winner = work.players[winner]
    practice = any(player.robot for player in work.players)  # no money with a robot
    if match.money and score[0] != score[1] and not practice:
        assert match.stake is not None
        amount = (score[0] - score[1]) * match.stake
        first, second = work.players
        club_services.ledger_post(
            legs=[
                LegSpec(account=club_services.account_open_for_player(player=first), amount=amount),
                LegSpec(
                    account=club_services.account_open_for_player(player=second), amount=-amount
                ),
            ],
            memo=Memo.of(
                MemoKind.MONEY_SESSION,
                id=match.pk,
                first=first.username,
                second=second.username,
                a=score[0],
                b=score[1],
                stake=match.stake,
            ),
            kind=SourceKind.MONEY_SESSION,
            source=match,
            at=work.now,
        )
    match.result = club_services.match_result_record(
        winner=work.players[winner],
        loser=work.players[1 - winner],
        length=match.length,
        rated=match.rated,
        rating_kind=selectors.match_rating_kind(match),
        ended_by=ended_by,
        source=match,
        played_at=work.now,
    )


def _clock(work: MatchTurn) -> None:
    """The engine's clock, by the match's periods: a new one begins whenever the side to
    act changes or its turn's action ends (rolling and then moving is one period); the
    side that acted is charged only within the game it acted in."""
    table, side = work.table, _game(work).turn
    same_game = table.game_number == work.game_at_start
    work.clock_run(
        to_act=side,
        same_period=work.continuing and same_game and side is not None and side == work.acting,
        spent_by=work.acting if work.game_at_start and same_game else None,
    )


def _autoplay(work: MatchTurn, side: int) -> None:
    """The server acts for ``side``, out of time at a table set to play on: it rolls,
    plays the first of the legal plays (``legal_plays()`` order), takes a double and
    rejects a resignation, until the other side must act or the game is over."""
    for _step in range(MAX_SERVER_ACTIONS):
        game = _game(work)
        if game.turn != side:
            return
        if game.phase is Phase.ROLL:
            after = work.roll(game)
        elif game.phase is Phase.MOVE:
            after = (
                game.confirm()
                if game.pending and _complete(game)
                else game.play(game.legal_plays()[0])
            )
        elif game.phase is Phase.TAKE_OR_PASS:
            after = game.take()
        else:
            after = game.reject_resign()
        work.record(after, actor=None)
    work.continuing = False


def _complete(game: Game) -> bool:
    try:
        game.confirm()
    except core.IllegalPlay:
        return False
    return True
