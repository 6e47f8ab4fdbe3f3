"""Legal plays of the tavli games: one generator for the five, driven by their rules.

``stage_plays(rules, board, dice)`` lists every distinct legal play of some dice (two
different dice, or one to four of a kind): as many dice as can be played and the higher
die when only one of two can (TV3 = M5), one play per distinct board reached (pins,
bar and waiting checkers included), then fevga's unblocking duty (FV5). A turn may have
several such stages (gul bara's run, acey-deucey's 1-2): ``backgammon.tavli.turns``.
Where plakoto's mother is in reach (PL5: the game ends the moment a checker pins it, and
the rest of the roll is not played) the plays are found step by step instead
(``_mother_plays``): rare, and the fast search cannot stop in the middle of a play.

What differs between the games is data of ``TavliRules``: the facing points, what
landing on a single opposing checker does (hit, pin, or nothing: the point is held),
entering from the bar or from the waiting checkers, and an optional rule on each step
(fevga's FV3 and FV4). Which points are open to the mover cannot change during its
turn in any of the five (a hit blot's point stays open, a pinned point stays closed, a
held point stays held), so the open points are found once per call; the search is
depth-first over the dice on a mutable list of slots (0 off, 1..24, 25 bar, 26
waiting), keyed by an int a byte a slot with the blots hit so far as bits above, and
prunes a board met again at the same depth. In plakoto the pins after a play follow
from the checkers (a point holding both sides is a pin, and mine were pinned before), so
the key needs no pin bits.

``apply_step`` and ``check_play`` are the slow path for a play entered by a player:
each refusal names its rule (``IllegalPlay.PINNED_POINT``, ``RUNNER_FIRST``...).
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Sequence
from itertools import permutations
from typing import NamedTuple

from backgammon.errors import IllegalPlay, InvalidDice
from backgammon.moves import BAR_POINT, OFF, Step, typed_segments
from backgammon.tavli.board import POINTS, Side, TavliBoard
from backgammon.tavli.rules import (
    BAR_SLOT,
    WAITING_SLOT,
    Capture,
    StepRule,
    TavliRules,
    mother_in_reach,
    mother_outcome,
)


class TavliPlay(NamedTuple):
    """A stage of a turn: its steps in playing order, the board after it (still seen by
    the mover) and the dice it used, in the order of the steps."""

    steps: tuple[Step, ...]
    result: TavliBoard
    dice_used: tuple[int, ...]


# Every stage a turn can have, in any order, to the order the search takes it in.
_STAGES: dict[tuple[int, ...], tuple[int, ...]] = {
    **{(a,) * n: (a,) * n for a in range(1, 7) for n in range(1, 5)},
    **{(a, b): (max(a, b), min(a, b)) for a in range(1, 7) for b in range(1, 7) if a != b},
}


def check_dice(dice: Sequence[int]) -> tuple[int, ...]:
    """``dice`` as a stage's dice (higher die first), or ``InvalidDice``."""
    dice = tuple(dice)
    stage = _STAGES.get(dice) if all(type(d) is int for d in dice) else None
    if stage is None:
        raise InvalidDice(
            f"a stage is two different dice or one to four of a kind, each 1..6, not {list(dice)}"
        )
    return stage


# --- the search --------------------------------------------------------------------------

_SLOTS = WAITING_SLOT + 1
_HITS = 8 * _SLOTS  # the hit bits: bit _HITS + p for a blot hit on my point p
_UNIT = tuple(1 << 8 * slot for slot in range(_SLOTS))


def _move_table(die: int) -> list[tuple[int, int, Step, Step]]:
    """For each origin slot: where a ``die`` lands (25 - die from the bar or the waiting
    checkers, 0 for a bear-off), the change to the int key, and the step unhit and hit."""
    table = []
    for origin in range(_SLOTS):
        to = 25 - die if origin >= BAR_SLOT else max(origin - die, OFF)
        shown = min(origin, BAR_POINT)
        table.append((to, _UNIT[to] - _UNIT[origin], Step(shown, to, False), Step(shown, to, True)))
    return table


_MOVES = [[] if die == 0 else _move_table(die) for die in range(7)]
_FROM = [range(POINTS, die, -1) for die in range(7)]  # the points a die moves from, 24 down
_NO_HITS = [0] * (POINTS + 1)
_HIT_BIT = [0, *(1 << _HITS + point for point in range(1, POINTS + 1))]
# The order of origins in a double's search: the bar first (E1, AD3), then the waiting
# checkers, then the points from 24 down.
_RANK = (*range(BAR_SLOT), BAR_SLOT + 2, WAITING_SLOT)

# Each distinct result, by its int key (the mover's slots a byte each, the blots hit as
# bits above): one way to reach it, its steps and the dice they used.
_Found = dict[int, tuple[tuple[Step, ...], tuple[int, ...]]]
_BOARD = (1 << _HITS) - 1
_points = struct.Struct(f"{BAR_SLOT}B").unpack_from  # slots 0..24 of a key's bytes, as ints


