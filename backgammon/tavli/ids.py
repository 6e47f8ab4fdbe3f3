"""The project's own position ID for the tavli games (docs/tavli.md, "Position ID").

GNU Backgammon's position ID cannot hold a pinned checker, a game where both sides run
the same way, checkers waiting to enter or a roll number, so these games get their own,
built the same way: a little-endian bit string (bit ``i`` is bit ``i % 8`` of byte
``i // 8``) in base64, standard alphabet, no padding. The bits, in order:

1. the game, 3 bits: 0 portes, 1 plakoto, 2 fevga, 3 gul bara, 4 acey-deucey;
2. for each side, the side to move first, for each of its 26 slots (own points 1..24,
   then the bar, then the checkers waiting to enter) as many 1 bits as it has checkers
   there, then a 0 bit (its borne-off checkers are what is missing of 15);
3. plakoto: for each of the mover's points 1..24 that both sides stand on, one bit:
   1 if the mover's checker is the pinned one, 0 if the opponent's is;
4. gul bara: each side's roll number r, the mover's first, as the Elias gamma code of
   r + 1 (as many 0 bits as the number of its binary digits less one, then its digits,
   the highest first);
5. 0 bits up to a whole number of characters.
"""

from __future__ import annotations

import base64
import re

from backgammon.errors import InvalidPosition, InvalidPositionId
from backgammon.tavli.board import CHECKERS, OFF, POINTS, SLOTS, Side, TavliBoard
from backgammon.tavli.rules import GAMES, Capture, TavliRules

_CODES = {name: code for code, name in enumerate(GAMES)}
_NAMES = dict(enumerate(GAMES))
_TEXT = re.compile(r"[A-Za-z0-9+/]+")


def tavli_position_id(rules: TavliRules, board: TavliBoard) -> str:
    """The ID of ``board`` (mover's view) in the game ``rules``."""
    bits: list[int] = [(_CODES[rules.name] >> i) & 1 for i in range(3)]
    for side in (board.mine, board.opponent):
        for count in (*side.points[1:], side.bar, side.waiting):
            bits += [1] * count + [0]
    if rules.capture is Capture.PIN:
        for point in range(1, POINTS + 1):
            other = rules.facing_table[point]
            if board.mine.points[point] and board.opponent.points[other]:
                bits.append(1 if point in board.mine.pinned else 0)
    if rules.counts_rolls:
        for side in (board.mine, board.opponent):
            digits = bin(side.roll + 1)[2:]
            bits += [0] * (len(digits) - 1) + [int(d) for d in digits]
    bits += [0] * (-len(bits) % 24)  # whole bytes and whole characters
    key = sum(bit << i for i, bit in enumerate(bits))
    return base64.b64encode(key.to_bytes(len(bits) // 8, "little")).decode("ascii")


def tavli_position_from_id(text: str) -> tuple[TavliRules, TavliBoard]:
    """The game and board (mover's view) of an ID, checked; ``InvalidPositionId`` when
    it is not one."""
    if not isinstance(text, str) or len(text) % 4 or not _TEXT.fullmatch(text):
        raise InvalidPositionId(f"{text!r} is not a tavli position ID")
    raw = base64.b64decode(text)
    key, length = int.from_bytes(raw, "little"), 8 * len(raw)
    reader = _Bits(key, length, text)
    code = reader.take(3)
    if code not in _NAMES:
        raise InvalidPositionId(f"{text!r}: no game {code}")
    rules = GAMES[_NAMES[code]]
    sides = [reader.side() for _ in range(2)]
    mine, theirs = sides
    pins: dict[int, list[int]] = {0: [], 1: []}
    if rules.capture is Capture.PIN:
        for point in range(1, POINTS + 1):
            other = rules.facing_table[point]
            if mine[point] and theirs[other]:
                if reader.take(1):
                    pins[0].append(point)
                else:
                    pins[1].append(other)
    rolls = [reader.gamma() - 1, reader.gamma() - 1] if rules.counts_rolls else [0, 0]
    if key >> reader.position:
        raise InvalidPositionId(f"{text!r}: bits set after the end of the position")
    built = []
    for index, slots in enumerate(sides):
        points = (CHECKERS - sum(slots), *slots[1:SLOTS])
        built.append(
            Side(points, slots[SLOTS], slots[SLOTS + 1], tuple(sorted(pins[index])), rolls[index])
        )
    try:
        return rules, rules.validate(TavliBoard(built[0], built[1]))
    except InvalidPosition as exc:
        raise InvalidPositionId(f"{text!r} is no {rules.title} position: {exc}") from exc


class _Bits:
    """Reads the bit string of an ID from its lowest bit up."""

    def __init__(self, key: int, length: int, text: str) -> None:
        self.key, self.length, self.text, self.position = key, length, text, 0

    def take(self, count: int) -> int:
        if self.position + count > self.length:
            raise InvalidPositionId(f"{self.text!r} ends too soon")
        value = (self.key >> self.position) & ((1 << count) - 1)
        self.position += count
        return value

    def side(self) -> list[int]:
        """One side's 26 slot counts, as ``[0, points 1..24, bar, waiting]``."""
        slots = [OFF]
        for _ in range(SLOTS + 1):
            count = 0
            while self.take(1):
                count += 1
                if count > CHECKERS:
                    raise InvalidPositionId(f"{self.text!r}: more than {CHECKERS} checkers")
            slots.append(count)
        if sum(slots) > CHECKERS:
            raise InvalidPositionId(f"{self.text!r}: a side has more than {CHECKERS} checkers")
        return slots

    def gamma(self) -> int:
        zeros = 0
        while not self.take(1):
            zeros += 1
            if zeros > 30:
                raise InvalidPositionId(f"{self.text!r}: a roll number out of range")
        value = 1
        for _ in range(zeros):  # the digits after the leading 1, highest first
            value = 2 * value + self.take(1)
        return value
