"""A chouette's seating and money arithmetic: order, rotation, points, settlement (H1-H14).

Every expected figure is worked out by hand in the test, from the rule it proves.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from backgammon.chouette import (
    BoardResult,
    BoxKeeps,
    ChouetteOptions,
    GameRecord,
    MemberResult,
    Outcome,
    Seating,
    Tally,
    Winner,
    order_as_entered,
    roll_for_order,
    score_game,
)
from backgammon.dice import DiceStream
from backgammon.errors import (
    AlreadySeated,
    InvalidDice,
    InvalidGameRecord,
    InvalidOrder,
    InvalidStake,
    NotSeated,
    TooFewPlayers,
)

SEED = bytes(range(32))
FIVE = Decimal("5.00")


def played(player: str, stake: int = 1, turned: bool | None = None) -> MemberResult:
    """A member who played to the end; the cube counts as turned when above 1."""
    return MemberResult(player, stake, Outcome.PLAYED, stake > 1 if turned is None else turned)


def passed(player: str, stake: int = 1) -> MemberResult:
    """A member who refused the box's double with the cube at ``stake``."""
    return MemberResult(player, stake, Outcome.PASSED, stake > 1)


def box_passed(player: str, stake: int = 1) -> MemberResult:
    """A member whose double, with the cube at ``stake``, the box refused."""
    return MemberResult(player, stake, Outcome.BOX_PASSED, stake > 1)


def game(winner: str, result: str, *members: MemberResult) -> GameRecord:
    return GameRecord(Winner(winner), BoardResult(result), members)


def seat(order: str, **options: Any) -> Seating:
    """A seating from one letter per player, box first."""
    return Seating.from_order(list(order), ChouetteOptions(**options))


def seats(seating: Seating) -> tuple[str, str, str, str | None]:
    """Box, captain, the line and the partner, each as letters."""
    return seating.box, seating.captain, "".join(seating.line), seating.partner


# H1: the initial order


def test_h1_highest_is_box_second_captain_the_rest_by_their_rolls() -> None:
    rolled = roll_for_order(["ann", "bob", "cat", "dan"], [3, 6, 1, 5])
    assert rolled.order == ("bob", "dan", "ann", "cat")
    assert rolled.throws == ((("ann", 3), ("bob", 6), ("cat", 1), ("dan", 5)),)
    seating = Seating.from_order(rolled.order)
    assert (seating.box, seating.captain, seating.line, seating.crew) == (
        "bob",
        "dan",
        ("dan", "ann", "cat"),
        ("ann", "cat"),
    )


def test_h1_ties_are_rerolled_among_the_tied_only() -> None:
    # a 4, b 6, c 4, d 2, e 6: b and e tie for the box, a and c for third.
    # b and e re-roll 2-2 (tied again), then 5-3: b the box, e the captain.
    # a and c re-roll 1-3: c third, a fourth; d, alone on 2, is last.
    dice = [4, 6, 4, 2, 6, 2, 2, 5, 3, 1, 3]
    rolled = roll_for_order(list("abcde"), dice)
    assert rolled.order == tuple("becad")
    assert rolled.throws == (
        (("a", 4), ("b", 6), ("c", 4), ("d", 2), ("e", 6)),
        (("b", 2), ("e", 2)),
        (("b", 5), ("e", 3)),
        (("a", 1), ("c", 3)),
    )


def test_h1_a_reroll_orders_only_the_tied_group() -> None:
    # a and b tie on 5 above c's 3; their re-roll of 1 and 2 puts b first, and a, who
    # re-rolled a 1, still ranks above c.
    assert roll_for_order(list("abc"), [5, 5, 3, 1, 2]).order == tuple("bac")


def test_h1_the_order_from_the_sessions_verifiable_dice() -> None:
    stream = DiceStream(SEED, "table-7")
    rolled = roll_for_order(list("abcdef"), stream)
    first, *rerolls = rolled.throws
    assert [player for player, _ in first] == list("abcdef")
    # Every die the order took came off the stream in order, and nothing else did.
    taken = [die for throw in rolled.throws for _, die in throw]
    replay = DiceStream(SEED, "table-7")
    assert taken == [replay.die() for _ in taken]
    assert stream.used == len(taken)
    # The same dice given as data give the same order.
    assert roll_for_order(list("abcdef"), taken) == rolled
    # Higher first dice sit ahead; re-rolls only order the players who tied.
    first_die = dict(first)
    positions = {player: index for index, player in enumerate(rolled.order)}
    for x in first_die:
        for y in first_die:
            if first_die[x] > first_die[y]:
                assert positions[x] < positions[y]
    for throw in rerolls:
        assert len({first_die[player] for player, _ in throw}) == 1


