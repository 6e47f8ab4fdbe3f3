"""Legal plays for a roll: rules M1-M5 (moving), E1-E4 (bar) and F1-F6 (bearing off).

Plays are found the way GNU Backgammon's ``GenerateMoves`` (eval.c) finds them:
depth-first over the dice, keeping only the plays that use the most dice (and, when
only one of two different dice can be played, the higher one), with one play per
distinct resulting position rather than per move text.

The search is the hot path (bots, analysis, the benchmark), so it works on a mutable
list of 25 ints, undoing each step instead of copying boards, keys results by an int,
and relies on one fact: which points are blocked cannot change during a turn (hitting a
blot leaves the point open), so each die's legal landing points are computed once per
call, and a double's search carries the occupied origins from step to step (a step
empties at most one and fills at most one) instead of scanning the board at each depth.
``Play`` and ``Position`` objects are built only for the distinct results. Results
are not cached: on distinct positions an LRU cache measured about 9% slower (hashing,
garbage-collector work on the kept objects), and a repeated call costs well under a
millisecond.

Everything is in the mover's own numbering: points 1..24, 25 = bar, 0 = off.
"""

from __future__ import annotations

from bisect import bisect_right, insort
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from itertools import permutations
from types import MemberDescriptorType
from typing import Any, NamedTuple

from backgammon.errors import IllegalPlay, InvalidDice, InvalidNotation
from backgammon.position import BAR, Board, Position

OFF = 0
BAR_POINT = BAR + 1


class Step(NamedTuple):
    """One checker moved by one die (``hit``: it landed on a blot and sent it to the bar)."""

    origin: int
    destination: int
    hit: bool


@dataclass(frozen=True, slots=True)
class Play:
    """A whole turn: its steps in playing order, the position after it (still seen by the
    mover, not swapped) and the dice it used, in the order of the steps."""

    steps: tuple[Step, ...]
    result: Position
    dice_used: tuple[int, ...]


def dice_for_roll(d1: int, d2: int) -> tuple[int, ...]:
    """The moves a roll gives (M1): its two dice, or four of a kind for a double."""
    _check_die(d1)
    _check_die(d2)
    return (d1,) * 4 if d1 == d2 else (d1, d2)


# Each roll's dice as the search takes them (the higher die first), found without checks;
# keyed by any tuple, as a roll's dice come (a list or tuple of any length).
_ROLLS: dict[tuple[int, ...], tuple[int, ...]] = {
    (d1, d2): (d1,) * 4 if d1 == d2 else (max(d1, d2), min(d1, d2))
    for d1 in range(1, 7)
    for d2 in range(1, 7)
}


def _roll_dice(roll: Sequence[int]) -> tuple[int, ...]:
    """The dice the search takes for ``roll``, or ``InvalidDice``."""
    dice = _ROLLS.get(tuple(roll)) if len(roll) == 2 else None
    if dice is None:
        raise InvalidDice(f"a roll is two dice showing 1 to 6, not {roll!r}")
    return dice


def legal_plays(position: Position, roll: tuple[int, int]) -> list[Play]:
    """Every distinct legal play of ``roll``; ``[]`` when no die can be played."""
    return _plays(position.player, position.opponent, _roll_dice(roll))


def legal_results(position: Position, roll: Sequence[int]) -> list[tuple[Board, Board]]:
    """The distinct positions ``roll`` can reach, as the ``(player, opponent)`` boards of
    ``legal_plays(position, roll)``'s results, without the plays: for callers that need
    only where the turn can end. ``[]`` when no die can be played."""
    return [(tuple(player), opponent) for player, opponent in result_boards(position, roll)]


