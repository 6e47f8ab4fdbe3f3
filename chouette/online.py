"""Online chouettes: a session's games played on the server (docs/chouette.md, "Online
chouettes"). Keyword-only functions named ``chouette_<verb>``, each one transaction.

A session played online owns a ``matches.Table`` as a match does and plays through the
table engine (``matches.table_engine``): the table row locked and then written with
``UPDATE ... WHERE version = <read>`` (so of simultaneous requests only the first gets
through, on SQLite too), the action log (``matches.Action``: every game replays from
it), the deadline and its timeout task, the live version. ``ChouetteTurn`` is the
chouette's part of the engine. The game itself is the rules core's chouette
``Game`` (docs/rules-core.md, "Chouette games"): the box is side 0, the team side 1,
its holders the line, captain first. A finished game goes through
``backgammon.chouette.record_game`` to the recorded form and is scored and written
exactly as a recorded game is, so both modes score, rotate and list alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import ClassVar

from django.conf import settings
from django.db import transaction as db_transaction
from django.db.models import QuerySet
from django.utils.translation import gettext as _

from backgammon.chouette import record_game, score_game
from backgammon.dice import DiceStream
from backgammon.game import Game, GameOptions, Phase, Result
from backgammon.games.chouette import TeamGame
from backgammon.match import MatchState
from backgammon.team import BOX, TEAM, ChouetteRules, CubeMode
from chouette import selectors
from chouette.models import Chouette, Proposal
from chouette.services import chouette_game_write, chouette_version_advance
from club.models import Player
from matches import table_engine
from matches.errors import NotYourTurn, StaleTurn
from matches.models import Table
from matches.signals import table_game_finished
from web import clock
from web.documents import JSONDocument
from web.errors import Conflict, Forbidden, Invalid, NotFound
from web.prepared import OneRow

# The name the chouettes' timeout task had before the table engine's one task: the
# tasks a running club queued before an upgrade still run (``chouette.tasks``).
TIMEOUT_TASK = "chouette.table_timeout"
ACTS = ("roll", "move", "double", "take", "pass", "beaver", "resign", "accept_resign",
        "reject_resign")  # fmt: skip
ANSWERS = ("take", "pass", "beaver")
RESIGN_ANSWERS = ("accept_resign", "reject_resign")
# What the practice robot does at a chouette: all but resign.
ROBOT_ACTS = tuple(act for act in ACTS if act != "resign")
# Seconds a robot captain leaves its crew to double in the team's cube round before
# it acts (its own double or the roll that ends the round).
ROBOT_CAPTAIN_WAITS = 5.0
RESIGN_VALUES = tuple(result.value for result in (Result.SINGLE, Result.GAMMON, Result.BACKGAMMON))


@dataclass(kw_only=True)
class ChouetteTurn(table_engine.TableTurn):
    """One request's view of the session and its table, written once by ``save``."""

    owner: ClassVar[str] = "chouette"
    robot_seat: ClassVar[str | None] = "chouette__memberships__player__robot"

    chouette: Chouette
    standing: selectors.Standing | None  # None: read for a proposal, which shows none of it
    dice_used: int | None = None
    keep_deadline: bool = False

    @classmethod
    def locked_turn(cls, table: Table, now: datetime) -> ChouetteTurn:
        return _turn_at(table, now)

    def robot_request(self) -> JSONDocument | None:
        """The request for the seated robot (docs/practice.md, "At a chouette") when it
        is to act: as the box when the box is awaited, as a member when it owes an
        answer, moves for the team as captain, or may double in the team's cube round.
        A robot captain whose crew could still double asks ``ROBOT_CAPTAIN_WAITS``
        seconds later, so the crew has the time to."""
        game, standing = self.game, self.standing
        if not isinstance(game, TeamGame) or game.over or standing is None:
            return None
        seated = next((pk for pk in self.chouette.seats if pk in standing.robots), None)
        if seated is None:
            return None
        name, awaiting = standing.names[seated], game.awaiting
        seat = None if seated == self.chouette.seats[0] else name
        if seat is not None and seat not in game.options.holders:
            return None  # the box's partner (H12): the box plays for both
        member = seat is not None and (seat in awaiting.members or game.may_double(seat))
        if not (awaiting.box if seat is None else member):
            return None
        request: JSONDocument = {
            "table": self.table.pk,
            "turn_no": self.table.turn_no,
            "strength": standing.robots[seated],
            "game": game.to_dict(),
            "match": MatchState().to_dict(),
            "seat": seat,
            "reply_queue": settings.ROBOT_REPLY_QUEUE,
        }
        crew = [h for h in game.live_holders if h != seat]
        if seat == game.captain and any(game.may_double(h) for h in crew):
            request["countdown"] = ROBOT_CAPTAIN_WAITS
        return request

    def robot_answer(self, action: JSONDocument) -> None:
        """The robot's action (one of ``ROBOT_ACTS``) as its player's, checked as a
        member's or the box's is."""
        assert self.standing is not None
        act = action.get("act")
        if not isinstance(act, str) or act not in ROBOT_ACTS:
            raise Invalid(_("%(act)s is not an action.") % {"act": act})
        robots = self.standing.robots
        pk = next(pk for pk in self.chouette.seats if pk in robots)
        play, to = action.get("play", ""), action.get("to")
        after = _acted(
            self,
            self.names[pk],
            act,
            None,
            play=play if isinstance(play, str) else "",
            to=[str(name) for name in to] if isinstance(to, list) else None,
        )
        self.record(after, actor=Player.objects.select_related("user").get(pk=pk))

    @classmethod
    def timed_out(cls, table: Table, now: datetime) -> bool:
        """Each member who has not answered the box's double passes (or takes, by the
        session's ``no_answer`` option); a box or a captain out of time forfeits the game
        (the core's ``forfeit``, ``timeout``). A resignation nobody answered in time is
        rejected by each who owes an answer, and play goes on."""
        turn = _turn_at(table, now)
        locked = turn.chouette
        game = turn.playing()
        awaiting = game.awaiting
        if game.phase is Phase.RESIGN_OFFERED:
            while game.phase is Phase.RESIGN_OFFERED:  # every answer still owed: a rejection
                members = game.awaiting.members
                game = game.reject_resign(members[0] if members else None)
        elif awaiting.members and not awaiting.box and game.phase is Phase.TAKE_OR_PASS:
            for member in awaiting.members:
                answer = game.take if locked.no_answer == Chouette.NoAnswer.TAKE else game.pass_
                game = answer(member)
        else:
            game = game.forfeit(BOX if awaiting.box else TEAM, "timeout")
        turn.record(game, actor=None)
        turn.save()
        return True

    def dice_stream(self) -> DiceStream:
        chouette = self.chouette
        assert chouette.server_seed is not None
        used = chouette.dice_used if self.dice_used is None else self.dice_used
        return DiceStream(bytes(chouette.server_seed), chouette.client_seed, used=used)

    def dice_keep(self, used: int) -> None:
        self.dice_used = used

    def save(self) -> None:
        """The deadline: ``turn_time`` from each action, for whoever must act next (a
        member's answer leaves the box's double's deadline running for the others). A
        game that ended is scored and written as a recorded one is; the session's version
        (the live channel's ``chouette:<id>``) moves on in the same conditional UPDATE as
        its dice and seats; then the table (the engine's). The standing on the returned
        session is brought up to date from what was written."""
        game, locked = self.game, self.chouette
        assert game is not None
        self.clock_run(to_act=game.turn, same_period=self.keep_deadline, spent_by=None)
        dice = {} if self.dice_used is None else {"dice_used": self.dice_used}
        if game.over:  # it ended in this request: a game over is never acted on
            self._tell_finished(game)
            seating = selectors.chouette_seating(chouette=locked, names=self.names)
            record = record_game(seating, game)
            scored = score_game(seating, record)
            ids = {name: pk for pk, name in self.names.items()}
            actor = self.rows[-1].actor
            points = {ids[name]: value for name, value in scored.points.items()}
            chouette_game_write(
                locked=locked,
                record=record.to_dict(),
                points=points,
                seats_after=[ids[name] for name in scored.next_seating.players],
                recorded_by=actor.user if actor is not None else None,
                also=dice,
                rows=getattr(locked, "rows_count", None),
            )
            assert self.standing is not None
            self.standing = self.standing.game_written(points)
        else:
            chouette_version_advance(locked=locked, **dice)
        locked.standing = self.standing
        super().save()

    def _tell_finished(self, game: Game) -> None:
        """Once committed, the apps built on the tables hear the game is over (the
        analysis queues it: docs/analysis.md), with who sat where."""
        table_id, number = self.table.pk, self.table.game_number
        seats = [self.box, *(str(holder) for holder in game.options.holders)]
        db_transaction.on_commit(
            lambda: table_game_finished.send(
                sender=Table, table_id=table_id, game_number=number, seats=seats
            ),
            robust=True,
        )

    @property
    def names(self) -> dict[int, str]:
        assert self.standing is not None
        return self.standing.names

    @property
    def box(self) -> str:
        return self.names[self.chouette.seats[0]]

    def playing(self) -> Game:
        if self.game is None or self.game.over:
            raise Conflict(_("No game is being played at this chouette: start the next one."))
        return self.game


