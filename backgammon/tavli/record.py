"""A text record of a tavli game: its moves, like a ``.mat`` body, replayed by the core.

A header of ``; [Tag "value"]`` lines (``Game``, ``Options`` when any differ from the
game's defaults, and ``Opening`` or ``Starts``), then one line per thing a player did,
X being side 0 and O side 1::

    ; [Game "acey-deucey"]
    ; [Opening "5-2"]
    X 21 bar/24 bar/23      a roll and the play of its first stage (empty: no move)
    X =66 bar/19(4)         the double named after a 1-2 (AD4) and its play
    X 43 bar/21 bar/22
    O (444) 24/20(3)        a later stage of a turn, or a passed rest of a run (GB3):
                            no roll, the stage's dice in brackets
    O resigns 2             a resignation (1 or 2 points; acey-deucey: 1, the game)
    X accepts
    O forfeits timeout      lost on time or by leaving ("timeout" or "abandoned")
    X wins 2                the end: the points (or "draw"), checked on import

Stages the rules skip because nothing can be played are not written: replaying the
rolls skips them again. ``export_record(game)`` writes a game as its compact history
keeps it (``Game.compact``); ``import_record(text)`` replays every line through
``Game``, every rule checked, and ``InvalidRecord`` names the line that breaks one.

A whole match (a tavli match, or one tavli game played as a match or money session,
TM1, TM4) is a header naming the players, the length, the order and the score after
each game, then each game's record after a ``; Game N`` line:
``export_match_record`` and ``import_match_record``, which replays every game and the
match's score keeping (``MatchState``) and checks the header's scores against them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from backgammon.errors import BackgammonError, InvalidRecord
from backgammon.game import (
    AcceptResign,
    Forfeit,
    ForfeitReason,
    Game,
    GameOptions,
    Move,
    NameDouble,
    NoMove,
    Opening,
    Phase,
    Resign,
    Result,
    Roll,
)
from backgammon.match import TAVLI_ORDERS, MatchState
from backgammon.notation import format_play
from backgammon.variants import Variants

_SIDES = "XO"
_TAG = re.compile(r';\s*\[(\w+)\s+"(.*)"\]')
_ROLL = re.compile(r"([XO]) ([1-6])([1-6])(?: (.*))?")
_STAGE = re.compile(r"([XO]) \(([1-6]{1,4})\)(?: (.*))?")
_NAMED = re.compile(r"([XO]) =([1-6])\2(?: (.*))?")
_RESIGN = re.compile(r"([XO]) resigns ([12])")
_ACCEPT = re.compile(r"([XO]) accepts")
_FORFEIT = re.compile(r"([XO]) forfeits (timeout|abandoned)")
_END = re.compile(r"(?:([XO]) wins (\d+)|draw)")


def export_record(game: Game) -> str:
    """The record of ``game`` (a tavli game, over or not)."""
    rules = game.options.variant.rules
    if rules is None:
        raise ValueError("a record is for the tavli games; backgammon has .mat files")
    lines = [f'; [Game "{rules.name}"]']
    if rules.options():
        pairs = ", ".join(f"{k}={_option_text(v)}" for k, v in rules.options().items())
        lines.append(f'; [Options "{pairs}"]')
    opening = game.opening
    if opening.starter is not None:
        lines.append(f'; [Starts "{_SIDES[opening.starter]}"]')
    else:
        lines.append(f'; [Opening "{opening.dice[0]}-{opening.dice[1]}"]')
    compact = game.compact()
    replay = Game.start(compact.options, compact.opening)
    waiting: str | None = None  # the side whose last line waits for its stage's play
    for action in compact.history:
        if isinstance(action, NoMove):
            waiting = None  # that stage could not be played: its line stays empty
            continue
        side = _SIDES[replay.turn if replay.turn is not None else replay.on_roll]
        match action:
            case Roll(dice=dice):
                lines.append(f"{side} {dice[0]}{dice[1]}")
                waiting = side
            case NameDouble(double=double):
                lines.append(f"{side} ={double}{double}")
                waiting = side
            case Move(steps=steps):
                if waiting != side:
                    lines.append(f"{side} ({''.join(map(str, replay.remaining_dice))})")
                lines[-1] += f" {format_play(steps)}" if steps else ""
                waiting = None
            case Resign(value=value):
                lines.append(f"{side} resigns {2 if value is Result.GAMMON else 1}")
                waiting = None
            case AcceptResign():
                lines.append(f"{side} accepts")
            case Forfeit(side=loser, reason=reason):
                lines.append(f"{_SIDES[loser]} forfeits {reason.value}")
                waiting = None
        replay = replay.apply(action)
    if game.over:
        if game.winner is None:
            lines.append("draw")
        else:
            points = game.points_for(game.winner)
            lines.append(f"{_SIDES[game.winner]} wins {points}")
    return "\n".join(lines) + "\n"


def import_record(text: str) -> Game:
    """The game a record describes, replayed through the rules."""
    tags: dict[str, str] = {}
    body: list[tuple[int, str]] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line:
            continue
        tag = _TAG.fullmatch(line)
        if tag:
            tags[tag[1]] = tag[2]
        elif line.startswith(";"):
            continue
        else:
            body.append((number, " ".join(line.split())))
    game = _start(tags)
    for number, line in body:
        try:
            game = _line(game, line)
        except (BackgammonError, ValueError) as exc:
            raise InvalidRecord(f"line {number} ({line!r}): {exc}") from exc
    return game


def _start(tags: dict[str, str]) -> Game:
    try:
        variant = Variants.by_name(tags["Game"])
        variant = variant.with_options(_options(tags.get("Options", "")))
    except (KeyError, ValueError) as exc:
        raise InvalidRecord(f"the header names no game of the tavli family: {exc}") from exc
    if variant.rules is None:
        raise InvalidRecord(f"{variant.name} is not a tavli game: its record is a .mat file")
    if "Starts" in tags:
        if tags["Starts"] not in ("X", "O"):
            raise InvalidRecord('Starts is "X" or "O"')
        opening = Opening.winner_starts(_SIDES.index(tags["Starts"]))
    else:
        dice = re.fullmatch(r"([1-6])-([1-6])", tags.get("Opening", ""))
        if not dice or dice[1] == dice[2]:
            raise InvalidRecord('the header needs an Opening roll ("5-2", not a tie) or Starts')
        opening = Opening((int(dice[1]), int(dice[2])))
    return Game.start(GameOptions(variant=variant), opening)


def _option_text(value: object) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def _options(text: str) -> dict[str, object]:
    """``run_rest=lost, exact_bear_off=true`` as options."""
    options: dict[str, object] = {}
    for pair in filter(None, (part.strip() for part in text.split(","))):
        name, _, value = pair.partition("=")
        options[name.strip()] = {"true": True, "false": False}.get(value.strip(), value.strip())
    return options


def _line(game: Game, line: str) -> Game:
    if match := _ROLL.fullmatch(line):
        _check_side(game, match[1])
        game = game.roll((int(match[2]), int(match[3])))
        return _play(game, match[1], match[4])
    if match := _STAGE.fullmatch(line):
        _check_side(game, match[1])
        if game.phase is not Phase.MOVE or "".join(map(str, game.remaining_dice)) != match[2]:
            raise InvalidRecord(f"no stage of {match[2]} waits for {match[1]} here")
        return _play(game, match[1], match[3])
    if match := _NAMED.fullmatch(line):
        _check_side(game, match[1])
        return _play(game.name_double(int(match[2])), match[1], match[3])
    if match := _RESIGN.fullmatch(line):
        _check_side(game, match[1])
        return game.resign(Result.GAMMON if match[2] == "2" else Result.SINGLE)
    if match := _ACCEPT.fullmatch(line):
        _check_side(game, match[1])
        return game.accept_resign()
    if match := _FORFEIT.fullmatch(line):
        if game.over:
            raise InvalidRecord("the game is already over")
        return game.forfeit(_SIDES.index(match[1]), ForfeitReason(match[2]))
    if match := _END.fullmatch(line):
        winner = None if match[1] is None else _SIDES.index(match[1])
        if not game.over or game.winner != winner:
            raise InvalidRecord("the game does not end that way")
        if winner is not None and game.points_for(winner) != int(match[2]):
            raise InvalidRecord(f"the game gives {game.points_for(winner)} points")
        return game
    raise InvalidRecord("cannot read this line")


def _check_side(game: Game, side: str) -> None:
    if game.over:
        raise InvalidRecord("the game is already over")
    if game.turn != _SIDES.index(side):
        raise InvalidRecord(f"it is {_SIDES[game.turn or 0]}'s turn, not {side}'s")


def _play(game: Game, side: str, text: str | None) -> Game:
    """Play ``text``, the stage's play, if the line has one (a line without one is a
    stage that could not be played, or one left unplayed by a resignation)."""
    if not text:
        return game
    if game.phase is not Phase.MOVE or game.on_roll != _SIDES.index(side):
        raise InvalidRecord(f"{text!r}: there is nothing to play here")
    return game.play(text)


# A whole match ------------------------------------------------------------------------

_GAME_LINE = re.compile(r";\s*Game (\d+)\b.*")


@dataclass(frozen=True, slots=True)
class TavliMatchRecord:
    """A tavli match as its record gives it: the players (side 0, X, first), the state
    after the games, and every game replayed (the last one may be unfinished)."""

    players: tuple[str, str]
    state: MatchState
    games: tuple[Game, ...]


def _score_text(score: tuple[int, int]) -> str:
    return f"{score[0]}-{score[1]}"


def _after(state: MatchState, game: Game) -> MatchState:
    """The match's state after a finished ``game``: its points, or the forfeit's end."""
    if game.history and isinstance(game.history[-1], Forfeit):
        return state.apply_forfeit(game)
    return state.apply_game(game.points_for(0))


def export_match_record(
    *, players: tuple[str, str], start: MatchState, games: Sequence[Game]
) -> str:
    """The record of a match of the tavli games from its starting state and its games,
    in order (the last one may still be in play)."""
    if start.next_variant.rules is None:
        raise ValueError("a record is for the tavli games; backgammon has .mat files")
    state, scores, blocks = start, [], []
    for number, game in enumerate(games, start=1):
        blocks.append(f"; Game {number} (score {_score_text(state.score)})\n{export_record(game)}")
        if game.over:
            state = _after(state, game)
            scores.append(_score_text(state.score))
    header = [
        "; A tavli match record (docs/tavli.md): each game's record after its Game line",
        f'; [X "{players[0]}"]',
        f'; [O "{players[1]}"]',
        f'; [Length "{start.length}"]',
    ]
    if start.tavli is not None:
        header.append(f'; [Order "{start.tavli}"]')
    header.append(f'; [Scores "{" ".join(scores)}"]')
    header.append(f'; [Score "{_score_text(state.score)}"]')
    return "\n".join(header) + "\n\n" + "\n".join(blocks)


def _match_parts(text: str) -> tuple[dict[str, str], list[tuple[int, str]]]:
    """The header's tags and each game's text with the line it starts on."""
    tags: dict[str, str] = {}
    games: list[tuple[int, list[str]]] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if _GAME_LINE.fullmatch(line):
            games.append((number, []))
        elif games:
            games[-1][1].append(raw)
        elif tag := _TAG.fullmatch(line):
            tags[tag[1]] = tag[2]
    return tags, [(number, "\n".join(lines)) for number, lines in games]


def _match_start(tags: dict[str, str], first: Game | None) -> MatchState:
    if not tags.get("Length", "").isdigit():
        raise InvalidRecord("the header needs the match's Length (0: a money session)")
    length = int(tags["Length"])
    if "Order" in tags:
        if tags["Order"] not in TAVLI_ORDERS:
            raise InvalidRecord(f"a tavli match is played in the {' or '.join(TAVLI_ORDERS)} order")
        return MatchState.tavli_match(tags["Order"], length)
    if first is None:
        raise InvalidRecord("a match of one tavli game needs its Order or a game")
    return MatchState(length=length, options=GameOptions(variant=first.options.variant))


def import_match_record(text: str) -> TavliMatchRecord:
    """The match a record describes: every game replayed through the rules, in the
    match's order and openings, and the header's scores checked against the replay."""
    tags, parts = _match_parts(text)
    if "X" not in tags or "O" not in tags:
        raise InvalidRecord("the header needs both players: X and O")
    games: list[Game] = []
    for number, part in parts:
        try:
            games.append(import_record(part))
        except InvalidRecord as exc:
            raise InvalidRecord(f"game from line {number}: {exc}") from exc
    state = _match_start(tags, games[0] if games else None)
    scores = []
    for index, game in enumerate(games):
        number = index + 1
        if state.over:
            raise InvalidRecord(f"game {number}: the match was already over")
        if game.options.variant.name != state.next_variant.name:
            raise InvalidRecord(
                f"game {number} is {game.options.variant.name}, "
                f"the match's order gives {state.next_variant.name}"
            )
        opening = state.next_opening()
        if game.opening.starter != (None if opening is None else opening.starter):
            raise InvalidRecord(f"game {number}: the winner of the game before starts it (TV2)")
        if not game.over:
            if number != len(games):
                raise InvalidRecord(f"game {number} is unfinished, yet another follows")
            continue
        state = _after(state, game)
        scores.append(_score_text(state.score))
    if tags.get("Scores", "").split() != scores:
        raise InvalidRecord(f"the games give the scores {' '.join(scores) or '(none)'}")
    if tags.get("Score") != _score_text(state.score):
        raise InvalidRecord(f"the games give the score {_score_text(state.score)}")
    return TavliMatchRecord(players=(tags["X"], tags["O"]), state=state, games=tuple(games))
