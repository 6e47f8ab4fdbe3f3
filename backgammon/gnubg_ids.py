"""GNU Backgammon's position ID and match ID, bit for bit.

Both are base64 (the standard alphabet, no padding) of a little-endian bit string:
bit ``i`` of the key is bit ``i % 8`` of byte ``i // 8``. Other programs (gnubg, eXtreme
Gammon's importers, bots) read and write these strings, so they must match gnubg's
``positionid.c`` and ``matchid.c`` exactly; the oracle test checks that against gnubg.

Position ID: 14 characters for an 80-bit key. For each side, first the side NOT on
roll and then the side on roll, for each of its 25 slots (own points 1..24, then the
bar) as many 1 bits as it has checkers there, then one 0 bit; unused bits are 0.
For our ``Position(player, opponent)`` (side on roll first) the key is therefore built
from ``opponent`` and then ``player``: the same order as gnubg's board
``(anBoard[0], anBoard[1])`` = (side not on roll, side on roll).

Match ID: 12 characters for the 66-bit match key (plus gnubg's optional 67th bit, see
``MatchKey.jacoby``). Players are numbered 0 and 1 as in gnubg; the position ID that goes
with a match ID is from the view of ``dice_owner`` (gnubg's ``fMove``).
"""

from __future__ import annotations

import enum
import re
from binascii import a2b_base64, b2a_base64
from codecs import charmap_decode
from collections.abc import Sequence
from dataclasses import dataclass
from operator import itemgetter, mul

from backgammon.errors import InvalidMatchId, InvalidPosition, InvalidPositionId
from backgammon.moves import result_boards
from backgammon.position import BAR, CHECKERS, POINTS, Board, Position

_SLOTS = POINTS + 1
_POSITION_KEY_BITS = 80
# gnubg's MAXSCORE: the longest match its match-equity tables (and match IDs) accept.
MAX_MATCH_LENGTH = 64
# 14 characters carry 84 bits for the 80-bit key: the last one's low 4 bits must be 0.
_ID_RE = {14: re.compile(r"[A-Za-z0-9+/]{13}[AQgw]"), 12: re.compile(r"[A-Za-z0-9+/]{12}")}


def _encode(key: int, n_bytes: int, n_chars: int) -> str:
    return b2a_base64(key.to_bytes(n_bytes, "little"), newline=False)[:n_chars].decode("ascii")


def _decode(text: str, n_chars: int, error: type[Exception], what: str) -> int:
    """The key from its base64 text; ``error`` if the text cannot be such an ID."""
    if not isinstance(text, str) or not _ID_RE[n_chars].fullmatch(text):
        raise error(f"{text!r} is not a {what}: expected {n_chars} base64 characters")
    return int.from_bytes(a2b_base64(text + "=" * (-n_chars % 4)), "little")


# The position key is written as a string of binary digits, highest bit first, and read
# with int(digits, 2): a slot holding n checkers is "0" then n "1"s (its n 1 bits below
# its 0 bit), and a side's slots come highest first. Joining looked-up strings runs in C,
# where shifting bits in one by one takes a Python step a checker.
_UNARY = tuple("0" + "1" * count for count in range(CHECKERS + 1))


def _side_digits(board: Board) -> str:
    """The binary digits of one side's 25 slots in the key (``board``: counts 0..15)."""
    return "".join(itemgetter(*board[::-1])(_UNARY))


def _id_from_digits(digits: str) -> str:
    return _encode(int(digits, 2), 10, 14)


def position_id(pos: Position) -> str:
    """The 14-character GNU Backgammon position ID of ``pos`` (side on roll: ``player``).

    Raises ``InvalidPosition`` for a board that has no ID (a side with more than 15
    checkers, a count that is not a count); the rest of ``Position.validate`` is not
    re-checked here, as this runs for every result of every move generation.
    """
    for board in (pos.opponent, pos.player):
        if len(board) != _SLOTS or sum(board) > CHECKERS or min(board) < 0:
            pos.validate()
    # The side on roll's slots are the key's high bits: its digits come first.
    return _id_from_digits(_side_digits(pos.player) + _side_digits(pos.opponent))