def result_boards(position: Position, roll: Sequence[int]) -> list[tuple[bytes, Board]]:
    """``legal_results`` in the search's own form, for the hot path of position IDs
    (``gnubg_ids.result_ids``): the search keeps only each result's int key, whose low
    25 bytes are the mover's board, given here as those bytes (a count a slot, in slot
    order), as a tuple of 25 ints costs more to make than the rest of a result. Results
    that hit the same blots share one opponent tuple, ``position.opponent`` when they
    hit none."""
    dice = _roll_dice(roll)
    opponent = position.opponent
    opponents = {0: opponent}  # the opponent's board after each set of hits
    results = []
    for key in _search(position.player, opponent, dice, ways=False):
        hits = key >> _HITS
        theirs = opponents.get(hits)
        if theirs is None:
            theirs = opponents[hits] = _after_hits(opponent, hits)
        results.append(((key & _BOARD).to_bytes(_SLOTS, "little"), theirs))
    return results


def legal_plays_for_dice(position: Position, dice: Sequence[int]) -> list[Play]:
    """Every distinct legal play of 1 to 4 dice (what remains of a turn after partial moves):
    as many dice as possible, and the higher die when only one of two can be played (M5)."""
    dice = tuple(dice)
    if not 1 <= len(dice) <= 4:
        raise InvalidDice(f"between 1 and 4 dice are played in a turn, not {len(dice)}")
    for die in dice:
        _check_die(die)
    if len(dice) > 2 and len(set(dice)) > 1:
        raise InvalidDice(f"more than two dice must all be the same (a double), not {dice}")
    if len(dice) == 2 and dice[0] < dice[1]:
        dice = (dice[1], dice[0])
    return _plays(position.player, position.opponent, dice)


def apply_step(position: Position, origin: int, die: int) -> Position:
    """Move one checker from ``origin`` (25 = bar) by ``die``, hitting a blot it lands on.

    Checks only what makes this step illegal on its own (the compulsory-play rule M5 is
    about whole turns: see ``check_play``).
    """
    _check_die(die)
    if not 1 <= origin <= BAR_POINT:
        raise IllegalPlay(
            f"no point {origin} to move from (1..24, 25 = bar)", IllegalPlay.NOT_LEGAL
        )
    problem = _step_problem(position.player, position.opponent, origin, die)
    if problem:
        raise problem
    player, opponent, _ = _move(position.player, position.opponent, origin, die)
    return Position(player, opponent)


def check_play(
    position: Position,
    roll: tuple[int, int],
    steps: Sequence[Sequence[int]],
    legal: Sequence[Play] | None = None,
) -> Play:
    """The legal play that ``steps`` describe, or ``IllegalPlay`` saying what is wrong.

    ``steps`` are ``Step``s or ``(origin, destination)`` pairs, in any order. A pair may span
    several dice (``24/13`` with 6-5): it is split into single-die steps, trying both orders
    of the dice; if the splits reach different positions, the one that hits no blot on a
    point the text does not name is taken (as GNU Backgammon writes ``24/18*/13`` for a hit
    in passing), and if that still leaves a choice, ``InvalidNotation`` asks for the
    intermediate point. The returned play has the player's own steps. ``legal``: the
    roll's legal plays, when the caller knows them already (a game keeps its roll's).
    """
    dice = dice_for_roll(*roll)
    if legal is not None:
        # A replay's steps are those of the legal play recorded (a game's log, a job):
        # found as they are, without searching the ways to play them.
        given = tuple(steps)
        for play in legal:
            if play.steps == given:
                return play
    segments = [_segment(step) for step in steps]
    if legal is None:
        legal = legal_plays_for_dice(position, dice)
    if not segments:
        if legal:
            raise IllegalPlay(f"a legal play exists for {_roll_text(dice)}", IllegalPlay.MUST_MOVE)
        return Play((), position, ())
    in_order = _played_in_order(position, dice, segments)
    if in_order is not None and any(play.result == in_order.result for play in legal):
        return in_order
    legal_results = {play.result for play in legal}
    # Each segment takes at least one die: more segments than dice cannot be played.
    found = _realizations(position, dice, segments) if len(segments) <= len(dice) else {}
    matching = {result: way for result, way in found.items() if result in legal_results}
    if matching:
        fewest = min(way[0] for way in matching.values())
        best = [result for result, way in matching.items() if way[0] == fewest]
        if len(best) > 1:
            raise InvalidNotation(
                "this play can be made in more than one way: name the point where a blot "
                "is hit in passing (like 24/18*/13)"
            )
        _, taken, used = matching[best[0]]
        return Play(taken, best[0], used)
    if found:
        raise _too_few_dice(dice, legal, found)
    raise _explain(position, dice, segments)


