"""The messages between the analysis' two sides, in plain JSON: the Django worker, which
keeps the database, and the engine worker (``analysis.engine_worker``), which imports
no Django. Both import this module; it loads neither Django nor the engine.

A run: ``ANALYSE`` (Django side, ``settings.ANALYSIS_DJANGO_QUEUE``) marks the analysis
running and sends a ``Job`` to ``JUDGE`` (engine side, ``settings.ANALYSIS_QUEUE``),
which judges games for ``SLICE`` seconds, sends ``PROGRESS`` (at most every
``PROGRESS_EVERY`` seconds) and queues itself for the games left, and after the last sends
``STORE`` with every game's decisions; or ``FAILED`` (docs/analysis.md,
"The engine worker").
"""

from typing import Any, Literal, TypedDict

from backgammon.matfile import MatchRecord

ANALYSE = "analysis.analyse"
JUDGE = "analysis.judge_game"
PROGRESS = "analysis.progress"
STORE = "analysis.store"
FAILED = "analysis.failed"

# A run reports its progress at most this often: a page shows a long run moving, and a
# short one (a match at 0-ply takes a tenth of a second) costs no write a game.
PROGRESS_EVERY = 1.0

# An engine task judges games one after another until it has run this long (at least
# one game): a robot's move waits behind at most a slice and a game, and a short run
# crosses the broker once, not once a game (a 7-point match at 0-ply takes 0.03 s).
SLICE = 0.25

# Why the engine gave up on a run: a match it cannot judge (failed at once), the time
# limit, an error (both retried once).
Failure = Literal["unsupported", "stopped", "error"]


class Seat(TypedDict):
    """Who gets figures (``analysis.selectors.Seat``): carried through, for the store."""

    side: int
    place: int
    username: str
    player_id: int | None
    holder: str | None


class Job(TypedDict):
    """A run, as each of its engine tasks receives it.

    ``games``: each game's ``Game.to_dict()`` and the match's state before it
    (``MatchState.to_dict()``; None for a chouette game, ``games_of``); empty, with
    ``mat`` the text of an imported match's file, until the engine worker's first task
    has read it (the Django side does not parse it again); ``done``: the decisions of the
    games judged so far (``analysis.marks.decision_to_dict``), the next game to judge
    being the one after; each slice's task goes to ``queue`` (the engine's), behind what
    waits there. ``deadline`` (the soft limit, checked between decisions) and
    ``hard_deadline`` (the process is killed, ``analysis.engine_worker.hard_limit``) are
    seconds since the epoch, as is ``reported_at``, when the run started or last sent its
    progress; ``attempt`` tells a late answer of an earlier run apart.
    """

    analysis_id: int
    attempt: int
    plies: int
    chouette: bool
    games: list[dict[str, Any]]
    mat: str | None
    done: list[list[dict[str, Any]]]
    seats: list[Seat]
    deadline: float
    hard_deadline: float
    reported_at: float
    queue: str
    reply_queue: str


def games_of(record: MatchRecord) -> list[dict[str, Any]]:
    """A match's games as a ``Job`` carries them."""
    return [
        {"game": game.to_dict(), "state": record.state_before(index).to_dict()}
        for index, game in enumerate(record.games)
    ]