def test_h1_dice_as_data_must_be_exactly_the_dice_needed() -> None:
    with pytest.raises(InvalidDice, match="ran out"):
        roll_for_order(list("abc"), [4, 4, 1])
    with pytest.raises(InvalidDice, match="4 dice given, but the order took 3"):
        roll_for_order(list("abc"), [4, 2, 1, 6])
    with pytest.raises(InvalidDice, match="1 to 6, not 7"):
        roll_for_order(list("abc"), [4, 7, 1])
    with pytest.raises(InvalidDice, match="1 to 6, not True"):
        roll_for_order(list("abc"), [4, True, 1])


def test_h1_three_distinct_players_or_more() -> None:
    with pytest.raises(TooFewPlayers, match="at least 3 players, not 2"):
        roll_for_order(["ann", "bob"], [1, 2])
    with pytest.raises(TooFewPlayers):
        Seating.from_order([])
    with pytest.raises(AlreadySeated, match="ann named twice"):
        roll_for_order(["ann", "bob", "ann"], [1, 2, 3])
    with pytest.raises(AlreadySeated):
        Seating(box="ann", waiting=("bob", "ann"))


def test_h1_an_order_as_entered_box_first() -> None:
    order = order_as_entered(["ann", "bob", "cat"], ["cat", "ann", "bob"])
    assert seats(Seating.from_order(order)) == ("cat", "ann", "annbob", None)
    with pytest.raises(InvalidOrder, match="leaves out cat"):
        order_as_entered(["ann", "bob", "cat"], ["ann", "bob", "dan"])
    with pytest.raises(InvalidOrder, match="names dan, who are not playing"):
        order_as_entered(["ann", "bob", "cat"], ["ann", "bob", "cat", "dan"])
    with pytest.raises(AlreadySeated, match="bob named twice"):
        order_as_entered(["ann", "bob", "cat"], ["ann", "bob", "bob", "cat"])
    with pytest.raises(TooFewPlayers):
        order_as_entered(["ann", "bob"], ["ann", "bob"])


# H6, H8: the points of one game


def test_h8_worked_example_multiple_cubes_jacoby_off() -> None:
    # Box A; team B (captain), C, D, E. The box doubles B and C to 2: B passes (loses
    # the 1 before the double), C takes. D doubles the box, which passes (D wins 1).
    # E plays on at 1. The team wins a single: C +2, E +1.
    record = game("team", "single", passed("B"), played("C", 2), box_passed("D"), played("E"))
    scored = score_game(seat("ABCDE", jacoby=False), record)
    assert dict(scored.points) == {"A": -3, "B": -1, "C": 2, "D": 1, "E": 1}
    # B, the captain, lost to the box (H7): the box stays, B goes to the end.
    assert not scored.captain_won and scored.box_keeps_box
    assert seats(scored.next_seating) == ("A", "C", "CDEB", None)


def test_h6_worked_example_single_cube_jacoby_on() -> None:
    # 4 players, the cube never turned, the box loses a gammon: Jacoby counts it single.
    record = game("team", "gammon", played("B"), played("C"), played("D"))
    scored = score_game(seat("ABCD"), record)
    assert dict(scored.points) == {"A": -3, "B": 1, "C": 1, "D": 1}
    assert scored.captain_won and not scored.box_keeps_box
    assert seats(scored.next_seating) == ("B", "C", "CDA", None)


def test_h5_passes_before_and_after_redoubles() -> None:
    # Box A. B takes the box's double at 2, redoubles to 4; the box passes: B +2.
    # C passes the box's first double at 1: C -1.
    # D takes at 2, redoubles to 4 (the box takes), the box redoubles to 8, D passes: D -4.
    # E takes the box's double at 2 and plays on to a single the box wins: E -2.
    record = game("box", "single", box_passed("B", 2), passed("C"), passed("D", 4), played("E", 2))
    scored = score_game(seat("ABCDE"), record)
    assert dict(scored.points) == {"A": 5, "B": 2, "C": -1, "D": -4, "E": -2}
    # The captain B beat the box by the box's pass, however the others fared.
    assert scored.captain_won and not scored.box_keeps_box
    assert seats(scored.next_seating) == ("B", "C", "CDEA", None)


