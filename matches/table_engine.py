"""The table engine: every game played on the server (a match, a money session, an online
chouette, a tournament's online pairing) goes through it, written once here.

A request (or a timeout) locks its table and the table's owner in one query, checks the
``turn_no`` the client saw (``turn_check``), applies the action through the rules core
(``rules_apply``: the core's refusals as the API's errors), appends the game's new
actions to the log (``TableTurn.record``), runs the clock (``TableTurn.clock_run``) and
writes everything once (``TableTurn.save``): the table with ``UPDATE ... WHERE version =
<read>`` (on PostgreSQL the lock makes concurrent requests wait; on SQLite, where
``select_for_update`` does nothing, the conditional update lets only the first through,
the others raise ``StaleTurn`` and roll back), the version the live channel compares
moved on in it, then the log rows, and after commit the timeout task of a new deadline.

When a practice robot is to act after a save (docs/practice.md), the same place sends
its request after commit (``robot_ask``): by name, to the engine's worker on
``ANALYSIS_QUEUE``, which answers by name (``ROBOT_ACT_TASK``); the answer is applied by
``robot_act`` only at the turn it was asked for, and the sweep asks again for a robot
whose table has not moved for ``ROBOT_ASK_AGAIN`` seconds (``robots_ask_again``).

The timeout task (``table_timeout``) applies a deadline only if the table is still at
the turn it was set for and the deadline has passed, so a late or repeated task does
nothing; the periodic sweep (``tables_sweep``) catches a deadline whose task was lost.

What differs between the owners of a table is theirs: a subclass of ``TableTurn`` each
(``matches.services.MatchTurn``, ``chouette.online.ChouetteTurn``) says where its dice
are, what a side's clock reserve is, what a timeout does, and writes its own row
(scoring, the ledger, the next game) around ``save``; each is registered with
``kind_register`` when its app is ready.
"""

import logging
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any, ClassVar

from celery import current_app
from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.utils.translation import gettext as _

from backgammon import errors as core
from backgammon.dice import DiceStream
from backgammon.game import Game, action_to_dict
from club.models import Player
from matches import clocks
from matches.errors import IllegalPlay, StaleTurn
from matches.models import Action, Table
from matches.models import Phase as TablePhase
from web import clock
from web.documents import JSONDocument
from web.errors import Conflict, Forbidden, Invalid
from web.prepared import row_update, rows_insert
from web.schedule import send_at

log = logging.getLogger(__name__)

# The one timeout task of every table (a match's, a chouette's).
TIMEOUT_TASK = "matches.table_timeout"
# The robot's request (analysis.robot_engine's task) and its answer (matches.tasks').
ROBOT_TASK = "analysis.robot_move"
ROBOT_ACT_TASK = "matches.robot_act"
# The answer of a robot that chose to do nothing (``analysis.robot_engine.NOTHING``).
ROBOT_NOTHING = "none"
# Seconds without a move at a table where a robot is to act before the sweep asks again
# (a request lost with its worker); a request expires after as long, so a worker that
# was down does not work through a queue of requests that no longer count.
ROBOT_ASK_AGAIN = 15.0
# Seconds past a deadline before the sweep applies it: until then it is the timeout
# task's, and the sweep racing it for the same rows only makes both wait.
SWEEP_GRACE = 1.0
# The table's columns a save writes (``updated_at`` besides).
_WRITTEN = (
    "status", "version", "turn_no", "turn_base", "game_number", "log_seq", "phase", "state",
    "dice_used", "reserve_0", "reserve_1", "clock_started", "deadline", "deadline_turn",
)  # fmt: skip


def rules_apply(call: Callable[..., Game], *args: Any) -> Game:
    """Call the rules core; its refusals as the API's errors."""
    try:
        return call(*args)
    except core.IllegalPlay as exc:
        raise IllegalPlay(str(exc), reason=exc.reason) from None
    except core.InvalidNotation as exc:
        raise IllegalPlay(str(exc), reason="invalid_notation") from None
    except core.CubeNotAvailable as exc:
        raise IllegalPlay(str(exc), reason="cube_not_available") from None
    except (core.NotYourTurn, core.GameOver) as exc:
        raise Conflict(str(exc)) from None
    except (core.BackgammonError, ValueError) as exc:
        raise Invalid(str(exc)) from None


def turn_check(table: Table, turn_no: int) -> None:
    """Refuse an action sent for a turn that is over (``StaleTurn``)."""
    if turn_no != table.turn_no:
        raise StaleTurn(
            _("Turn %(sent)s is over: the game is at turn %(current)s.")
            % {"sent": turn_no, "current": table.turn_no}
        )