# --- the search -------------------------------------------------------------------------

# A board as one int, a byte a slot, so a step updates it with one addition and results
# are deduplicated by an int rather than by a fresh tuple; the slots hit so far are the
# bits from _HITS up.
_HITS = 8 * (BAR + 1)
# _DELTA[die][slot]: what moving a checker from slot by die adds to the int board;
# _STEPS[die][slot][hit]: that step as a Step.
_DELTA = tuple(
    tuple(((1 << 8 * (slot - die)) if slot >= die else 0) - (1 << 8 * slot) for slot in range(25))
    for die in range(7)
)
_STEPS = tuple(
    tuple(
        (Step(slot + 1, max(slot + 1 - die, OFF), False), Step(slot + 1, slot + 1 - die, True))
        for slot in range(BAR + 1)
    )
    for die in range(7)
)

_SLOTS = BAR + 1
_BOARD = (1 << _HITS) - 1  # the mover's board in a key: its low bytes, one a slot
_NO_HITS = [0] * 30  # the hit bits when the opponent has no blot

# Each distinct result, by its int key: the mover's board and one way to reach it (steps
# and dice used).
Found = dict[int, tuple[Board, tuple[Step, ...], tuple[int, ...]]]


def _slot_setter(cls: type, name: str) -> Callable[[Any, Any], None]:
    """The ``__set__`` of the slot ``name`` of a slotted class, bypassing its frozen
    ``__setattr__``."""
    slot: MemberDescriptorType = cls.__dict__[name]
    return slot.__set__


# The frozen dataclasses' __init__ (one object.__setattr__ a field) takes twice as long
# as setting their slots directly, a sixth of a typical call; the values set here are
# fresh and valid.
_new = object.__new__
_set_steps: Callable[[Play, tuple[Step, ...]], None] = _slot_setter(Play, "steps")
_set_result: Callable[[Play, Position], None] = _slot_setter(Play, "result")
_set_dice: Callable[[Play, tuple[int, ...]], None] = _slot_setter(Play, "dice_used")
_set_player: Callable[[Position, Board], None] = _slot_setter(Position, "player")
_set_opponent: Callable[[Position, Board], None] = _slot_setter(Position, "opponent")


def _plays(player: Board, opponent: Board, dice: tuple[int, ...]) -> list[Play]:
    """The distinct legal plays of ``dice`` (checked, higher die first), as ``Play``s."""
    opponents = {0: opponent}  # the opponent's board after each set of hits
    plays: list[Play] = []
    append = plays.append
    for key, (board, steps, used) in _search(player, opponent, dice).items():
        hits = key >> _HITS
        theirs = opponents.get(hits)
        if theirs is None:
            theirs = opponents[hits] = _after_hits(opponent, hits)
        result = _new(Position)
        _set_player(result, board)
        _set_opponent(result, theirs)
        play = _new(Play)
        _set_steps(play, steps)
        _set_result(play, result)
        _set_dice(play, used)
        append(play)
    return plays


def _after_hits(opponent: Board, hits: int) -> Board:
    """The opponent's board after its blots on the mover's slots in ``hits`` went to the bar."""
    board = list(opponent)
    while hits:  # one pass a blot hit, lowest slot first
        slot = (hits & -hits).bit_length() - 1
        board[23 - slot] = 0
        board[BAR] += 1
        hits &= hits - 1
    return tuple(board)