def test_h6_gammons_with_jacoby_on_count_single_on_cubes_never_turned() -> None:
    # The box loses a gammon. B (cube at 1) and E (an automatic double put the cube
    # at 2, never turned) score single; C (turned to 2) and D (turned to 4) double.
    record = game(
        "team",
        "gammon",
        played("B"),
        played("C", 2),
        played("D", 4),
        played("E", 2, turned=False),
    )
    assert dict(score_game(seat("ABCDE"), record).points) == {
        "A": -1 - 4 - 8 - 2,
        "B": 1,
        "C": 4,
        "D": 8,
        "E": 2,
    }
    jacoby_off = score_game(seat("ABCDE", jacoby=False), record)
    assert dict(jacoby_off.points) == {"A": -2 - 4 - 8 - 4, "B": 2, "C": 4, "D": 8, "E": 4}


def test_s3_h6_backgammons_count_three_or_two_with_jacoby_on_and_off() -> None:
    # The box wins a backgammon: B played at 2 (turned), C at 1 (never turned).
    record = game("box", "backgammon", played("B", 2), played("C"))
    assert dict(score_game(seat("ABC"), record).points) == {"A": 7, "B": -6, "C": -1}
    by_two = score_game(seat("ABC", backgammon_value=2), record)
    assert dict(by_two.points) == {"A": 5, "B": -4, "C": -1}
    off = score_game(seat("ABC", jacoby=False), record)
    assert dict(off.points) == {"A": 9, "B": -6, "C": -3}
    off_by_two = score_game(seat("ABC", jacoby=False, backgammon_value=2), record)
    assert dict(off_by_two.points) == {"A": 6, "B": -4, "C": -2}


def test_c5_h6_beavers_are_stakes_like_any_other() -> None:
    # The box doubles B and C at 1. B beavers (cube 4), the box takes; the team wins a
    # gammon: B +8. C beavers too and the box refuses it, losing the 2 of C's take.
    record = game("team", "gammon", played("B", 4), box_passed("C", 2))
    assert dict(score_game(seat("ABC"), record).points) == {"A": -10, "B": 8, "C": 2}


def test_h7_the_captain_passes_others_take_and_win() -> None:
    # B, the captain, passes the box's double; C takes and plays on as captain; D
    # takes; the team wins a gammon on cubes at 2. The box is down 1 - 4 - 4 = -7, but
    # it beat the original captain, so by default it keeps the box.
    record = game("team", "gammon", passed("B"), played("C", 2), played("D", 2))
    scored = score_game(seat("ABCD"), record)
    assert dict(scored.points) == {"A": -7, "B": -1, "C": 4, "D": 4}
    assert not scored.captain_won and scored.box_keeps_box
    assert seats(scored.next_seating) == ("A", "C", "CDB", None)


def test_h3_no_net_loss_the_box_keeps_the_box_only_without_a_loss() -> None:
    options = {"box_keeps": BoxKeeps.NO_NET_LOSS}
    # The same game as above: the box lost 7 on the game, so the captain B takes the box
    # although B passed.
    lost = game("team", "gammon", passed("B"), played("C", 2), played("D", 2))
    scored = score_game(seat("ABCD", **options), lost)
    assert scored.box_keeps_box is False
    assert seats(scored.next_seating) == ("B", "C", "CDA", None)
    # The captain B wins 2 on a turned cube; C and D pass the box's double at 1. The
    # box's net -2 + 1 + 1 = 0 is no loss: the box stays, though the captain beat it.
    even = game("team", "single", played("B", 2), passed("C"), passed("D"))
    scored = score_game(seat("ABCD", **options), even)
    assert dict(scored.points) == {"A": 0, "B": 2, "C": -1, "D": -1}
    assert scored.captain_won and scored.box_keeps_box
    assert seats(scored.next_seating) == ("A", "C", "CDB", None)
    # By default the captain's win takes the box from A.
    assert score_game(seat("ABCD"), even).box_keeps_box is False


# H12: the box partner


