"""Acey-deucey as a ``Game`` (RULES.md AD): a tavli game with the 1-2 and a score per
checker.

Its board, entering and generator are the tavli family's (``TavliRules``: ``ACEY_DEUCEY``
with the match's options, AD5, AD6); what the game adds is the 1-2 (AD4: after playing
it in full the mover names a double, plays it four times and rolls again), no cube by
its own rule (AD7), and the ending: the winner scores a point for every checker the loser
has not borne off (AD7), so a resignation is of the game, a single.
"""

from __future__ import annotations

from typing import ClassVar

from backgammon.errors import IllegalPlay
from backgammon.game import Game, NameDouble, Phase, Result
from backgammon.games.tavli import TavliGame
from backgammon.tavli import turns as tavli_turns
from backgammon.tavli.board import TavliBoard


class AceyDeuceyGame(TavliGame):
    """A game of acey-deucey (``ACEY_DEUCEY``)."""

    _no_cube_rule: ClassVar[str] = "AD7"

    @property
    def awaiting_double(self) -> bool:
        return self.phase is Phase.MOVE and self.stage is not None and self.stage.naming

    def name_double(self, value: int) -> Game:
        """Name the double to play four times after the 1-2 (AD4). A double that cannot
        be played at all is lost, and with it the new roll."""
        if not self.awaiting_double:
            return super().name_double(value)
        assert self.stage is not None
        stage = tavli_turns.name_double(self.stage, value)
        return self._stage_to_play([NameDouble(value)], self.on_roll, self._board, stage)

    def _check_ready_to_move(self) -> None:
        if self.awaiting_double:
            raise IllegalPlay(
                "you played the 1-2: name the double you will play four times first (AD4)",
                IllegalPlay.DOUBLE_NOT_NAMED,
            )

    def _won(self, position: TavliBoard) -> Result:
        return Result.CHECKERS

    def _check_resignable(self, value: Result) -> None:
        if value is not Result.SINGLE:
            raise ValueError(
                "in acey-deucey resign the game (a single): you pay for every checker "
                "not borne off (AD7)"
            )

    def _multiplier(self) -> int:
        """A point for every checker the loser has not borne off, however it ended (AD7)."""
        if self.winner is None:
            return 0
        return self.rules.score(self._loser())