def _search(player: Board, opponent: Board, dice: tuple[int, ...], ways: bool = True) -> Found:
    """Map each distinct result, as an int key, to its board and one way to reach it.

    Slots here are the mover's (point - 1); a step from ``slot`` by ``die`` lands on
    ``slot - die``, or bears off when that is below 0. With ``ways`` False only the keys
    (and the dice used) are kept, the board and the steps left empty: building those at
    each result is two fifths of a search (``result_boards`` reads the board from the key).
    """
    board = list(player)
    facing = opponent[23::-1]  # the opponent's checkers on each of the mover's slots
    # The hit bit a step landing on slot -6 .. 23 sets (6 zeros first: bear-offs hit nothing).
    hit_bits = _NO_HITS
    if 1 in facing:
        hit_bits = [0] * 6 + [
            1 << _HITS + slot if count == 1 else 0 for slot, count in enumerate(facing)
        ]
    # The slots each die of the roll moves a checker from onto an open point, highest first.
    landing: list[list[int]] = [[]] * 7
    for die in set(dice):
        landing[die] = [slot for slot in range(23, die - 1, -1) if facing[slot - die] < 2]

    def bear_offs(die: int) -> list[int]:
        """The slot a die bears off from, once every checker is home (F1-F4)."""
        exact = die - 1
        if board[exact]:  # F2
            return [exact]
        if any(board[exact + 1 : 6]):  # F3: the die must be moved inside the board
            return []
        for slot in range(exact - 1, -1, -1):  # F4: from the highest point
            if board[slot]:
                return [slot]
        return []

    code = int.from_bytes(bytes(player), "little")
    outside = sum(player[6:])
    if len(dice) == 2 and dice[0] != dice[1]:
        return _search_two(
            player, board, code, facing, hit_bits, outside, landing, bear_offs, dice, ways
        )
    return _search_same(
        board, code, facing, hit_bits, outside, landing[dice[0]], bear_offs, dice, ways
    )


def _search_two(
    player: Board,
    board: list[int],
    code0: int,
    facing: Board,
    hit_bits: list[int],
    outside0: int,
    landing: list[list[int]],
    bear_offs: Callable[[int], list[int]],
    dice: tuple[int, ...],
    ways: bool,
) -> Found:
    """Two different dice: both orders, then one die alone (the higher if it can) (M5).

    Away from the bar and the bear-off, the second die's origins are those of the starting
    board, give or take the checker just moved, so they are not searched again. In the
    second order, a second step that could have been played first (its checker was there
    from the start; no bar, no bear-off) only repeats a play of the first order, so only
    the checker just moved, and bear-offs, are tried.
    """
    found: Found = {}
    singles: Found = {}
    entering = player[BAR]

    def sources(die: int, outside: int) -> list[int]:
        if board[BAR]:  # E1: enter first
            return [] if facing[BAR - die] > 1 else [BAR]
        slots = [slot for slot in landing[die] if board[slot]]
        if not outside:
            slots += bear_offs(die)
        return slots

    for first, second in (dice, dice[::-1]):
        repeat = first != dice[0] and bool(found) and not entering
        # Only needed away from the bar and the bear-off.
        from_start = (
            [slot for slot in landing[second] if player[slot]] if outside0 and not entering else []
        )
        delta1, delta2 = _DELTA[first], _DELTA[second]
        steps1, steps2 = _STEPS[first], _STEPS[second]
        used = (first, second)
        for s1 in sources(first, outside0):
            t1 = s1 - first
            outside1 = outside0 - (s1 >= 6 > t1)
            # Whether the checker just moved can go on with the second die.
            goes_on = t1 >= second and facing[t1 - second] < 2 and not player[t1]
            if repeat and outside1 and not goes_on:
                continue  # it would only repeat plays of the first order
            board[s1] -= 1
            if t1 >= 0:
                board[t1] += 1
            hit1 = hit_bits[t1 + 6]
            code1 = code0 + delta1[s1] + hit1
            step1 = steps1[s1][hit1 != 0]
            if entering or not outside1:
                seconds = sources(second, outside1)
            elif repeat:
                seconds = [t1]
            else:
                seconds = from_start
                if player[s1] == 1:
                    seconds = [slot for slot in seconds if slot != s1]
                if goes_on:
                    seconds = [*seconds, t1]
            skip = repeat and t1 >= 0
            for s2 in seconds:
                if skip and s2 >= second and player[s2]:
                    continue
                hit2 = hit_bits[s2 - second + 6]
                if hit2 and code1 & hit2:  # that blot was hit by the first step
                    hit2 = 0
                code2 = code1 + delta2[s2] + hit2
                if code2 in found:
                    continue
                if not ways:
                    found[code2] = ((), (), used)
                    continue
                t2 = s2 - second
                board[s2] -= 1
                if t2 >= 0:
                    board[t2] += 1
                found[code2] = (tuple(board), (step1, steps2[s2][hit2 != 0]), used)
                board[s2] += 1
                if t2 >= 0:
                    board[t2] -= 1
            if not seconds and not found and code1 not in singles:
                singles[code1] = (tuple(board), (step1,), (first,)) if ways else ((), (), (first,))
            board[s1] += 1
            if t1 >= 0:
                board[t1] -= 1
    if found:
        return found
    higher = max(dice)
    return {key: way for key, way in singles.items() if way[2][0] == higher} or singles