def test_h12_the_partner_is_the_first_in_line_after_the_captain_from_seven() -> None:
    assert seats(seat("ABCDEFG")) == ("A", "B", "BDEFG", "C")
    assert seat("ABCDEFG").crew == tuple("DEFG")
    assert seat("ABCDEF").partner is None
    assert seat("ABCDEFGH", partner_from=None).partner is None
    assert seats(seat("ABCD", partner_from=4)) == ("A", "B", "BD", "C")


@pytest.mark.parametrize("partner_from", [0, 3, True, 7.0])
def test_h12_partner_from_is_four_players_or_more(partner_from: object) -> None:
    with pytest.raises(ValueError, match="partner_from"):
        ChouetteOptions(partner_from=partner_from)


def test_h12_the_partner_shares_the_box_result_the_odd_point_to_the_box() -> None:
    seating = seat("ABCDEFG")  # partner C; team B, D, E, F, G
    # The team wins a single on every cube at 1 but G's at 2: 6 points lost by the box
    # side, shared 3 and 3.
    even = game("team", "single", *map(played, "BDEF"), played("G", 2))
    assert dict(score_game(seating, even).points) == {
        "A": -3,
        "B": 1,
        "C": -3,
        "D": 1,
        "E": 1,
        "F": 1,
        "G": 2,
    }
    # The box side loses 5: the box bears the odd point, -3, the partner -2.
    lose_five = game("team", "single", *map(played, "BDEFG"))
    assert score_game(seating, lose_five).points["A"] == -3
    assert score_game(seating, lose_five).points["C"] == -2
    # B, D and E pass at 1, F loses the single the box wins, the box passes G's double
    # at 1: -1 -1 -1 -1 +1, so the box side wins 3: the box 2, the partner 1.
    win_three = game(
        "box", "single", passed("B"), passed("D"), passed("E"), played("F"), box_passed("G")
    )
    points = score_game(seating, win_three).points
    assert (points["A"], points["C"]) == (2, 1)
    # A box side of -1 (B, D lose 1, E, F, G win 1) or +1 (B, D, E lose 1, F, G win
    # 1): the odd point is all the box's, the partner's half is 0.
    minus_one = game("box", "single", *map(played, "BD"), *map(box_passed, "EFG"))
    points = score_game(seating, minus_one).points
    assert (points["A"], points["C"]) == (-1, 0)
    plus_one = game("box", "single", *map(played, "BDE"), *map(box_passed, "FG"))
    points = score_game(seating, plus_one).points
    assert (points["A"], points["C"]) == (1, 0)


def test_h12_the_partner_goes_to_the_end_of_the_line_after_the_game() -> None:
    seating = seat("ABCDEFG")  # box A, captain B, partner C, crew D E F G
    box_wins = game("box", "single", *map(played, "BDEFG"))
    after = score_game(seating, box_wins).next_seating
    # B to the end, then the partner C behind him; the new partner is the first in
    # line after the new captain D.
    assert after.players == tuple("ADEFGBC")
    assert seats(after) == ("A", "D", "DFGBC", "E")
    team_wins = game("team", "single", *map(played, "BDEFG"))
    after = score_game(seating, team_wins).next_seating
    # B takes the box; the old box A goes to the end, then the partner C; A's
    # partnership ends with the box, and B's partner is E, the first after captain D.
    assert after.players == tuple("BDEFGAC")
    assert seats(after) == ("B", "D", "DFGAC", "E")


# H3, H13: rotation, joining and leaving


def test_h3_rotation_with_three_players() -> None:
    seating = seat("ABC")
    box_wins = score_game(seating, game("box", "single", played("B"), played("C")))
    assert box_wins.next_seating.players == tuple("ACB")
    team_wins = score_game(seating, game("team", "single", played("B"), played("C")))
    assert team_wins.next_seating.players == tuple("BCA")


def test_h13_join_at_the_end_of_the_line() -> None:
    seating = seat("ABC").join("D")
    assert seats(seating) == ("A", "B", "BCD", None)
    with pytest.raises(AlreadySeated, match="D already sits"):
        seating.join("D")
    with pytest.raises(AlreadySeated, match="A already sits"):
        seating.join("A")
    # The seventh player to join brings the partner in for the next game.
    assert seats(seat("ABCDEF").join("G")) == ("A", "B", "BDEFG", "C")


