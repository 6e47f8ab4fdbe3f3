"""Reading a match's analysis for the API, and the match it analyses for the engine worker."""

from __future__ import annotations

import datetime
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NotRequired, TypedDict

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db import models
from django.db.models import Count, Q, QuerySet, Sum
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy as _lazy

from analysis import jobs
from analysis import live as analysis_live
from analysis.marks import ErrorRates, Kind, error_rate
from analysis.models import Decision, ImportedMatch, MatchAnalysis, PlayerFigures
from backgammon.game import Double, Game, Move, NoMove, Phase, Roll
from backgammon.matfile import MatchRecord, import_mat
from backgammon.variants import STANDARD
from club.models import Player
from matches import board
from matches import selectors as matches_selectors
from matches.models import Action, Match, Table
from web.errors import NotFound


@dataclass(frozen=True)
class Seat:
    """Who an analysis gives figures to: ``side`` and ``place`` (a chouette's members:
    their place in the line), the name the figures carry, the member (None: a guest of
    an imported match), and in a chouette the holder whose decisions are theirs."""

    side: int
    place: int
    username: str
    player: Player | None
    holder: str | None = None


@dataclass(frozen=True)
class Analysed:
    """What an analysis judges: a match's record, or one chouette game (the game
    replayed from the log), or an imported match's file (``mat``, which the engine
    worker reads), and the seats its figures go to."""

    seats: tuple[Seat, ...]
    record: MatchRecord | None = None
    chouette_game: Game | None = None
    mat: str | None = None


def analysed_match(analysis: MatchAnalysis) -> Analysed:
    """The match or chouette game of ``analysis``, and who played it."""
    imported = analysis.imported
    if imported is not None:
        return Analysed(
            seats=(
                _seat(0, 0, imported.name_1, imported.player_1),
                _seat(1, 0, imported.name_2, imported.player_2),
            ),
            mat=imported.text,
        )
    if analysis.table_id is not None and analysis.game_number is not None:
        rows = Action.objects.filter(
            table_id=analysis.table_id, game_number=analysis.game_number
        ).order_by("seq")
        box, *line = analysis.seats
        members = _members([box, *line])
        return Analysed(
            seats=(
                Seat(0, 0, box, members.get(box)),
                *(
                    Seat(1, place, name, members.get(name), holder=name)
                    for place, name in enumerate(line)
                ),
            ),
            chouette_game=matches_selectors.replay_game(rows),
        )
    assert analysis.match is not None
    record = matches_selectors.match_record(analysis.match)
    members = _members(record.players)
    return Analysed(
        seats=tuple(
            Seat(side, 0, name, members.get(name)) for side, name in enumerate(record.players)
        ),
        record=record,
    )


def analysed_games(analysed: Analysed) -> list[dict[str, Any]]:
    """The games to judge as the engine worker reads them (``analysis.jobs.Job``)."""
    if analysed.chouette_game is not None:
        return [{"game": analysed.chouette_game.to_dict(), "state": None}]
    if analysed.mat is not None:
        return []  # the engine worker reads the file
    assert analysed.record is not None
    return jobs.games_of(analysed.record)


def _seat(side: int, place: int, name: str, player: Player | None) -> Seat:
    return Seat(side, place, name if player is None else player.username, player)


def _members(usernames: Sequence[str]) -> dict[str, Player]:
    found = Player.objects.select_related("user").filter(user__username__in=usernames)
    return {p.username: p for p in found}


def analysis_for_match(*, match_id: int) -> MatchAnalysis:
    """The match's analysis with its figures and decisions; ``NotFound`` if the match or
    its analysis does not exist (a match is queued once it is over)."""
    if not Match.objects.filter(pk=match_id).exists():
        raise NotFound(_("There is no match %(id)s.") % {"id": match_id})
    found = MatchAnalysis.objects.filter(match_id=match_id).prefetch_related("players").first()
    if found is None:
        raise NotFound(_("The match %(id)s has not been analysed.") % {"id": match_id})
    return found


def analysis_for_import(*, import_id: int) -> MatchAnalysis:
    """An imported match's analysis, or ``NotFound``."""
    found = MatchAnalysis.objects.filter(imported_id=import_id).prefetch_related("players").first()
    if found is None:
        raise NotFound(_("There is no imported match %(id)s.") % {"id": import_id})
    return found


class FiguresBody(TypedDict):
    """One player's figures as the API answers them."""

    username: str
    pr: float | None
    checker_pr: float | None
    cube_pr: float | None
    decisions: int
    checker_decisions: int
    cube_decisions: int
    blunders: int