def _search_same(
    board: list[int],
    code0: int,
    facing: Board,
    hit_bits: list[int],
    outside0: int,
    landing: list[int],
    bear_offs: Callable[[int], list[int]],
    dice: tuple[int, ...],
    ways: bool,
) -> Found:
    """Equal dice (a double, or one die): depth-first, keeping the deepest plays.

    Moving checkers in order of non-increasing origin loses no play (which points are
    open never changes, and a checker moved earlier from a higher point only helps later
    steps), so each step starts from a slot no higher than the previous one.
    """
    die = dice[0]
    count = len(dice)
    found: Found = {}
    deepest = [0]
    path: list[Step] = []
    delta, steps = _DELTA[die], _STEPS[die]
    lands_hit = hit_bits[6 - die : 31 - die]  # the hit bit of a step from each slot
    ascending = landing[::-1]
    is_landing = [False] * BAR_POINT
    for slot in landing:
        is_landing[slot] = True
    entry = [] if facing[BAR - die] > 1 else [BAR]

    def walk(depth: int, top: int, code: int, outside: int, movable: list[int] | None) -> None:
        """``movable``: the landing slots no higher than ``top`` that hold a checker,
        ascending, updated from the parent's rather than scanned for (``None``: not known
        yet, at the start and after entering from the bar)."""
        if board[BAR]:  # E1: enter first
            slots = entry
        else:
            if movable is None:
                movable = [slot for slot in ascending if board[slot]]
            slots = movable[::-1]
            if not outside:
                slots += [slot for slot in bear_offs(die) if slot <= top]
        if not slots:
            if depth:
                record(depth, code)
            return
        if depth + 1 < count:
            for slot in slots:
                hit = lands_hit[slot]
                if hit and code & hit:  # already hit by an earlier step
                    hit = 0
                to = slot - die
                board[slot] -= 1
                then: list[int] | None
                if movable is None:  # entering from the bar: only then is it still unknown
                    then = None
                elif to < 0:  # borne off: only bear-offs can follow
                    then = []
                else:
                    then = movable[: bisect_right(movable, slot)]
                    if not board[slot]:
                        then.pop()
                    if not board[to] and is_landing[to]:
                        insort(then, to)
                if to >= 0:
                    board[to] += 1
                if ways:
                    path.append(steps[slot][hit != 0])
                walk(depth + 1, slot, code + delta[slot] + hit, outside - (slot >= 6 > to), then)
                if ways:
                    path.pop()
                board[slot] += 1
                if to >= 0:
                    board[to] -= 1
            return
        if deepest[0] < count:
            found.clear()
            deepest[0] = count
        for slot in slots:
            hit = lands_hit[slot]
            if hit and code & hit:
                hit = 0
            key = code + delta[slot] + hit
            if key in found:
                continue
            if not ways:
                found[key] = ((), (), dice)
                continue
            to = slot - die
            board[slot] -= 1
            if to >= 0:
                board[to] += 1
            found[key] = (tuple(board), (*path, steps[slot][hit != 0]), dice)
            board[slot] += 1
            if to >= 0:
                board[to] -= 1

    def record(depth: int, code: int) -> None:
        if depth > deepest[0]:
            found.clear()
            deepest[0] = depth
        if depth == deepest[0] and code not in found:
            found[code] = (
                (tuple(board), tuple(path), dice[:depth]) if ways else ((), (), dice[:depth])
            )

    walk(0, BAR, code0, outside0, None)
    return found