def _locking() -> QuerySet[Chouette]:
    """The online sessions, locked with their tables (the table first)."""
    return Chouette.objects.select_for_update(of=("table", "self")).filter(table__isnull=False)


# ``_load``'s locked reads, their SQL compiled once (``web.prepared``): with what the
# answer shows, or the rows alone.
_LOCKED_ANSWERED = OneRow(
    lambda pk: (
        selectors.chouette_card_rows(_locking())
        .annotate(rows_count=selectors.game_rows())
        .filter(pk=pk)
    )
)
_LOCKED_ALONE = OneRow(lambda pk: _locking().select_related("table").filter(pk=pk))


def _load(chouette: Chouette, *, answered: bool = True) -> ChouetteTurn:
    """The session and its table, locked in one query (``FOR UPDATE OF`` the table
    first: PostgreSQL locks a row's tables in that order, so the table is locked before
    the session as every writer of a table does), the session open and online. Only
    ``chouette.pk`` is read: the views pass the id unread, so an action reads the session
    once. ``answered``: with what the chouette's answer shows (the scorekeeper, the games
    played, ``_turn_of``); a proposal, answered with itself, reads only the rows it
    locks."""
    ahead = selectors.chouette_standing_ahead(pk=chouette.pk) if answered else None
    locked = (_LOCKED_ANSWERED if answered else _LOCKED_ALONE).get(chouette.pk)
    if locked is None:
        if not Chouette.objects.filter(pk=chouette.pk).exists():
            raise NotFound(_("There is no chouette #%(id)s.") % {"id": chouette.pk})
        raise Conflict(_("This chouette is recorded: its games are played on a real board."))
    if locked.status != Chouette.Status.OPEN:
        raise Conflict(_("This chouette is closed."))
    return _turn_of(locked, clock.now(), answered=answered, ahead=ahead)