def _slots(key: int) -> bytes:
    """The mover's slots (0 off, 1..24, 25 bar, 26 waiting) of a key."""
    return (key & _BOARD).to_bytes(_SLOTS, "little")


# The values are named tuples, built here by tuple.__new__ in one call: the generator
# makes one board a play.
_tuple = tuple.__new__


def _side(
    points: tuple[int, ...], bar: int, waiting: int, pinned: tuple[int, ...], roll: int
) -> Side:
    return _tuple(Side, (points, bar, waiting, pinned, roll))


def stage_plays(rules: TavliRules, board: TavliBoard, dice: Sequence[int]) -> list[TavliPlay]:
    """Every distinct legal play of ``dice`` from ``board`` (the mover's view); ``[]``
    when none of them can be played."""
    dice = check_dice(dice)
    if rules.mother and rules.mother_at_once and mother_in_reach(board, dice):
        return _mother_plays(rules, board, dice)
    found = _search(rules, board, dice)
    mine = board.mine
    pinned, roll = mine.pinned, mine.roll
    capture = rules.capture
    pinnable = _pinnable(rules, board) if capture is Capture.PIN else []
    # The opponent after each set of hits (none: as it was), or of pins.
    opponents: dict[int, Side] = {} if pinnable else {0: board.opponent}
    plays: list[TavliPlay] = []
    append = plays.append
    if capture is Capture.PIN:
        for key, (steps, used) in found.items():
            slots = (key & _BOARD).to_bytes(_SLOTS, "little")
            pins = sum(1 << p for p in pinnable if slots[p])
            opponent = opponents.get(pins)
            if opponent is None:
                opponent = opponents[pins] = _opponent_after(rules, board, pins, pinnable)
            side = _tuple(Side, (_points(slots), 0, 0, pinned, roll))
            result = _tuple(TavliBoard, (side, opponent))
            if opponent.pinned != board.opponent.pinned:
                steps = _pin_marks(rules, board, steps, result)
            append(_tuple(TavliPlay, (steps, result, used)))
        return plays
    unchanged = board.opponent
    for key, (steps, used) in found.items():
        slots = (key & _BOARD).to_bytes(_SLOTS, "little")
        opponent = unchanged
        hit = key >> _HITS
        if hit:
            opponent = opponents.get(hit, unchanged)
            if opponent is unchanged:
                opponent = opponents[hit] = _opponent_after(rules, board, hit, pinnable)
        side = _tuple(Side, (_points(slots), slots[BAR_SLOT], slots[WAITING_SLOT], pinned, roll))
        append(_tuple(TavliPlay, (steps, _tuple(TavliBoard, (side, opponent)), used)))
    return plays


def _mother_plays(rules: TavliRules, board: TavliBoard, dice: tuple[int, ...]) -> list[TavliPlay]:
    """Plakoto's plays where a step can end the game (PL5), found one step at a time.

    A play that ends the game stops at the step that ends it, whatever dice are left,
    and is legal beside the others. The others are the plays of the most dice (TV3 = M5)
    among those that never end the game, counted as if the ending steps were not there:
    so an ending is never compulsory, unless every step the dice allow ends the game
    (then one of those must be played: no side skips a turn while it can move)."""
    ending: dict[TavliBoard, TavliPlay] = {}
    lasting: dict[TavliBoard, TavliPlay] = {}
    seen: set[tuple[TavliBoard, tuple[int, ...]]] = set()

    def play(steps: tuple[Step, ...], result: TavliBoard, used: tuple[int, ...]) -> TavliPlay:
        return TavliPlay(_pin_marks(rules, board, steps, result), result, used)

    def walk(
        current: TavliBoard, left: tuple[int, ...], steps: tuple[Step, ...], used: tuple[int, ...]
    ) -> None:
        moved = False
        for origin in range(POINTS, 0, -1) if left else ():
            die = left[0]
            if step_problem(rules, current, origin, die) is not None:
                continue
            after, step = _moved(rules, current, origin, die)
            if mother_outcome(after) is not None:
                ending.setdefault(after, play((*steps, step), after, (*used, die)))
                continue
            moved = True
            if (after, left[1:]) not in seen:
                seen.add((after, left[1:]))
                walk(after, left[1:], (*steps, step), (*used, die))
        if not moved and steps:
            lasting.setdefault(current, play(steps, current, used))

    for order in dict.fromkeys((dice, dice[::-1])):
        walk(board, order, (), ())
    most = max((len(play.steps) for play in lasting.values()), default=0)
    kept = [play for play in lasting.values() if len(play.steps) == most]
    if most == 1 and len(dice) == 2 and dice[0] != dice[1]:
        kept = [play for play in kept if play.dice_used == dice[:1]] or kept
    return kept + list(ending.values())


def _pinnable(rules: TavliRules, board: TavliBoard) -> list[int]:
    """Plakoto: my points with a single opposing checker that does not pin one of mine;
    those I leave a checker on at the end of my play hold it pinned."""
    theirs, table, pinned = board.opponent.points, rules.facing_table, board.mine.pinned
    return [p for p in range(1, POINTS + 1) if theirs[table[p]] == 1 and p not in pinned]


