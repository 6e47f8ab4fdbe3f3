"""The no-contact bear-off the server may play for a player (T4: "both sides are bearing
off with no contact"), and which play it chooses.

The rule, kept simple so a player can predict it: among the legal plays, the one that
bears off the most checkers; of those, the one leaving the fewest pips; of those, the
one leaving its checkers on the most points (fewer gaps, so fewer misses next roll);
then the first in ``Game.legal_plays()`` order.
"""

from __future__ import annotations

from collections.abc import Sequence

from backgammon.game import Game, Phase
from backgammon.moves import Play
from backgammon.position import Position, pip_count

HOME_POINTS = 6


def bearing_off_both(position: Position) -> bool:
    """Every checker either side has on the board is in its own home board, none on the
    bar: the sides can no longer meet, and each only bears off."""
    return not any(position.player[HOME_POINTS:]) and not any(position.opponent[HOME_POINTS:])


def bear_off_choice(plays: Sequence[Play]) -> Play | None:
    """The play the server makes (the module's rule); None when there is none."""
    if not plays:
        return None

    def merit(play: Play) -> tuple[int, int, int]:
        board = play.result.player
        return (sum(board), pip_count(board), -sum(1 for count in board if count))

    return min(plays, key=merit)  # min keeps the first of equals


def no_contact_play(game: Game) -> Play | None:
    """The play the server makes for the side on turn, if the game waits for its move
    (nothing played yet) in a backgammon variant (not the tavli games) and both sides
    are bearing off with no contact; None otherwise."""
    if game.phase is not Phase.MOVE or game.pending or game.options.variant.rules is not None:
        return None
    board = game.position_for(game.on_roll)
    if not isinstance(board, Position) or not bearing_off_both(board):
        return None
    plays = [play for play in game.legal_plays() if isinstance(play, Play)]
    return bear_off_choice(plays)
