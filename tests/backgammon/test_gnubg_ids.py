"""Position and match IDs, bit for bit as GNU Backgammon writes them.

The fixed vectors were printed by gnubg 1.1.0a16 (``gnubg.positionid``,
``gnubg.matchid``); ``test_oracle_gnubg.py`` checks thousands more against it live.
"""

from __future__ import annotations

import base64
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from backgammon.errors import InvalidDice, InvalidMatchId, InvalidPosition, InvalidPositionId
from backgammon.gnubg_ids import (
    GameState,
    MatchKey,
    Resignation,
    match_id,
    match_key_from_id,
    position_from_id,
    position_id,
    result_ids,
)
from backgammon.moves import legal_plays
from backgammon.position import Position, board_from_points
from backgammon.variants import START, Variants


def _id_from_key(bits: str) -> str:
    """A position ID whose key has the given bits (bit 0 first), padded with zeros."""
    key = int(bits[::-1], 2) if bits else 0
    return base64.b64encode(key.to_bytes(10, "little")).decode()[:14]


def test_start_position_id() -> None:
    assert position_id(START) == "4HPwATDgc/ABMA"
    assert position_from_id("4HPwATDgc/ABMA") == START


def test_key_starts_with_the_side_not_on_roll() -> None:
    # Same checkers for both sides except that the side on roll has one back checker
    # on the bar instead of on its 24-point; gnubg: positionid((opponent, on_roll)).
    on_roll = board_from_points({6: 5, 8: 3, 13: 5, 24: 1, 25: 1})
    other = board_from_points({6: 5, 8: 3, 13: 5, 24: 2})
    assert position_id(Position(on_roll, other)) == "4HPwATDgc/ABUA"
    assert position_id(Position(other, on_roll)) == "4HPwAVDgc/ABMA"


def test_bar_and_borne_off_checkers() -> None:
    # Side on roll: a closed board and 3 on its 24-point; the other side: one checker,
    # on the bar, the rest borne off.
    pos = Position(
        board_from_points({1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 24: 3}), board_from_points({25: 1})
    )
    assert position_id(pos) == "AAAAbdsGAOAAAA"
    assert position_from_id("AAAAbdsGAOAAAA") == pos


@given(
    st.lists(st.integers(0, 24), min_size=0, max_size=15),
    st.lists(st.integers(0, 24), min_size=1, max_size=15),
)
def test_position_round_trip(player_slots: list[int], opponent_slots: list[int]) -> None:
    player = [0] * 25
    for slot in player_slots:
        player[slot] += 1
    opponent = [0] * 25
    for slot in opponent_slots:
        # Put the opponent's checker where the player has none (own point p = 25 - p).
        if slot < 24 and player[23 - slot]:
            slot = 24
        opponent[slot] += 1
    pos = Position(tuple(player), tuple(opponent))
    text = position_id(pos)
    assert len(text) == 14
    assert position_from_id(text) == pos


@pytest.mark.parametrize(
    "text",
    [
        "",
        "4HPwATDgc/ABM",  # 13 characters
        "4HPwATDgc/ABMAA",  # 15
        "4HPwATDgc/AB-A",  # not base64
        "4HPwATDgc/ABM=",  # padding is not part of an ID
        "4HPwATDgc/ABMB",  # bits beyond the 80-bit key
        "//////////////",  # never 50 slot separators
        _id_from_key("0" * 50 + "1"),  # a checker after the last slot
        4,
    ],
)
def test_malformed_position_ids(text: object) -> None:
    with pytest.raises(InvalidPositionId):
        position_from_id(text)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("bits", "why"),
    [
        ("1" * 16 + "0" * 50, "16 checkers"),
        # The side not on roll on its point 1, the side on roll on its 24 (the same).
        ("10" + "0" * 24 + "0" * 23 + "10", "both sides"),
        # Both on the bar against closed boards.
        ("110" * 6 + "0" * 18 + "10" + "110" * 6 + "0" * 18 + "10", "closed boards"),
    ],
)
def test_impossible_positions(bits: str, why: str) -> None:
    with pytest.raises(InvalidPosition, match=why.split()[-1]):
        position_from_id(_id_from_key(bits))


def test_position_id_refuses_impossible_boards() -> None:
    with pytest.raises(InvalidPosition):
        position_id(Position(board_from_points({6: 16}), START.opponent))


def _positions_met_in_random_games(games: int, seed: int) -> list[Position]:
    """Every position met in random legal play from the start: hits, the bar, bear-offs."""
    rng = random.Random(seed)
    met = []
    for _ in range(games):
        pos = START
        while any(pos.player) and any(pos.opponent):
            met.append(pos)
            plays = legal_plays(pos, (rng.randint(1, 6), rng.randint(1, 6)))
            pos = (rng.choice(plays).result if plays else pos).mirror()
    return met


def test_result_ids_are_the_sorted_ids_of_the_legal_plays_results() -> None:
    """decode, generate, encode as one call (the command line's and game requests' path)
    gives what the three public steps give, on every roll of positions of every phase."""
    rolls = [(d1, d2) for d1 in range(1, 7) for d2 in range(1, 7)]
    for pos in _positions_met_in_random_games(4, seed=3)[::4]:
        text = position_id(pos)
        for roll in rolls:
            expected = sorted(position_id(play.result) for play in legal_plays(pos, roll))
            assert result_ids(text, roll) == (expected or [text]), (text, roll)