class DecisionBody(TypedDict):
    """One decision judged, as the API answers it."""

    move_number: int
    player: str
    kind: str
    played: str
    best: str
    equity_loss: float
    mark: str | None
    played_equity: float
    best_equity: float
    counted: bool
    cube_of: str | None


class GameBody(TypedDict):
    """One game's decisions; a chouette's game carries its own analysis' status."""

    number: int
    decisions: list[DecisionBody]
    status: NotRequired[str]


class AnalysisBody(TypedDict):
    """An analysis as the API answers it (a match's, an imported match's, a chouette's)."""

    status: str
    progress: float
    engine: str
    plies: int
    error: str
    players: list[FiguresBody]
    games: list[GameBody]


class ImportedPlayerBody(TypedDict):
    """A name in the file, and the member it is (None: a guest)."""

    name: str
    username: str | None


class ImportedBody(TypedDict):
    """An imported match as the API answers its upload."""

    id: int
    length: int
    games: int
    played_on: datetime.date | None
    players: list[ImportedPlayerBody]
    analysis: AnalysisBody


def imported_detail(imported: ImportedMatch) -> ImportedBody:
    """An imported match as the API answers its upload: its players (the names in the
    file, and the members they are, None for a guest) and its analysis."""
    return {
        "id": imported.pk,
        "length": imported.length,
        "games": imported.games,
        "played_on": imported.played_on,
        "players": [
            {"name": name, "username": None if player is None else player.username}
            for name, player in (
                (imported.name_1, imported.player_1),
                (imported.name_2, imported.player_2),
            )
        ],
        "analysis": analysis_detail(analysis_for_import(import_id=imported.pk)),
    }


def analysis_detail(analysis: MatchAnalysis) -> AnalysisBody:
    """The analysis as the API answers it (shared/API.md)."""
    players = list(analysis.players.all())
    games: dict[int, list[DecisionBody]] = {}
    for decision in _decision_rows([analysis]).get(analysis.pk, []):
        games.setdefault(decision["game_number"], []).append(
            _decision_detail(decision, players, analysis.seats)
        )
    return {
        "status": analysis.status,
        "progress": analysis.progress,
        "engine": analysis.engine,
        "plies": analysis.plies,
        "error": analysis.error,
        "players": [_figures_detail(p) for p in players],
        "games": [
            {"number": number, "decisions": decisions}
            for number, decisions in sorted(games.items())
        ],
    }


_DECISION_COLUMNS = (
    "analysis_id", "game_number", "move_number", "side", "holder", "kind", "played", "best",
    "equity_loss", "mark", "played_equity", "best_equity", "counted",
)  # fmt: skip


def _decision_rows(analyses: Sequence[MatchAnalysis]) -> dict[int, list[dict[str, Any]]]:
    """The decisions of ``analyses`` by analysis, in order, in one query: as plain
    values, not models (a match's 300 rows read in a third of the time; the API's
    answer and the review page are made of them)."""
    rows: dict[int, list[dict[str, Any]]] = {}
    for row in Decision.objects.filter(analysis__in=analyses).values(*_DECISION_COLUMNS):
        rows.setdefault(row["analysis_id"], []).append(row)
    return rows


def _decision_detail(
    decision: Mapping[str, Any], players: list[PlayerFigures], seats: list[str]
) -> DecisionBody:
    """One decision (a row of ``_decision_rows``); in a chouette, ``player`` is who made
    it (the box, or the member) and ``cube_of`` the member whose cube a cube decision is
    on."""
    if seats:
        player = seats[0] if decision["side"] == 0 else decision["holder"]
    else:
        player = next((p.username for p in players if p.side == decision["side"]), "")
    cube_of = decision["holder"] if seats and decision["kind"] == Kind.CUBE else None
    return {
        "move_number": decision["move_number"],
        "player": player,
        "kind": decision["kind"],
        "played": decision["played"],
        "best": decision["best"],
        "equity_loss": decision["equity_loss"],
        "mark": decision["mark"] or None,
        "played_equity": decision["played_equity"],
        "best_equity": decision["best_equity"],
        "counted": decision["counted"],
        "cube_of": cube_of,
    }


def _figures_detail(p: PlayerFigures | Summed) -> FiguresBody:
    return {
        "username": p.username,
        "pr": p.pr,
        "checker_pr": p.checker_pr,
        "cube_pr": p.cube_pr,
        "decisions": p.decisions,
        "checker_decisions": p.checker_decisions,
        "cube_decisions": p.cube_decisions,
        "blunders": p.blunders,
    }


