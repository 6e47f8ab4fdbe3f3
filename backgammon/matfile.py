"""``.mat`` files: whole matches as GNU Backgammon and eXtreme Gammon write and read them.

Export follows gnubg's ``ExportMatchMat`` / ``ExportGameJF`` (``export.c``) column for
column, so gnubg, XG and the programs that copy them read our files as theirs: a
score line per game, numbered lines of two columns (left: the first player, right: the
second), moves as ``53: 8/3 6/3`` with one ``from/to`` per die (25 the bar, 0 off, ``*``
a hit), ``Doubles => 2``, ``Beavers => 4``, ``Takes``, ``Drops`` and ``Wins N points``.
Like gnubg, a ``Wins`` line says the game's raw result (1, 2 or 3 times the cube,
before the Jacoby rule or a backgammon counted 2); the next score line has the points.

Header tags: the XG ones (``Player 1``, ``Player 2``, ``Variation``, ``Crawford``,
``Jacoby``, ``CubeLimit``), gnubg's (``Site``, ``EventDate``, ``Beaver``), and, only
when they are on, our options that no other program has (``BackgammonValue``,
``AutomaticDoubles``, ``OpeningCubes``: the cube each game started at), and
``Forfeit`` (``Player 2 timeout``) when the last game ended by a forfeit. gnubg keeps
unknown tags as a match comment.

A forfeit is written as gnubg writes a resignation, ``Wins N points`` in the winner's
column, N the resignation that brings gnubg (which scores a resignation as written, with
no Jacoby rule) to the same end: in a money session the points the forfeit gives (1 or
2 times the cube, after the Jacoby rule); in a match the smallest of 1, 2 or 3 times
the cube that gives the winner what it still needed (3 times when none does: gnubg then
shows the match unfinished, a limit of the format). Our import reads the ``Forfeit``
tag and replays the forfeit itself.

Import reads what gnubg writes (and XG's variants of it: consolidated moves such as
``13/7(2)`` or ``24/13``, ``bar``/``off``, ``Cannot Move``) and replays every action
through ``Game``, so a file that breaks a rule raises ``InvalidMatFile`` naming the
game, the move number and why.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import NoReturn

from backgammon.errors import BackgammonError, InvalidMatFile
from backgammon.game import (
    AcceptResign,
    Beaver,
    Dice,
    Double,
    Forfeit,
    ForfeitReason,
    Game,
    GameOptions,
    Move,
    NoMove,
    Opening,
    Pass,
    Phase,
    Resign,
    Result,
    Roll,
    Take,
)
from backgammon.match import MatchState
from backgammon.moves import Step
from backgammon.variants import Variants

_RAW_MULTIPLIER = {Result.SINGLE: 1, Result.GAMMON: 2, Result.BACKGAMMON: 3}


@dataclass(frozen=True)
class MatchRecord:
    """A match or money session as a ``.mat`` file holds it.

    ``start`` is the match before its first game (length and session options, score
    0-0); ``games`` are in order, each over but perhaps the last, and are kept
    ``Game.compact()``-ed, so records of one match compare equal however the turns
    were entered.
    """

    players: tuple[str, str]
    start: MatchState
    games: tuple[Game, ...] = ()
    site: str | None = None
    event_date: datetime.date | None = None
    _states: tuple[MatchState, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "games", tuple(game.compact() for game in self.games))
        states = [self.start]
        for game in self.games[:-1]:
            if not game.over:
                raise ValueError("only the last game of a match may be unfinished")
            states.append(_after(states[-1], game))
        object.__setattr__(self, "_states", tuple(states))

    def state_before(self, index: int) -> MatchState:
        """The match as it stood when game ``index`` (from 0) began."""
        return self._states[index]

    @property
    def state(self) -> MatchState:
        """The match after every finished game of the record."""
        if not self.games or not self.games[-1].over:
            return self._states[-1]
        return _after(self._states[-1], self.games[-1])


def _after(state: MatchState, game: Game) -> MatchState:
    """The match after ``game``, a finished game: scored, or ended by its forfeit."""
    if game.result is Result.FORFEIT:
        return state.apply_forfeit(game)
    return state.apply_game(game.points_for(0))


# Export


def export_mat(record: MatchRecord) -> str:
    """The ``.mat`` text of ``record``, laid out as gnubg lays it out."""
    lines = [f'; [Site "{record.site}"]\n'] if record.site else []
    lines.append(f'; [Player 1 "{record.players[0]}"]\n')
    lines.append(f'; [Player 2 "{record.players[1]}"]\n')
    if record.event_date:
        lines.append(f'; [EventDate "{record.event_date:%Y.%m.%d}"]\n')
    options = record.start.options
    lines.append(f'; [Variation "{options.variant.mat_name}"]\n')
    if not record.start.money:
        lines.append('; [Crawford "On"]\n')
    if options.jacoby:
        lines.append('; [Jacoby "On"]\n')
    if options.beavers:
        lines.append('; [Beaver "On"]\n')
    if options.cube_max is not None:
        lines.append(f'; [CubeLimit "{options.cube_max}"]\n')
    if options.backgammon_value != 3:
        lines.append(f'; [BackgammonValue "{options.backgammon_value}"]\n')
    if options.automatic_doubles:
        lines.append(f'; [AutomaticDoubles "{options.automatic_doubles}"]\n')
        cubes = " ".join(str(1 << game.opening.auto_doubles) for game in record.games)
        lines.append(f'; [OpeningCubes "{cubes}"]\n')
    if forfeit := record.state.forfeit:
        lines.append(f'; [Forfeit "Player {forfeit.side + 1} {forfeit.reason.value}"]\n')
    lines.append(f"\n {record.start.length} point match\n\n")
    for index, game in enumerate(record.games):
        lines.append(_export_game(game, index + 1, record.players, record.state_before(index)))
    text = "".join(lines)
    return text if text.endswith("\n") else text + "\n"


@dataclass(frozen=True, slots=True)
class _Entry:
    """One thing gnubg writes in a column (its ``moverecord`` types)."""

    kind: str  # normal, setdice, double, take, drop, resign
    side: int
    text: str = ""
    wins: int = 0  # points written after it: a drop, a resignation, a game borne off


def _export_game(game: Game, number: int, players: tuple[str, str], state: MatchState) -> str:
    if len(game.contracts) != 1:
        raise ValueError("a .mat file holds games with one cube, not chouette games")
    left = f"{players[0]} : {state.score[0]}"
    out = [f" Game {number}\n", f" {left:<31}{players[1]} : {state.score[1]}\n"]
    i = 0
    dice_rolled = False
    for entry in _entries(game, _forfeit_points(game, state)):
        if i == 0 and entry.side == 1:
            out.append("  1)                             ")
            i += 1
        text = entry.text
        if entry.kind == "drop":
            gap = "\n      " if i & 1 else " " * 23
            text = f" Drops{gap}Wins {_points(entry.wins)}"
        elif entry.kind == "resign":
            text = _resign_text(entry, i & 1, dice_rolled)
        if entry.kind == "resign" or i & 1:
            out.append(text if entry.kind == "setdice" else text + "\n")
        elif entry.kind == "setdice":
            out.append(f"{(i >> 1) + 1:3d}) {text:<3}")
        else:
            out.append(f"{(i >> 1) + 1:3d}) {text:<27} ")
        if entry.kind == "drop":
            out.append("\n" if i & 1 else "\n\n")
        if entry.kind == "normal" and entry.wins:
            gap = " " * 34 if i & 1 else "\n      "
            out.append(f"{gap}Wins {_points(entry.wins)}\n\n")
        if entry.kind in ("normal", "setdice"):
            dice_rolled = entry.kind == "setdice"
        i += 1
    return "".join(out)


def _resign_text(entry: _Entry, column: int, dice_rolled: bool) -> str:
    """gnubg's layouts of an accepted resignation (``MOVE_RESIGN``): ``Wins`` in the
    winner's column.

    ``entry.side`` resigned (or forfeited). Only a forfeit comes from the side not on
    roll after the other rolled; gnubg would write its ``Wins`` after those dice, in the
    roll's column, so here it goes on a line of its own.
    """
    wins = f"Wins {_points(entry.wins)}\n"
    if entry.side == 1:
        return ("\n" if column or dice_rolled else "") + "      " + wins
    if column:
        return (" " if column ^ dice_rolled else " " * 24) + wins
    return ("\n" if dice_rolled else "") + " " * 34 + wins


def _points(n: int) -> str:
    return f"{n} point{'s' if n > 1 else ''}"


def _forfeit_points(game: Game, state: MatchState) -> int:
    """The ``Wins`` of a forfeit, as gnubg's resignation that comes closest to the end
    it makes (see the module docstring); 0 for a game not forfeited."""
    if game.result is not Result.FORFEIT or game.winner is None:
        return 0
    if state.money:
        return game.points_for(game.winner)
    cube = game.cube.value
    needed = state.length - state.score[game.winner]
    return min(3, -(-needed // cube)) * cube


def _entries(game: Game, forfeit_points: int) -> Iterator[_Entry]:
    """The game's history as gnubg's move records, with the side of each; a forfeit is
    a resignation of ``forfeit_points``."""
    side = game.opening.first
    dice: Dice | None = (max(game.opening.dice), min(game.opening.dice))
    cube = 1 << game.opening.auto_doubles
    last_offer = None
    resigned = 0
    for index, action in enumerate(game.history):
        match action:
            case Roll(dice=rolled):
                dice = rolled
            case Move() | NoMove():
                if dice is None:
                    raise ValueError(f"action {index + 1} of the game is a move without a roll")
                steps = action.steps if isinstance(action, Move) else ()
                last = index == len(game.history) - 1
                wins = _board_multiplier(game.result) * cube if last else 0
                yield _Entry("normal", side, f"{dice[0]}{dice[1]}: {_plain(steps)}", wins)
                dice = None
                side = 1 - side
            case Double():
                cube *= 2
                last_offer = "double"
                yield _Entry("double", side, f" Doubles => {cube}")
            case Beaver():
                cube *= 2
                last_offer = "beaver"
                yield _Entry("double", 1 - side, f" Beavers => {cube}")
            case Take() if last_offer == "double":
                yield _Entry("take", 1 - side, " Takes")
            case Pass():
                passer = 1 - side if last_offer == "double" else side
                yield _Entry("drop", passer, wins=cube // 2)
            case Resign(value=value):
                if dice is not None:
                    yield _Entry("setdice", side, f"{dice[0]}{dice[1]}: ")
                    dice = None
                resigned = _RAW_MULTIPLIER[value] * cube
            case AcceptResign():
                yield _Entry("resign", side, wins=resigned)
            case Forfeit(side=loser):
                if dice is not None:
                    yield _Entry("setdice", side, f"{dice[0]}{dice[1]}: ")
                    dice = None
                yield _Entry("resign", loser, wins=forfeit_points)
    if dice is not None and game.phase is Phase.MOVE:
        yield _Entry("setdice", side, f"{dice[0]}{dice[1]}: ")


def _board_multiplier(result: Result | None) -> int:
    """1, 2 or 3 for a single, gammon or backgammon (borne off or resigned); 0 for any
    other end, or none yet."""
    return 0 if result is None else _RAW_MULTIPLIER.get(result, 0)


def _plain(steps: tuple[Step, ...]) -> str:
    """gnubg's ``FormatMovePlain``: ``from/to`` per die, 25 the bar, 0 off, a space after
    each of the first three."""
    return "".join(
        f"{s.origin}/{s.destination}{'*' if s.hit else ''}{' ' if n < 3 else ''}"
        for n, s in enumerate(steps)
    )


# Import

_TAG = re.compile(r'^\s*[;#]\s*\[([^"\]]+?)\s+"([^"]*)"\s*\]')
_LENGTH = re.compile(r"^\s*(\d+)\s+[Pp]oint\s+[Mm]atch")
_GAME = re.compile(r"^\s*Game\s+(\d+)\s*$")
_SCORE = re.compile(r"^\s*(.*?)\s*:\s*(\d+)\s+(.*?)\s*:\s*(\d+)\s*$")
_ROLL = re.compile(r"^([1-6])([1-6]):(.*)$")
_NUMBER = re.compile(r"^\s*(\d+)\)")
_CUBE_VALUE = re.compile(r"=>\s*(\d+)")
_WINS = re.compile(r"^wins?\s+(\d+)", re.IGNORECASE)


def import_mat(text: str) -> MatchRecord:
    """The match of a ``.mat`` file, every action replayed through the rules.

    Raises ``InvalidMatFile`` naming the game and move number (the ``N)`` of the line)
    of the first thing the rules or the format refuse, and why.
    """
    lines = text.lstrip("\ufeff").splitlines()
    tags: dict[str, str] = {}
    index = 0
    length = None
    while index < len(lines) and length is None:
        line = lines[index]
        index += 1
        if tag := _TAG.match(line):
            tags.setdefault(tag.group(1), tag.group(2))
        elif found := _LENGTH.match(line):
            length = int(found.group(1))
    if length is None:
        raise InvalidMatFile("not a .mat file: no 'N point match' line")
    start = MatchState(length=length, options=_options(tags, length))
    blocks = _game_blocks(lines[index:])
    players = (tags.get("Player 1"), tags.get("Player 2"))
    if blocks and None in players:
        players = _score_line(blocks[0][0], blocks[0][1])[:2]
    cubes = tags.get("OpeningCubes", "").split()
    forfeit = _forfeit_tag(tags["Forfeit"]) if "Forfeit" in tags else None
    games: list[Game] = []
    state = start
    for number, (game_no, body) in enumerate(blocks, 1):
        if state.over:
            raise InvalidMatFile(f"game {game_no}: the match was already over")
        if game_no != number:
            raise InvalidMatFile(f"game {game_no}: expected game {number}")
        _check_score(game_no, body, state)
        auto = _auto_doubles(game_no, cubes, number)
        last = number == len(blocks)
        game = _GameReader(game_no, state, auto, forfeit if last else None).read(body[1:])
        if not last:
            if not game.over:
                raise InvalidMatFile(f"game {game_no}: ends before the game is over")
            state = _after(state, game)
        games.append(game)
    if forfeit and not (games and games[-1].result is Result.FORFEIT):
        raise InvalidMatFile("header: a Forfeit tag, but the last game does not end by it")
    event_date = None
    if "EventDate" in tags:
        event_date = _date(tags["EventDate"])
    return MatchRecord(
        players=(players[0] or "Player 1", players[1] or "Player 2"),
        start=start,
        games=tuple(games),
        site=tags.get("Site"),
        event_date=event_date,
    )


def _options(tags: dict[str, str], length: int) -> GameOptions:
    """The session options the header tags give (absent tags: the defaults)."""
    variation = tags.get("Variation", "Backgammon")
    for member in Variants:
        variant = member.value
        if variation == variant.mat_name:
            break
    else:
        raise InvalidMatFile(f"header: unknown variation {variation!r}")
    if length and tags.get("Crawford", "On").lower() != "on":
        raise InvalidMatFile("header: matches are played with the Crawford rule")
    try:
        return GameOptions(
            variant=variant,
            jacoby=tags.get("Jacoby", "Off").lower() == "on",
            beavers=tags.get("Beaver", "Off").lower() == "on",
            automatic_doubles=int(tags.get("AutomaticDoubles", 0)),
            backgammon_value=int(tags.get("BackgammonValue", 3)),
            cube_max=int(tags["CubeLimit"]) if "CubeLimit" in tags else None,
        )
    except ValueError as exc:
        raise InvalidMatFile(f"header: {exc}") from exc


_FORFEIT_TAG = re.compile(r"^Player ([12]) (\w+)$")


def _forfeit_tag(text: str) -> Forfeit:
    """The forfeit a ``Forfeit`` tag names: ``Player 2 timeout``."""
    found = _FORFEIT_TAG.match(text.strip())
    reasons = [reason.value for reason in ForfeitReason]
    if not found or found.group(2) not in reasons:
        raise InvalidMatFile(
            f"header: Forfeit {text!r} is not 'Player 1' or 'Player 2' and one of {reasons}"
        )
    return Forfeit(int(found.group(1)) - 1, ForfeitReason(found.group(2)))


def _date(text: str) -> datetime.date:
    try:
        return datetime.datetime.strptime(text, "%Y.%m.%d").date()
    except ValueError as exc:
        raise InvalidMatFile(f"header: EventDate {text!r} is not yyyy.mm.dd") from exc


def _auto_doubles(game_no: int, cubes: list[str], number: int) -> int:
    """The automatic doubles of game ``number`` from the ``OpeningCubes`` tag."""
    if not cubes:
        return 0
    if number > len(cubes) or not cubes[number - 1].isdigit():
        raise InvalidMatFile(f"game {game_no}: OpeningCubes gives no cube for this game")
    value = int(cubes[number - 1])
    if value & (value - 1) or not value:
        raise InvalidMatFile(f"game {game_no}: opening cube {value} is not a power of 2")
    return value.bit_length() - 1


def _game_blocks(lines: list[str]) -> list[tuple[int, list[str]]]:
    """``(game number, its non-blank lines)`` for each ``Game k`` of the file."""
    blocks: list[tuple[int, list[str]]] = []
    for line in lines:
        if found := _GAME.match(line):
            blocks.append((int(found.group(1)), []))
        elif line.strip() and blocks:
            blocks[-1][1].append(line)
        elif line.strip() and not line.lstrip().startswith((";", "#")):
            raise InvalidMatFile(f"before game 1: unexpected line {line.strip()!r}")
    return blocks


def _score_line(game_no: int, body: list[str]) -> tuple[str, str, int, int]:
    found = _SCORE.match(body[0]) if body else None
    if not found:
        raise InvalidMatFile(f"game {game_no}: no score line 'name : n   name : n'")
    return found.group(1), found.group(3), int(found.group(2)), int(found.group(4))


def _check_score(game_no: int, body: list[str], state: MatchState) -> None:
    score = _score_line(game_no, body)[2:]
    if score != state.score:
        raise InvalidMatFile(
            f"game {game_no}: the score line says {score[0]}-{score[1]} but the games "
            f"before it give {state.score[0]}-{state.score[1]}"
        )


def _columns(line: str) -> tuple[str, str]:
    """Split a move line into its two columns the way gnubg's ``ImportGame`` does."""
    right = ""
    first = line.find(":")
    second = line.find(":", first + 1) if first >= 0 else -1
    if second > 3:
        line, right = line[: second - 3], line[second - 2 :]
    elif len(line) > 15 and (gap := line.find("  ", 15)) >= 0:
        line, right = line[:gap], line[gap + 1 :]
    close = line.find(")")
    return line[close + 1 :].strip(), right.strip()


