"""The tournament value: its errors (each its own type, nothing changed), its JSON, and
that the formats import no Django."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.tournaments.play import drawn, field, play_out, play_round, random_winner
from tournaments.formats import (
    AlreadyDrawn,
    DoubleElimination,
    Entry,
    FormatOptions,
    InvalidEntries,
    InvalidOptions,
    InvalidState,
    NotDrawn,
    NotInPairing,
    PairingFinished,
    RoundNotComplete,
    RoundRobin,
    Seeding,
    SingleElimination,
    Swiss,
    Tournament,
    TournamentComplete,
    TournamentError,
    TournamentNotComplete,
    UnknownPairing,
    WrongFormat,
)

ROOT = Path(__file__).resolve().parents[2]
ALL_FORMATS = [
    SingleElimination(consolation_through_round=2, last_chance_after_round=3),
    DoubleElimination(),
    Swiss(rounds=4),
    RoundRobin(),
]


def test_drawing_twice_is_refused() -> None:
    tournament = drawn(SingleElimination(), 8)
    with pytest.raises(AlreadyDrawn):
        tournament.draw()


def test_rounds_start_only_after_the_draw_and_after_the_last_round() -> None:
    undrawn = Tournament(format=SingleElimination(), entries=field(8))
    assert not undrawn.next_round_ready
    with pytest.raises(NotDrawn):
        undrawn.start_round()
    assert undrawn.draw().next_round_ready
    started = undrawn.draw().start_round()
    assert not started.next_round_ready
    with pytest.raises(RoundNotComplete, match="main-1-1"):
        started.start_round()
    assert play_round(undrawn.draw(), random_winner(random.Random(0))).next_round_ready
    finished = play_out(undrawn.draw(), random_winner(random.Random(0)))
    assert not finished.next_round_ready
    with pytest.raises(TournamentComplete):
        finished.start_round()


def test_results_only_for_open_pairings_and_their_players() -> None:
    tournament = drawn(SingleElimination(), 6).start_round()
    assert tournament.current_round is not None
    bye, match = tournament.current_round.pairings[:2]
    assert bye.bye and not match.bye
    with pytest.raises(PairingFinished):
        tournament.record_result(bye.id, bye.players[0])
    with pytest.raises(NotInPairing):
        tournament.record_result(match.id, bye.players[0])
    with pytest.raises(UnknownPairing):
        tournament.record_result("main-2-1", "e1")
    decided = tournament.record_result(match.id, match.players[1])
    with pytest.raises(PairingFinished):
        decided.record_result(match.id, match.players[0])
    # The refused calls left every value as it was.
    assert tournament.pairing(match.id).winner is None
    assert decided.pairing(match.id).winner == match.players[1]


def test_final_places_wait_for_the_end() -> None:
    tournament = play_round(drawn(Swiss(rounds=2), 4), random_winner(random.Random(1)))
    with pytest.raises(TournamentNotComplete):
        tournament.final_places()


def test_questions_that_do_not_fit_the_format_are_refused() -> None:
    with pytest.raises(WrongFormat):
        drawn(SingleElimination(), 4).standings()
    with pytest.raises(WrongFormat):
        drawn(Swiss(rounds=2), 4).fixtures()
    with pytest.raises(NotDrawn):
        Tournament(format=RoundRobin(), entries=field(4)).standings()


@pytest.mark.parametrize(
    ("entries", "message"),
    [
        (field(1), "at least two"),
        ((Entry("a", 1.0), Entry("a", 2.0)), "twice"),
        ((Entry("", 1.0), Entry("b", 2.0)), "non-empty"),
        ((Entry("a", 1.0, seed=1), Entry("b", 2.0, seed=3)), "1 to 2"),
        ((Entry("a", 1.0, seed=0), Entry("b", 2.0)), "whole number"),
        ((Entry("a"), Entry("b", 2.0)), "no rating for a"),
        ((Entry("a", float("nan")), Entry("b", 2.0)), "not a number"),
    ],
)
def test_bad_entries_are_refused(entries: tuple[Entry, ...], message: str) -> None:
    with pytest.raises(InvalidEntries, match=message):
        Tournament(format=SingleElimination(), entries=entries)


def test_random_seeding_needs_no_ratings_but_a_random_source() -> None:
    options = SingleElimination(seeding=Seeding.RANDOM)
    tournament = Tournament(format=options, entries=(Entry("a"), Entry("b")))
    with pytest.raises(InvalidOptions, match="random source"):
        tournament.draw()
    assert sorted(tournament.draw(rng=random.Random(1)).seed_order) == ["a", "b"]


def test_bad_options_are_refused() -> None:
    for options in [
        SingleElimination(consolation_through_round=-1),
        SingleElimination(consolation_through_round=3),  # 8 entries: rounds 1-2 at most
        SingleElimination(last_chance_after_round=3),
        DoubleElimination(bracket_reset="yes"),  # type: ignore[arg-type]
        Swiss(rounds=8),
        RoundRobin(seeding="best"),  # type: ignore[arg-type]
    ]:
        with pytest.raises(InvalidOptions):
            Tournament(format=options, entries=field(8))


def test_formats_carry_the_names_the_api_shows() -> None:
    assert [options.kind.value for options in ALL_FORMATS] == [
        "single_elimination",
        "double_elimination",
        "swiss",
        "round_robin",
    ]


def test_every_refusal_is_a_tournament_error() -> None:
    for error in (AlreadyDrawn, InvalidEntries, InvalidState, UnknownPairing, WrongFormat):
        assert issubclass(error, TournamentError)


@pytest.mark.parametrize("options", ALL_FORMATS)
def test_a_tournament_survives_json_at_every_step(options: FormatOptions) -> None:
    tournament = Tournament(format=options, entries=field(12))
    choose = random_winner(random.Random(4))
    states = [tournament, tournament := tournament.draw()]
    while not tournament.complete:
        tournament = tournament.start_round()
        states.append(tournament)
        assert tournament.current_round is not None
        for pairing in tournament.current_round.pairings:
            if not pairing.finished:
                tournament = tournament.record_result(pairing.id, choose(pairing))
                states.append(tournament)
    for state in states:
        assert Tournament.from_dict(json.loads(json.dumps(state.to_dict()))) == state
    restored = Tournament.from_dict(json.loads(json.dumps(states[-1].to_dict())))
    assert restored.final_places() == states[-1].final_places()


def test_a_restored_tournament_carries_on_where_it_stopped() -> None:
    tournament = play_round(drawn(Swiss(rounds=3), 6), random_winner(random.Random(2)))
    restored = Tournament.from_dict(json.loads(json.dumps(tournament.to_dict())))
    assert restored.start_round() == tournament.start_round()


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: data.pop("entries"),
        lambda data: data["format"].update(kind="knockout"),
        lambda data: data.update(seed_order=["e1", "e2"]),
        lambda data: data["rounds"][0]["pairings"][0].update(players=["e1", "e1"]),
        lambda data: data["rounds"][0]["pairings"][0].update(winner="nobody"),
        lambda data: data.update(plan=None),
    ],
)
def test_damaged_stored_data_is_refused(damage: Callable[[dict[str, Any]], object]) -> None:
    data = drawn(RoundRobin(), 4).start_round().to_dict()
    damage(data)
    with pytest.raises(InvalidState):
        Tournament.from_dict(data)


def test_the_formats_import_no_django() -> None:
    code = (
        "import sys, tournaments.formats; "
        "assert not [name for name in sys.modules if name.split('.')[0] in "
        "('django', 'rest_framework', 'celery')], 'Django imported'"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
