"""Our move generator, position IDs and match IDs against GNU Backgammon's own code.

The oracle is gnubg 1.1.0a16 from PyPI (the service's own: the deep analyses). It is imported
directly: a missing oracle fails the run instead of skipping it.

Reading gnubg's plays. ``gnubg.findbestmoves`` returns one entry per distinct resulting
position, but its move tuples stop at the first checker borne off (gnubg ends a move
with -1, and off is -1 too), so they cannot tell ``6/off 5/3`` from ``6/off 5/off``.
So the test calls the engine's exported C functions through ``ctypes``, as gnubg does
itself (``tests/gnubg_engine.py``, shared with ``bench/peers.py``): ``GenerateMoves``
(the generator ``FindnSaveBestMoves`` and ``hint`` use, with its legality rules and its
de-duplication by resulting position), then for each play ``ApplyMove`` and
``PositionID`` on gnubg's own board. Each play's position key stored by
``GenerateMoves`` must give the same ID (``PositionIDFromKey``), and ``findbestmoves``
must list exactly the same plays, truncated: that proves the struct layout in
``tests/gnubg_engine.py`` right for this build; any other build fails loudly here, never
silently.

Positions, reproducible from fixed seeds: the opening with all 36 rolls; self-play
games where each side picks its play at random from our plays, at random from gnubg's,
or as gnubg's 0-ply best play; and crafted phases (checkers on the bar against boards
of 3 to 6 points, closed boards, bear-offs with and without contact, checkers still
coming home, random scrambles). Each is played with a random roll.

Known differences that are not our bugs: none so far.

Our ``.mat`` export is imported by gnubg itself (``import mat``): matches ended by a
forfeit arrive at the scores ``backgammon/matfile.py`` documents.
"""

from __future__ import annotations

import ctypes
import random
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import gnubg
import pytest

from backgammon.errors import InvalidMatchId, InvalidPosition, InvalidPositionId
from backgammon.game import GameOptions
from backgammon.gnubg_ids import (
    GameState,
    MatchKey,
    Resignation,
    match_id,
    match_key_from_id,
    position_from_id,
    position_id,
)
from backgammon.match import MatchState
from backgammon.matfile import export_mat
from backgammon.moves import legal_plays
from backgammon.position import BAR, Position
from backgammon.variants import START
from tests.backgammon.test_forfeit import forfeited_match
from tests.gnubg_engine import gnubg_plays, lib

SEED = 20240601
MIN_CASES = 5000

gnubg.command("set threads 1")

# --- gnubg's answers ---------------------------------------------------------------


def gnubg_results(pos: Position, dice: tuple[int, int]) -> set[str]:
    """Position IDs of gnubg's results; the unchanged position when nothing is legal."""
    return {play.result_id for play in gnubg_plays(pos, dice)} or {_gnubg_position_id(pos)}


def _gnubg_position_id(pos: Position) -> str:
    return gnubg.positionid((pos.opponent, pos.player))


def _findbestmoves(pos: Position, dice: tuple[int, int]) -> list[dict]:
    context = gnubg.evalcontext(0, 0, 1, 0, 0.0)  # cubeless 0-ply, deterministic
    return gnubg.findbestmoves((pos.opponent, pos.player), gnubg.cubeinfo(), context, dice)


def our_results(pos: Position, dice: tuple[int, int]) -> set[str]:
    return {position_id(play.result) for play in legal_plays(pos, dice)} or {position_id(pos)}


# --- the corpus ----------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    phase: str
    position: Position
    dice: tuple[int, int]


def _roll(rng: random.Random) -> tuple[int, int]:
    return rng.randint(1, 6), rng.randint(1, 6)


def _game_over(pos: Position) -> bool:
    return not any(pos.player) or not any(pos.opponent)


def _gnubg_result(text: str) -> Position:
    """The position of one of gnubg's result IDs, still from the mover's view."""
    board = gnubg.positionfromid(text)
    return Position(tuple(board[1]), tuple(board[0]))


