"""Standings and tie-breaks worked by hand: head-to-head, then Buchholz, then shared."""

from __future__ import annotations

from tests.tournaments.play import drawn
from tournaments.formats import Bracket, Pairing, RoundRobin, Tournament
from tournaments.formats.standings import standings


def _result(number: int, table: int, winner: str, loser: str | None = None) -> Pairing:
    pairing = Pairing.new(
        round=number,
        bracket=Bracket.MAIN,
        bracket_round=number,
        position=table,
        players=(winner,) if loser is None else (winner, loser),
    )
    return pairing if loser is None else pairing.with_winner(winner)


def _table(lines: tuple) -> list[tuple[str, str, int, int]]:
    return [(line.entry, str(line.place), line.score, line.buchholz) for line in lines]


def _round_robin(count: int, beats: set[tuple[str, str]]) -> Tournament:
    """A round robin of ``e1``... played out, each match won as ``beats`` says."""
    tournament = drawn(RoundRobin(), count)
    while not tournament.complete:
        tournament = tournament.start_round()
        assert tournament.current_round is not None
        for pairing in tournament.current_round.pairings:
            if not pairing.bye:
                first, second = pairing.players
                winner = first if (first, second) in beats else second
                tournament = tournament.record_result(pairing.id, winner)
    return tournament


def test_head_to_head_separates_two_tied_players() -> None:
    tournament = _round_robin(
        4, {("e1", "e4"), ("e3", "e2"), ("e4", "e3"), ("e2", "e1"), ("e2", "e4"), ("e1", "e3")}
    )
    # e1 and e2 have 2 wins, e2 beat e1; e3 and e4 have 1, e4 beat e3.
    assert _table(tournament.standings()) == [
        ("e2", "1", 2, 4),
        ("e1", "2", 2, 4),
        ("e4", "3", 1, 5),
        ("e3", "4", 1, 5),
    ]


def test_a_three_way_cycle_that_buchholz_cannot_break_shares_the_places() -> None:
    tournament = _round_robin(
        4, {("e1", "e2"), ("e2", "e3"), ("e3", "e1"), ("e1", "e4"), ("e2", "e4"), ("e3", "e4")}
    )
    assert _table(tournament.standings()) == [
        ("e1", "1-3", 2, 4),
        ("e2", "1-3", 2, 4),
        ("e3", "1-3", 2, 4),
        ("e4", "4", 0, 6),
    ]
    assert [(str(fp.place), fp.entries) for fp in tournament.final_places()] == [
        ("1-3", ("e1", "e2", "e3")),
        ("4", ("e4",)),
    ]


def test_buchholz_counts_a_bye_as_nothing_and_the_bye_point_for_opponents() -> None:
    pairings = [
        _result(1, 1, "a", "b"),
        _result(1, 2, "c", "d"),
        _result(1, 3, "e"),
        _result(2, 1, "a", "c"),
        _result(2, 2, "e", "d"),
        _result(2, 3, "b"),
        _result(3, 1, "e", "a"),
        _result(3, 2, "c", "b"),
        _result(3, 3, "d"),
    ]
    # Scores: e 3 (bye, d, a); a 2; c 2; b 1 (bye); d 1 (bye).
    # e's Buchholz is d 1 + a 2 = 3, its bye adding nothing; a's is b 1 + c 2 + e 3 = 6,
    # b's point being its bye. a and c met (a won): head-to-head puts a first. b and d
    # never met: Buchholz, b = a 2 + c 2 = 4 below d = c 2 + e 3 = 5.
    assert _table(standings(tuple("abcde"), pairings)) == [
        ("e", "1", 3, 3),
        ("a", "2", 2, 6),
        ("c", "3", 2, 4),
        ("d", "4", 1, 5),
        ("b", "5", 1, 4),
    ]


def test_head_to_head_waits_until_the_tied_have_all_met_and_comes_back_after_buchholz() -> None:
    pairings = [
        _result(1, 1, "q", "p"),
        _result(1, 2, "r", "x"),
        _result(1, 3, "s", "y"),
        _result(2, 1, "p", "y"),
        _result(2, 2, "x", "q"),
        _result(2, 3, "s", "r"),
    ]
    # p, q, r and x have one win each, but p never met r: no head-to-head for the four.
    # Buchholz: r = x 1 + s 2 = 3; q = p 1 + x 1 = 2; x = r 1 + q 1 = 2; p = q 1 + y 0
    # = 1. q and x are still tied and have met: x beat q, so x is above q.
    assert _table(standings(tuple("pqrsxy"), pairings)) == [
        ("s", "1", 2, 1),
        ("r", "2", 1, 3),
        ("x", "3", 1, 2),
        ("q", "4", 1, 2),
        ("p", "5", 1, 1),
        ("y", "6", 0, 3),
    ]


def test_standings_count_only_finished_pairings() -> None:
    tournament = drawn(RoundRobin(), 4).start_round()
    tournament = tournament.record_result("main-1-1", "e4")
    lines = {line.entry: line for line in tournament.standings()}
    assert (lines["e4"].wins, lines["e1"].losses, lines["e2"].wins + lines["e2"].losses) == (
        1,
        1,
        0,
    )
    # e1, e2 and e3 have no win; e1's Buchholz (e4's win) puts it above the other two.
    assert [str(lines[entry].place) for entry in ("e4", "e1", "e2", "e3")] == [
        "1",
        "2",
        "3-4",
        "3-4",
    ]
