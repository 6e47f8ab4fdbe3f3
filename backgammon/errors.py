"""Every way the rules core can refuse something, as a distinct exception.

Callers (the Django apps, the CLI) catch ``BackgammonError`` for "the rules said no"
and the subclasses when they need to tell the cases apart. A refused call never
changes any value: every public function works on immutable values.
"""


class BackgammonError(Exception):
    """Base class: the rules refused the request."""


class InvalidPosition(BackgammonError):
    """The position is impossible (too many checkers, both sides on one point...)."""


class InvalidPositionId(BackgammonError):
    """A string is not a well-formed GNU Backgammon position ID."""


class InvalidMatchId(BackgammonError):
    """A string is not a well-formed GNU Backgammon match ID."""


class InvalidDice(BackgammonError):
    """Dice outside 1..6, or the wrong number of them."""


class InvalidNotation(BackgammonError):
    """Move text that cannot be parsed (``24/18 13/11*``, ``bar/22``, ``6/off``)."""


class IllegalPlay(BackgammonError):
    """A play the rules forbid; ``reason`` is one of the ``IllegalPlay.*`` codes."""

    BLOCKED = "blocked_point"
    BAR_FIRST = "must_enter_from_bar_first"
    MUST_USE_BOTH = "must_use_both_dice"
    MUST_USE_MORE = "must_use_more_dice"
    HIGHER_DIE = "must_play_higher_die"
    CANNOT_BEAR_OFF = "cannot_bear_off_yet"
    WRONG_DICE = "dice_do_not_match"
    NO_CHECKER = "no_checker_there"
    BACKWARDS = "checkers_move_forward"
    MUST_MOVE = "must_move"
    NOT_LEGAL = "not_legal"
    # The tavli games (RULES.md TV, PL, FV, GB, AD), each named by its rule.
    PINNED_POINT = "point_pinned"  # PL2: an opposing checker pins one of yours there
    HELD_POINT = "point_held"  # FV2, GB1: one opposing checker holds the point
    PINNED_CHECKER = "checker_pinned"  # PL3: a pinned checker cannot move
    RUNNER_FIRST = "runner_must_pass_first"  # FV3
    START_QUARTER = "start_quarter_full"  # FV4
    MUST_OPEN_WALL = "must_open_wall"  # FV5
    ENTRY_HELD = "entry_point_held"  # AD1, AD3, E2: the entry point is held
    DOUBLE_NOT_NAMED = "double_not_named"  # AD4
    GAME_ENDED = "game_ended"  # PL5: a step ended the game, the rest is not played

    def __init__(self, message: str, reason: str = NOT_LEGAL) -> None:
        super().__init__(message)
        self.reason = reason


class NotYourTurn(BackgammonError):
    """Acting when it is not that side's turn, or in the wrong phase of the turn."""


class CubeNotAvailable(BackgammonError):
    """A double, take, pass or beaver the cube rules do not allow now."""


class GameOver(BackgammonError):
    """Acting on a game or match that has already ended."""


class InvalidMatFile(BackgammonError):
    """A ``.mat`` file that cannot be read or replayed; says game and move number."""


class InvalidRecord(BackgammonError):
    """A tavli game's text record that cannot be read or replayed; says the line."""


class DiceMismatch(BackgammonError):
    """A revealed dice record whose rolls do not follow from its seeds."""


class TooFewPlayers(BackgammonError):
    """A chouette of fewer than three players, to start or to go on (H1, H13)."""


class AlreadySeated(BackgammonError):
    """A player named twice at a chouette, or joining one they already sit at (H13)."""


class NotSeated(BackgammonError):
    """A player who does not sit at the chouette leaving it (H13)."""


class InvalidOrder(BackgammonError):
    """An order entered for a chouette that is not its players (H1)."""


class InvalidGameRecord(BackgammonError):
    """A finished chouette game whose record does not fit its team or the rules (H5-H8)."""


class InvalidStake(BackgammonError):
    """A money stake per point that is not a positive amount in cents (H11, H14)."""