def _turn_at(table: Table, now: datetime) -> ChouetteTurn:
    """The (locked) table's session, locked, read as its card reads it (the scorekeeper,
    the games played) with its players and their points (the timeout's read: the clock
    worker locks the table alone first, ``table_engine.table_due``). The table is set on it as
    this request leaves it."""
    locked = selectors.chouette_card_rows(
        Chouette.objects.select_for_update(of=("self",)), table=False
    ).get(table=table)
    locked.table = table
    return _turn_of(locked, now)


def _turn_of(
    locked: Chouette,
    now: datetime,
    *,
    answered: bool = True,
    ahead: selectors.StandingAhead | None = None,
) -> ChouetteTurn:
    """The request's view of the locked session and its table: with its players and
    their points, what the answer shows, so nothing is read after the action
    (``answered``; else the session's row alone). The players and points read ``ahead``
    of the lock stand if nothing they show moved since; else they are read again."""
    table = locked.table
    assert table is not None
    standing = None
    if answered:
        standing = None if ahead is None else ahead.standing_if_current(locked=locked)
        if standing is None:
            standing = selectors.chouette_standing(chouette=locked)
    return ChouetteTurn(chouette=locked, table=table, now=now, standing=standing)


# Starting a game -------------------------------------------------------------------------


@db_transaction.atomic
def chouette_game_start(*, chouette: Chouette, by: Player) -> Chouette:
    """Start the session's next game online: the seating as it stands (the box against
    the line, captain first), the opening roll from the session's verifiable dice (the
    box's die first). Anyone seated may start it, between games only."""
    turn = _load(chouette)
    if by.pk not in turn.chouette.seats:
        raise Forbidden(_("Only a player seated at the chouette starts its next game."))
    if turn.game is not None and not turn.game.over:
        raise Conflict(_("A game is already being played at this chouette."))
    locked, table = turn.chouette, turn.table
    seating = selectors.chouette_seating(chouette=locked, names=turn.names)
    options = GameOptions(
        jacoby=locked.jacoby,
        beavers=locked.beavers,
        automatic_doubles=locked.automatic_doubles,
        cube_max=locked.cube_max,
        holders=seating.line,
        chouette=ChouetteRules(cubes=CubeMode(locked.cube), same_action=locked.same_action),
    )
    rolls = turn.opening_rolls()
    table.status = Table.Status.PLAYING
    turn.game_begin(
        Game.start(options, rolls),
        payload={"options": options.to_dict(), "rolls": [list(roll) for roll in rolls]},
        actor=by,
    )
    turn.save()
    return turn.chouette


