"""The cube contract on its own: doubling, taking, passing, beavers, settlement (C1-C6)."""

from __future__ import annotations

import pytest

from backgammon.cube import CubeContract, CubeState
from backgammon.errors import CubeNotAvailable


def test_c1_cube_starts_centred_at_one() -> None:
    cube = CubeContract()
    assert (cube.value, cube.owner, cube.state, cube.turned) == (1, None, CubeState.LIVE, False)
    assert cube.can_offer(0) and cube.can_offer(1)


def test_c1_no_double_past_the_maximum() -> None:
    cube = CubeContract(value=32, owner=0, turned=True, max_value=64)
    assert cube.offer(0).take().value == 64
    at_max = CubeContract(value=64, owner=1, turned=True, max_value=64)
    with pytest.raises(CubeNotAvailable, match="maximum of 64"):
        at_max.offer(1)


def test_c2_only_the_owner_may_redouble() -> None:
    cube = CubeContract().offer(0).take()
    assert cube.owner == 1
    with pytest.raises(CubeNotAvailable, match="your opponent owns the cube"):
        cube.offer(0)
    assert cube.offer(1).pending == 1


def test_c2_no_second_offer_while_one_waits() -> None:
    cube = CubeContract().offer(0)
    with pytest.raises(CubeNotAvailable, match="already waiting"):
        cube.offer(0)


def test_c4_take_doubles_and_gives_the_cube_to_the_taker() -> None:
    cube = CubeContract().offer(1)
    assert cube.answerer == 0
    taken = cube.take()
    assert (taken.value, taken.owner, taken.turned, taken.pending) == (2, 0, True, None)


def test_c4_pass_loses_the_value_before_the_double() -> None:
    cube = CubeContract(value=2, owner=0, turned=True).offer(0).pass_()
    assert (cube.state, cube.passer, cube.value) == (CubeState.PASSED, 1, 2)
    assert cube.points(winner=None, multiplier=1, jacoby=False) == 2
    assert CubeContract().offer(1).pass_().points(None, 1, False) == -1


def test_c4_answers_need_a_pending_double() -> None:
    for answer in (CubeContract.take, CubeContract.pass_, CubeContract.beaver):
        with pytest.raises(CubeNotAvailable, match="no double is waiting"):
            answer(CubeContract())


def test_c4_a_passed_cube_is_out_of_the_game() -> None:
    cube = CubeContract().offer(0).pass_()
    with pytest.raises(CubeNotAvailable, match="out of this game"):
        cube.offer(0)


def test_c5_beaver_keeps_the_cube_and_the_doubler_answers() -> None:
    beavered = CubeContract().offer(0).beaver()
    assert (beavered.value, beavered.owner, beavered.pending, beavered.answerer) == (2, 1, 1, 0)
    accepted = beavered.take()
    assert (accepted.value, accepted.owner, accepted.pending) == (4, 1, None)


def test_c5_refused_beaver_costs_the_beavered_value() -> None:
    refused = CubeContract().offer(0).beaver().pass_()
    assert (refused.state, refused.passer, refused.value) == (CubeState.PASSED, 0, 2)
    assert refused.points(None, 1, False) == -2


def test_c5_no_beaver_of_a_beaver_nor_past_the_maximum() -> None:
    with pytest.raises(CubeNotAvailable, match="cannot be beavered again"):
        CubeContract().offer(0).beaver().beaver()
    with pytest.raises(CubeNotAvailable, match="past its maximum"):
        CubeContract(value=16, owner=0, turned=True, max_value=32).offer(0).beaver()


def test_c6_jacoby_counts_gammons_single_while_the_cube_never_turned() -> None:
    assert CubeContract().points(winner=0, multiplier=2, jacoby=True) == 1
    assert CubeContract().points(winner=1, multiplier=3, jacoby=True) == -1
    turned = CubeContract().offer(0).take()
    assert turned.points(winner=0, multiplier=2, jacoby=True) == 4


def test_s1_s2_points_are_value_times_multiplier() -> None:
    cube = CubeContract(value=4, owner=1, turned=True)
    assert cube.points(winner=0, multiplier=1, jacoby=False) == 4
    assert cube.points(winner=1, multiplier=2, jacoby=False) == -8
    assert cube.points(winner=None, multiplier=2, jacoby=False) == 0


def test_refused_action_leaves_the_contract_unchanged() -> None:
    cube = CubeContract(value=2, owner=1, turned=True)
    with pytest.raises(CubeNotAvailable):
        cube.offer(0)
    assert cube == CubeContract(value=2, owner=1, turned=True)


def test_to_dict_round_trip() -> None:
    cube = CubeContract(holder="bob", max_value=64).offer(1).beaver()
    assert CubeContract.from_dict(cube.to_dict()) == cube