def test_h13_leave_between_games() -> None:
    seating = seat("ABCDE")
    assert seats(seating.leave("D")) == ("A", "B", "BCE", None)
    # The captain leaving: the next in line captains.
    assert seats(seating.leave("B")) == ("A", "C", "CDE", None)
    # The box leaving: the captain takes the box.
    assert seats(seating.leave("A")) == ("B", "C", "CDE", None)
    # Down to six, the partner leaves the box's side.
    assert seats(seat("ABCDEFG").leave("G")) == ("A", "B", "BCDEF", None)
    with pytest.raises(NotSeated, match="Z does not sit"):
        seating.leave("Z")
    with pytest.raises(TooFewPlayers, match="at least 3 players to go on"):
        seat("ABC").leave("A")


def test_h3_h13_a_long_session_beats_captain_with_joins_and_leaves() -> None:
    money = Tally()
    seating = seat("ABCDE", partner_from=6)
    # G1: every cube at 1, the team wins a single. Captain B takes the box.
    scored = score_game(seating, game("team", "single", *map(played, "BCDE")))
    assert dict(scored.points) == {"A": -4, "B": 1, "C": 1, "D": 1, "E": 1}
    money = money.add_game(points=scored.points, box=seating.box)
    seating = scored.next_seating
    assert seats(seating) == ("B", "C", "CDEA", None)
    # G2: the box doubles all; C and A take at 2, D and E pass; the box wins a gammon on
    # turned cubes: C -4, A -4, D -1, E -1. C, the captain, lost: B stays, C to the end.
    scored = score_game(
        seating, game("box", "gammon", played("C", 2), passed("D"), passed("E"), played("A", 2))
    )
    assert dict(scored.points) == {"B": 10, "C": -4, "D": -1, "E": -1, "A": -4}
    money = money.add_game(points=scored.points, box=seating.box)
    seating = scored.next_seating
    assert seats(seating) == ("B", "D", "DEAC", None)
    # F joins: six players, so E, first in line after captain D, is the box's partner.
    seating = seating.join("F")
    assert seats(seating) == ("B", "D", "DACF", "E")
    # G3: D, A and C win a single at 1; F passed the box's double. The box side loses
    # 1 + 1 + 1 - 1 = 2: box B -1, partner E -1. Captain D takes the box; B and then the
    # partner E go to the end of the line.
    scored = score_game(
        seating, game("team", "single", played("D"), played("A"), played("C"), passed("F"))
    )
    assert dict(scored.points) == {"B": -1, "D": 1, "E": -1, "A": 1, "C": 1, "F": -1}
    money = money.add_game(points=scored.points, box=seating.box)
    seating = scored.next_seating
    assert seating.players == tuple("DACFBE")
    assert seats(seating) == ("D", "A", "AFBE", "C")
    # A leaves, settling at once. A owes B 1 (G1) + 4 (G2) - 1 (G3) = 4 and owes C, D
    # and E 1 each (G1): A pays 7 points, 35.00.
    amounts, money = money.settle_leaver("A", FIVE)
    assert amounts == {
        "A": Decimal("-35.00"),
        "B": Decimal("20.00"),
        "C": Decimal("5.00"),
        "D": Decimal("5.00"),
        "E": Decimal("5.00"),
    }
    seating = seating.leave("A")
    assert seats(seating) == ("D", "C", "CFBE", None)
    # G4: captain C passes the box's double; F, B and E take at 2 and play on, F as
    # captain (H7); the box wins a single: C -1, F -2, B -2, E -2. C lost: D stays.
    scored = score_game(
        seating,
        game("box", "single", passed("C"), played("F", 2), played("B", 2), played("E", 2)),
    )
    assert dict(scored.points) == {"D": 7, "C": -1, "F": -2, "B": -2, "E": -2}
    money = money.add_game(points=scored.points, box=seating.box)
    assert seats(scored.next_seating) == ("D", "F", "FBEC", None)
    # Totals: B 1 + 10 - 1 - 2 = 8, of which 4 came from A; C 1 - 4 + 1 - 1 = -3, D
    # 1 - 1 + 1 + 7 = 8, E 1 - 1 - 1 - 2 = -3, each having had 1 from A; F -1 - 2 = -3.
    assert money.scores() == {"B": 4, "C": -4, "D": 7, "E": -4, "F": -3}
    assert money.settle_all(FIVE) == {
        "B": Decimal("20.00"),
        "C": Decimal("-20.00"),
        "D": Decimal("35.00"),
        "E": Decimal("-20.00"),
        "F": Decimal("-15.00"),
    }


