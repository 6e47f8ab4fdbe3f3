"""``.mat`` export in gnubg's exact layout, import through the rules, and round trips."""

from __future__ import annotations

import datetime
import random
import re
from dataclasses import replace

import pytest

from backgammon.errors import InvalidMatFile
from backgammon.game import Game, GameOptions, Move, Phase, Result
from backgammon.match import MatchState
from backgammon.matfile import MatchRecord, export_mat, import_mat
from backgammon.variants import Variants
from tests.backgammon.test_selfplay import random_game


def cells(game: Game) -> list[str]:
    """Each play of ``game`` as gnubg's ``FormatMovePlain`` writes it: one ``from/to`` per
    die (25 the bar, 0 off), ``*`` for a hit, and a space after each of the first three."""
    out = []
    for action in game.history:
        if isinstance(action, Move):
            tokens = [f"{s.origin}/{s.destination}{'*' * s.hit}" for s in action.steps]
            out.append(" ".join(tokens) + (" " if 0 < len(tokens) < 4 else ""))
    return out


def left(number: int, text: str) -> str:
    """A line's left column, as gnubg pads it."""
    return f"{number:3d}) {text:<27} "


def match_a() -> MatchRecord:
    """A 3-point match: a drop in the left column, a take, a resignation after rolling."""
    start = MatchState(length=3)
    one = Game.start(start.next_game_options(), [(1, 3)]).play("8/5 6/5")
    one = one.roll((6, 4)).play("24/14").double().pass_()
    after = start.apply_game(one.points_for(0))
    two = Game.start(after.next_game_options(), [(5, 2)]).play("13/8 13/11")
    two = two.roll((6, 6)).play("24/18(2) 13/7(2)").double().take()
    two = two.roll((2, 1)).play("6/4 6/5").roll((4, 3)).resign("gammon").accept_resign()
    return MatchRecord(
        players=("alice", "bob"),
        start=start,
        games=(one, two),
        site="Club",
        event_date=datetime.date(2024, 5, 1),
    )


def expected_a(record: MatchRecord) -> str:
    a, b = (cells(game) for game in record.games)
    return (
        '; [Site "Club"]\n'
        '; [Player 1 "alice"]\n'
        '; [Player 2 "bob"]\n'
        '; [EventDate "2024.05.01"]\n'
        '; [Variation "Backgammon"]\n'
        '; [Crawford "On"]\n'
        '; [CubeLimit "64"]\n'
        "\n"
        " 3 point match\n"
        "\n"
        " Game 1\n"
        " alice : 0                      bob : 0\n"
        f"  1)                             31: {a[0]}\n"
        f"{left(2, '64: ' + a[1])} Doubles => 2\n"
        f"{left(3, ' Drops                       Wins 1 point')}\n"
        "\n"
        " Game 2\n"
        " alice : 0                      bob : 1\n"
        f"{left(1, '52: ' + b[0])}66: {b[1]}\n"
        f"{left(2, ' Doubles => 2')} Takes\n"
        f"{left(3, '21: ' + b[2])}43: \n"
        "      Wins 4 points\n"
        "\n"
    )


def match_b() -> MatchRecord:
    """A money session with the Jacoby rule and beavers: a beaver taken, then refused."""
    start = MatchState(options=GameOptions(jacoby=True, beavers=True))
    one = Game.start(start.next_game_options(), [(3, 1)]).play("8/5 6/5")
    one = one.roll((6, 4)).play("24/14").roll((2, 1)).play("6/4 6/5")
    one = one.double().beaver().take().roll((5, 3)).play("8/3 6/3")
    one = one.resign("single").accept_resign()
    after = start.apply_game(one.points_for(0))
    two = Game.start(after.next_game_options(), [(6, 6), (4, 2)]).play("8/4 6/4")
    two = two.double().beaver().pass_()
    return MatchRecord(players=("carol", "dave"), start=start, games=(one, two))