def _opponent_after(rules: TavliRules, board: TavliBoard, key: int, pinnable: list[int]) -> Side:
    """The opponent once the mover's play hit the blots on the points whose bits ``key``
    has (portes, acey-deucey) or, in plakoto, left checkers on those pinnable points."""
    opponent = board.opponent
    table = rules.facing_table
    if rules.capture is Capture.PIN:
        pins = tuple(sorted(table[p] for p in pinnable if key >> p & 1))
        if pins == opponent.pinned:
            return opponent
        return _side(opponent.points, opponent.bar, opponent.waiting, pins, opponent.roll)
    hits = key
    if not hits:
        return opponent
    points = list(opponent.points)
    count = 0
    while hits:
        point = (hits & -hits).bit_length() - 1
        points[table[point]] -= 1
        count += 1
        hits &= hits - 1
    return _side(tuple(points), opponent.bar + count, opponent.waiting, (), opponent.roll)


def _pin_marks(
    rules: TavliRules, board: TavliBoard, steps: tuple[Step, ...], result: TavliBoard
) -> tuple[Step, ...]:
    """Plakoto's steps with a star (``hit``) only where the play leaves a new pin, on the
    first step landing there: a checker pinned in passing is free again at once."""
    new = {rules.facing_table[point] for point in result.opponent.pinned}
    new -= {rules.facing_table[point] for point in board.opponent.pinned}
    marked = []
    for step in steps:
        pins = step.destination in new
        new.discard(step.destination)
        marked.append(step._replace(hit=pins))
    return tuple(marked)


def _search(rules: TavliRules, board: TavliBoard, dice: tuple[int, ...]) -> _Found:
    """Map each distinct result, as an int key, to the mover's slots and one way there."""
    mine = board.mine
    slots = [*mine.points, mine.bar, mine.waiting]
    start = tuple(slots)
    theirs = board.opponent.points
    # The opponent's checkers on each of my points 1..24 (see ``facing``).
    if rules.same_direction:
        facing_count = [0, *theirs[13:], *theirs[1:13]]
    else:
        facing_count = [0, *theirs[24:0:-1]]
    pinned = mine.pinned
    capture = rules.capture
    if capture is Capture.NONE:
        open_ = [count == 0 for count in facing_count]
    else:
        open_ = [count < 2 for count in facing_count]
        for point in pinned:
            open_[point] = False
    open_[0] = False
    hit_bits = _NO_HITS
    if capture is Capture.HIT and 1 in facing_count:
        hit_bits = [_HIT_BIT[p] if count == 1 else 0 for p, count in enumerate(facing_count)]
    may_bear_off = not any(point <= 6 for point in pinned)  # PL4
    exact = rules.exact_bear_off
    rule = rules.step_rule(mine) if rules.step_rule is not None else None
    # The board points each die moves a checker from onto an open point, highest first.
    movers = {
        die: [p for p in _FROM[die] if open_[p - die] and p not in pinned]
        if pinned
        else [p for p in _FROM[die] if open_[p - die]]
        for die in set(dice)
    }

    def bear_off(die: int) -> list[int]:
        """The point a die bears a checker off from, once every checker is home."""
        if not may_bear_off:
            return []
        if slots[die]:  # F2
            return [die]
        if not exact and not any(slots[die + 1 : 7]):  # F3, F4 (AD6: exact only)
            for point in range(die - 1, 0, -1):
                if slots[point]:
                    return [point]
        return []

    def origins(die: int, outside: int) -> list[int]:
        if slots[BAR_SLOT]:  # E1, AD3: enter first
            return [BAR_SLOT] if open_[25 - die] else []
        found_here = [point for point in movers[die] if slots[point]]
        if not outside:
            found_here += bear_off(die)
        if slots[WAITING_SLOT] and open_[25 - die]:  # AD1, AD2
            found_here.append(WAITING_SLOT)
        return found_here

    code0 = int.from_bytes(bytes(slots), "little")
    outside0 = sum(slots[7:])
    if len(dice) == 2 and dice[0] != dice[1]:
        if rule is None and not start[BAR_SLOT]:
            found = _two_free_dice(slots, code0, outside0, dice, movers, open_, bear_off, hit_bits)
        else:
            found = _two_dice(slots, code0, outside0, dice, origins, hit_bits, rule)
    elif rule is None:
        enters = open_[25 - dice[0]]
        found = _ordered_same_dice(
            slots, code0, outside0, dice, movers[dice[0]], enters, bear_off, hit_bits
        )
    else:
        found = _same_dice(slots, code0, outside0, dice, origins, hit_bits, rule)
    if rules.duty is not None and found:
        wall = rules.duty(board)
        if wall:  # FV5: open the wall if any play of the most dice can
            opened = {
                key: way for key, way in found.items() if not all(_slots(key)[p] for p in wall)
            }
            found = opened or found
    return found


