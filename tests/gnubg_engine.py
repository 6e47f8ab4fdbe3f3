"""GNU Backgammon's engine, called in the ``gnubg`` wheel's shared library through ctypes.

Shared by the oracle tests (``tests/backgammon/test_oracle_gnubg.py``) and the benchmark
(``bench/peers.py``). Why ctypes: the binding's ``findbestmoves`` cuts each move at the
first checker borne off (it cannot tell ``6/off 5/3`` from ``6/off 5/off``), and its
``hint()`` crashes (a segmentation fault in 1.1.0a16 once a game is set up and rolled).
So this calls ``GenerateMoves``, ``ApplyMove`` and ``PositionID`` itself.

``MOVE_SIZE`` and ``KEY_OFFSET`` are the ``move`` record's layout in this build (gnubg
1.1.0a16 from PyPI); ``test_gnubg_adapter_reads_whole_moves`` in the oracle tests checks
them, so another build fails loudly there, never silently. Importing this module raises
``ImportError`` when gnubg is not installed.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass

import gnubg

from backgammon.position import Position

lib = ctypes.CDLL(gnubg._gnubg_ext.__file__)
Board = (ctypes.c_uint * 25) * 2  # TanBoard: [0] side not on roll, [1] side on roll
MOVE_SIZE = 1064  # sizeof(move) in this build, checked by test_gnubg_adapter_reads_whole_moves
KEY_OFFSET = 32  # after int anMove[8]


class MoveList(ctypes.Structure):
    _fields_ = [
        ("cMoves", ctypes.c_uint),
        ("cMaxMoves", ctypes.c_uint),
        ("cMaxPips", ctypes.c_uint),
        ("iMoveBest", ctypes.c_int),
        ("rBestScore", ctypes.c_float),
        ("amMoves", ctypes.c_void_p),
    ]


# GenerateMoves(movelist *, TanBoard, int die0, int die1, int fPartial) -> number of plays.
# Called as generate_moves(ctypes.byref(MoveList()), Board(), die0, die1, 0). No argtypes:
# checking them costs about 1 µs a call, a third of what bench/plays.py times.
generate_moves = lib.GenerateMoves
generate_moves.restype = ctypes.c_int
lib.ApplyMove.argtypes = [Board, ctypes.c_int * 8, ctypes.c_int]
lib.PositionID.argtypes = [Board]
lib.PositionID.restype = ctypes.c_char_p
lib.PositionIDFromKey.argtypes = [ctypes.c_void_p]
lib.PositionIDFromKey.restype = ctypes.c_char_p


def gnubg_board(pos: Position) -> Board:
    """Our position as gnubg's board, the side on roll still on roll."""
    board = Board()
    board[0][:] = pos.opponent
    board[1][:] = pos.player
    return board


@dataclass(frozen=True)
class GnubgPlay:
    """One of gnubg's plays: its move as gnubg stores it and the position it reaches."""

    move: tuple[int, ...]  # from, to, ... 0-based (24 = bar, -1 = off), as in anMove
    result_id: str  # gnubg's PositionID of the board after ApplyMove, mover on roll
    key_id: str  # gnubg's PositionIDFromKey of the key GenerateMoves stored

    @property
    def truncated(self) -> tuple[int, ...]:
        """The move as ``findbestmoves`` shows it: 1-based, cut at the first -1."""
        shown = []
        for value in self.move:
            if value < 0:
                break
            shown.append(value + 1)
        return tuple(shown)


def gnubg_plays(pos: Position, dice: tuple[int, int]) -> list[GnubgPlay]:
    """gnubg's distinct legal plays, in its generation order."""
    board = gnubg_board(pos)
    moves = MoveList()
    count = generate_moves(ctypes.byref(moves), board, dice[0], dice[1], 0)
    plays = []
    for i in range(count):
        address = moves.amMoves + i * MOVE_SIZE
        raw = list((ctypes.c_int * 8).from_address(address))
        after = Board()
        ctypes.memmove(after, board, ctypes.sizeof(Board))
        assert lib.ApplyMove(after, (ctypes.c_int * 8)(*raw), 1) == 0
        end = next((j for j in range(0, 8, 2) if raw[j] < 0), 8)
        plays.append(
            GnubgPlay(
                move=tuple(raw[:end]),
                result_id=lib.PositionID(after).decode(),
                key_id=lib.PositionIDFromKey(address + KEY_OFFSET).decode(),
            )
        )
    return plays