def test_h3_a_long_session_no_net_loss_against_beats_captain() -> None:
    # G1: the captain B passes at 1; C and D take at 2 and win a single: the box -3, a
    # loss, so B takes the box although B himself lost.
    opening = game("team", "single", passed("B"), played("C", 2), played("D", 2))
    no_net_loss = seat("ABCD", jacoby=False, box_keeps=BoxKeeps.NO_NET_LOSS)
    first = score_game(no_net_loss, opening)
    assert dict(first.points) == {"A": -3, "B": -1, "C": 2, "D": 2}
    assert seats(first.next_seating) == ("B", "C", "CDA", None)
    # G2: the captain C wins 2 on a turned cube, D and A pass at 1: the box breaks even
    # and stays.
    second_record = game("team", "single", played("C", 2), passed("D"), passed("A"))
    second = score_game(first.next_seating, second_record)
    assert dict(second.points) == {"B": 0, "C": 2, "D": -1, "A": -1}
    assert seats(second.next_seating) == ("B", "D", "DAC", None)
    # G3: every cube at 1, the box wins a gammon (Jacoby off): the box +6 and stays.
    third = score_game(second.next_seating, game("box", "gammon", *map(played, "DAC")))
    assert dict(third.points) == {"B": 6, "D": -2, "A": -2, "C": -2}
    assert seats(third.next_seating) == ("B", "A", "ACD", None)
    # Box against captain reads G1 the other way: A beat the captain B and stays.
    first = score_game(seat("ABCD", jacoby=False), opening)
    assert seats(first.next_seating) == ("A", "C", "CDB", None)
    # Then the same G2 (C wins 2, D and B pass): C beat the box, so A loses the box
    # although it broke even.
    second = score_game(
        first.next_seating, game("team", "single", played("C", 2), passed("D"), passed("B"))
    )
    assert dict(second.points) == {"A": 0, "C": 2, "D": -1, "B": -1}
    assert seats(second.next_seating) == ("C", "D", "DBA", None)


# Bad records: nothing outside the team, nobody left out, stakes that are cube values


def test_h6_a_record_lists_the_team_and_only_the_team() -> None:
    seating = seat("ABCDEFG")  # box A, partner C, team B D E F G
    team = [played(player) for player in "BDEFG"]
    with pytest.raises(InvalidGameRecord, match=r"A \(the box\)"):
        score_game(seating, game("team", "single", *team, played("A")))
    with pytest.raises(InvalidGameRecord, match=r"C \(the box's partner\)"):
        score_game(seating, game("team", "single", *team, played("C")))
    with pytest.raises(InvalidGameRecord, match=r"Z \(not in the team\)"):
        score_game(seating, game("team", "single", *team, played("Z")))
    with pytest.raises(InvalidGameRecord, match="E missing"):
        score_game(seating, game("team", "single", *team[:2], *team[3:]))
    with pytest.raises(InvalidGameRecord, match="one entry per team member: D twice"):
        game("team", "single", *team, played("D"))
    with pytest.raises(InvalidGameRecord, match="lists every team member"):
        game("team", "single")


@pytest.mark.parametrize("stake", [0, -2, 3, 6, True, 2.0, "2", None])
def test_h6_a_stake_is_a_cube_value(stake: object) -> None:
    with pytest.raises(InvalidGameRecord, match="stake must be a cube value"):
        MemberResult("B", stake, Outcome.PLAYED, False)


def test_c6_a_cube_at_one_was_never_turned() -> None:
    with pytest.raises(InvalidGameRecord, match="cannot have been turned with a stake of 1"):
        MemberResult("B", 1, Outcome.PLAYED, True)