def position_from_id(text: str) -> Position:
    """The position a GNU Backgammon position ID stands for, side on roll first.

    Raises ``InvalidPositionId`` when the text is not a well-formed ID (wrong length or
    alphabet, fewer than 50 slot separators, bits set after the last one) and
    ``InvalidPosition`` when it is well formed but the board is impossible (more than 15
    checkers a side, both sides on one point, or, as gnubg also refuses, both sides on
    the bar against two closed boards).
    """
    key = _decode(text, 14, InvalidPositionId, "position ID")
    runs = format(key, f"0{_POSITION_KEY_BITS}b")[::-1].split("0")
    if len(runs) <= 2 * _SLOTS or any(runs[2 * _SLOTS :]):
        raise InvalidPositionId(f"{text!r} is not a position ID: its key is not 50 slots")
    counts = tuple(map(len, runs[: 2 * _SLOTS]))
    pos = Position(counts[_SLOTS:], counts[:_SLOTS])  # (player, opponent)
    if not _possible(pos.player, pos.opponent):
        pos.validate()
        raise InvalidPosition("both sides are on the bar against closed boards")
    return pos


def _possible(player: Board, opponent: Board) -> bool:
    """Whether two boards of 25 counts each make a position gnubg accepts: what
    ``Position.validate`` checks (which says why not), and gnubg's check of both sides on
    the bar against closed boards. Each test runs in C, as this is on the path of every
    position read from an ID."""
    on_roll, other = sum(player), sum(opponent)
    return (
        on_roll <= CHECKERS
        and other <= CHECKERS
        and (on_roll or other) > 0
        # A point held by both: a nonzero product of the counts on it (map stops at the
        # shorter, the opponent's 24 points from the player's side).
        and not any(map(mul, player, opponent[POINTS - 1 :: -1]))
        and not (player[BAR] and opponent[BAR] and min(player[:6] + opponent[:6]) >= 2)
    )


def result_ids(text: str, roll: Sequence[int], checkers: int = CHECKERS) -> list[str]:
    """The position IDs of every distinct position ``roll`` can reach from the position
    ID ``text``, sorted; ``[text]`` when the dice cannot be played.

    What a game request does: decode, generate, encode. The results are still seen by
    the side that moved (it stays the side on roll in the IDs), as ``legal_plays`` gives
    them; ``checkers`` is the variant's number a side (the board is refused with more).
    Raises what ``position_from_id`` and ``legal_plays`` raise.
    """
    pos = position_from_id(text)
    if checkers != CHECKERS:
        pos.validate(checkers)
    results = result_boards(pos, roll)
    if not results:
        return [text]
    # The opponent's digits are made once for all the results that hit no blot (they share
    # its board object), and once for each set of blots hit. The mover's are read from the
    # bytes of its board: charmap_decode maps each byte through _UNARY in C.
    unhit = pos.opponent
    unhit_digits = _side_digits(unhit)
    hit_digits = _DigitsOf()
    keys = [
        (
            charmap_decode(player[::-1], None, _UNARY)[0]
            + (unhit_digits if opponent is unhit else hit_digits[opponent])
        ).zfill(_KEY_DIGITS)
        for player, opponent in results
    ]
    ids = _ids_from_digits(keys)
    ids.sort()
    return ids


class _DigitsOf(dict[Board, str]):
    """Each board's ``_side_digits``, made the first time it is asked for."""

    def __missing__(self, board: Board) -> str:
        digits = self[board] = _side_digits(board)
        return digits


# Many keys are read at once, each in 12 bytes (96 bits, the top 16 always 0): base64
# takes 3 bytes at a time, so each 12 bytes give 16 characters of their own, the first 14
# being the ID. One int(), to_bytes and b2a_base64 for all the results of a position.
_KEY_DIGITS = 96