def _two_dice(
    slots: list[int],
    code0: int,
    outside0: int,
    dice: tuple[int, ...],
    origins: Callable[[int, int], list[int]],
    hit_bits: list[int],
    rule: StepRule | None,
) -> _Found:
    """Two different dice, with a checker to enter first or a step rule (fevga's FV3,
    FV4) that makes the order matter: both orders in full, then one die alone, the
    higher if it can be played (TV3 = M5)."""
    found: _Found = {}
    singles: _Found = {}
    for first, second in (dice, dice[::-1]):
        moves1, moves2 = _MOVES[first], _MOVES[second]
        used = (first, second)
        for s1 in origins(first, outside0):
            to1, delta1, plain1, hitting1 = moves1[s1]
            if rule is not None and s1 < BAR_SLOT and rule(slots, s1, to1):
                continue
            hit1 = hit_bits[to1]
            code1 = code0 + delta1 + hit1
            step1 = hitting1 if hit1 else plain1
            slots[s1] -= 1
            slots[to1] += 1
            seconds = origins(second, outside0 - (s1 > 6 >= to1))
            played = _second_steps(
                found, seconds, moves2, hit_bits, code1, step1, used, slots, rule
            )
            if not played and not found and code1 not in singles:
                singles[code1] = ((step1,), (first,))
            slots[s1] += 1
            slots[to1] -= 1
    return _most_dice(found, singles, dice)


def _second_steps(
    found: _Found,
    seconds: list[int],
    moves: list[tuple[int, int, Step, Step]],
    hit_bits: list[int],
    code: int,
    step: Step,
    used: tuple[int, ...],
    slots: list[int],
    rule: StepRule | None,
) -> bool:
    """Record the plays made of ``step`` (reaching ``code``) and a second step from each
    of ``seconds``; whether any second step was legal."""
    played = False
    for origin in seconds:
        to, delta, plain, hitting = moves[origin]
        if rule is not None and origin < BAR_SLOT and rule(slots, origin, to):
            continue
        played = True
        hit = hit_bits[to]
        if hit and code & hit:  # hit already by the first step
            hit = 0
        key = code + delta + hit
        if key not in found:
            found[key] = ((step, hitting if hit else plain), used)
    return played


def _most_dice(found: _Found, singles: _Found, dice: tuple[int, ...]) -> _Found:
    """Both dice if they can be played; else one, the higher if it can be (TV3 = M5)."""
    if found:
        return found
    higher = {key: way for key, way in singles.items() if way[1][0] == dice[0]}
    return higher or singles


def _two_free_dice(
    slots: list[int],
    code0: int,
    outside0: int,
    dice: tuple[int, ...],
    movers: dict[int, list[int]],
    open_: list[bool],
    bear_off: Callable[[int], list[int]],
    hit_bits: list[int],
) -> _Found:
    """``_two_dice`` with nothing to enter first and no step rule, so the order of two
    steps by different checkers does not matter (the open points never change).

    Away from the bear-off the second die's origins are those of the starting board,
    give or take the checker just moved, so they are not searched again. In the second
    order, a second step that could have been played first (its checker stood there from
    the start; no bear-off) only repeats a play of the first order, so only the checker
    just moved, and bear-offs, are tried.
    """
    found: _Found = {}
    singles: _Found = {}
    start = tuple(slots)
    for first, second in (dice, dice[::-1]):
        repeat = first != dice[0]
        moves1, moves2 = _MOVES[first], _MOVES[second]
        used = (first, second)
        movable = set(movers[second])
        enters = bool(start[WAITING_SLOT]) and open_[25 - second]
        from_start = [p for p in movers[second] if start[p]]
        if enters:
            from_start.append(WAITING_SLOT)
        firsts = [p for p in movers[first] if start[p]]
        if not outside0:
            firsts += bear_off(first)
        if start[WAITING_SLOT] and open_[25 - first]:
            firsts.append(WAITING_SLOT)
        for s1 in firsts:
            to1, delta1, plain1, hitting1 = moves1[s1]
            hit1 = hit_bits[to1]
            code1 = code0 + delta1 + hit1
            step1 = hitting1 if hit1 else plain1
            slots[s1] -= 1
            slots[to1] += 1
            outside1 = outside0 - (s1 > 6 >= to1)
            goes_on = to1 in movable and not start[to1]  # the checker moved, from a new point
            if repeat:
                seconds = [to1] if goes_on else []
            else:
                seconds = [p for p in from_start if slots[p]] if start[s1] == 1 else from_start
                if goes_on:
                    seconds = [*seconds, to1]
            if not outside1:
                seconds = [*seconds, *bear_off(second)]
            _second_steps(found, seconds, moves2, hit_bits, code1, step1, used, slots, None)
            if (
                not seconds
                and not found
                and code1 not in singles
                and not _any_second(slots, second, outside1, movers, open_, bear_off)
            ):
                singles[code1] = ((step1,), (first,))
            slots[s1] += 1
            slots[to1] -= 1
    return _most_dice(found, singles, dice)