def test_h6_the_recorded_form_of_the_api() -> None:
    data = {
        "winner": "team",
        "result": "gammon",
        "members": [
            {"player": "B", "stake": 2, "outcome": "passed"},
            {"player": "C", "stake": 2, "outcome": "played", "cube_turned": False},
            {"player": "D", "stake": 1, "outcome": "box_passed", "cube_turned": False},
        ],
    }
    record = GameRecord.from_dict(data)
    # cube_turned defaults to stake > 1.
    assert record.members == (
        MemberResult("B", 2, Outcome.PASSED, True),
        MemberResult("C", 2, Outcome.PLAYED, False),
        MemberResult("D", 1, Outcome.BOX_PASSED, False),
    )
    assert GameRecord.from_dict(record.to_dict()) == record
    # Jacoby on: C's cube at 2 was never turned (an automatic double), so the gammon
    # counts single: C +2. B passed at 2: -2. D +1.
    assert dict(score_game(seat("ABCD"), record).points) == {"A": -1, "B": -2, "C": 2, "D": 1}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"winner": "captain"}, "winner is one of box, team, not 'captain'"),
        ({"result": "triple"}, "result is one of single, gammon, backgammon"),
        ({"members": {"B": 1}}, "members is a list"),
        ({"members": ["B"]}, "each member entry is a JSON object"),
        ({"members": [{"player": "B", "stake": 1}]}, "a member entry lacks outcome"),
        (
            {"members": [{"player": "B", "stake": 1, "outcome": "dropped"}]},
            "B's outcome is one of played, passed, box_passed, not 'dropped'",
        ),
        (
            {"members": [{"player": "B", "stake": 1, "outcome": "played", "cube": 2}]},
            "unknown fields: cube",
        ),
        (
            {"members": [{"player": "B", "stake": 2, "outcome": "played", "cube_turned": 1}]},
            "cube_turned must be true or false",
        ),
        ({"members": [{"player": "", "stake": 1, "outcome": "played"}]}, "named by a username"),
        ({"members": [{"player": 7, "stake": 1, "outcome": "played"}]}, "named by a username"),
        ({"turn_no": 3}, "unknown fields: turn_no"),
    ],
)
def test_h6_a_malformed_record_is_refused(change: dict[str, object], message: str) -> None:
    data = {
        "winner": "box",
        "result": "single",
        "members": [{"player": "B", "stake": 1, "outcome": "played"}],
        **change,
    }
    with pytest.raises(InvalidGameRecord, match=message):
        GameRecord.from_dict(data)


def test_h6_a_record_lacking_a_field_is_refused() -> None:
    with pytest.raises(InvalidGameRecord, match="a game record lacks result, winner"):
        GameRecord.from_dict({"members": []})
    with pytest.raises(InvalidGameRecord, match="a JSON object"):
        GameRecord.from_dict([])


# H13, H14: money


def test_h14_settlement_is_points_times_the_stake_and_sums_to_zero() -> None:
    scored = score_game(seat("ABCD"), game("box", "backgammon", played("B", 2), *map(played, "CD")))
    # Jacoby on: B's turned cube at 2 loses 6, C and D lose 1 each: the box +8.
    tally = Tally().add_game(points=scored.points, box="A")
    amounts = tally.settle_all(Decimal("2.50"))
    assert amounts == {
        "A": Decimal("20.00"),
        "B": Decimal("-15.00"),
        "C": Decimal("-2.50"),
        "D": Decimal("-2.50"),
    }
    assert sum(amounts.values()) == 0
    assert all(amount.as_tuple().exponent == -2 for amount in amounts.values())


def test_h14_an_undone_game_is_its_points_negated() -> None:
    points = score_game(seat("ABC"), game("team", "single", played("B"), played("C", 2))).points
    tally = Tally().add_game(points=points, box="A")
    assert tally.owed == (("B", "A", 1), ("C", "A", 2))
    undone = tally.add_game(points={p: -n for p, n in points.items()}, box="A")
    assert undone == Tally()
    assert undone.settle_all(FIVE) == {}


def test_h12_h13_the_partner_settles_its_share_with_the_box() -> None:
    seating = seat("ABCDEFG")
    scored = score_game(seating, game("team", "single", *map(played, "BDEFG")))
    tally = Tally().add_game(points=scored.points, box="A")
    # The box side lost 5: the partner C owes A its 2, and A owes each member 1.
    amounts, rest = tally.settle_leaver("C", Decimal("1.00"))
    assert amounts == {"C": Decimal("-2.00"), "A": Decimal("2.00")}
    assert rest.scores() == {"A": -5, "B": 1, "D": 1, "E": 1, "F": 1, "G": 1}


def test_h13_a_leaver_square_with_everyone_pays_and_receives_nothing() -> None:
    amounts, rest = Tally().settle_leaver("A", FIVE)
    assert amounts == {"A": Decimal("0.00")}
    assert rest == Tally()
    # B won 1 from A and lost 1 to C: leaving, B is square, but A pays and C receives.
    tally = Tally().add_game(points={"A": -1, "B": 1, "D": 0}, box="A")
    tally = tally.add_game(points={"B": -1, "C": 1, "D": 0}, box="B")
    amounts, rest = tally.settle_leaver("B", FIVE)
    assert amounts == {"B": Decimal("0.00"), "A": Decimal("-5.00"), "C": Decimal("5.00")}
    assert rest == Tally()


