"""gnubg's judgement of a match's games (``analysis.gnubg_engine``): the depths deeper
than bgsage gives in time. Read back from gnubg's own analysis of the game, it must walk
the game exactly as bgsage's judge does and agree with it where two networks agree."""

import time

import pytest

import analysis.gnubg_engine as gnubg_engine
from analysis import jobs, judging
from analysis.engine import Engine, TimeUp, analyse_game
from analysis.marks import Kind, Mark
from analysis.selfplay import Player, best, play_match, worst
from backgammon.game import Game, GameOptions
from backgammon.match import MatchState
from backgammon.matfile import MatchRecord

LATER = time.time() + 3600


PLAYERS = (Player("alice", best), Player("bob", worst))


@pytest.fixture(scope="module")
def played():
    """A 3-point match bgsage plays against itself, with cube actions and a few errors."""
    return play_match(Engine(0), PLAYERS, 3, 5)


@pytest.fixture(scope="module")
def session():
    """Five games of a money session with the Jacoby rule, without beavers."""
    options = GameOptions(jacoby=True, beavers=False)
    return play_match(Engine(0), PLAYERS, 0, 7, session=options, most_games=5)


def opening_record(dice, play):
    """A one-point match whose first game is the opening roll ``dice`` played as ``play``."""
    game = Game.start(GameOptions(), [dice]).play(play)
    return MatchRecord(("alice", "bob"), MatchState(length=1), (game,))


@pytest.mark.parametrize("record", ["played", "session"])
def test_gnubg_walks_a_match_as_bgsage_does_and_agrees_on_its_equities(record, request):
    """The same decisions, in the same order, the same checker plays counted, with
    equities of the two networks close: in a match the cube's match winning chances
    read as normalised equities like bgsage's, in a money session its equities as they
    are."""
    played = request.getfixturevalue(record)
    engine = Engine(0)
    checker, cube = [], []
    for number, game in enumerate(played.games):
        state = played.state_before(number)
        by_bgsage = analyse_game(engine, game, state)
        by_gnubg = analyse_game(gnubg_engine.judge_of(played, number, 0, LATER), game, state)
        assert [(d.move_number, d.side, d.kind, d.played) for d in by_gnubg] == [
            (d.move_number, d.side, d.kind, d.played) for d in by_bgsage
        ]
        for ours, theirs in zip(by_bgsage, by_gnubg, strict=True):
            if ours.kind is Kind.CHECKER:  # counted when the roll has a choice
                assert ours.counted == theirs.counted
                if ours.counted:
                    checker.append(abs(ours.played_equity - theirs.played_equity))
            elif ours.counted or theirs.counted:  # a close call: the networks may differ
                cube.append(abs(ours.played_equity - theirs.played_equity))
    assert cube, "the match has cube decisions"
    assert sum(checker) / len(checker) < 0.06
    assert sum(cube) / len(cube) < 0.06


@pytest.mark.parametrize(
    "dice, play",
    [((3, 1), "8/5 6/5"), ((4, 2), "8/4 6/4"), ((6, 1), "13/7 8/7")],
)
def test_standard_opening_replies_are_best_at_2_ply(dice, play):
    record = opening_record(dice, play)
    judge = gnubg_engine.judge_of(record, 0, 2, LATER)
    (decision,) = analyse_game(judge, record.games[0], record.start)
    assert decision.played == decision.best == play
    assert decision.loss == 0 and decision.counted


def test_the_worst_opening_play_is_a_blunder_at_2_ply():
    record = opening_record((6, 1), "8/2 6/5")
    judge = gnubg_engine.judge_of(record, 0, 2, LATER)
    (decision,) = analyse_game(judge, record.games[0], record.start)
    assert decision.best == "13/7 8/7"
    assert decision.mark is Mark.BLUNDER


def test_a_file_gnubg_cannot_read_is_an_error_not_another_match(played, monkeypatch):
    """gnubg's commands report to the standard output, sent to /dev/null: a file it did
    not read is found by what it holds afterwards, not by its words."""
    gnubg_engine.game_nodes(played, 0, 0)  # a match in gnubg's memory
    monkeypatch.setattr(gnubg_engine, "export_mat", lambda record: "not a match file\n")
    with pytest.raises(gnubg_engine.GnubgError, match="could not read"):
        gnubg_engine.game_nodes(played, 0, 0)


def test_a_run_past_its_soft_deadline_does_not_start_gnubg(played):
    with pytest.raises(TimeUp):
        gnubg_engine.judge_of(played, 0, 2, time.time() - 1)


def test_an_sgf_value_may_hold_an_escaped_bracket():
    nodes = gnubg_engine.sgf_nodes(r"(;FF[4]C[a \] b];B[31hefe]A[0][hefe E ver 3];W[double])")
    assert [(n.colour, n.action) for n in nodes] == [("B", "31hefe"), ("W", "double")]
    assert nodes[0].properties["A"] == ["0", "hefe E ver 3"]


def judged_job(record: MatchRecord, plies: int, chouette: bool = False) -> dict:
    sent = []
    job = {
        "analysis_id": 1, "attempt": 1, "plies": plies, "chouette": chouette,
        "games": jobs.games_of(record), "mat": None, "done": [], "seats": [],
        "deadline": LATER, "hard_deadline": LATER, "reported_at": time.time(),
        "queue": "analysis", "reply_queue": "django",
    }  # fmt: skip
    while True:
        judging.judge_next(job, lambda name, kwargs, queue: sent.append((name, kwargs)))
        name, kwargs = sent[-1]
        if name != jobs.JUDGE:
            return {"name": name, **kwargs}
        job = kwargs["job"]


@pytest.mark.parametrize("plies", [1, 2])
def test_a_match_analysed_deeper_than_0_ply_is_gnubgs(plies):
    """The engine worker's task: deeper than 0-ply, a match's games are gnubg's, and the
    store names it."""
    answer = judged_job(opening_record((3, 1), "8/5 6/5"), plies=plies)
    assert answer["name"] == jobs.STORE
    assert answer["engine"] == f"gnubg {gnubg_engine.ENGINE_VERSION}"
    assert answer["plies"] == plies
    assert [d["best"] for d in answer["games"][0]] == ["8/5 6/5"]


def money(beavers: bool) -> MatchRecord:
    options = GameOptions(beavers=beavers)
    game = Game.start(options, [(3, 1)]).play("8/5 6/5")
    return MatchRecord(("alice", "bob"), MatchState(options=options), (game,))


def test_a_money_session_without_beavers_is_gnubgs_at_2_ply():
    assert judged_job(money(beavers=False), 2)["engine"].startswith("gnubg ")


def test_a_match_at_0_ply_and_a_money_session_with_beavers_stay_bgsages():
    """With beavers, gnubg's double/take is not bgsage's (its beaver not counted)."""
    for record, plies in ((opening_record((3, 1), "8/5 6/5"), 0), (money(beavers=True), 2)):
        assert judged_job(record, plies)["engine"].startswith("bgsage ")