Policy = Callable[[random.Random, Position, tuple[int, int]], Position]


def _ours_random(rng: random.Random, pos: Position, dice: tuple[int, int]) -> Position:
    results = sorted(our_results(pos, dice))  # sorted: the corpus must not depend on order
    return position_from_id(rng.choice(results))


def _gnubg_random(rng: random.Random, pos: Position, dice: tuple[int, int]) -> Position:
    plays = gnubg_plays(pos, dice)
    return _gnubg_result(rng.choice(plays).result_id) if plays else pos


def _gnubg_best(rng: random.Random, pos: Position, dice: tuple[int, int]) -> Position:
    plays = gnubg_plays(pos, dice)
    if not plays:
        return pos
    best = _findbestmoves(pos, dice)[0]["move"]
    play = next(p for p in plays if p.truncated == best)
    return _gnubg_result(play.result_id)


POLICIES: dict[str, Policy] = {
    "ours-random": _ours_random,
    "gnubg-random": _gnubg_random,
    "gnubg-best": _gnubg_best,
}


def phase_of(pos: Position) -> str:
    """The phase a position belongs to, for the coverage count."""
    if pos == START:
        return "opening"
    if pos.player[BAR]:
        closed = all(pos.opponent[i] >= 2 for i in range(6))
        return "closed board" if closed else "bar"
    home = all(count == 0 for count in pos.player[6:])
    # Contact: some opponent checker still behind one of ours (or on its bar).
    deepest = max(i for i in range(25) if pos.player[i])
    contact = pos.opponent[BAR] > 0 or any(pos.opponent[23 - i] for i in range(deepest))
    if home:
        return "bear-off, contact" if contact else "bear-off, no contact"
    return "contact" if contact else "race"


def _self_play(rng: random.Random, games: int) -> Iterator[Case]:
    names = list(POLICIES)
    for _ in range(games):
        policies = [POLICIES[rng.choice(names)], POLICIES[rng.choice(names)]]
        pos = START
        for turn in range(600):
            if _game_over(pos):
                break
            dice = _roll(rng)
            yield Case(phase_of(pos), pos, dice)
            pos = policies[turn % 2](rng, pos, dice).mirror()


def _scatter(rng: random.Random, board: list[int], n: int, slots: list[int]) -> None:
    for _ in range(n):
        board[rng.choice(slots)] += 1


def _crafted(rng: random.Random, n: int) -> Iterator[Case]:
    """Positions self-play rarely reaches often enough: bar, closed boards, bear-offs."""
    makers = [_bar_position, _bearoff_position, _coming_home_position, _scramble]
    made = 0
    while made < n:
        pos = rng.choice(makers)(rng)
        if pos is None or _game_over(pos):
            continue
        made += 1
        yield Case(phase_of(pos), pos, _roll(rng))


def _free(other: list[int], slots: range) -> list[int]:
    """Those of ``slots`` (one side's own numbering) where ``other`` has no checker."""
    return [s for s in slots if s == BAR or not other[23 - s]]


def _bar_position(rng: random.Random) -> Position | None:
    """The side on roll on the bar against a board of 3 to 6 made points."""
    opponent = [0] * 25
    for slot in rng.sample(range(6), rng.randint(3, 6)):
        opponent[slot] = 2
    player = [0] * 25
    player[BAR] = rng.randint(1, 3)
    _scatter(rng, player, rng.randint(0, 15 - player[BAR]), _free(opponent, range(24)))
    left = rng.randint(0, 15 - sum(opponent))
    _scatter(
        rng,
        opponent,
        left,
        _free(player, range(25)) if rng.random() < 0.3 else _free(player, range(24)),
    )
    return _valid(player, opponent)