@dataclass
class Summed(ErrorRates):
    """One player's figures over several analyses (a chouette session's games)."""

    username: str
    checker_decisions: int = 0
    cube_decisions: int = 0
    checker_loss: float = 0.0
    cube_loss: float = 0.0
    blunders: int = 0

    def add(self, figures: PlayerFigures) -> None:
        self.checker_decisions += figures.checker_decisions
        self.cube_decisions += figures.cube_decisions
        self.checker_loss += figures.checker_loss
        self.cube_loss += figures.cube_loss
        self.blunders += figures.blunders


def chouette_analyses(*, chouette_id: int) -> list[MatchAnalysis]:
    """The analyses of an online chouette's games, in order; ``NotFound`` if none is
    queued yet (each game is, once it is over)."""
    found = list(
        MatchAnalysis.objects.filter(table__chouette__pk=chouette_id, table__isnull=False)
        .prefetch_related("players")
        .order_by("game_number")
    )
    if not found:
        raise NotFound(
            _("No game of the chouette %(id)s played online has been analysed.")
            % {"id": chouette_id}
        )
    return found


def chouette_analysis_detail(analyses: list[MatchAnalysis]) -> AnalysisBody:
    """A chouette session's analysis in the match's shape: ``games`` each game's
    decisions (with its own ``status``), ``players`` each player's figures summed over
    the games analysed so far; the ``status`` is the least advanced game's."""
    statuses = {a.status for a in analyses}
    status = next(
        s
        for s in (
            MatchAnalysis.Status.FAILED,
            MatchAnalysis.Status.RUNNING,
            MatchAnalysis.Status.QUEUED,
            MatchAnalysis.Status.DONE,
        )
        if s in statuses
    )
    summed: dict[str, Summed] = {}
    for analysis in analyses:
        for figures in analysis.players.all():
            summed.setdefault(figures.username, Summed(figures.username)).add(figures)
    done = [a for a in analyses if a.status == MatchAnalysis.Status.DONE]
    rows = _decision_rows(analyses)
    return {
        "status": status,
        "progress": sum(a.progress for a in analyses) / len(analyses),
        "engine": done[0].engine if done else "",
        "plies": min((a.plies for a in done), default=0),
        "error": next((a.error for a in analyses if a.error), ""),
        "players": [_figures_detail(s) for s in summed.values()],
        "games": [_chouette_game_detail(a, rows.get(a.pk, [])) for a in analyses],
    }


def _chouette_game_detail(analysis: MatchAnalysis, decisions: list[dict[str, Any]]) -> GameBody:
    # A chouette game's analysis has its game number (the model's check constraint).
    assert analysis.game_number is not None
    players = list(analysis.players.all())
    return {
        "number": analysis.game_number,
        "status": analysis.status,
        "decisions": [_decision_detail(d, players, analysis.seats) for d in decisions],
    }


# Error rate over time -------------------------------------------------------------------


class GameKind(models.TextChoices):
    """What the PR pages filter by: every game analysed, or one kind of them."""

    ALL = "", _lazy("all games")
    MATCH = "match", _lazy("matches")
    MONEY = "money", _lazy("money sessions")
    CHOUETTE = "chouette", _lazy("chouettes")
    IMPORTED = "imported", _lazy("imported matches")


_KIND_FILTERS = {
    GameKind.MATCH: Q(analysis__match__length__gte=1),
    GameKind.MONEY: Q(analysis__match__length=0),
    GameKind.CHOUETTE: Q(analysis__table__isnull=False),
    GameKind.IMPORTED: Q(analysis__imported__isnull=False),
}


def game_kind(value: str | None) -> GameKind:
    """The kind a page's ``pr_kind`` asks for; anything unknown is every game."""
    return GameKind(value) if value in GameKind.values else GameKind.ALL


def _figures_of_kind(kind: GameKind) -> QuerySet[PlayerFigures]:
    found = PlayerFigures.objects.filter(
        analysis__status=MatchAnalysis.Status.DONE, player__isnull=False
    ).filter(Q(checker_decisions__gt=0) | Q(cube_decisions__gt=0))
    return found.filter(_KIND_FILTERS[kind]) if kind in _KIND_FILTERS else found


def pr_history(*, player: Player, kind: GameKind = GameKind.ALL) -> list[PlayerFigures]:
    """The player's figures in each match or chouette game analysed, of ``kind``, in the
    order the club got them (the analysis' queueing)."""
    found = _figures_of_kind(kind).filter(player=player).select_related("analysis")
    return list(found.order_by("analysis_id", "place"))