# --- single steps, checked one at a time ------------------------------------------------


def _check_die(die: int) -> None:
    if isinstance(die, bool) or not isinstance(die, int) or not 1 <= die <= 6:
        raise InvalidDice(f"a die shows 1 to 6, not {die!r}")


def _step_problem(player: Board, opponent: Board, origin: int, die: int) -> IllegalPlay | None:
    """Why moving a checker from ``origin`` by ``die`` is illegal on its own, if it is."""
    if not player[origin - 1]:
        where = "on the bar" if origin == BAR_POINT else f"on point {origin}"
        return IllegalPlay(f"no checker of yours {where}", IllegalPlay.NO_CHECKER)
    if origin != BAR_POINT and player[BAR]:
        return IllegalPlay(
            f"{_name(origin)}: enter your checker(s) from the bar first (E1)", IllegalPlay.BAR_FIRST
        )
    to = origin - die
    if to > 0:
        if opponent[24 - to] > 1:
            return IllegalPlay(
                f"{_name(origin)}/{to}: point {to} is blocked "
                f"({opponent[24 - to]} opposing checkers)",
                IllegalPlay.BLOCKED,
            )
        return None
    outside = sum(player[6:])
    if outside:
        return IllegalPlay(
            f"{origin}/off: cannot bear off yet, {outside} checker(s) are not in your home "
            "board (F1)",
            IllegalPlay.CANNOT_BEAR_OFF,
        )
    if to < 0 and any(player[origin:6]):
        return IllegalPlay(
            f"{origin}/off: a {die} bears off from point {origin} only when no checker stands "
            "on a higher point (F3, F4)",
            IllegalPlay.WRONG_DICE,
        )
    return None


def _move(player: Board, opponent: Board, origin: int, die: int) -> tuple[Board, Board, bool]:
    """The boards after a step already known to be legal, and whether it hit."""
    mine = list(player)
    mine[origin - 1] -= 1
    to = origin - die
    if to <= 0:
        return tuple(mine), opponent, False
    mine[to - 1] += 1
    if opponent[24 - to] != 1:
        return tuple(mine), opponent, False
    theirs = list(opponent)
    theirs[24 - to] = 0
    theirs[BAR] += 1
    return tuple(mine), tuple(theirs), True


# --- whole plays given as steps ----------------------------------------------------------


def _segment(step: Sequence[int]) -> tuple[int, int]:
    """An (origin, destination) pair, checked for what no position can make legal."""
    origin, destination = int(step[0]), int(step[1])
    if not 1 <= origin <= BAR_POINT or not OFF <= destination < BAR_POINT:
        raise IllegalPlay(
            f"{origin}/{destination}: points run 1..24, with 25 for the bar and 0 for off",
            IllegalPlay.NOT_LEGAL,
        )
    if destination >= origin:
        raise IllegalPlay(
            f"{_name(origin)}/{_name(destination)}: checkers move forward, from higher to "
            "lower points (B3)",
            IllegalPlay.BACKWARDS,
        )
    return origin, destination


# For each position a play's segments reach: its fewest hits on unnamed points, and the
# steps and dice of one way to reach it with that many.
Ways = dict[Position, tuple[int, tuple[Step, ...], tuple[int, ...]]]