def _any_second(
    slots: list[int],
    die: int,
    outside: int,
    movers: dict[int, list[int]],
    open_: list[bool],
    bear_off: Callable[[int], list[int]],
) -> bool:
    """Whether ``die`` can be played at all on ``slots`` (the pruned search may have
    skipped a second step that exists)."""
    if any(slots[p] for p in movers[die]):
        return True
    if slots[WAITING_SLOT] and open_[25 - die]:
        return True
    return not outside and bool(bear_off(die))


def _ordered_same_dice(
    slots: list[int],
    code0: int,
    outside0: int,
    dice: tuple[int, ...],
    movers: list[int],
    enters: bool,
    bear_off: Callable[[int], list[int]],
    hit_bits: list[int],
) -> _Found:
    """``_same_dice`` without a step rule: each step from an origin no higher than the
    one before (the bar first, then the waiting checkers, then the points from 24 down),
    the candidates found inline."""
    die = dice[0]
    count = len(dice)
    moves = _MOVES[die]
    found: _Found = {}
    deepest = [0]
    path: list[Step] = []
    seen: set[int] = set()
    entry = [BAR_SLOT] if enters else []

    def walk(depth: int, top: int, code: int, outside: int) -> None:
        if slots[BAR_SLOT]:
            candidates = entry
        else:
            candidates = [p for p in movers if p <= top and slots[p]]
            if top >= WAITING_SLOT and enters and slots[WAITING_SLOT]:
                candidates.append(WAITING_SLOT)
            if not outside:
                candidates += [p for p in bear_off(die) if p <= top]
        if not candidates:
            if depth >= deepest[0] and depth:
                if depth > deepest[0]:
                    found.clear()
                    deepest[0] = depth
                if code not in found:
                    found[code] = (tuple(path), dice[:depth])
            return
        last = depth + 1 == count
        if last and deepest[0] < count:
            found.clear()
            deepest[0] = count
        for origin in candidates:
            to, delta, plain, hitting = moves[origin]
            hit = hit_bits[to]
            if hit and code & hit:  # hit already by an earlier step
                hit = 0
            new = code + delta + hit
            if last:
                if new not in found:
                    found[new] = ((*path, hitting if hit else plain), dice)
                continue
            tag = new * 5 + depth
            if tag in seen:
                continue
            seen.add(tag)
            slots[origin] -= 1
            slots[to] += 1
            path.append(hitting if hit else plain)
            walk(depth + 1, _RANK[origin], new, outside - (origin > 6 >= to))
            path.pop()
            slots[origin] += 1
            slots[to] -= 1

    walk(0, _RANK[BAR_SLOT], code0, outside0)
    return found


def _same_dice(
    slots: list[int],
    code0: int,
    outside0: int,
    dice: tuple[int, ...],
    origins: Callable[[int, int], list[int]],
    hit_bits: list[int],
    rule: StepRule,
) -> _Found:
    """One to four of a kind under a step rule (fevga's FV3, FV4), which makes the order
    of the steps matter: depth-first over every order, keeping the deepest plays, a
    board met again at the same depth pruned."""
    die = dice[0]
    count = len(dice)
    moves = _MOVES[die]
    found: _Found = {}
    deepest = [0]
    path: list[Step] = []
    seen: set[int] = set()

    def walk(depth: int, code: int, outside: int) -> None:
        moved = False
        for origin in origins(die, outside):
            to, delta, plain, hitting = moves[origin]
            if origin < BAR_SLOT and rule(slots, origin, to):
                continue
            hit = hit_bits[to]
            if hit and code & hit:  # hit already by an earlier step
                hit = 0
            new = code + delta + hit
            moved = True
            if depth + 1 == count:
                if deepest[0] < count:
                    found.clear()
                    deepest[0] = count
                if new not in found:
                    found[new] = ((*path, hitting if hit else plain), dice)
                continue
            tag = new * 5 + depth
            if tag in seen:
                continue
            seen.add(tag)
            slots[origin] -= 1
            slots[to] += 1
            path.append(hitting if hit else plain)
            walk(depth + 1, new, outside - (origin > 6 >= to))
            path.pop()
            slots[origin] += 1
            slots[to] -= 1
        if not moved and depth >= deepest[0] and depth:
            if depth > deepest[0]:
                found.clear()
                deepest[0] = depth
            if code not in found:
                found[code] = (tuple(path), dice[:depth])

    walk(0, code0, outside0)
    return found


# --- single steps, checked one at a time ---------------------------------------------------