class _GameReader:
    """Replays one game's lines through ``Game``; every refusal becomes InvalidMatFile."""

    def __init__(
        self, game_no: int, state: MatchState, auto_doubles: int, forfeit: Forfeit | None
    ) -> None:
        self.game_no = game_no
        self.state = state
        self.options = state.next_game_options()
        self.auto_doubles = auto_doubles
        self.forfeit = forfeit  # the forfeit that ends this game, from the header
        self.game: Game | None = None
        self.move_no = 0

    def read(self, lines: list[str]) -> Game:
        entries: list[tuple[int, int, str]] = []
        move_no = 0
        for line in lines:
            if line.lstrip().startswith((";", "#")):
                continue
            if found := _NUMBER.match(line):
                move_no = int(found.group(1))
            for side, text in enumerate(_columns(line)):
                if text:
                    entries.append((move_no, side, text))
        for n, (move_no, side, text) in enumerate(entries):
            self.move_no = move_no
            following = entries[n + 1][2] if n + 1 < len(entries) else None
            try:
                self._entry(side, text, following)
            except InvalidMatFile:
                raise
            except BackgammonError as exc:
                self._fail(f"{text!r}: {exc}")
        if self.game is None:
            self._fail("the game has no opening roll")
        return self.game

    def _fail(self, why: str) -> NoReturn:
        raise InvalidMatFile(f"game {self.game_no}, move {self.move_no}: {why}")

    def _entry(self, side: int, text: str, following: str | None) -> None:
        lowered = text.lower()
        if rolled := _ROLL.match(text):
            dice = (int(rolled.group(1)), int(rolled.group(2)))
            played = self._roll(side, dice, rolled.group(3))
            if played.phase is Phase.MOVE:
                played = self._play(played, rolled.group(3).strip(), following)
            self.game = played
            return
        game = self.game
        if game is None:
            self._fail(f"{text!r} before the opening roll")
        if lowered.startswith(("double", "beaver")):
            self.game = self._double(game, side, lowered, text)
        elif lowered.startswith("take"):
            self._answer(game, side, "take")
            self.game = game.take()
        elif lowered.startswith(("drop", "pass")):
            self._answer(game, side, "drop")
            self.game = game.pass_()
        elif wins := _WINS.match(text):
            self.game = self._wins(game, side, int(wins.group(1)))
        elif not lowered.startswith("resign"):
            self._fail(f"cannot read {text!r}")

    def _roll(self, side: int, dice: tuple[int, int], text: str) -> Game:
        """The game after a roll in ``side``'s column: the opening roll starts it."""
        game = self.game
        if game is None:
            if dice[0] == dice[1]:
                self._fail(f"the opening roll cannot be a double ({dice[0]}{dice[1]})")
            high, low = max(dice), min(dice)
            opening = Opening((high, low) if side == 0 else (low, high), self.auto_doubles)
            return Game.start(self.options, opening)
        if game.phase is Phase.TAKE_OR_PASS and game.cube.beavered and side == game.on_roll:
            game = game.take()
        if game.phase is not Phase.ROLL or side != game.on_roll:
            self._fail(f"{'right' if side else 'left'} column rolls out of turn")
        game = game.roll(dice)
        if game.phase is not Phase.MOVE and _move_text(text):
            self._fail(f"{dice[0]}{dice[1]} cannot be played, but the file plays {text.strip()}")
        return game

    def _play(self, game: Game, text: str, following: str | None) -> Game:
        """Play the roll's text; with none, the roll was left unplayed (the game's last
        entry, or a resignation follows) or, as gnubg reads it, its play is forced."""
        text = _move_text(text)
        if text:
            return game.play(text)
        if following is not None and not _WINS.match(following):
            plays = game.legal_plays()
            if len(plays) != 1:
                self._fail("the roll can be played but no play is given")
            return game.play(plays[0])
        return game

    def _double(self, game: Game, side: int, lowered: str, text: str) -> Game:
        if lowered.startswith("double"):
            if side != game.on_roll:
                self._fail("the side not on roll doubles")
            game = game.double()
            value = game.cube.value * 2
        else:
            self._answer(game, side, "beaver")
            game = game.beaver()
            value = game.cube.value * 2
        if (said := _CUBE_VALUE.search(text)) and int(said.group(1)) != value:
            self._fail(f"{text!r}: the cube goes to {value}, not {said.group(1)}")
        return game

    def _answer(self, game: Game, side: int, doing: str) -> None:
        if game.phase is not Phase.TAKE_OR_PASS:
            self._fail(f"{doing} without a double")
        if side != game.cube.answerer:
            self._fail(f"the doubling side cannot {doing} its own double")

    def _wins(self, game: Game, side: int, points: int) -> Game:
        if not game.over and self.forfeit:
            return self._forfeited(game, side, points, self.forfeit)
        if not game.over:
            if game.phase not in (Phase.ROLL, Phase.MOVE) or game.on_roll == side:
                self._fail("a resignation by the side not on roll")
            value = game.cube.value
            resign = (
                Result.SINGLE
                if points <= value
                else Result.GAMMON
                if points <= 2 * value
                else Result.BACKGAMMON
            )
            game = game.resign(resign).accept_resign()
        if game.winner != side:
            self._fail(f"Wins {points}: the {'right' if side else 'left'} column did not win")
        kind = game.resignation if game.result is Result.RESIGNED else game.result
        raw = (_board_multiplier(kind) or 1) * game.cube.value
        if points not in (raw, abs(game.points_for(0))):
            self._fail(f"Wins {points}: the game gives {raw}")
        return game

    def _forfeited(self, game: Game, side: int, points: int, forfeit: Forfeit) -> Game:
        """The game ended by ``forfeit`` at a ``Wins`` line in ``side``'s column."""
        if side == forfeit.side:
            self._fail(f"Wins {points}: the side that forfeited cannot win")
        game = game.forfeit(forfeit.side, forfeit.reason)
        expected = _forfeit_points(game, self.state)
        if points != expected:
            self._fail(f"Wins {points}: the forfeit gives {expected}")
        return game


def _move_text(text: str) -> str:
    """The play of a roll's text; nothing for XG's ``Cannot Move`` and ``???``."""
    text = text.strip()
    if text.lower().startswith("cannot move") or text.startswith("?"):
        return ""
    return text
