"""A turn of the tavli games as stages: what a roll gives to play, and what follows.

Most rolls are one stage: the two dice, or four of a double (M1). Two rules make more:

- gul bara's run (GB2): from a side's fourth roll on, a double plays four of itself and
  then four of every higher number up to 6; each four is a stage. When a stage cannot be
  played in full, the rest of the run (what is left of that stage and the stages after
  it) passes to the opponent, who plays it and then rolls his own turn, or is lost
  (GB3). The passed rest is played the same way; what the opponent cannot play of it is
  lost.
- acey-deucey's 1-2 (AD4): the 1 and the 2 are a stage; once they are played in full
  the mover names a double and plays four of it (a second stage), and once that is
  played in full rolls again. A double played in full also rolls again under AD5.

TV3 (= M5) applies to each stage as it is played: as many of its dice as can be.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from backgammon.errors import IllegalPlay
from backgammon.moves import dice_for_roll
from backgammon.tavli.board import TavliBoard
from backgammon.tavli.plays import TavliPlay, stage_plays
from backgammon.tavli.rules import RunRest, TavliRules

Stage = tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Turn:
    """What is left of a turn: the dice of the stage being played (``()`` while a double
    must be named, AD4) and the stages after it. ``run``: the stage is part of a gul bara
    run, whose unplayed rest passes (GB3); ``passed``: it is that rest, played by the
    opponent of the side that rolled it; ``name_double``: the mover names a double once
    this stage is played in full; ``again``: the mover rolls again once it is."""

    stage: Stage
    later: tuple[Stage, ...] = ()
    run: bool = False
    passed: bool = False
    name_double: bool = False
    again: bool = False

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe; ``from_dict`` gives back an equal turn."""
        return {
            "stage": list(self.stage),
            "later": [list(stage) for stage in self.later],
            "run": self.run,
            "passed": self.passed,
            "name_double": self.name_double,
            "again": self.again,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Turn:
        """The turn ``to_dict`` wrote."""
        return cls(
            tuple(data["stage"]),
            tuple(tuple(stage) for stage in data["later"]),
            data["run"],
            data["passed"],
            data["name_double"],
            data["again"],
        )

    @property
    def naming(self) -> bool:
        """The mover must name a double before playing on (AD4)."""
        return not self.stage


@dataclass(frozen=True, slots=True)
class AfterStage:
    """What follows a stage: the same side plays ``next_turn``; or the opponent plays
    the ``passed`` rest; or the turn is over, and ``roll_again`` says whether the same
    side rolls next."""

    next_turn: Turn | None = None
    passed: Turn | None = None
    roll_again: bool = False


def turn_for_roll(rules: TavliRules, roll_number: int, roll: tuple[int, int]) -> Turn:
    """The turn ``roll`` gives, the mover's ``roll_number``-th roll of the game (from 1)."""
    dice = dice_for_roll(*roll)
    high, low = max(roll), min(roll)
    if rules.one_two and (high, low) == (2, 1):
        return Turn((2, 1), name_double=True)
    if high == low:
        if rules.run_from_roll is not None and roll_number >= rules.run_from_roll:
            return Turn(dice, tuple((die,) * 4 for die in range(high + 1, 7)), run=True)
        return Turn(dice, again=rules.double_earns_roll)
    return Turn(dice)


def name_double(turn: Turn, value: int) -> Turn:
    """The stage after the mover names ``value`` (AD4): four of it, then a new roll."""
    if not turn.naming:
        raise IllegalPlay("a double is named only after the 1-2 is played in full (AD4)")
    if type(value) is not int or not 1 <= value <= 6:
        raise IllegalPlay(f"name a double from 1 to 6, not {value!r}", IllegalPlay.WRONG_DICE)
    return Turn((value,) * 4, again=True)


def after_stage(rules: TavliRules, turn: Turn, used: int) -> AfterStage:
    """What follows once ``used`` dice of ``turn``'s stage are played."""
    if used == len(turn.stage):
        if turn.name_double:
            return AfterStage(next_turn=Turn((), again=True))
        if turn.later:
            following = Turn(turn.later[0], turn.later[1:], run=True, passed=turn.passed)
            return AfterStage(next_turn=following)
        return AfterStage(roll_again=turn.passed or turn.again)
    if turn.run and not turn.passed and rules.run_rest is RunRest.PASSES:
        return AfterStage(passed=Turn(turn.stage[used:], turn.later, run=True, passed=True))
    return AfterStage(roll_again=turn.passed)


def turn_results(rules: TavliRules, board: TavliBoard, roll: tuple[int, int]) -> list[TavliBoard]:
    """Every distinct board the mover can reach with ``roll`` in this turn, stage after
    stage, every double it may name included (the board itself when nothing can be
    played). Boards stay seen by the mover; a passed rest is the opponent's play."""
    results: dict[TavliBoard, None] = {}
    explored: set[tuple[TavliBoard, Turn]] = set()

    def explore(current: TavliBoard, turn: Turn) -> None:
        if (current, turn) in explored:
            return
        explored.add((current, turn))
        if turn.naming:  # AD4: any double may be named; one that cannot be played is lost
            for value in range(1, 7):
                named = stage_plays(rules, current, name_double(turn, value).stage)
                results.update(dict.fromkeys(play.result for play in named))
                if not named:
                    results[current] = None
            return
        plays = stage_plays(rules, current, turn.stage)
        if not plays:
            results[current] = None
            return
        for play in plays:
            following = after_stage(rules, turn, len(play.dice_used))
            if following.next_turn is not None:
                explore(play.result, following.next_turn)
            else:
                results[play.result] = None

    explore(board, turn_for_roll(rules, board.mine.roll, roll))
    return list(results)


def play_turn(
    rules: TavliRules,
    board: TavliBoard,
    roll: tuple[int, int],
    choose: Callable[[list[TavliPlay]], TavliPlay],
    name: Callable[[], int],
) -> tuple[TavliBoard, list[tuple[TavliBoard, Stage]]]:
    """Play ``roll`` from ``board`` (the mover's view, before this roll is counted),
    stage by stage: ``choose`` picks each stage's play among the legal ones, ``name`` the
    double after a 1-2 (AD4). The board after the mover's part of the turn (still the
    mover's view; a passed rest, GB3, is the opponent's to play), and each stage met with
    the board it was played from. For bots, the bench and the tests' random games."""
    if rules.counts_rolls:
        board = TavliBoard(board.mine._replace(roll=board.mine.roll + 1), board.opponent)
    turn = turn_for_roll(rules, board.mine.roll, roll)
    stages = []
    while True:
        if turn.naming:
            turn = name_double(turn, name())
        stages.append((board, turn.stage))
        plays = stage_plays(rules, board, turn.stage)
        play = choose(plays) if plays else None
        if play is not None:
            board = play.result
        following = after_stage(rules, turn, len(play.dice_used) if play else 0)
        if following.next_turn is None or not board.mine.left:
            return board, stages
        turn = following.next_turn