def _bearoff_position(rng: random.Random) -> Position | None:
    """The side on roll with everything home; half the time the opponent is in contact."""
    player = [0] * 25
    _scatter(rng, player, rng.randint(1, 15), list(range(6)))
    opponent = [0] * 25
    if rng.random() < 0.5:  # contact: an anchor or blots in our home board, or the bar
        free = _free(player, range(18, 24))
        if free:
            _scatter(rng, opponent, rng.randint(1, 4), free)
        opponent[BAR] += rng.randint(0, 1)
    _scatter(rng, opponent, rng.randint(1, 15 - sum(opponent)), list(range(12)))
    return _valid(player, opponent)


def _coming_home_position(rng: random.Random) -> Position | None:
    """All but one to three checkers home: a bear-off may start in the middle of a turn."""
    player = [0] * 25
    outside = rng.randint(1, 3)
    _scatter(rng, player, outside, list(range(6, 12)))
    _scatter(rng, player, rng.randint(0, 15 - outside), list(range(6)))
    opponent = [0] * 25
    free = _free(player, range(12, 24))
    _scatter(rng, opponent, rng.randint(0, 5), free)
    _scatter(rng, opponent, rng.randint(1, 15 - sum(opponent)), list(range(12)))
    return _valid(player, opponent)


def _scramble(rng: random.Random) -> Position | None:
    """Both sides anywhere, bars included."""
    player = [0] * 25
    _scatter(rng, player, rng.randint(1, 15), list(range(25)))
    opponent = [0] * 25
    _scatter(rng, opponent, rng.randint(1, 15), _free(player, range(25)))
    return _valid(player, opponent)


def _valid(player: list[int], opponent: list[int]) -> Position | None:
    for slot in range(24):
        if player[slot] and opponent[23 - slot]:
            return None
    pos = Position(tuple(player), tuple(opponent))
    closed = all(player[i] >= 2 and opponent[i] >= 2 for i in range(6))
    return None if closed and player[BAR] and opponent[BAR] else pos


@cache
def corpus() -> tuple[Case, ...]:
    """Every case once (self-play meets the opening again and again)."""
    rng = random.Random(SEED)
    cases = [Case("opening", START, (a, b)) for a in range(1, 7) for b in range(1, 7)]
    cases += _self_play(rng, games=70)
    cases += _crafted(rng, n=4000)
    unique: dict[tuple[Position, tuple[int, int]], Case] = {}
    for case in cases:
        unique.setdefault((case.position, case.dice), case)
    return tuple(unique.values())


# --- the tests -------------------------------------------------------------------------


def test_gnubg_adapter_reads_whole_moves() -> None:
    """The ctypes view of gnubg's move list agrees with gnubg's own key and public API."""
    checked = 0
    for case in corpus()[::7]:
        plays = gnubg_plays(case.position, case.dice)
        assert all(play.result_id == play.key_id for play in plays), case
        shown = Counter(tuple(m["move"]) for m in _findbestmoves(case.position, case.dice))
        assert shown == Counter(play.truncated for play in plays), case
        checked += 1
    assert checked > 500


def test_corpus_covers_every_phase() -> None:
    phases = Counter(case.phase for case in corpus())
    assert sum(phases.values()) >= MIN_CASES
    assert phases["opening"] == 36, phases  # every roll, both orders
    for phase in ("contact", "race", "bar", "closed board"):
        assert phases[phase] >= 200, phases
    for phase in ("bear-off, contact", "bear-off, no contact"):
        assert phases[phase] >= 300, phases


def test_legal_plays_agree_with_gnubg() -> None:
    disagreements = []
    for case in corpus():
        plays = legal_plays(case.position, case.dice)
        ours = [position_id(play.result) for play in plays]
        assert len(ours) == len(set(ours)), f"duplicate plays for {case}"
        theirs = gnubg_results(case.position, case.dice)
        if (set(ours) or {position_id(case.position)}) != theirs:
            disagreements.append(
                f"{case.phase}: {position_id(case.position)} dice {case.dice}: "
                f"only gnubg {sorted(theirs - set(ours))}, only ours {sorted(set(ours) - theirs)}"
            )
    assert not disagreements, f"{len(disagreements)} disagreements:\n" + "\n".join(
        disagreements[:40]
    )