def after_commit(callback: Callable[[], None]) -> None:
    """Run ``callback`` once the transaction commits (its failure logged, not raised)."""
    transaction.on_commit(callback, robust=True)


@dataclass(kw_only=True)
class TableTurn(ABC):
    """One request's (or timeout's) view of a locked table in memory, written once by
    ``save``. A subclass per owner of tables adds its own row and what differs."""

    # The owner's reverse relation on ``Table`` (``match``, ``chouette``).
    owner: ClassVar[str]
    # The lookup from ``Table`` to a seated player's ``robot`` (the sweep's asking
    # again: ``robots_ask_again``); None at tables whose owner seats no robot.
    robot_seat: ClassVar[str | None] = None

    table: Table
    now: datetime
    game: Game | None = None
    rows: list[Action] = field(default_factory=list)
    seen_version: int = 0
    deadline_was: tuple[datetime | None, int] = (None, 0)  # a new one gets its task

    def __post_init__(self) -> None:
        self.seen_version = self.table.version
        self.deadline_was = (self.table.deadline, self.table.deadline_turn)
        if self.table.state is not None:
            self.game = Game.from_dict(self.table.state)

    @classmethod
    @abstractmethod
    def locked_turn(cls, table: Table, now: datetime) -> "TableTurn":
        """The owner's turn at the locked ``table`` (its own row locked with it)."""

    @classmethod
    @abstractmethod
    def timed_out(cls, table: Table, now: datetime) -> bool:
        """Apply the due timeout at the locked ``table`` (``table_due``'s); True if
        applied."""

    def robot_request(self) -> JSONDocument | None:
        """The request for the practice robot to act now, if the side to act is one
        (``analysis.robot_engine.RobotRequest``); None otherwise, and at tables whose
        owner seats no robot."""
        return None

    def robot_answer(self, action: JSONDocument) -> None:
        """Apply the robot's ``action`` at the locked table (the robot is to act at the
        turn it was asked for): the owner's own call of the rules core, logged as the
        robot's, then settled as a player's action is. Called only where
        ``robot_request`` asked: an owner that seats robots overrides both."""
        raise NotImplementedError(f"no robot plays at a {self.owner}'s table")

    @abstractmethod
    def dice_stream(self) -> DiceStream:
        """The owner's verifiable dice, at the next die to take."""

    @abstractmethod
    def dice_keep(self, used: int) -> None:
        """Note how many dice the stream has given out (written with the save)."""

    def roll(self, game: Game) -> Game:
        """``game`` after the roll of the next dice of the stream."""
        stream = self.dice_stream()
        after = rules_apply(game.roll, stream.roll())
        self.dice_keep(stream.used)
        return after

    def opening_rolls(self) -> list[tuple[int, int]]:
        """A game's opening rolls from the stream, ties included."""
        stream = self.dice_stream()
        rolls = stream.opening_roll()
        self.dice_keep(stream.used)
        return rolls

    def game_begin(self, game: Game, *, payload: JSONDocument, actor: Player | None) -> None:
        """``game`` begins at the table: the next game number, its turn numbers counted
        on from the last game's, the log's ``start`` row (``payload``: its options and
        opening)."""
        table = self.table
        table.game_number += 1
        table.turn_base = table.turn_no
        table.turn_no = table.turn_base + game.turn_no
        self.rows.append(
            Action(
                table=table,
                game_number=table.game_number,
                seq=0,
                turn_no=table.turn_no,
                kind=Action.START,
                actor=actor,
                by_server=actor is None,
                payload=payload,
                at=self.now,
            )
        )
        table.log_seq = 1
        self.game = game

    def record(self, after: Game, *, actor: Player | None) -> None:
        """The new actions of ``after`` (a game loaded without history) into the log
        (``actor`` None: the server's); the game kept without them."""
        table = self.table
        table.turn_no = table.turn_base + after.turn_no
        for action in after.history:
            self.rows.append(
                Action(
                    table=table,
                    game_number=table.game_number,
                    seq=table.log_seq,
                    turn_no=table.turn_no,
                    kind=action.kind,
                    actor=actor,
                    by_server=actor is None,
                    payload=action_to_dict(action),
                    at=self.now,
                )
            )
            table.log_seq += 1
        self.game = replace(after, history=())

    def reserve(self, side: int) -> float:
        return self.table.reserve_0 if side == 0 else self.table.reserve_1

    def reserve_set(self, side: int, seconds: float) -> None:
        if side == 0:
            self.table.reserve_0 = seconds
        else:
            self.table.reserve_1 = seconds

    def clock_run(self, *, to_act: int | None, same_period: bool, spent_by: int | None) -> None:
        """The clock after the action: nothing while the period of the side acting goes
        on (``same_period``); else ``spent_by``'s reserve charged for the period that
        ended, and the deadline of ``to_act``'s new period set (its delay, then its
        reserve), or none when nobody is to act."""
        table = self.table
        if table.delay is None or (same_period and table.clock_started is not None):
            return
        if spent_by is not None and table.clock_started is not None:
            spent = clocks.spend(
                delay=table.delay,
                reserve=self.reserve(spent_by),
                started=table.clock_started,
                now=self.now,
            )
            self.reserve_set(spent_by, spent)
        if to_act is None:
            table.clock_started = table.deadline = None
            return
        table.clock_started = self.now
        table.deadline = clocks.deadline(
            delay=table.delay, reserve=self.reserve(to_act), started=self.now
        )
        table.deadline_turn = table.turn_no

    def save(self) -> None:
        """Write the table with ``WHERE version = <read>`` (the check that holds on
        SQLite; ``StaleTurn`` if another request wrote first), its live version moved on,
        then the log rows (both statements' SQL written once: ``web.prepared``); after
        commit, the timeout task of a new deadline (one that stands has its task already:
        ``table_due``)."""
        table, game = self.table, self.game
        table.state = None if game is None else game.to_dict()
        table.phase = TablePhase.NONE if game is None else game.phase.value
        table.version = self.seen_version + 1
        values = {name: getattr(table, name) for name in _WRITTEN}
        values["updated_at"] = self.now
        if not row_update(
            Table, where={"id": table.pk, "version": self.seen_version}, values=values
        ):
            raise StaleTurn()
        rows_insert(Action, self.rows)
        deadline = (table.deadline, table.deadline_turn)
        if table.deadline is not None and deadline != self.deadline_was:
            table_id, turn_no, eta = table.pk, table.deadline_turn, table.deadline
            after_commit(lambda: _schedule(table_id, turn_no, eta))
        if table.status == Table.Status.PLAYING:
            request = self.robot_request()
            if request is not None:
                after_commit(lambda: robot_ask(request))