def _realizations(
    position: Position, dice: tuple[int, ...], segments: list[tuple[int, int]]
) -> Ways:
    """Every position the segments can reach by legal single-die steps, in any order and
    split any way."""
    found: Ways = {}

    def walk(
        player: Board,
        opponent: Board,
        dice_left: tuple[int, ...],
        todo: tuple[tuple[int, int], ...],
        steps: tuple[Step, ...],
        used: tuple[int, ...],
        unnamed_hits: int,
    ) -> None:
        if not todo:
            result = Position(player, opponent)
            if result not in found or unnamed_hits < found[result][0]:
                found[result] = (unnamed_hits, steps, used)
            return
        for i, (origin, destination) in enumerate(todo):
            if (origin, destination) in todo[:i]:
                continue
            for die in set(dice_left):
                to = max(origin - die, OFF)
                if to < destination or _step_problem(player, opponent, origin, die):
                    continue
                mine, theirs, hit = _move(player, opponent, origin, die)
                rest = todo[:i] + todo[i + 1 :]
                if to != destination:
                    rest += ((to, destination),)
                left = list(dice_left)
                left.remove(die)
                walk(
                    mine,
                    theirs,
                    tuple(left),
                    rest,
                    (*steps, Step(origin, to, hit)),
                    (*used, die),
                    unnamed_hits + (hit and to != destination),
                )

    walk(position.player, position.opponent, dice, tuple(segments), (), (), 0)
    return found


def _played_in_order(
    position: Position, dice: tuple[int, ...], segments: list[tuple[int, int]]
) -> Play | None:
    """The play of ``segments`` that each take one die, played in the order written (as a
    game's record writes them); None when one spans dice or bears off (which die it
    takes is a choice), or the order given cannot be played. Such segments can be
    played only so, and reach one position whatever their order: the search
    (``_realizations``) would find this play first."""
    player, opponent = position.player, position.opponent
    left = list(dice)
    steps: list[Step] = []
    used: list[int] = []
    for origin, destination in segments:
        die = origin - destination
        if destination == OFF or die not in left or _step_problem(player, opponent, origin, die):
            return None
        player, opponent, hit = _move(player, opponent, origin, die)
        left.remove(die)
        steps.append(Step(origin, destination, hit))
        used.append(die)
    return Play(tuple(steps), Position(player, opponent), tuple(used))


def _too_few_dice(dice: tuple[int, ...], legal: Sequence[Play], found: Ways) -> IllegalPlay:
    """The error for a play made of legal steps that breaks the compulsory-play rule (M5)."""
    most = len(legal[0].dice_used)
    played = max(len(way[2]) for way in found.values())
    roll = _roll_text(dice)
    if played < most:
        if len(dice) == 4:
            return IllegalPlay(
                f"{most} of the four {dice[0]}s can be played and must be (M5), not {played}",
                IllegalPlay.MUST_USE_MORE,
            )
        return IllegalPlay(
            f"both dice of {roll} can be played, so both must be (M5)", IllegalPlay.MUST_USE_BOTH
        )
    return IllegalPlay(
        f"only one die of {roll} can be played and the {max(dice)} can: the higher die must "
        "be played (M5)",
        IllegalPlay.HIGHER_DIE,
    )