# Playing -----------------------------------------------------------------------------------


@db_transaction.atomic
def chouette_act(
    *,
    chouette: Chouette,
    player: Player,
    act: str,
    turn_no: int,
    play: str = "",
    to: Sequence[str] | None = None,
    value: str | None = None,
) -> Chouette:
    """``player`` acts in the online game (API.md's ``roll``, ``move``, ``double``,
    ``take``, ``pass``, ``beaver``, and ``resign``, ``accept_resign``,
    ``reject_resign``). The box plays side 0; on the team's side only the captain rolls
    and moves (H2), every member doubles on their own cube (or proposes the team's
    double with one cube, H4) and answers the box's double for themself (H5), the box
    answering the team's doubles in line order (H10). Resignations are per contract
    (S4): the side on turn offers ``value`` (``single``, ``gammon`` or ``backgammon`` a
    cube, the matches' words): the box to every member still in the game, each
    answering for their own contract; the captain for the team (H2), the box answering
    each contract in line order. ``turn_no`` is the table's, except for an answer: the
    ``turn_no`` of the offer being answered (``offered_at`` in the game body), so
    members answering side by side do not make each other stale. ``to`` (the box's
    double, multiple cubes): the members doubled. Raises ``Forbidden`` (not in this
    game), ``NotYourTurn``, ``StaleTurn``, ``Conflict``, ``IllegalPlay``, ``Invalid``;
    nothing is written then."""
    if act not in ACTS:
        raise Invalid(_("%(act)s is not an action.") % {"act": act})
    if (value is not None) != (act == "resign") or (
        value is not None and value not in RESIGN_VALUES
    ):
        raise Invalid(
            _("A resignation offers a single, a gammon or a backgammon; nothing else does.")
        )
    turn = _load(chouette)
    after = _acted(turn, player.username, act, turn_no, play=play, to=to, value=value)
    turn.record(after, actor=player)
    turn.save()
    return turn.chouette