def expected_b(record: MatchRecord) -> str:
    a, b = (cells(game) for game in record.games)
    return (
        '; [Player 1 "carol"]\n'
        '; [Player 2 "dave"]\n'
        '; [Variation "Backgammon"]\n'
        '; [Jacoby "On"]\n'
        '; [Beaver "On"]\n'
        "\n"
        " 0 point match\n"
        "\n"
        " Game 1\n"
        " carol : 0                      dave : 0\n"
        f"{left(1, '31: ' + a[0])}64: {a[1]}\n"
        f"{left(2, '21: ' + a[2])} Doubles => 2\n"
        f"{left(3, ' Beavers => 4')}53: {a[3]}\n"
        "                                  Wins 4 points\n"
        "\n"
        " Game 2\n"
        " carol : 0                      dave : 4\n"
        f"{left(1, '42: ' + b[0])} Doubles => 2\n"
        f"{left(2, ' Beavers => 4')} Drops\n"
        "      Wins 2 points\n"
        "\n"
    )


def test_export_is_laid_out_as_gnubg_writes_a_match() -> None:
    record = match_a()
    assert export_mat(record) == expected_a(record)
    assert record.state.score == (4, 1) and record.state.winner == 0


def test_export_money_session_with_beavers() -> None:
    record = match_b()
    assert export_mat(record) == expected_b(record)
    assert record.state.score == (2, 4) and record.state.winner is None


@pytest.mark.parametrize("make", [match_a, match_b])
def test_import_replays_the_export_to_an_equal_record(make) -> None:
    record = make()
    assert import_mat(export_mat(record)) == record


GNUBG_FILE = (
    '; [Site "Club"]\n'
    '; [Player 1 "alice"]\n'
    '; [Player 2 "bob"]\n'
    '; [EventDate "2024.05.01"]\n'
    '; [Variation "Backgammon"]\n'
    '; [Crawford "On"]\n'
    "\n"
    " 3 point match\n"
    "\n"
    " Game 1\n"
    " alice : 0                      bob : 0\n"
    "  1) 31: 8/5 6/5                 64: 24/18 18/14 \n"
    "  2) 62: 13/11* 13/7             43: 25/21 21/18* \n"
    "  3) 55: 25/20 20/15 13/8 13/8    Doubles => 2\n"
    "  4)  Takes                      21: 13/11 6/5 \n"
    "  5)  Doubles => 4                Drops\n"
    "      Wins 2 points\n"
    "\n"
    " Game 2\n"
    " alice : 2                      bob : 0\n"
    "  1)                             31: 8/5 6/5 \n"
    "  2) 64: 24/18 18/14             \n"
    "      Wins 1 point\n"
    "\n"
)


def test_import_reads_a_file_in_gnubg_layout() -> None:
    record = import_mat(GNUBG_FILE)
    assert record.players == ("alice", "bob")
    assert (record.site, record.event_date) == ("Club", datetime.date(2024, 5, 1))
    one, two = record.games
    assert (one.result, one.winner, one.cube.value, one.points_for(0)) == (
        Result.PASSED,
        0,
        2,
        2,
    )
    assert one.position_for(1).player[24] == 0
    assert two.options.crawford
    assert (two.result, two.resignation, two.winner) == (Result.RESIGNED, Result.SINGLE, 0)
    assert record.state.score == (3, 0) and record.state.winner == 0
    assert import_mat(export_mat(record)) == record


def test_export_gives_a_gnubg_file_back_as_gnubg_wrote_it() -> None:
    text = export_mat(import_mat(GNUBG_FILE))
    assert text[text.index(" 3 point match") :] == GNUBG_FILE[GNUBG_FILE.index(" 3 point match") :]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (("8/5 6/5  ", "8/4 6/5  "), "game 1, move 1: "),
        (("21/18* ", "21/17* "), "game 1, move 2: "),
        (("alice : 2                      bob : 0", "alice : 2  bob : 1"), "says 2-1 but"),
        (("Takes  ", "Hello  "), "game 1, move 4: cannot read"),
        ((" 4)  Takes  ", " 4)        "), "game 1, move 4: right column rolls out of turn"),
        (("Doubles => 4", "Doubles => 8"), "game 1, move 5: 'Doubles => 8'"),
        (("Wins 2 points", "Wins 3 points"), "game 1, move 5: Wins 3"),
        (("Wins 1 point", "Wins 4 points"), "game 2, move 2: "),
        (
            ("  1)                             31:", "  1)                             33:"),
            "game 2",
        ),
        ((" 3 point match", " 2 point match"), "game 2: the match was already over"),
        (('Crawford "On"', 'Crawford "Off"'), "header: matches are played with the Crawford"),
        ((" 3 point match", ""), "no 'N point match' line"),
        (("Game 2\n", "Game 3\n"), "game 3: expected game 2"),
    ],
)
def test_corrupt_files_name_the_game_and_move(change: tuple[str, str], message: str) -> None:
    text = GNUBG_FILE.replace(*change)
    assert text != GNUBG_FILE
    with pytest.raises(InvalidMatFile) as refused:
        import_mat(text)
    assert message in str(refused.value)