def _explain(
    position: Position, dice: tuple[int, ...], segments: list[tuple[int, int]]
) -> IllegalPlay:
    """Why the segments cannot be played at all: replay them as typed (a checker from the
    bar first, a checker's earlier leg before its later one) and report the first that
    fails. A segment takes no more dice than leave one for each segment after it, so a
    wrong first step (``13/9 8/7`` with 3-1) is named rather than the one after it."""
    player, opponent, dice_left = position.player, position.opponent, list(dice)
    for (origin, destination), budget, pending in typed_segments(segments, dice_left):
        text = f"{_name(origin)}/{_name(destination)}"
        fitting = _orders(dice_left, origin, destination)
        problems = []
        for order in (order for order in fitting if len(order) <= budget):
            mine, theirs, point = player, opponent, origin
            for die in order:
                problem = _step_problem(mine, theirs, point, die)
                if problem:
                    problems.append(problem)
                    break
                mine, theirs, _ = _move(mine, theirs, point, die)
                point = max(point - die, OFF)
            else:
                break  # this segment can be played: play it and go on to the next
        else:
            if problems:
                return _worst(problems)
            if not dice_left:
                return IllegalPlay(f"{text}: no dice left to play it", IllegalPlay.WRONG_DICE)
            left = " and ".join(map(str, dice_left))
            if fitting:
                rest = " ".join(f"{_name(o)}/{_name(d)}" for o, d in pending)
                return IllegalPlay(
                    f"{text} takes the dice left ({left}) and leaves none for {rest}",
                    IllegalPlay.WRONG_DICE,
                )
            return IllegalPlay(
                f"{text}: the dice left ({left}) do not take a checker from there to there",
                IllegalPlay.WRONG_DICE,
            )
        player, opponent = mine, theirs
        for die in order:
            dice_left.remove(die)
    return IllegalPlay("these steps do not make a legal play", IllegalPlay.NOT_LEGAL)


def typed_segments(
    segments: Sequence[tuple[int, int]], dice_left: list[int]
) -> Iterator[tuple[tuple[int, int], int, list[tuple[int, int]]]]:
    """The segments of a typed play in the order they are replayed (``next_typed_segment``),
    each with the most dice it may take (one left for every segment after it, counted
    from ``dice_left`` as the caller spends them) and the segments still to come."""
    pending = list(segments)
    while pending:
        segment = next_typed_segment(pending)
        pending.remove(segment)
        yield segment, max(1, len(dice_left) - len(pending)), pending


def next_typed_segment(pending: list[tuple[int, int]]) -> tuple[int, int]:
    """The segment to replay next: from the bar if one is (a checker on the bar enters
    first), else the first typed whose origin is not where another pending segment lands
    (``18/13 24/18``: the 24/18 first)."""
    for origin, destination in pending:
        if origin == BAR_POINT:
            return origin, destination
    landings = [destination for _, destination in pending]
    for segment in pending:
        if segment[0] not in landings:
            return segment
    return pending[0]


def _orders(dice: list[int], origin: int, destination: int) -> list[tuple[int, ...]]:
    """The orders of some of ``dice`` that take a checker from origin exactly to
    destination (or off, for a bear-off), touching down only before it."""
    return [
        order
        for count in range(1, len(dice) + 1)
        for order in sorted(set(permutations(dice, count)), reverse=True)
        if _fits(origin, destination, order)
    ]


def _fits(origin: int, destination: int, order: tuple[int, ...]) -> bool:
    """Whether dice played in ``order`` take a checker from origin exactly to destination
    (or off, for a bear-off), touching down only before it."""
    point = origin
    for die in order:
        if point <= destination:
            return False
        point -= die
    return point == destination or (destination == OFF and point < 0)


_SEVERITY = (
    IllegalPlay.NO_CHECKER,
    IllegalPlay.BAR_FIRST,
    IllegalPlay.CANNOT_BEAR_OFF,
    IllegalPlay.BLOCKED,
    IllegalPlay.WRONG_DICE,
)


def _worst(problems: list[IllegalPlay]) -> IllegalPlay:
    """One error for all the ways a segment failed: the first reason in ``_SEVERITY``,
    its distinct messages joined (``24/13`` may be blocked on 18 and on 19)."""
    reason = min((p.reason for p in problems), key=_SEVERITY.index)
    messages = dict.fromkeys(str(p) for p in problems if p.reason == reason)
    return IllegalPlay("; ".join(messages), reason)


def _name(point: int) -> str:
    return "bar" if point == BAR_POINT else "off" if point == OFF else str(point)


def _roll_text(dice: tuple[int, ...]) -> str:
    return f"{dice[0]}-{dice[-1]}"