_KINDS: dict[str, type[TableTurn]] = {}


def kind_register(kind: type[TableTurn]) -> None:
    """Let the timeout and the sweep reach the tables ``kind`` owns (its app's ready)."""
    _KINDS[kind.owner] = kind


def _schedule(table_id: int, turn_no: int, eta: datetime) -> None:
    """Send the timeout task for a new deadline, for the turn it was set at: good while
    that deadline stands, whatever turns are played under it (``table_due``); lost, the
    sweep catches it."""
    send_at(TIMEOUT_TASK, args=[table_id, turn_no], eta=eta, queue=settings.MATCHES_TIMEOUT_QUEUE)


def robot_ask(request: JSONDocument) -> None:
    """Send the robot's request to the engine's worker, ``countdown`` seconds from now
    if the request says so (a chouette's robot captain leaving its crew time to
    double); it expires unanswered ``ROBOT_ASK_AGAIN`` seconds after it is due, when
    the sweep asks again."""
    countdown = float(request.get("countdown", 0))
    current_app.send_task(
        ROBOT_TASK,
        args=[request],
        queue=settings.ANALYSIS_QUEUE,
        countdown=countdown or None,
        expires=countdown + ROBOT_ASK_AGAIN,
        ignore_result=True,
    )


def _owned(table_id: int, *, skip_locked: bool = False) -> Table | None:
    """The table ``table_id``, locked, each owner's id read with it (``owner_<name>``);
    ``skip_locked``: None if another transaction holds it (PostgreSQL)."""
    owners = {f"owner_{name}": F(f"{name}__pk") for name in _KINDS}
    return (
        Table.objects.select_for_update(of=("self",), skip_locked=skip_locked)
        .annotate(**owners)
        .filter(pk=table_id)
        .first()
    )


def _kind_of(table: Table) -> type[TableTurn]:
    return next(kind for name, kind in _KINDS.items() if getattr(table, f"owner_{name}"))