def step_problem(rules: TavliRules, board: TavliBoard, origin: int, die: int) -> IllegalPlay | None:
    """Why moving a checker from ``origin`` (25: the bar, or the waiting checkers) by
    ``die`` is illegal on its own, if it is (the compulsory-play rule is about whole
    plays: ``check_play``)."""
    mine = board.mine
    if not 1 <= origin <= BAR_POINT:
        return IllegalPlay(f"no point {origin} to move from (1..24, 25 = bar)")
    if origin == BAR_POINT:
        if not (mine.bar or mine.waiting):
            return IllegalPlay("you have no checker to enter", IllegalPlay.NO_CHECKER)
        to = 25 - die
        if _facing(rules, board, to) > 1:
            return IllegalPlay(
                f"bar/{to}: cannot enter on {to}, the opponent holds it", IllegalPlay.ENTRY_HELD
            )
        return None
    if not mine.points[origin]:
        return IllegalPlay(f"no checker of yours on point {origin}", IllegalPlay.NO_CHECKER)
    if mine.bar:
        return IllegalPlay(
            f"{origin}: enter your checker(s) from the bar first (E1, AD3)", IllegalPlay.BAR_FIRST
        )
    if origin in mine.pinned:
        return IllegalPlay(
            f"{origin}: that checker is pinned and cannot move until the checker pinning it "
            "leaves (PL3)",
            IllegalPlay.PINNED_CHECKER,
        )
    to = origin - die
    if to > 0:
        problem = _landing_problem(rules, board, origin, to)
    else:
        problem = _bear_off_problem(rules, mine, origin, die)
    rule = rules.step_rule(mine) if rules.step_rule is not None else None
    if problem is None and rule is not None:
        reason = rule([*mine.points, mine.bar, mine.waiting], origin, max(to, OFF))
        if reason is not None:
            problem = IllegalPlay(_STEP_RULE_TEXT[reason].format(origin, max(to, OFF)), reason)
    return problem


_STEP_RULE_TEXT = {
    IllegalPlay.RUNNER_FIRST: (
        "{0}/{1}: until your first checker has passed the opponent's start (your 11 or "
        "lower), it alone may move (FV3)"
    ),
    IllegalPlay.START_QUARTER: (
        "{0}/{1}: that would hold all six points of your starting quarter (19 to 24), which "
        "you may never do (FV4)"
    ),
}


def _facing(rules: TavliRules, board: TavliBoard, point: int) -> int:
    """The opponent's checkers on my ``point``."""
    return board.opponent.points[rules.facing_table[point]]


def _landing_problem(
    rules: TavliRules, board: TavliBoard, origin: int, to: int
) -> IllegalPlay | None:
    opposing = _facing(rules, board, to)
    text = f"{origin}/{to}"
    if rules.capture is Capture.NONE and opposing:
        return IllegalPlay(
            f"{text}: the opponent holds point {to}; one checker holds a point (FV2)",
            IllegalPlay.HELD_POINT,
        )
    if rules.capture is Capture.PIN and to in board.mine.pinned:
        return IllegalPlay(
            f"{text}: the opponent pins your checker on {to}; no checker of yours may land "
            "there (PL2)",
            IllegalPlay.PINNED_POINT,
        )
    if opposing > 1:
        return IllegalPlay(
            f"{text}: point {to} is blocked ({opposing} opposing checkers)", IllegalPlay.BLOCKED
        )
    return None


def _bear_off_problem(rules: TavliRules, mine: Side, origin: int, die: int) -> IllegalPlay | None:
    outside = sum(mine.points[7:]) + mine.bar + mine.waiting
    if outside:
        return IllegalPlay(
            f"{origin}/off: cannot bear off yet, {outside} checker(s) are not in your home "
            "board (F1, AD2)",
            IllegalPlay.CANNOT_BEAR_OFF,
        )
    if mine.pinned:
        return IllegalPlay(
            f"{origin}/off: cannot bear off while a checker of yours is pinned (PL4)",
            IllegalPlay.CANNOT_BEAR_OFF,
        )
    if origin < die and rules.exact_bear_off:
        return IllegalPlay(
            f"{origin}/off: a {die} bears off from point {die} only (exact numbers, AD6)",
            IllegalPlay.WRONG_DICE,
        )
    if origin < die and any(mine.points[origin + 1 : 7]):
        return IllegalPlay(
            f"{origin}/off: a {die} bears off from point {origin} only when no checker stands "
            "on a higher point (F3, F4)",
            IllegalPlay.WRONG_DICE,
        )
    return None


def apply_step(
    rules: TavliRules, board: TavliBoard, origin: int, die: int
) -> tuple[TavliBoard, Step]:
    """The board after moving a checker from ``origin`` (25: entering) by ``die``, and the
    step; ``IllegalPlay`` if the step is illegal on its own (``step_problem``)."""
    problem = step_problem(rules, board, origin, die)
    if problem is not None:
        raise problem
    return _moved(rules, board, origin, die)


def _moved(rules: TavliRules, board: TavliBoard, origin: int, die: int) -> tuple[TavliBoard, Step]:
    """``apply_step`` for a step already known to be legal."""
    mine = board.mine
    slots = [*mine.points, mine.bar, mine.waiting]
    source = origin if origin < BAR_POINT else BAR_SLOT if mine.bar else WAITING_SLOT
    to = 25 - die if origin == BAR_POINT else max(origin - die, OFF)
    slots[source] -= 1
    slots[to] += 1
    single = to > 0 and _facing(rules, board, to) == 1
    hit = rules.capture is Capture.HIT and single
    pins = rules.capture is Capture.PIN and single and not mine.points[to]
    mine_after = Side(
        tuple(slots[:BAR_SLOT]), slots[BAR_SLOT], slots[WAITING_SLOT], mine.pinned, mine.roll
    )
    if rules.capture is Capture.PIN:
        pinnable = _pinnable(rules, board)
        key = sum(1 << p for p in pinnable if slots[p])
    else:
        pinnable, key = [], (1 << to) if hit else 0
    result = TavliBoard(mine_after, _opponent_after(rules, board, key, pinnable))
    return result, Step(origin, to, hit or pins)