@dataclass(frozen=True)
class PrRow:
    """One line of the club's PR table: a player's figures over everything analysed."""

    player: Player
    games: int
    decisions: int
    pr: float | None
    checker_pr: float | None
    cube_pr: float | None
    blunders: int


def pr_table(*, kind: GameKind = GameKind.ALL) -> list[PrRow]:
    """Every member with an analysed game of ``kind``, the lowest PR (the best) first:
    PR over all their counted decisions together (500 x equity lost / decisions). The
    practice robots are left out, as from the ratings: the table compares members."""
    sums = (
        _figures_of_kind(kind)
        .exclude(player__robot__gt="")
        .values("player")
        .annotate(
            games=Count("id"),
            checker=Sum("checker_decisions"),
            cube=Sum("cube_decisions"),
            checker_lost=Sum("checker_loss"),
            cube_lost=Sum("cube_loss"),
            blunder_count=Sum("blunders"),
        )
    )
    players = Player.objects.select_related("user").in_bulk([row["player"] for row in sums])
    rows = [
        PrRow(
            player=players[row["player"]],
            games=row["games"],
            decisions=row["checker"] + row["cube"],
            pr=error_rate(row["checker_lost"] + row["cube_lost"], row["checker"] + row["cube"]),
            checker_pr=error_rate(row["checker_lost"], row["checker"]),
            cube_pr=error_rate(row["cube_lost"], row["cube"]),
            blunders=row["blunder_count"],
        )
        for row in sums
    ]
    return sorted(rows, key=lambda r: (r.pr if r.pr is not None else 1e9, r.player.display_name))


# The review page --------------------------------------------------------------------------


@dataclass(frozen=True)
class ReviewStep:
    """One decision of the review page: the decision as the API gives it, the board its
    decider saw (SVG, every label escaped) and the dice."""

    decision: DecisionBody
    board: str
    dice: tuple[int, int] | None


def _states_by_roll(game: Game) -> dict[tuple[str, int], Game]:
    """The game as each decision found it, keyed as the engine numbers decisions
    (analysis.engine.analyse_game): ("checker", roll) with the dice rolled, ("cube",
    roll) before that roll, ("answer", roll) with the double on offer."""
    states: dict[tuple[str, int], Game] = {}
    replayed = Game.start(game.options, game.opening)
    roll_number = 1
    for action in game.compact().history:
        if isinstance(action, Move):
            states[("checker", roll_number)] = replayed
        elif isinstance(action, Roll | Double) and replayed.phase is Phase.ROLL:
            states.setdefault(("cube", roll_number + 1), replayed)
        if isinstance(action, Double):
            states[("answer", roll_number + 1)] = replayed.apply(action)
        if isinstance(action, Roll):
            roll_number += 1
        if not isinstance(action, NoMove):
            replayed = replayed.apply(action)
    return states


class ReviewGame(TypedDict):
    """One game of the review page, step by step."""

    number: int
    steps: list[ReviewStep]


def review_games(
    games: Sequence[Game], detail: AnalysisBody, sides: Mapping[str, int], labels: Sequence[str]
) -> list[ReviewGame]:
    """Each game of an analysis (``analysis_detail``) with, for every decision, the board
    from its decider's side as it stood then: ``games`` the games replayed, ``sides`` the
    side of each name a decision gives (a chouette: the box 0, every member 1),
    ``labels`` the names the board shows for each side."""
    shown: list[ReviewGame] = []
    for game, analysed in zip(games, detail["games"], strict=False):
        states = _states_by_roll(game)
        steps = []
        for decision in analysed["decisions"]:
            answer = decision["played"] in ("take", "pass", "beaver")
            kind = "answer" if answer else decision["kind"]
            number = decision["move_number"]
            # A chouette's answers are judged on the board before the turn, as its doubles.
            state = states.get((kind, number)) or states[("cube", number)]
            side = sides.get(decision["player"], 0)
            picture = board.picture_for(state, side)
            names = (decision["player"] or labels[side], labels[1 - side])
            svg = board.board_svg(picture, names=names)
            dice = state.dice if decision["kind"] == Kind.CHECKER else None
            steps.append(ReviewStep(decision, svg, dice))
        shown.append({"number": analysed["number"], "steps": steps})
    return shown


def match_review(match: Match, detail: AnalysisBody) -> list[ReviewGame]:
    """The review of a match played on the server: its games replayed from the log."""
    names = matches_selectors.players(match)
    sides = {name: side for side, name in enumerate(names)}
    return review_games(matches_selectors.match_games(match), detail, sides, names)


