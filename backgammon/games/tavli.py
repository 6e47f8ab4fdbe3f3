"""The games of the Greek and Bulgarian table as a ``Game`` (RULES.md TV, PO, PL, FV, GB).

Portes, plakoto, fevga and gul bara differ only in their ``TavliRules`` (data and small
rule functions in ``backgammon.tavli``), so one class plays them all: the board is a
``TavliBoard``, there is no cube (TV1), the side that starts rolls both dice afresh
(TV2), a turn is played in stages (``stage``: gul bara's run, GB2, GB3), plakoto's mother
can end the game (PL5) and the winner scores 1 or 2 (TV4). Acey-deucey, which adds the
1-2 and scores per checker, is ``backgammon.games.acey_deucey``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, Self

from backgammon.cube import CubeContract
from backgammon.errors import CubeNotAvailable
from backgammon.game import (
    RESIGNED_RESULTS,
    Action,
    AnyPlay,
    Board,
    Dice,
    Game,
    GameOptions,
    Move,
    NoMove,
    Opening,
    Phase,
    Result,
    Roll,
)
from backgammon.moves import Play, Step
from backgammon.notation import parse_play
from backgammon.tavli import plays as tavli_plays
from backgammon.tavli import turns as tavli_turns
from backgammon.tavli.board import CHECKERS, Side, TavliBoard
from backgammon.tavli.plays import TavliPlay
from backgammon.tavli.rules import TavliRules, mother_outcome
from backgammon.tavli.turns import Turn


class TavliGame(Game):
    """A game of portes, plakoto, fevga or gul bara (``options.variant.rules``).

    ``stage`` is what is left of the turn (``tavli.turns.Turn``): the dice of the stage
    being played and what follows it; ``dice`` stays the roll.
    """

    _no_cube_rule: ClassVar[str] = "TV1"

    @property
    def rules(self) -> TavliRules:
        """The game's rules, with the match's options (GB3, AD5, AD6)."""
        rules = self.options.variant.rules
        assert rules is not None
        return rules

    @classmethod
    def _start(cls, options: GameOptions, opening: Opening) -> Self:
        """TV2: the side with the higher die (or the winner of the game before) starts and
        rolls both dice afresh. No cube (TV1): each holder's contract stays at 1."""
        if opening.starter is None:
            opening.check_roll()
        rules = options.variant.rules
        assert rules is not None
        if opening.auto_doubles:
            raise ValueError(f"there is no cube in {rules.title} (TV1)")
        return cls(
            options=options,
            opening=opening,
            board=rules.start_board(),
            on_roll=opening.first,
            phase=Phase.ROLL,
            dice=None,
            pending=(),
            contracts=tuple(CubeContract(holder=h, value=1, max_value=1) for h in options.holders),
        )

    def _roll(self, dice: Dice, **changes: Any) -> Game:
        """The side on roll rolls: its roll number counts (GB2), and the roll gives its
        turn's first stage (``tavli.turns.turn_for_roll``)."""
        board = self._board
        if self.rules.counts_rolls:
            if self.on_roll == 0:
                board = TavliBoard(board.mine._replace(roll=board.mine.roll + 1), board.opponent)
            else:
                board = TavliBoard(
                    board.mine, board.opponent._replace(roll=board.opponent.roll + 1)
                )
        view = board if self.on_roll == 0 else board.mirror()
        stage = tavli_turns.turn_for_roll(self.rules, view.mine.roll, dice)
        return self._stage_to_play([Roll(dice)], self.on_roll, board, stage, dice)

    def _stage_dice(self) -> tuple[int, ...]:
        assert self.stage is not None
        return self.stage.stage

    def _find_plays(self) -> Sequence[AnyPlay]:
        assert self.stage is not None
        if self.stage.naming:
            return []
        return tavli_plays.stage_plays(self.rules, self._mover_view(), self.stage.stage)

    def _walk_pending(self) -> tuple[tuple[Step, ...], Board]:
        board = self._mover_view()
        taken = []
        for pending in self.pending:
            board, step = tavli_plays.apply_step(self.rules, board, pending.origin, pending.die)
            taken.append(step)
        return tuple(taken), board

    def _step(
        self, before: Board, origin: int, die: int, remaining: Sequence[int]
    ) -> tuple[Board, Sequence[AnyPlay]]:
        assert isinstance(before, TavliBoard)
        moved = tavli_plays.apply_step(self.rules, before, origin, die)[0]
        if not remaining or self._mother_ends(before, moved, turn_over=False):
            return moved, []  # PL5: a step that ends the game ends the play too
        return moved, tavli_plays.stage_plays(self.rules, moved, remaining)

    def _choose_play(self, dice: Dice, play: str | AnyPlay | Sequence[Step]) -> AnyPlay:
        """The legal play of the stage that ``play`` (text or steps) describes."""
        assert self.stage is not None
        if isinstance(play, str):
            segments = parse_play(play)
        else:
            steps = play.steps if isinstance(play, Play | TavliPlay) else play
            segments = [(int(step[0]), int(step[1])) for step in steps]
        legal = [p for p in self._plays() if isinstance(p, TavliPlay)]
        return tavli_plays.check_play(
            self.rules, self._mover_view(), self.stage.stage, segments, legal
        )

    def _end_turn(self, action: Action, position: Board) -> Game:
        """After a stage is played: the game is won (F7, TV4, AD7), lost or drawn by the
        mother (PL5), or the turn goes on, passes its rest (GB3) or ends."""
        assert isinstance(position, TavliBoard) and self.stage is not None
        side = self.on_roll
        board = position if side == 0 else position.mirror()
        over = {"phase": Phase.OVER, "dice": None, "pending": (), "stage": None, "board": board}
        if position.mine.borne_off == CHECKERS:
            return self._next([action], winner=side, result=self._won(position), **over)
        if self._mother_ends(self._mover_view(), position, turn_over=True):
            outcome = mother_outcome(position)
            if outcome == "won":
                return self._next([action], winner=side, result=Result.MOTHER, **over)
            if outcome == "draw":
                return self._next([action], winner=None, result=Result.DRAW, **over)
        used = len(action.steps) if isinstance(action, Move) else len(self.pending)
        following = tavli_turns.after_stage(self.rules, self.stage, used)
        if following.next_turn is not None:
            return self._stage_to_play([action], side, board, following.next_turn)
        if following.passed is not None:
            return self._stage_to_play([action], 1 - side, board, following.passed)
        return self._next(
            [action],
            board=board,
            on_roll=side if following.roll_again else 1 - side,
            phase=Phase.ROLL,
            dice=None,
            pending=(),
            stage=None,
        )

    def _mother_ends(self, before: TavliBoard, after: TavliBoard, *, turn_over: bool) -> bool:
        """Whether PL5 ends the game on ``after`` (mover's view), reached from ``before``:
        after any step; in a game stored before that rule (``mother_at_once`` false), only
        at the end of the turn, and only for a pin made in that turn."""
        if not self.rules.mother or mother_outcome(after) is None:
            return False
        if self.rules.mother_at_once:
            return True
        return turn_over and 24 not in before.opponent.pinned

    def _won(self, position: TavliBoard) -> Result:
        """How the mover, who has just borne off its last checker, won (TV4)."""
        return Result.SINGLE if position.opponent.borne_off else Result.GAMMON

    def _check_cube(self) -> None:
        raise CubeNotAvailable(
            f"there is no doubling cube in {self.rules.title} ({self._no_cube_rule})"
        )

    def _check_resignable(self, value: Result) -> None:
        if value is Result.BACKGAMMON:
            raise ValueError("there is no backgammon in these games: resign 1 or 2 points (TV4)")
        if value is Result.GAMMON and self._mover_view().mine.borne_off:
            raise ValueError("you have borne off a checker: resign for 1 point (TM3)")

    def _lost_on_board(self, side: int) -> Result:
        """As resigned: 1 point, or 2 when ``side`` has borne off no checker (TM3)."""
        board = self._board
        borne_off = (board.mine if side == 0 else board.opponent).borne_off
        return Result.SINGLE if borne_off else Result.GAMMON

    def _multiplier(self) -> int:
        if self.winner is None:
            return 0  # not over, or drawn (PL5)
        kind = self.resignation if self.result in RESIGNED_RESULTS else self.result
        if kind is Result.MOTHER:
            return 2  # PL5
        if self.result in RESIGNED_RESULTS:
            return 2 if kind is Result.GAMMON else 1  # TM3
        return self.rules.score(self._loser())  # TV4

    def _fields_to_dict(self) -> dict[str, Any]:
        board = self._board
        return {
            "board": {"tavli": [board.mine.to_dict(), board.opponent.to_dict()]},
            **({"stage": self.stage.to_dict()} if self.stage is not None else {}),
        }

    @classmethod
    def _fields_from_dict(cls, data: dict[str, Any]) -> dict[str, Any]:
        mine, theirs = data["board"]["tavli"]
        return {
            "board": TavliBoard(Side.from_dict(mine), Side.from_dict(theirs)),
            "stage": Turn.from_dict(data["stage"]) if "stage" in data else None,
        }

    # Internals

    @property
    def _board(self) -> TavliBoard:
        """The board, from side 0's view."""
        assert isinstance(self.board, TavliBoard)
        return self.board

    def _mover_view(self) -> TavliBoard:
        """The board at the start of the turn, from the side on roll's view."""
        return self._board if self.on_roll == 0 else self._board.mirror()

    def _loser(self) -> Side:
        assert self.winner is not None
        return self._board.mine if self.winner == 1 else self._board.opponent

    def _stage_to_play(
        self,
        actions: list[Action],
        side: int,
        board: TavliBoard,
        stage: Turn,
        dice: Dice | None = None,
    ) -> Game:
        """The game once ``side`` is to play ``stage`` on ``board`` (side 0's view): it
        waits for the move, or, when no die of the stage can be played, what follows
        happens at once (recorded as ``NoMove``): the rest passes (GB3), or the turn ends."""
        dice = dice or self.dice
        while True:
            plays: list[TavliPlay] = []
            if not stage.naming:
                view = board if side == 0 else board.mirror()
                plays = tavli_plays.stage_plays(self.rules, view, stage.stage)
            if plays or stage.naming:
                game = self._next(
                    actions, board=board, on_roll=side, phase=Phase.MOVE, dice=dice, stage=stage,
                    pending=(),
                )  # fmt: skip
                game._cache["plays"] = plays
                return game
            actions = [*actions, NoMove()]
            following = tavli_turns.after_stage(self.rules, stage, 0)
            if following.passed is None:
                return self._next(
                    actions,
                    board=board,
                    on_roll=side if following.roll_again else 1 - side,
                    phase=Phase.ROLL,
                    dice=None,
                    stage=None,
                    pending=(),
                )
            side, stage = 1 - side, following.passed