@pytest.mark.parametrize(
    "stake", [Decimal(0), Decimal("-1.00"), Decimal("0.125"), Decimal("NaN"), 5.0, "5.00"]
)
def test_h11_the_stake_per_point_is_a_positive_amount_in_cents(stake: object) -> None:
    with pytest.raises(InvalidStake):
        Tally().settle_all(stake)
    with pytest.raises(InvalidStake):
        Tally().settle_leaver("A", stake)


def test_h14_a_games_points_must_sum_to_zero_to_be_tallied() -> None:
    with pytest.raises(ValueError, match="sum to zero"):
        Tally().add_game(points={"A": 1, "B": 0}, box="A")
    with pytest.raises(ValueError, match="the box Z has no points"):
        Tally().add_game(points={"A": 1, "B": -1}, box="Z")


# Properties over random sessions

NAMES = [f"p{index}" for index in range(12)]
OUTCOMES = list(Outcome)


@st.composite
def records_for(draw: st.DrawFn, seating: Seating) -> GameRecord:
    members = []
    for player in seating.line:
        stake = 2 ** draw(st.integers(0, 6))
        turned = stake > 1 and draw(st.booleans())
        members.append(MemberResult(player, stake, draw(st.sampled_from(OUTCOMES)), turned))
    return GameRecord(
        draw(st.sampled_from(list(Winner))),
        draw(st.sampled_from(list(BoardResult))),
        tuple(draw(st.permutations(members))),
    )


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_h6_h12_h13_h14_random_sessions_balance(data: st.DataObject) -> None:
    options = ChouetteOptions(
        jacoby=data.draw(st.booleans()),
        backgammon_value=data.draw(st.sampled_from([2, 3])),
        box_keeps=data.draw(st.sampled_from(list(BoxKeeps))),
        partner_from=data.draw(st.sampled_from([None, 4, 5, 7])),
    )
    size = data.draw(st.integers(3, 9))
    seating = Seating.from_order(data.draw(st.permutations(NAMES))[:size], options)
    stake = Decimal(data.draw(st.integers(1, 10_000))) / 100
    tally = Tally()
    totals: dict[str, int] = {}
    money: dict[str, Decimal] = {}
    for _ in range(data.draw(st.integers(1, 25))):
        step = data.draw(st.sampled_from(["game", "game", "join", "leave"]))
        if step == "join":
            outside = [name for name in NAMES if name not in seating.players]
            if outside:
                seating = seating.join(data.draw(st.sampled_from(outside)))
        elif step == "leave" and len(seating.players) > 3:
            leaver = data.draw(st.sampled_from(seating.players))
            amounts, tally = tally.settle_leaver(leaver, stake)
            assert sum(amounts.values()) == 0
            for player, amount in amounts.items():
                money[player] = money.get(player, Decimal(0)) + amount
            seating = seating.leave(leaver)
        else:
            scored = score_game(seating, data.draw(records_for(seating)))
            assert sum(scored.points.values()) == 0
            assert tuple(scored.points) == seating.players
            if seating.partner is not None:
                # The partner shares the box's result; the box has the odd point.
                box, partner = scored.points[seating.box], scored.points[seating.partner]
                assert box * partner >= 0
                assert abs(box) - abs(partner) == abs(box + partner) % 2
            tally = tally.add_game(points=scored.points, box=seating.box)
            for player, points in scored.points.items():
                totals[player] = totals.get(player, 0) + points
            seating = scored.next_seating
        # The line is a permutation of the seated players other than the box and the
        # partner; the box is never in it.
        assert seating.box not in seating.line
        assert sorted((*seating.line, seating.box, *filter(None, [seating.partner]))) == sorted(
            seating.players
        )
        assert len(set(seating.players)) == len(seating.players) >= 3
    closing = tally.settle_all(stake)
    assert sum(closing.values()) == 0
    for player, amount in closing.items():
        money[player] = money.get(player, Decimal(0)) + amount
    # Whoever left and whenever, each player's money is their points times the stake.
    assert {p: m for p, m in money.items() if m} == {
        p: (n * stake).quantize(Decimal("0.01")) for p, n in totals.items() if n
    }