def imported_review(imported: ImportedMatch, detail: AnalysisBody) -> list[ReviewGame]:
    """The review of an imported match: its games replayed from the stored file."""
    names = [
        _seat(side, 0, name, player).username
        for side, (name, player) in enumerate(
            ((imported.name_1, imported.player_1), (imported.name_2, imported.player_2))
        )
    ]
    sides = {name: side for side, name in enumerate(names)}
    return review_games(import_mat(imported.text).games, detail, sides, names)


def chouette_review(analysis: MatchAnalysis, detail: AnalysisBody) -> ReviewGame:
    """The review of one chouette game: the game replayed from its table's log, the box
    on one side and the member who decided on the other."""
    assert analysis.game_number is not None  # a chouette game's analysis has its number
    box, *line = analysis.seats
    sides = {box: 0, **{name: 1 for name in line}}
    game = analysed_match(analysis).chouette_game
    assert game is not None  # a chouette game's analysis replays its game
    (reviewed,) = review_games([game], detail, sides, (box, _("the team")))
    return {"number": analysis.game_number, "steps": reviewed["steps"]}


# An analysis' progress, shown live -------------------------------------------------------


@dataclass(frozen=True)
class ShownFigures:
    """One player's figures in the progress region: ``name`` as the site shows it (a
    member's display name, a guest's name in the file), ``mine`` for the reader's own."""

    name: str
    mine: bool
    pr: float | None
    blunders: int


@dataclass(frozen=True)
class ProgressShown:
    """What the progress region of an analysis shows its reader (analysis/_progress.html):
    the status, the progress in percent, each player's PR once done, why it failed, the
    review's address, and ``may_ask_again``: the reader is a player of a failed one's
    match or chouette, or who uploaded its imported match (or staff)."""

    analysis: MatchAnalysis
    topic: str | None  # None once done: nothing more to follow
    percent: int
    figures: list[ShownFigures]
    review_url: str
    may_ask_again: bool
    ask_url: str


def analysis_of_match(match: Match) -> MatchAnalysis | None:
    return MatchAnalysis.objects.filter(match=match).first()


def _chouette_id(analysis: MatchAnalysis) -> int | None:
    """The chouette of a chouette game's analysis, through its table (the relation's
    name: this app never imports the chouettes')."""
    assert analysis.table_id is not None  # a chouette game's analysis has its table
    return Table.objects.filter(pk=analysis.table_id).values_list("chouette__pk", flat=True).first()


def analysis_review_url(analysis: MatchAnalysis) -> str:
    """The review page of what ``analysis`` analysed (a chouette game: its place in the
    chouette's review)."""
    if analysis.match_id is not None:
        return reverse("match-review", args=[analysis.match_id])
    if analysis.imported_id is not None:
        return reverse("imported-review", args=[analysis.imported_id])
    chouette = reverse("chouette-review", args=[_chouette_id(analysis)])
    return f"{chouette}#game-{analysis.game_number}"


def progress_shown(
    analysis: MatchAnalysis, user: AbstractBaseUser | AnonymousUser
) -> ProgressShown:
    """The progress region of ``analysis`` as ``user`` reads it."""
    player_id = getattr(getattr(user, "player", None), "pk", None)
    done = analysis.status == MatchAnalysis.Status.DONE
    figures = [
        ShownFigures(
            f.username if f.player is None else f.player.display_name,
            f.player_id == player_id is not None,
            f.pr,
            f.blunders,
        )
        for f in (analysis.players.select_related("player") if done else [])
    ]
    review_url = analysis_review_url(analysis)
    if analysis.match_id is not None:
        ask_url = reverse("api-match-analysis", args=[analysis.match_id])
        match = analysis.match
        assert match is not None
        plays = player_id is not None and player_id in (match.creator_id, match.opponent_id)
        # Another game than backgammon fails again whoever asks (the engine's one game).
        plays = plays and matches_selectors.match_state(match).options.variant == STANDARD
    elif analysis.imported is not None:
        ask_url = reverse("api-imported-analysis", args=[analysis.imported_id])
        plays = getattr(user, "is_staff", False) or analysis.imported.uploaded_by_id == user.pk
    else:
        ask_url = reverse("api-chouette-analysis", args=[_chouette_id(analysis)])
        plays = user.is_authenticated and user.get_username() in analysis.seats
    return ProgressShown(
        analysis=analysis,
        topic=None if done else analysis_live.analysis_topic(analysis),
        percent=round(100 * analysis.progress),
        figures=figures,
        review_url=review_url,
        may_ask_again=analysis.status == MatchAnalysis.Status.FAILED and plays and bool(ask_url),
        ask_url=ask_url,
    )