def _acted(
    turn: ChouetteTurn,
    name: str,
    act: str,
    turn_no: int | None,
    *,
    play: str = "",
    to: Sequence[str] | None = None,
    value: str | None = None,
) -> Game:
    """The game after ``name``'s ``act`` (a member's or the box's, a person's or the
    robot's), the deadline kept or not; ``turn_no`` None: the turn is checked already
    (the robot's answer, ``table_engine.robot_act``)."""
    game = turn.playing()
    box = turn.box
    if name != box and name not in game.options.holders:
        raise Forbidden(_("Only the box and the team play this game; others watch."))
    if to is not None and (act != "double" or name != box):
        raise Invalid(_("Only the box's double names the members it goes to."))
    if act in ANSWERS:
        turn.keep_deadline = name != box
        return _answer(turn, game, name, act, turn_no)
    if act in RESIGN_ANSWERS:
        after = _resign_answer(turn, game, name, act, turn_no)
        turn.keep_deadline = name != box and after.phase is Phase.RESIGN_OFFERED
        return after
    if turn_no is not None:
        table_engine.turn_check(turn.table, turn_no)
    if act == "resign":
        assert value is not None
        return _resign(game, name, box, Result(value))
    if act == "double":
        return _double(game, name, box, to)
    return _roll_or_move(turn, game, name, box, act, play)


def _mover(game: Game, box: str) -> str | None:
    captain = game.captain
    return box if game.on_roll == BOX else None if captain is None else str(captain)


def _roll_or_move(turn: ChouetteTurn, game: Game, name: str, box: str, act: str, play: str) -> Game:
    mover = _mover(game, box)
    if name != mover:
        if game.on_roll == TEAM and name != box:
            raise NotYourTurn(
                _("Only the captain, %(captain)s, moves for the team (H2): propose instead.")
                % {"captain": mover}
            )
        raise NotYourTurn(_("It is not your turn."))
    if act == "move":
        return table_engine.rules_apply(game.play, play)
    if game.phase is not Phase.ROLL:
        raise Conflict(_("You cannot roll now: you have rolled, or an answer is awaited."))
    if game.doubles_to_send:  # the captain's roll sends the team's doubles to the box
        return table_engine.rules_apply(game.close_round)
    return turn.roll(game)


def _double(game: Game, name: str, box: str, to: Sequence[str] | None) -> Game:
    if (name == box) != (game.on_roll == BOX):
        raise NotYourTurn(_("You double on your own side's turn, before its roll."))
    if name != box:
        if not game.in_play(name):
            raise Conflict(_("You are out of this game."))
        return table_engine.rules_apply(game.double, [name])
    if to is not None:
        unknown = [member for member in to if member not in game.options.holders]
        if unknown or not to:
            raise Invalid(
                _("The box doubles members of the team: %(names)s are not.")
                % {"names": ", ".join(unknown) or "[]"}
            )
    return table_engine.rules_apply(game.double, None if to is None else list(to))


def _answer(turn: ChouetteTurn, game: Game, name: str, act: str, turn_no: int | None) -> Game:
    """A member's answer to the box's double (or beaver) on their own cube, or the box's
    answer to the next team double in line (H10); ``turn_no`` that of the offer."""
    if name == turn.box:
        holder = next((c.holder for c in game.contracts if c.pending == TEAM), None)
        waiting = holder is not None
    else:
        holder = name
        waiting = game.contract(name).pending == BOX
    offered = game.offered_at(holder) if waiting and holder is not None else None
    if offered is None:
        raise Conflict(_("No double waits for your answer."))
    if turn_no is not None and turn_no != turn.table.turn_base + offered:
        raise StaleTurn(
            _("Turn %(sent)s is not the double you answer: that is turn %(offered)s.")
            % {"sent": turn_no, "offered": turn.table.turn_base + offered}
        )
    call = {"take": game.take, "pass": game.pass_, "beaver": game.beaver}[act]
    return table_engine.rules_apply(call, None if name == turn.box else holder)