# --- whole plays given as steps ----------------------------------------------------------

# For each board a play's segments reach: its fewest captures on unnamed points, and the
# steps and dice of one way to reach it with that many.
_Ways = dict[TavliBoard, tuple[int, tuple[Step, ...], tuple[int, ...]]]

# One die's hop of a segment: the point it leaves (25: the bar), the die, and whether it
# lands where the segment ends (a capture there is named by the text).
_Hop = tuple[int, int, bool]


def check_play(
    rules: TavliRules,
    board: TavliBoard,
    dice: Sequence[int],
    segments: Sequence[tuple[int, int]],
    legal: list[TavliPlay] | None = None,
) -> TavliPlay:
    """The legal play of ``dice`` that the (origin, destination) ``segments`` describe
    (each may span several dice), or ``IllegalPlay`` saying which rule it breaks.

    ``legal`` is ``stage_plays(rules, board, dice)`` when the caller has it. Where the
    segments can be split into single steps in ways that reach different boards, the
    one that hits or pins nothing on a point the text does not name is taken.
    """
    dice = check_dice(dice)
    if legal is None:
        legal = stage_plays(rules, board, dice)
    for origin, destination in segments:
        if not 1 <= origin <= BAR_POINT or not OFF <= destination < BAR_POINT:
            raise IllegalPlay(f"{origin}/{destination}: points run 1..24, 25 bar, 0 off")
        if destination >= origin:
            raise IllegalPlay(
                f"{origin}/{destination}: checkers move forward, from higher to lower points",
                IllegalPlay.BACKWARDS,
            )
    if not segments:
        if legal:
            raise IllegalPlay("a legal play exists for these dice", IllegalPlay.MUST_MOVE)
        return TavliPlay((), board, ())
    by_result = {play.result: play for play in legal}
    ended: list[Step] = []
    found = (
        _realizations(rules, board, dice, list(segments), ended)
        if len(segments) <= len(dice)
        else {}
    )
    matching = {result: way for result, way in found.items() if result in by_result}
    if matching:
        fewest = min(way[0] for way in matching.values())
        best = [result for result, way in matching.items() if way[0] == fewest]
        if len(best) > 1:
            raise IllegalPlay(
                "this play can be made in more than one way: name the point where a checker "
                "is hit or pinned in passing (like 24/18*/13)"
            )
        _, steps, used = matching[best[0]]
        if rules.capture is Capture.PIN:
            steps = _pin_marks(rules, board, steps, best[0])
        return TavliPlay(steps, best[0], used)
    if found:
        raise _not_allowed(rules, board, dice, legal, found)
    if ended:
        step = ended[0]
        raise IllegalPlay(
            f"{_name(step.origin)}/{_name(step.destination)} ends the game at once (PL5, the "
            "mother): the rest of the roll is not played",
            IllegalPlay.GAME_ENDED,
        )
    raise _explain(rules, board, dice, list(segments))


def _realizations(
    rules: TavliRules,
    board: TavliBoard,
    dice: tuple[int, ...],
    segments: list[tuple[int, int]],
    ended: list[Step],
) -> _Ways:
    """Every board the segments reach, cut into single-die hops and played in any order;
    a way whose hop ends the game (PL5) with hops still to play goes no further, its
    step appended to ``ended``.

    A segment spanning several dice is not always one checker's path: ``24/18`` of 3s
    may be 21/18 by the checker standing on 21, then 24/21 (the text, like gnubg's,
    joins them). In fevga the order can matter (FV3, FV4: 24/21 first could fill the
    start quarter), so the hops are ordered freely, each checked where it is played.
    """
    found: _Ways = {}
    stops_at_once = rules.mother and rules.mother_at_once
    # The fewest unnamed captures each (board, hops left) was met with: no need to go on
    # from it with as many or more.
    fewest: dict[tuple[TavliBoard, tuple[_Hop, ...]], int] = {}

    def walk(
        current: TavliBoard,
        hops: tuple[_Hop, ...],
        steps: tuple[Step, ...],
        used: tuple[int, ...],
        unnamed: int,
    ) -> None:
        if not hops:
            if current not in found or unnamed < found[current][0]:
                found[current] = (unnamed, steps, used)
            return
        if fewest.get((current, hops), unnamed + 1) <= unnamed:
            return
        fewest[current, hops] = unnamed
        for index, (origin, die, named) in enumerate(hops):
            if hops[index] in hops[:index] or step_problem(rules, current, origin, die):
                continue
            after, step = _moved(rules, current, origin, die)
            if len(hops) > 1 and stops_at_once and mother_outcome(after) is not None:
                ended.append(step)
                continue
            walk(
                after,
                hops[:index] + hops[index + 1 :],
                (*steps, step),
                (*used, die),
                unnamed + (step.hit and not named),
            )

    for hops in _hop_splits(dice, segments):
        walk(board, hops, (), (), 0)
    return found