def test_position_ids_agree_with_gnubg() -> None:
    seen: set[Position] = set()
    for case in corpus():
        seen.add(case.position)
        seen.update(play.result for play in legal_plays(case.position, case.dice))
    for pos in seen:
        text = position_id(pos)
        assert text == _gnubg_position_id(pos), pos
        assert position_from_id(text) == pos
    assert len(seen) > 20000


def test_position_id_decoding_agrees_with_gnubg() -> None:
    """IDs we accept, gnubg reads as the same board; IDs gnubg refuses, we refuse too."""
    rng = random.Random(SEED)
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    texts = [position_id(case.position) for case in corpus()[:3000]]
    fuzzed = []
    for text in texts:  # one character changed: near misses of real IDs
        i = rng.randrange(13)
        fuzzed.append(text[:i] + rng.choice(alphabet) + text[i + 1 :])
    accepted = 0
    for text in fuzzed:
        try:
            board = gnubg.positionfromid(text)
        except ValueError:
            board = None
        try:
            ours = position_from_id(text)
        except (InvalidPositionId, InvalidPosition):
            ours = None
        if ours is not None:
            accepted += 1
            assert board == (ours.opponent, ours.player), text
    assert accepted > 300


def _gnubg_match_id(key: MatchKey) -> str:
    cube = gnubg.cubeinfo()
    cube.update(
        cube=key.cube_value,
        cubeowner=-1 if key.cube_owner is None else key.cube_owner,
        move=key.dice_owner,
        matchto=key.match_length,
        score=key.score,
        crawford=int(key.crawford),
        jacoby=int(key.jacoby),
    )
    pos = gnubg.posinfo()
    pos.update(
        turn=key.turn,
        resigned=int(key.resignation),
        doubled=int(key.double_offered),
        gamestate=int(key.game_state),
        dice=key.dice,
    )
    return gnubg.matchid(cube, pos)


def _gnubg_match_from_id(text: str) -> MatchKey | None:
    """gnubg's ``MatchFromID`` (extended: with the Jacoby bit), or None if it refuses."""
    dice = (ctypes.c_uint * 2)()
    score = (ctypes.c_int * 2)()
    turn, resigned, doubled, move, owner, crawford, length, cube, jacoby, state = (
        ctypes.c_int() for _ in range(10)
    )
    refs = [ctypes.byref(v) for v in (turn, resigned, doubled, move, owner, crawford, length)]
    status = lib.MatchFromID(
        dice,
        *refs,
        score,
        ctypes.byref(cube),
        ctypes.byref(jacoby),
        ctypes.byref(state),
        text.encode(),
    )
    if status != 0:
        return None
    return MatchKey(
        cube_value=cube.value,
        cube_owner=None if owner.value == -1 else owner.value,
        dice_owner=move.value,
        crawford=bool(crawford.value),
        game_state=GameState(state.value),
        turn=turn.value,
        double_offered=bool(doubled.value),
        resignation=Resignation(resigned.value),
        dice=(dice[0], dice[1]),
        match_length=length.value,
        score=(score[0], score[1]),
        jacoby=bool(jacoby.value),
    )


def _random_match_key(rng: random.Random) -> MatchKey:
    length = rng.choice([0, 0, 1, 3, 5, 7, 9, 11, 13, 15, 17, 21, 25, 64])
    high, low = sorted((rng.randint(1, 6), rng.randint(1, 6)), reverse=True)
    limit = length or 32767
    return MatchKey(
        cube_value=1 << rng.randint(0, 15),
        cube_owner=rng.choice([None, 0, 1]),
        dice_owner=rng.randint(0, 1),
        crawford=bool(length) and rng.random() < 0.3,
        game_state=rng.choice(list(GameState)),
        turn=rng.randint(0, 1),
        double_offered=rng.random() < 0.3,
        resignation=rng.choice(list(Resignation)),
        dice=rng.choice([(0, 0), (high, low)]),
        match_length=length,
        score=(rng.randint(0, limit), rng.randint(0, limit)),
        jacoby=rng.random() < 0.7,
    )