def _resign(game: Game, name: str, box: str, value: Result) -> Game:
    """The side on turn offers ``value``: the box to every member still in the game; the
    captain, who moves for the team (H2), for every contract still in it (S4)."""
    if (name == box) != (game.on_roll == BOX):
        raise NotYourTurn(_("You offer a resignation on your own side's turn."))
    if name != box and name != game.captain:
        if not game.in_play(name):
            raise Conflict(_("You are out of this game."))
        raise NotYourTurn(
            _("Only the captain, %(captain)s, offers the team's resignation (H2).")
            % {"captain": game.captain}
        )
    return table_engine.rules_apply(game.resign, value)


def _resign_answer(
    turn: ChouetteTurn, game: Game, name: str, act: str, turn_no: int | None
) -> Game:
    """A member's answer to the box's resignation for their own contract, or the box's
    answer to the team's for the next contract in line; ``turn_no`` that of the offer."""
    team = game.team
    if game.phase is not Phase.RESIGN_OFFERED or team is None:
        raise Conflict(_("No resignation waits for your answer."))
    if name == turn.box:
        if game.on_roll == BOX:
            raise Conflict(_("No resignation waits for your answer."))
        holder = team.resigner if team.resigner is not None else team.resign_to[0]
    else:
        if game.on_roll == TEAM:
            raise NotYourTurn(_("The box answers the team's resignation."))
        if name not in team.resign_to:
            raise Conflict(_("No resignation waits for your answer."))
        holder = name
    offered = game.offered_at(holder)
    assert offered is not None
    if turn_no is not None and turn_no != turn.table.turn_base + offered:
        raise StaleTurn(
            _("Turn %(sent)s is not the resignation you answer: that is turn %(offered)s.")
            % {"sent": turn_no, "offered": turn.table.turn_base + offered}
        )
    call = game.accept_resign if act == "accept_resign" else game.reject_resign
    return table_engine.rules_apply(call, None if name == turn.box else holder)


# Consulting (H2) ---------------------------------------------------------------------------


@db_transaction.atomic
def chouette_propose(
    *, chouette: Chouette, player: Player, turn_no: int, kind: str, play: str = ""
) -> Proposal:
    """A team member still in the game proposes to the captain, for the turn in play, a
    play or a cube action (H2); the team alone sees it, the captain's own action is what
    stands. The session's ``consulting`` option turns checker-play proposals off ("no
    cube, no talk") or every proposal. A newer proposal for the turn replaces the older."""
    if kind not in Proposal.Kind.values:
        raise Invalid(_("%(kind)s is not a proposal.") % {"kind": kind})
    turn = _load(chouette, answered=False)
    game = turn.playing()
    locked, name = turn.chouette, player.username
    if name not in game.options.holders:
        raise Forbidden(_("Only the team consults: the box plays alone."))
    if not game.in_play(name):
        raise Conflict(_("You are out of this game."))
    if locked.consulting == Chouette.Consulting.NONE:
        raise Conflict(_("This chouette is played without consulting."))
    if locked.consulting == Chouette.Consulting.CUBE and kind == Proposal.Kind.PLAY:
        raise Conflict(_("No cube, no talk: the team consults on cube decisions only."))
    table_engine.turn_check(turn.table, turn_no)
    if kind == Proposal.Kind.PLAY:
        if game.on_roll != TEAM or game.phase is not Phase.MOVE:
            raise Conflict(_("A play is proposed while the captain moves."))
        table_engine.rules_apply(game.play, play)  # only a legal play is proposed
    elif game.on_roll != TEAM and game.phase is not Phase.TAKE_OR_PASS:
        raise Conflict(_("The team consults on its cube while it decides."))
    # The session's lock keeps every other proposal of this turn out until commit: the
    # member's own for the turn (if any) read, then written over, without
    # update_or_create's savepoints.
    key = {"chouette": locked, "turn_no": turn.table.turn_no, "player": player}
    proposal = Proposal(
        pk=Proposal.objects.filter(**key).values_list("pk", flat=True).first(),
        **key,
        game_number=turn.table.game_number,
        kind=kind,
        play=play if kind == Proposal.Kind.PLAY else "",
        at=turn.now,
    )
    proposal.save()
    chouette_version_advance(locked=locked)  # the team's boards look again
    return proposal