def _hop_splits(dice: tuple[int, ...], segments: list[tuple[int, int]]) -> list[tuple[_Hop, ...]]:
    """Every way to cut the segments into single-die hops of some of ``dice``, the hops
    in the segments' order (steps given in a legal order are replayed in that order)."""
    splits: dict[tuple[_Hop, ...], None] = {}

    def cut(index: int, left: list[int], hops: tuple[_Hop, ...]) -> None:
        if index == len(segments):
            splits[hops] = None
            return
        origin, destination = segments[index]
        for order in _orders(left, origin, destination):
            rest, point, more = list(left), origin, []
            for die in order:
                rest.remove(die)
                to = 25 - die if point == BAR_POINT else max(point - die, OFF)
                more.append((point, die, to == destination))
                point = to
            cut(index + 1, rest, (*hops, *more))

    cut(0, list(dice), ())
    return list(splits)


def _not_allowed(
    rules: TavliRules,
    board: TavliBoard,
    dice: tuple[int, ...],
    legal: list[TavliPlay],
    found: _Ways,
) -> IllegalPlay:
    """The error for legal steps that make no legal play: too few dice (TV3 = M5), the
    lower die, or a wall left closed (FV5)."""
    most = len(legal[0].dice_used)
    played = max(len(way[2]) for way in found.values())
    if played < most:
        if len(dice) == 2 and dice[0] != dice[1]:
            return IllegalPlay(
                f"both dice of {dice[0]}-{dice[1]} can be played, so both must be (TV3)",
                IllegalPlay.MUST_USE_BOTH,
            )
        return IllegalPlay(
            f"{most} of these {dice[0]}s can be played and must be (TV3), not {played}",
            IllegalPlay.MUST_USE_MORE,
        )
    if most == 1 and len(dice) == 2 and any(way[2] != (dice[0],) for way in found.values()):
        return IllegalPlay(
            f"only one die of {dice[0]}-{dice[1]} can be played and the {dice[0]} can: the "
            "higher die must be played (TV3)",
            IllegalPlay.HIGHER_DIE,
        )
    if rules.duty is not None and rules.duty(board):
        wall = ", ".join(str(p) for p in sorted(rules.duty(board), reverse=True))
        return IllegalPlay(
            f"the opponent's checkers are all stuck behind your six points in a row ({wall}): "
            "your play must open one of them, and one can (FV5)",
            IllegalPlay.MUST_OPEN_WALL,
        )
    return IllegalPlay("these steps do not make a legal play")


def _explain(
    rules: TavliRules, board: TavliBoard, dice: tuple[int, ...], segments: list[tuple[int, int]]
) -> IllegalPlay:
    """Why the segments cannot be played at all: replay them as typed
    (``moves.typed_segments``), each taking no more dice than leave one for every
    segment after it, and report the first step that fails, with its rule."""
    current, dice_left = board, list(dice)
    for (origin, destination), budget, pending in typed_segments(segments, dice_left):
        text = f"{_name(origin)}/{_name(destination)}"
        fitting = _orders(dice_left, origin, destination)
        problems: list[IllegalPlay] = []
        for order in (order for order in fitting if len(order) <= budget):
            stepped, point = current, origin
            for die in order:
                problem = step_problem(rules, stepped, point, die)
                if problem is not None:
                    problems.append(problem)
                    break
                stepped, step = _moved(rules, stepped, point, die)
                point = step.destination
            else:
                break
        else:
            if problems:
                return problems[0]
            left = " and ".join(map(str, dice_left)) or "none"
            if fitting and pending:
                rest = " ".join(f"{_name(o)}/{_name(d)}" for o, d in pending)
                return IllegalPlay(
                    f"{text} takes the dice left ({left}) and leaves none for {rest}",
                    IllegalPlay.WRONG_DICE,
                )
            return IllegalPlay(
                f"{text}: the dice left ({left}) do not take a checker from there to there",
                IllegalPlay.WRONG_DICE,
            )
        current = stepped
        for die in order:
            dice_left.remove(die)
    return IllegalPlay("these steps do not make a legal play")


def _orders(dice: list[int], origin: int, destination: int) -> list[tuple[int, ...]]:
    """The orders of some of ``dice`` that take a checker from origin exactly to
    destination (or off), touching down only before it."""
    result = []
    for count in range(1, len(dice) + 1):
        for order in sorted(set(permutations(dice, count)), reverse=True):
            point = origin
            for die in order:
                if point <= destination:
                    break
                point = 25 - die if point == BAR_POINT else point - die
            else:
                if point == destination or (destination == OFF and point < 0):
                    result.append(order)
    return result


def _name(point: int) -> str:
    return "bar" if point == BAR_POINT else "off" if point == OFF else str(point)