def test_match_ids_agree_with_gnubg() -> None:
    rng = random.Random(SEED)
    for _ in range(3000):
        key = _random_match_key(rng)
        text = match_id(key)
        assert text == _gnubg_match_id(key), key
        assert _gnubg_match_from_id(text) == key == match_key_from_id(text)


def test_match_id_decoding_agrees_with_gnubg() -> None:
    """Match IDs we accept, gnubg reads the same; those gnubg refuses, we refuse too."""
    rng = random.Random(SEED + 1)
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    accepted = 0
    for _ in range(3000):
        text = match_id(_random_match_key(rng))
        i = rng.randrange(12)
        text = text[:i] + rng.choice(alphabet) + text[i + 1 :]
        try:
            ours = match_key_from_id(text)
        except InvalidMatchId:
            ours = None
        if ours is not None:
            accepted += 1
            assert _gnubg_match_from_id(text) == ours, text
    assert accepted > 500


@pytest.mark.parametrize("dice", [(6, 5), (5, 6), (1, 1), (6, 6)])
def test_opening_position_agrees_with_gnubg_including_counts(dice: tuple[int, int]) -> None:
    """The small, readable case: counts at the start as gnubg lists them."""
    assert len(legal_plays(START, dice)) == len(_findbestmoves(START, dice))
    assert our_results(START, dice) == gnubg_results(START, dice)


# --- .mat files, imported by gnubg ----------------------------------------------------


def gnubg_import_mat(text: str, path: Path) -> tuple[list[tuple[int, int]], tuple[int, int]]:
    """gnubg's reading of a ``.mat`` file: the score each game started at, and the score
    once the last game's points are added to its winner (player 1 is gnubg's X)."""
    path.write_text(text)
    gnubg.command(f'import mat "{path}"')
    games = [game["info"] for game in gnubg.match(analysis=False, boards=False)["games"]]
    starts = [(info["score-X"], info["score-O"]) for info in games]
    final = list(starts[-1])
    final["XO".index(games[-1]["winner"])] += games[-1]["points-won"]
    return starts, (final[0], final[1])


def test_gnubg_imports_our_forfeited_matches_at_the_documented_scores(tmp_path: Path) -> None:
    """Every game starts at our score in gnubg. A forfeit, written as a resignation, ends
    a money session at our score; a match too when what the winner needed is 1, 2 or 3
    times the cube; past the next multiple of the cube when it lies between; and, when
    it needs more than 3 times the cube, gnubg credits 3 times and sees no end."""
    starts = [MatchState(length=n) for n in (1, 3, 5, 7)]
    starts += [MatchState(), MatchState(options=GameOptions(jacoby=True, beavers=True))]
    seen = Counter()
    for seed in range(20):
        for start in starts:
            record = forfeited_match(seed, start)
            game_starts, final = gnubg_import_mat(export_mat(record), tmp_path / "match.mat")
            before = record.state_before(len(record.games) - 1)
            assert game_starts == [record.state_before(i).score for i in range(len(record.games))]
            ours, winner = record.state.score, record.games[-1].winner
            needed = start.length - before.score[winner]
            cube = record.games[-1].cube.value
            if start.money or needed in (cube, 2 * cube, 3 * cube):
                seen["exact"] += 1
                assert final == ours, (seed, start)
            elif needed < 3 * cube:
                seen["past N"] += 1
                assert final[1 - winner] == ours[1 - winner]
                assert ours[winner] < final[winner] < ours[winner] + cube
            else:
                seen["short of N"] += 1
                assert final[1 - winner] == ours[1 - winner]
                assert final[winner] == before.score[winner] + 3 * cube < start.length
    assert min(seen["exact"], seen["past N"], seen["short of N"]) > 0, seen