@transaction.atomic
def robot_act(*, table_id: int, turn_no: int, action: JSONDocument) -> bool:
    """The robot's answer to the request of turn ``turn_no``: applied only if the table
    is still in play at that turn (a late or repeated answer does nothing) and a robot
    is to act there; ``ROBOT_NOTHING`` (a chouette's crew member not doubling) applies
    nothing. True if applied."""
    if action.get("act") == ROBOT_NOTHING:
        return False
    table = _owned(table_id)
    if table is None or table.status != Table.Status.PLAYING or table.turn_no != turn_no:
        return False
    turn = _kind_of(table).locked_turn(table, clock.now())
    request = turn.robot_request()
    if request is None or request["turn_no"] != turn_no:
        return False
    try:
        turn.robot_answer(action)
        turn.save()
    except (Conflict, Forbidden, Invalid) as error:  # refused: the clock runs on
        log.warning("table %s: the robot's %s refused: %s", table_id, action, error)
        transaction.set_rollback(True)
        return False
    return True


def robots_ask_again(*, limit: int = 100) -> int:
    """Ask again for each robot to act at a table in play that has not moved for
    ``ROBOT_ASK_AGAIN`` seconds (its request lost, or expired while the engine's worker
    was down). Returns how many requests were sent."""
    still = clock.now() - timedelta(seconds=ROBOT_ASK_AGAIN)
    seated = Q()
    for kind in _KINDS.values():
        if kind.robot_seat is not None:
            seated |= Q(**{f"{kind.robot_seat}__gt": ""})
    waiting = (
        Table.objects.filter(status=Table.Status.PLAYING, updated_at__lte=still)
        .filter(seated)
        .values_list("pk", flat=True)
        .distinct()[:limit]
    )
    sent = 0
    for pk in waiting:
        with transaction.atomic():
            table = _owned(pk, skip_locked=True)
            if table is None or table.status != Table.Status.PLAYING:
                continue
            request = _kind_of(table).locked_turn(table, clock.now()).robot_request()
        if request is not None:
            robot_ask(request)
            sent += 1
    return sent


def table_due(*, table_id: int, turn_no: int, skip_locked: bool = False) -> Table | None:
    """The table ``table_id``, locked, if its timeout of turn ``turn_no`` is due: still
    in play at that turn (or, from the turn its deadline was set at, ``deadline_turn``,
    at any later one while that deadline stands), its deadline passed; ``skip_locked``:
    None too if another transaction holds the table (PostgreSQL). None otherwise. Each
    owner's id is read with it (``owner_<name>``)."""
    table = _owned(table_id, skip_locked=skip_locked)
    if (
        table is None
        or table.status != Table.Status.PLAYING
        or not (table.deadline_turn or table.turn_no) <= turn_no <= table.turn_no
        or table.deadline is None
        or table.deadline > clock.now()
    ):
        return None
    return table


def table_timeout(*, table_id: int, turn_no: int, skip_locked: bool = False) -> bool:
    """The timeout of turn ``turn_no`` at table ``table_id``, whoever owns it: applied
    only if the table is still at that turn and its deadline has passed (so a late or
    repeated task does nothing, and a player's action that wins the race leaves it
    nothing to do); what it does is the owner's (``TableTurn.timed_out``).
    ``skip_locked`` (the sweep's): a table another transaction holds is left to it. True
    if applied."""
    try:
        return _timeout(table_id, turn_no, skip_locked=skip_locked)
    except StaleTurn:
        return False


@transaction.atomic
def _timeout(table_id: int, turn_no: int, *, skip_locked: bool) -> bool:
    table = table_due(table_id=table_id, turn_no=turn_no, skip_locked=skip_locked)
    if table is None:
        return False
    applied = _kind_of(table).timed_out(table, clock.now())
    if applied:
        log.info("table %s: turn %s timed out", table_id, turn_no)
    return applied


def tables_sweep(*, limit: int = 500) -> int:
    """Apply every timeout overdue by more than ``SWEEP_GRACE`` (for deadlines whose task
    was lost: a worker that was down catches up; or a clock worker behind), the oldest
    first, each in its own transaction, skipping a table another transaction holds (the
    clock worker on it, or a player). Returns how many were applied."""
    overdue = clock.now() - timedelta(seconds=SWEEP_GRACE)
    due = (
        Table.objects.filter(status=Table.Status.PLAYING, deadline__lte=overdue)
        .order_by("deadline")
        .values_list("pk", "turn_no")[:limit]
    )
    applied = 0
    for pk, turn_no in due:
        try:
            applied += table_timeout(table_id=pk, turn_no=turn_no, skip_locked=True)
        except Exception:  # one broken table must not stop the others' timeouts
            log.exception("table %s: the timeout of turn %s failed", pk, turn_no)
    return applied