def test_result_ids_refuses_what_the_steps_refuse() -> None:
    with pytest.raises(InvalidPositionId):
        result_ids("4HPwATDgc/ABMB", (6, 5))
    with pytest.raises(InvalidPosition, match="borne off"):
        result_ids("AAAAAAAAAAAAAA", (6, 5))
    with pytest.raises(InvalidDice):
        result_ids(position_id(START), (7, 5))
    with pytest.raises(InvalidDice):
        result_ids(position_id(START), (6, 5, 4))
    # A variant with fewer checkers a side: 15 are too many for hypergammon's 3.
    with pytest.raises(InvalidPosition, match="at most 3"):
        result_ids(position_id(START), (6, 5), checkers=Variants.HYPERGAMMON.value.checkers)


@pytest.mark.parametrize(
    ("key", "text"),
    [
        (MatchKey(game_state=GameState.NONE), "MAAAAAAAAAAA"),
        (MatchKey(game_state=GameState.NONE, jacoby=False), "MAAAAAAAAAAE"),
        (
            MatchKey(cube_value=2, cube_owner=1, dice=(5, 2), match_length=9, score=(2, 4)),
            "EYEqASAAIAAA",
        ),
        (
            MatchKey(
                cube_value=4,
                cube_owner=0,
                dice_owner=1,
                crawford=True,
                resignation=Resignation.GAMMON,
                match_length=7,
                score=(6, 3),
            ),
            "wkHgAGAAGAAA",
        ),
        (MatchKey(dice_owner=1, turn=0, double_offered=True, match_length=5), "cBGgAAAAAAAA"),
        (
            MatchKey(
                cube_value=64,
                cube_owner=1,
                dice_owner=1,
                turn=1,
                game_state=GameState.DROPPED,
                dice=(6, 6),
                score=(12, 3),
            ),
            "VgwbAMAAGAAA",
        ),
        (
            MatchKey(turn=1, dice=(5, 3), match_length=7, score=(2, 5), jacoby=False),
            "MInuACAAKAAE",
        ),
    ],
)
def test_match_ids_as_gnubg_writes_them(key: MatchKey, text: str) -> None:
    assert match_id(key) == text
    assert match_key_from_id(text) == key


def test_match_id_keeps_the_higher_die_first() -> None:
    assert match_id(MatchKey(dice=(3, 5))) == match_id(MatchKey(dice=(5, 3)))
    assert match_key_from_id(match_id(MatchKey(dice=(3, 5)))).dice == (5, 3)


@st.composite
def match_keys(draw: st.DrawFn) -> MatchKey:
    length = draw(st.integers(0, 64))
    limit = length or 32767
    die = st.integers(1, 6)
    dice = draw(st.just((0, 0)) | st.tuples(die, die).map(lambda d: tuple(sorted(d)[::-1])))
    return MatchKey(
        cube_value=1 << draw(st.integers(0, 15)),
        cube_owner=draw(st.sampled_from([None, 0, 1])),
        dice_owner=draw(st.integers(0, 1)),
        crawford=draw(st.booleans()) and length > 0,
        game_state=draw(st.sampled_from(GameState)),
        turn=draw(st.integers(0, 1)),
        double_offered=draw(st.booleans()),
        resignation=draw(st.sampled_from(Resignation)),
        dice=dice,
        match_length=length,
        score=(draw(st.integers(0, limit)), draw(st.integers(0, limit))),
        jacoby=draw(st.booleans()),
    )


@given(match_keys())
def test_match_round_trip(key: MatchKey) -> None:
    text = match_id(key)
    assert len(text) == 12
    assert match_key_from_id(text) == key


def _match_id_from_bits(**fields: int) -> str:
    layout = {
        "owner": 4,
        "crawford": 7,
        "state": 8,
        "die1": 15,
        "die2": 18,
        "length": 21,
        "score0": 36,
    }
    bits = sum(value << layout[name] for name, value in fields.items())
    return base64.b64encode(bits.to_bytes(9, "little")).decode()


@pytest.mark.parametrize(
    "text",
    [
        "MAAAAAAAAAA",
        "MAAAAAAAAAAAA",
        "MAAAAAAAAAA*",
        "MAAAAAAAAAAI",  # bit 67
        _match_id_from_bits(owner=2, state=1),
        _match_id_from_bits(owner=3, state=5),
        _match_id_from_bits(owner=3, state=1, die1=7, die2=1),
        _match_id_from_bits(owner=3, state=1, die1=4, die2=0),
        _match_id_from_bits(owner=3, state=1, length=65),
        _match_id_from_bits(owner=3, state=1, length=5, score0=6),
        None,
    ],
)
def test_malformed_match_ids(text: object) -> None:
    with pytest.raises(InvalidMatchId):
        match_key_from_id(text)  # type: ignore[arg-type]


def test_crawford_in_money_play_is_refused() -> None:
    with pytest.raises(InvalidMatchId, match="Crawford"):
        match_key_from_id(_match_id_from_bits(owner=3, crawford=1, state=1))
    with pytest.raises(ValueError, match="Crawford"):
        MatchKey(crawford=True)


@pytest.mark.parametrize(
    "fields",
    [
        {"cube_value": 3},
        {"cube_value": 1 << 16},
        {"cube_owner": 2},
        {"turn": 2},
        {"dice": (0, 4)},
        {"dice": (1, 2, 3)},
        {"match_length": 65},
        {"match_length": 5, "score": (6, 0)},
    ],
)
def test_match_key_refuses_what_gnubg_cannot_encode(fields: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        MatchKey(**fields)  # type: ignore[arg-type]