def _ids_from_digits(keys: list[str]) -> list[str]:
    """The position IDs of keys written as ``_KEY_DIGITS`` binary digits each."""
    keys.reverse()  # the first key is the lowest bits of the whole: its digits come last
    whole = int("".join(keys), 2).to_bytes(len(keys) * _KEY_DIGITS // 8, "little")
    text = b2a_base64(whole, newline=False).decode("ascii")
    return [text[i : i + 14] for i in range(0, len(text), 16)]


class GameState(enum.IntEnum):
    """gnubg's ``gamestate``: where the game stands."""

    NONE = 0  # no game started yet
    PLAYING = 1
    OVER = 2  # ended by bearing off the last checker
    RESIGNED = 3  # ended by an accepted resignation
    DROPPED = 4  # ended by a passed double


class Resignation(enum.IntEnum):
    """What is on offer in a pending resignation (gnubg's ``fResigned``)."""

    NONE = 0
    SINGLE = 1
    GAMMON = 2
    BACKGAMMON = 3


_STATES = frozenset(GameState)
_RESIGNATIONS = frozenset(Resignation)


@dataclass(frozen=True, slots=True)
class MatchKey:
    """Every field of a GNU Backgammon match ID, with gnubg's meaning.

    Players are numbered 0 and 1 and keep their number for the whole match (the
    matches app maps the match's first listed player to 0). Fields:

    - ``cube_value``: 1, 2, 4, ... 2**15 (stored as its log2 in 4 bits).
    - ``cube_owner``: 0 or 1, or ``None`` while the cube is centred (gnubg stores 3).
    - ``dice_owner``: the player whose turn it is (who rolls or has rolled; gnubg's
      ``fMove``). The position ID shown with the match ID is from this player's view.
    - ``crawford``: this game is the Crawford game (P2).
    - ``game_state``: a ``GameState``.
    - ``turn``: the player who must act now (gnubg's ``fTurn``): ``dice_owner``, except
      that after a double or a resignation offer it is the opponent who must answer.
    - ``double_offered``: a double is waiting for take/pass.
    - ``resignation``: a pending resignation offer (``Resignation``).
    - ``dice``: the rolled dice, ``(0, 0)`` before the roll. gnubg stores the higher die
      first, so the order is not kept: decoding gives ``(higher, lower)``.
    - ``match_length``: 0 for money play, else 1..64 (gnubg's limit).
    - ``score``: points of player 0 and player 1 (each at most ``match_length`` in a
      match, as gnubg requires when it reads the ID).
    - ``jacoby``: the Jacoby rule is on (money play). gnubg appends bit 66, "Jacoby off",
      to the 66-bit key, and sets it from its Jacoby setting even in matches, where the
      rule does not apply: leave it True (bit clear) for matches, as gnubg's default does.
    """

    cube_value: int = 1
    cube_owner: int | None = None
    dice_owner: int = 0
    crawford: bool = False
    game_state: GameState = GameState.PLAYING
    turn: int = 0
    double_offered: bool = False
    resignation: Resignation = Resignation.NONE
    dice: tuple[int, int] = (0, 0)
    match_length: int = 0
    score: tuple[int, int] = (0, 0)
    jacoby: bool = True

    def __post_init__(self) -> None:
        """Refuse values gnubg could not encode or would refuse to read back."""
        problems = []
        if (
            self.cube_value < 1
            or self.cube_value > 1 << 15
            or self.cube_value & (self.cube_value - 1)
        ):
            problems.append(f"cube value {self.cube_value} is not a power of 2 up to 32768")
        if self.cube_owner not in (None, 0, 1):
            problems.append(f"cube owner {self.cube_owner!r} is not None, 0 or 1")
        if self.dice_owner not in (0, 1) or self.turn not in (0, 1):
            problems.append("dice owner and turn must be player 0 or 1")
        if self.game_state not in _STATES:
            problems.append(f"game state {self.game_state!r} is not a GameState")
        if self.resignation not in _RESIGNATIONS:
            problems.append(f"resignation {self.resignation!r} is not a Resignation")
        if len(self.dice) != 2 or not (
            self.dice == (0, 0) or all(d in range(1, 7) for d in self.dice)
        ):
            problems.append(f"dice {self.dice!r} are not (0, 0) or two of 1..6")
        if not 0 <= self.match_length <= MAX_MATCH_LENGTH:
            problems.append(f"match length {self.match_length} is not 0..{MAX_MATCH_LENGTH}")
        limit = self.match_length if self.match_length else (1 << 15) - 1
        if len(self.score) != 2 or not all(0 <= s <= limit for s in self.score):
            problems.append(f"score {self.score!r} is not two numbers 0..{limit}")
        if self.crawford and not self.match_length:
            problems.append("money play has no Crawford game")
        if problems:
            raise ValueError("; ".join(problems))


_FIELDS = (  # (first bit, width) of each field of the match key, in gnubg's order
    ("cube", 0, 4),
    ("owner", 4, 2),
    ("dice_owner", 6, 1),
    ("crawford", 7, 1),
    ("state", 8, 3),
    ("turn", 11, 1),
    ("doubled", 12, 1),
    ("resigned", 13, 2),
    ("die1", 15, 3),
    ("die2", 18, 3),
    ("length", 21, 15),
    ("score0", 36, 15),
    ("score1", 51, 15),
    ("no_jacoby", 66, 1),
)


def match_id(key: MatchKey) -> str:
    """The 12-character GNU Backgammon match ID of ``key``."""
    high, low = sorted(key.dice, reverse=True)
    values = {
        "cube": key.cube_value.bit_length() - 1,
        "owner": 3 if key.cube_owner is None else key.cube_owner,
        "dice_owner": key.dice_owner,
        "crawford": int(key.crawford),
        "state": int(key.game_state),
        "turn": key.turn,
        "doubled": int(key.double_offered),
        "resigned": int(key.resignation),
        "die1": high,
        "die2": low,
        "length": key.match_length,
        "score0": key.score[0],
        "score1": key.score[1],
        "no_jacoby": int(not key.jacoby),
    }
    bits = 0
    for name, first, _width in _FIELDS:
        bits |= values[name] << first
    return _encode(bits, 9, 12)


def match_key_from_id(text: str) -> MatchKey:
    """The fields of a GNU Backgammon match ID; ``InvalidMatchId`` if it is not one.

    Refused: wrong length or alphabet, bits set beyond bit 66, a cube owner of 2, an
    unknown game state, dice outside 0..6 or only one die rolled, and whatever gnubg
    refuses when reading (match longer than 64, a score above the match length, a
    Crawford game in money play).
    """
    bits = _decode(text, 12, InvalidMatchId, "match ID")
    if bits >> 67:
        raise InvalidMatchId(f"{text!r} is not a match ID: bits set beyond bit 66")
    v = {name: (bits >> first) & ((1 << width) - 1) for name, first, width in _FIELDS}
    if v["owner"] == 2:
        raise InvalidMatchId(f"{text!r} is not a match ID: cube owner 2")
    if v["state"] not in _STATES:
        raise InvalidMatchId(f"{text!r} is not a match ID: game state {v['state']}")
    try:
        return MatchKey(
            cube_value=1 << v["cube"],
            cube_owner=None if v["owner"] == 3 else v["owner"],
            dice_owner=v["dice_owner"],
            crawford=bool(v["crawford"]),
            game_state=GameState(v["state"]),
            turn=v["turn"],
            double_offered=bool(v["doubled"]),
            resignation=Resignation(v["resigned"]),
            dice=(v["die1"], v["die2"]),
            match_length=v["length"],
            score=(v["score0"], v["score1"]),
            jacoby=not v["no_jacoby"],
        )
    except ValueError as exc:
        raise InvalidMatchId(f"{text!r} is not a match ID: {exc}") from exc