def test_variations_gnubg_names() -> None:
    nack = GNUBG_FILE.replace('"Backgammon"', '"NackGammon"')
    assert import_mat(nack).start.options.variant == Variants.NACKGAMMON.value
    with pytest.raises(InvalidMatFile, match="unknown variation 'HyperGammon \\(1\\)'"):
        import_mat(GNUBG_FILE.replace('"Backgammon"', '"HyperGammon (1)"'))


def test_p2_a_double_in_the_crawford_game_is_refused() -> None:
    text = GNUBG_FILE.replace(
        "  2) 64: 24/18 18/14             \n      Wins 1 point",
        "  2)  Doubles => 2                Drops\n      Wins 1 point",
    )
    with pytest.raises(InvalidMatFile, match=r"game 2, move 2: .*Crawford"):
        import_mat(text)


def test_an_unfinished_game_only_at_the_end() -> None:
    cut = GNUBG_FILE.split("  5)")[0] + "\n Game 2\n alice : 0    bob : 0\n"
    with pytest.raises(InvalidMatFile, match="game 1: ends before the game is over"):
        import_mat(cut)
    record = import_mat(GNUBG_FILE.split("  5)")[0])
    assert record.games[-1].phase is Phase.ROLL and record.state.score == (0, 0)


def play_match(seed: int, start: MatchState, games: int = 30) -> MatchRecord:
    """Random games until the match is over (or ``games`` games), the last one unfinished."""
    rng = random.Random(seed)
    state, played = start, []
    while not state.over and len(played) < games:
        game = random_game(rng, state.next_game_options(), until_over=len(played) < games - 1)
        played.append(game)
        if not game.over:
            break
        state = state.apply_game(game.points_for(0))
    return MatchRecord(players=("ann", "bob"), start=start, games=tuple(played))


@pytest.mark.parametrize(
    "start",
    [
        MatchState(length=5),
        MatchState(length=1),
        MatchState(length=7, options=GameOptions(variant=Variants.NACKGAMMON.value)),
        MatchState(length=3, options=GameOptions(variant=Variants.HYPERGAMMON.value)),
        MatchState(options=GameOptions(jacoby=True, beavers=True, automatic_doubles=2)),
        MatchState(options=GameOptions(backgammon_value=2, cube_max=16)),
    ],
)
@pytest.mark.parametrize("seed", range(3))
def test_round_trip_export_import_equal_records(start: MatchState, seed: int) -> None:
    record = play_match(seed, start, games=6 if start.money else 30)
    text = export_mat(record)
    assert import_mat(text) == record
    for game in record.games:
        if game.result in (Result.SINGLE, Result.GAMMON, Result.BACKGAMMON):
            raw = {Result.SINGLE: 1, Result.GAMMON: 2, Result.BACKGAMMON: 3}[game.result]
            assert re.search(rf"^ +Wins {raw * game.cube.value} points?$", text, re.M)


def test_round_trip_of_an_unfinished_turn() -> None:
    start = MatchState(length=3)
    game = Game.start(start.next_game_options(), [(3, 1)]).play("8/5 6/5").roll((6, 4))
    record = MatchRecord(players=("ann", "bob"), start=start, games=(game,))
    assert export_mat(record).endswith("  1) 31: " + cells(game)[0].ljust(23) + " 64: \n")
    assert import_mat(export_mat(record)) == record
    stepped = replace(record, games=(game.move_step(24, 6),))
    assert import_mat(export_mat(stepped)) == stepped == record


def test_export_refuses_a_restored_history_with_a_move_without_a_roll() -> None:
    data = Game.start(MatchState(length=3).next_game_options(), [(3, 1)]).play("8/5 6/5").to_dict()
    data["history"].append(data["history"][0])  # side 1 "moves" without rolling
    game = Game.from_dict(data)
    record = MatchRecord(players=("ann", "bob"), start=MatchState(length=3), games=(game,))
    with pytest.raises(ValueError, match="action 2 of the game is a move without a roll"):
        export_mat(record)
