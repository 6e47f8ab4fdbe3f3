"""A chouette's seating and money as plain values: order, rotation, points, settlement.

How a chouette game is played (the cube round, each member's contract) is the business
of ``backgammon.games.chouette``; this module is the arithmetic around the games (H1, H3,
H6, H7, H12-H14): who sits where, what a finished game is worth to each player, where
everyone sits next, and what each player pays or receives. A game played through ``Game``
comes here in the recorded form (``record_game``), so online and recorded games score
alike. Every value is immutable; a refused call raises one of the exceptions of
``backgammon.errors`` and changes nothing. The choices the rule book leaves open are
written down in ``docs/chouette.md``.

Players are opaque strings (usernames in the service).
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal
from types import MappingProxyType
from typing import Any, NotRequired, TypedDict, TypeVar

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
from backgammon.game import ContractOutcome, Game, Result
from backgammon.team import BOX

Player = str
# One throw for the order: each player of the group that threw and the die they rolled.
Throw = tuple[tuple[Player, int], ...]

MIN_PLAYERS = 3
DEFAULT_PARTNER_FROM = 7
# Box, partner, captain and one more: with fewer, the same two would swap forever.
MIN_PARTNER_FROM = 4
_CENT = Decimal("0.01")


class BoxKeeps(enum.Enum):
    """What lets the box keep the box after a game (H3 and its option)."""

    BEATS_CAPTAIN = "beats_captain"
    NO_NET_LOSS = "no_net_loss"


class Winner(enum.Enum):
    """Who won the game on the board, for the members who played it to the end."""

    BOX = "box"
    TEAM = "team"


class BoardResult(enum.Enum):
    """How the game on the board was won (S1-S3)."""

    SINGLE = "single"
    GAMMON = "gammon"
    BACKGAMMON = "backgammon"


class Outcome(enum.Enum):
    """How one member's contract with the box ended (H5, H8)."""

    PLAYED = "played"
    PASSED = "passed"
    BOX_PASSED = "box_passed"


@dataclass(frozen=True, slots=True)
class ChouetteOptions:
    """The session options the arithmetic needs (H3, H6, H11, H12, S3).

    ``partner_from``: the number of seated players (box included) from which the box
    takes a partner; ``None`` never.
    """

    jacoby: bool = True
    backgammon_value: int = 3
    box_keeps: BoxKeeps = BoxKeeps.BEATS_CAPTAIN
    partner_from: int | None = DEFAULT_PARTNER_FROM

    def __post_init__(self) -> None:
        if self.backgammon_value not in (2, 3):
            raise ValueError("a backgammon counts 3 or 2 (S3)")
        if not isinstance(self.box_keeps, BoxKeeps):
            raise ValueError(f"box_keeps is a BoxKeeps, not {self.box_keeps!r}")
        if self.partner_from is not None and (
            type(self.partner_from) is not int or self.partner_from < MIN_PARTNER_FROM
        ):
            raise ValueError(
                f"partner_from is a number of players, {MIN_PARTNER_FROM} or more, or None"
            )

    def multiplier(self, result: BoardResult) -> int:
        """What a game won this way multiplies the stake by, before the Jacoby rule."""
        match result:
            case BoardResult.SINGLE:
                return 1
            case BoardResult.GAMMON:
                return 2
            case BoardResult.BACKGAMMON:
                return self.backgammon_value


@dataclass(frozen=True, slots=True)
class InitialOrder:
    """The order the table rolled (H1): ``order`` box first; ``throws`` every throw made."""

    order: tuple[Player, ...]
    throws: tuple[Throw, ...]


def roll_for_order(players: Sequence[Player], dice: DiceStream | Sequence[int]) -> InitialOrder:
    """Seat the players by one die each, ties re-rolled among the tied only (H1).

    ``dice`` is the session's ``DiceStream`` or the dice as data, which must be exactly
    the dice needed. Dice are taken in this order: one for each player as listed; then
    the highest tied group re-rolls, its players as listed, and any tie inside it is
    settled the same way before the next lower tied group rolls.
    """
    _check_players(players)
    next_die = dice.die if isinstance(dice, DiceStream) else _dice_from_data(dice)
    groups = [tuple(players)]
    throws: list[Throw] = []
    while tied := [index for index, group in enumerate(groups) if len(group) > 1]:
        index = tied[0]
        throw = tuple((player, next_die()) for player in groups[index])
        throws.append(throw)
        faces = sorted({die for _, die in throw}, reverse=True)
        groups[index : index + 1] = [
            tuple(player for player, die in throw if die == face) for face in faces
        ]
    if not isinstance(dice, DiceStream) and len(dice) != sum(map(len, throws)):
        raise InvalidDice(f"{len(dice)} dice given, but the order took {sum(map(len, throws))}")
    return InitialOrder(order=tuple(group[0] for group in groups), throws=tuple(throws))


def order_as_entered(players: Sequence[Player], order: Sequence[Player]) -> tuple[Player, ...]:
    """The order the table settled for itself (box first), checked to be the players."""
    _check_players(players)
    _check_players(order)
    missing = [player for player in players if player not in order]
    if missing:
        raise InvalidOrder(f"the order leaves out {', '.join(missing)}")
    strangers = [player for player in order if player not in players]
    if strangers:
        raise InvalidOrder(f"the order names {', '.join(strangers)}, who are not playing")
    return tuple(order)


class SeatsDict(TypedDict):
    """The seats as API.md names them (``Seating.to_dict``)."""

    box: str
    captain: str
    line: list[str]
    partner: str | None


@dataclass(frozen=True, slots=True)
class Seating:
    """Who sits where for the next game (H1, H3, H12, H13), with the session's options.

    ``waiting`` is everyone but the box in line order, captain first. When ``players``
    reach ``options.partner_from``, the second of them (the first in line after the
    captain) is the box's partner for the game; ``line`` is the others: the captain,
    then the crew. The line is the team: each of them has a contract with the box.
    """

    box: Player
    waiting: tuple[Player, ...]
    options: ChouetteOptions = ChouetteOptions()

    def __post_init__(self) -> None:
        _check_players((self.box, *self.waiting))

    @classmethod
    def from_order(
        cls, order: Sequence[Player], options: ChouetteOptions = ChouetteOptions()
    ) -> Seating:
        """The seating of an order given box first (``InitialOrder.order``, ``players``)."""
        _check_players(order)
        return cls(box=order[0], waiting=tuple(order[1:]), options=options)

    @property
    def players(self) -> tuple[Player, ...]:
        """Everyone seated, box first, then in line order with the partner in place."""
        return (self.box, *self.waiting)

    @property
    def captain(self) -> Player:
        """The player who moves the team's checkers (H2)."""
        return self.waiting[0]

    @property
    def partner(self) -> Player | None:
        """The box's partner for this game (H12), or ``None``."""
        partner_from = self.options.partner_from
        if partner_from is None or len(self.players) < partner_from:
            return None
        return self.waiting[1]

    @property
    def line(self) -> tuple[Player, ...]:
        """The team in line order: the captain first, then the crew (API.md's ``line``)."""
        partner = self.partner
        return tuple(player for player in self.waiting if player != partner)

    @property
    def crew(self) -> tuple[Player, ...]:
        """The team without the captain, in line order."""
        return self.line[1:]

    def join(self, player: Player) -> Seating:
        """``player`` joins between games at the end of the line (H13)."""
        if player in self.players:
            raise AlreadySeated(f"{player} already sits at this chouette")
        return replace(self, waiting=(*self.waiting, player))

    def leave(self, player: Player) -> Seating:
        """``player`` leaves between games (H13); a box who leaves hands it to the captain.

        Refused when it would leave fewer than three players: close the session instead.
        """
        if player not in self.players:
            raise NotSeated(f"{player} does not sit at this chouette")
        if len(self.players) <= MIN_PLAYERS:
            raise TooFewPlayers(
                f"a chouette needs at least {MIN_PLAYERS} players to go on: "
                "close the session instead"
            )
        if player == self.box:
            return replace(self, box=self.captain, waiting=self.waiting[1:])
        return replace(self, waiting=tuple(p for p in self.waiting if p != player))

    def rotate(self, box_keeps_box: bool) -> Seating:
        """The seating after a game (H3, H12).

        The box keeping the box sends the captain to the end of the line; otherwise the
        captain takes the box and the old box goes to the end of the line. Either way
        the next in line becomes captain, and then the partner, if any, goes to the end
        of the line behind them.
        """
        new_box, to_the_end = (
            (self.box, self.captain) if box_keeps_box else (self.captain, self.box)
        )
        partner = () if self.partner is None else (self.partner,)
        return replace(self, box=new_box, waiting=(*self.crew, to_the_end, *partner))

    def to_dict(self) -> SeatsDict:
        """The seats as API.md names them: ``box``, ``captain``, ``line``, ``partner``."""
        return {
            "box": self.box,
            "captain": self.captain,
            "line": list(self.line),
            "partner": self.partner,
        }


@dataclass(frozen=True, slots=True)
class MemberResult:
    """How one team member's contract with the box ended (API.md's ``members`` entry).

    ``stake`` is what the member's result is multiplied by: the cube value played to
    the end (``PLAYED``), or the value before the refused double (``PASSED``: the member
    refused the box's double and loses it; ``BOX_PASSED``: the box refused the member's
    and the member wins it). ``cube_turned``: the member's cube was ever turned (Jacoby).
    ``winner`` and ``result``, both or neither, only with ``PLAYED``: the member's own
    end when it was not the board's (a resignation the member or the box made and the
    other accepted, S4); otherwise the record's apply.
    """

    player: Player
    stake: int
    outcome: Outcome
    cube_turned: bool
    winner: Winner | None = None
    result: BoardResult | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.player, str) or not self.player:
            raise InvalidGameRecord(f"a member is named by a username, not {self.player!r}")
        if type(self.stake) is not int or self.stake < 1 or self.stake & (self.stake - 1):
            raise InvalidGameRecord(
                f"{self.player}'s stake must be a cube value (1, 2, 4, 8...), not {self.stake!r}"
            )
        if not isinstance(self.outcome, Outcome):
            raise InvalidGameRecord(f"{self.player}'s outcome {self.outcome!r} is not known")
        if type(self.cube_turned) is not bool:
            raise InvalidGameRecord(f"{self.player}'s cube_turned must be true or false")
        if self.cube_turned and self.stake == 1:
            raise InvalidGameRecord(
                f"{self.player}'s cube cannot have been turned with a stake of 1"
            )
        if self.winner is not None and not isinstance(self.winner, Winner):
            raise InvalidGameRecord(f"{self.player}'s winner is box or team")
        if self.result is not None and not isinstance(self.result, BoardResult):
            raise InvalidGameRecord(f"{self.player}'s result is single, gammon or backgammon")
        if (self.winner is None) != (self.result is None):
            raise InvalidGameRecord(f"{self.player}'s own winner and result go together")
        if self.winner is not None and self.outcome is not Outcome.PLAYED:
            raise InvalidGameRecord(
                f"{self.player} has an own winner and result only when played to that end"
            )

    def points(self, winner: Winner, result: BoardResult, options: ChouetteOptions) -> int:
        """The member's points against the box (H5, H6, C6): positive when the member wins.

        ``winner`` and ``result`` are the board's, unless the member has their own."""
        match self.outcome:
            case Outcome.PASSED:
                return -self.stake
            case Outcome.BOX_PASSED:
                return self.stake
        if self.winner is not None and self.result is not None:
            winner, result = self.winner, self.result
        jacoby_single = options.jacoby and not self.cube_turned
        points = self.stake * (1 if jacoby_single else options.multiplier(result))
        return points if winner is Winner.TEAM else -points


class MemberEntry(TypedDict):
    """A team member's entry of a game record's JSON form (``cube_turned`` defaults to
    ``stake > 1``; ``winner`` and ``result``: the member's own end, if any)."""

    player: str
    stake: int
    outcome: str
    cube_turned: NotRequired[bool]
    winner: NotRequired[str]
    result: NotRequired[str]


class RecordDict(TypedDict):
    """A game record's JSON form (API.md's recorded form): ``GameRecord.to_dict``."""

    winner: str
    result: str
    members: list[MemberEntry]


_RECORD_KEYS = {"winner", "result", "members"}
_MEMBER_REQUIRED = {"player", "stake", "outcome"}
_MEMBER_KEYS = {*_MEMBER_REQUIRED, "cube_turned", "winner", "result"}


@dataclass(frozen=True, slots=True)
class GameRecord:
    """One finished chouette game in API.md's recorded form.

    ``winner`` and ``result`` are the game on the board; they count only for members who
    ``PLAYED`` to the end without an end of their own, and are still given (and ignored)
    when nobody did.
    """

    winner: Winner
    result: BoardResult
    members: tuple[MemberResult, ...]

    def __post_init__(self) -> None:
        if not isinstance(self.winner, Winner):
            raise InvalidGameRecord(f"winner is box or team, not {self.winner!r}")
        if not isinstance(self.result, BoardResult):
            raise InvalidGameRecord(f"result is single, gammon or backgammon, not {self.result!r}")
        if not self.members:
            raise InvalidGameRecord("a game record lists every team member")
        names = [member.player for member in self.members]
        twice = sorted({name for name in names if names.count(name) > 1})
        if twice:
            raise InvalidGameRecord(f"one entry per team member: {', '.join(twice)} twice")

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> GameRecord:
        """Read the JSON form (``cube_turned`` defaults to ``stake > 1``); refuse any other."""
        if not isinstance(data, Mapping):
            raise InvalidGameRecord("a game record is a JSON object")
        _check_keys(data, _RECORD_KEYS, _RECORD_KEYS, "a game record")
        members = data["members"]
        if not isinstance(members, list):
            raise InvalidGameRecord("members is a list, one entry per team member")
        return cls(
            winner=_enum(Winner, data["winner"], "winner"),
            result=_enum(BoardResult, data["result"], "result"),
            members=tuple(_member_from_dict(entry) for entry in members),
        )

    def to_dict(self) -> RecordDict:
        """The JSON form ``from_dict`` reads."""
        members: list[MemberEntry] = []
        for member in self.members:
            entry: MemberEntry = {
                "player": member.player,
                "stake": member.stake,
                "outcome": member.outcome.value,
                "cube_turned": member.cube_turned,
            }
            if member.winner is not None and member.result is not None:
                entry["winner"] = member.winner.value
                entry["result"] = member.result.value
            members.append(entry)
        return {"winner": self.winner.value, "result": self.result.value, "members": members}


@dataclass(frozen=True, slots=True)
class ScoredGame:
    """What a game did: every seated player's points, and where everyone sits next.

    ``points`` (box first, in seating order) sum to zero; ``captain_won`` is the
    original captain's result against the box (H7), whoever moved at the end.
    """

    points: Mapping[Player, int]
    captain_won: bool
    box_keeps_box: bool
    next_seating: Seating


def score_game(seating: Seating, record: GameRecord) -> ScoredGame:
    """The points and the rotation of one game played in ``seating`` (H3, H6, H7, H12).

    Each member's points are their own contract's; the box gets minus their sum, shared
    with a partner if there is one: the partner gets half rounded toward zero, the box
    the rest (the odd point, won or lost).
    """
    _check_team(seating, record)
    options = seating.options
    member_points = {
        member.player: member.points(record.winner, record.result, options)
        for member in record.members
    }
    box_side = -sum(member_points.values())
    side_points = {seating.box: box_side}
    if seating.partner is not None:
        partner_share = abs(box_side) // 2 * (1 if box_side >= 0 else -1)
        side_points = {seating.box: box_side - partner_share, seating.partner: partner_share}
    everyone = {**side_points, **member_points}
    points = {player: everyone[player] for player in seating.players}
    captain_won = member_points[seating.captain] > 0
    box_keeps_box = (
        not captain_won if options.box_keeps is BoxKeeps.BEATS_CAPTAIN else box_side >= 0
    )
    return ScoredGame(
        points=MappingProxyType(points),
        captain_won=captain_won,
        box_keeps_box=box_keeps_box,
        next_seating=seating.rotate(box_keeps_box),
    )


def record_game(seating: Seating, game: Game) -> GameRecord:
    """A chouette game played through ``Game`` (online) in the recorded form, so that it
    scores through ``score_game`` and lists like a recorded game.

    The game must be over and be the seating's: its holders the seating's ``line``
    (captain first), the box side 0, its Jacoby and backgammon options the session's.
    Each member's entry is their own contract's outcome (``Game.outcomes``), never a
    game-wide winner: a pass is ``passed`` or ``box_passed``, a resignation accepted is
    ``played`` with the member's own winner and result, a contract played to the end
    (or to a forfeit, at its cost) is ``played`` under the board's winner and result.
    When no contract was played to the end the record's ``winner`` and ``result``
    (ignored) are the original captain's winner and a single.
    """
    chouette = game.options.chouette
    if chouette is None:
        raise InvalidGameRecord("that game is not a chouette's")
    if game.options.holders != seating.line:
        raise InvalidGameRecord(
            f"the game's team {list(game.options.holders)} is not the line {list(seating.line)}"
        )
    options = seating.options
    if (game.options.jacoby, game.options.backgammon_value) != (
        options.jacoby,
        options.backgammon_value,
    ):
        raise InvalidGameRecord("the game's Jacoby and backgammon options are not the session's")
    if not game.over:
        raise InvalidGameRecord("the game is not over")
    outcomes = game.outcomes()
    members = tuple(_member_of(game, outcome) for outcome in outcomes.values())
    if game.result is Result.SETTLED or game.winner is None:
        captain = outcomes[seating.captain]
        winner = Winner.BOX if captain.winner == BOX else Winner.TEAM
        return GameRecord(winner, BoardResult.SINGLE, members)
    board = game.resignation if game.result is Result.FORFEIT else game.result
    assert board is not None
    return GameRecord(
        Winner.BOX if game.winner == BOX else Winner.TEAM, BoardResult(board.value), members
    )


def _member_of(game: Game, outcome: ContractOutcome) -> MemberResult:
    """One contract's outcome as its member's entry (``record_game``)."""
    player, turned = outcome.holder, game.contract(outcome.holder).turned
    if not isinstance(player, str):
        raise InvalidGameRecord(f"a member is named by a username, not {player!r}")
    winner = Winner.BOX if outcome.winner == BOX else Winner.TEAM
    if outcome.result is Result.PASSED:
        passed = Outcome.PASSED if winner is Winner.BOX else Outcome.BOX_PASSED
        return MemberResult(player, outcome.stake, passed, turned)
    if outcome.result is Result.RESIGNED:
        assert outcome.value is not None
        resigned = BoardResult(outcome.value.value)
        return MemberResult(player, outcome.stake, Outcome.PLAYED, turned, winner, resigned)
    return MemberResult(player, outcome.stake, Outcome.PLAYED, turned)


@dataclass(frozen=True, slots=True)
class Tally:
    """The points still unsettled between each pair of players of a session (H13, H14).

    Every point of a chouette is won from someone: a team member's from the box, the
    partner's share from the box (H12). ``owed`` lists each pair that is not square as
    ``(creditor, debtor, points)``, points > 0, in the order of the sorted pair; so a
    player who leaves settles with exactly the players they won from or lost to.
    """

    owed: tuple[tuple[Player, Player, int], ...] = ()

    def add_game(self, *, points: Mapping[Player, int], box: Player) -> Tally:
        """The tally with one game's points added (``ScoredGame.points`` and the box).

        Everyone but the box won their points from the box: each member on their own
        contract, the partner as its share. The same points negated take the game back
        out (an undo).
        """
        if sum(points.values()) != 0:
            raise ValueError("a game's points sum to zero")
        if box not in points:
            raise ValueError(f"the box {box} has no points in this game")
        balances = self._balances()
        for player, won in points.items():
            if player != box:
                _add(balances, creditor=player, debtor=box, points=won)
        return _tally(balances)

    def scores(self) -> dict[Player, int]:
        """Each player's unsettled points: positive when the others owe them."""
        scores: dict[Player, int] = {}
        for creditor, debtor, points in self.owed:
            scores[creditor] = scores.get(creditor, 0) + points
            scores[debtor] = scores.get(debtor, 0) - points
        return scores

    def settle_leaver(self, player: Player, stake: Decimal) -> tuple[dict[Player, Decimal], Tally]:
        """What ``player`` leaving settles (H13), and the tally without them.

        The amounts (positive: received) are ``player``'s, then each player they had
        points with; they sum to zero. An amount can be 0.00 (a leaver who won from one
        player what they lost to another); the ledger takes only the others.
        """
        _check_stake(stake)
        balances = self._balances()
        amounts = {player: Decimal("0.00")}
        for pair in [pair for pair in balances if player in pair]:
            other = pair[1] if pair[0] == player else pair[0]
            owed_to_player = balances.pop(pair) * (1 if pair[0] == player else -1)
            amounts[player] += _money(owed_to_player, stake)
            amounts[other] = _money(-owed_to_player, stake)
        return amounts, _tally(balances)

    def settle_all(self, stake: Decimal) -> dict[Player, Decimal]:
        """The closing settlement (H14): each player's unsettled points times the stake.

        Every player with a pair not square is named (an amount may be 0.00, which the
        ledger does not take); the amounts sum to exactly zero.
        """
        _check_stake(stake)
        return {player: _money(points, stake) for player, points in self.scores().items()}

    def _balances(self) -> dict[tuple[Player, Player], int]:
        balances: dict[tuple[Player, Player], int] = {}
        for creditor, debtor, points in self.owed:
            _add(balances, creditor=creditor, debtor=debtor, points=points)
        return balances


def _add(
    balances: dict[tuple[Player, Player], int], *, creditor: Player, debtor: Player, points: int
) -> None:
    """Add ``points`` owed by ``debtor`` to ``creditor``; a pair's balance is what its
    second player owes its first."""
    pair = (creditor, debtor) if creditor < debtor else (debtor, creditor)
    balances[pair] = balances.get(pair, 0) + (points if pair[0] == creditor else -points)


def _tally(balances: Mapping[tuple[Player, Player], int]) -> Tally:
    return Tally(
        owed=tuple(
            (first, second, owed) if owed > 0 else (second, first, -owed)
            for (first, second), owed in sorted(balances.items())
            if owed
        )
    )


def _money(points: int, stake: Decimal) -> Decimal:
    return (points * stake).quantize(_CENT)


def _check_stake(stake: Decimal) -> None:
    if not isinstance(stake, Decimal) or not stake.is_finite() or stake <= 0:
        raise InvalidStake(f"the stake per point is a positive amount, not {stake!r}")
    if stake != stake.quantize(_CENT):
        raise InvalidStake(f"the stake per point is in cents, not {stake}")


def _check_players(players: Sequence[Player]) -> None:
    twice = sorted({player for player in players if players.count(player) > 1})
    if twice:
        raise AlreadySeated(f"each player sits once: {', '.join(twice)} named twice")
    if len(players) < MIN_PLAYERS:
        raise TooFewPlayers(f"a chouette needs at least {MIN_PLAYERS} players, not {len(players)}")


def _check_team(seating: Seating, record: GameRecord) -> None:
    """One entry per team member, nobody else (API.md, H5)."""
    named = [member.player for member in record.members]
    outsiders = [player for player in named if player not in seating.line]
    if outsiders:
        roles = {seating.box: "the box", seating.partner: "the box's partner"}
        raise InvalidGameRecord(
            "only team members have entries: "
            + ", ".join(
                f"{player} ({roles.get(player, 'not in the team')})" for player in outsiders
            )
        )
    missing = [player for player in seating.line if player not in named]
    if missing:
        raise InvalidGameRecord(f"every team member has an entry: {', '.join(missing)} missing")


def _dice_from_data(dice: Sequence[int]) -> Callable[[], int]:
    remaining = iter(dice)

    def next_die() -> int:
        die = next(remaining, None)
        if die is None:
            raise InvalidDice("the dice given ran out before every tie was settled")
        if type(die) is not int or not 1 <= die <= 6:
            raise InvalidDice(f"a die is 1 to 6, not {die!r}")
        return die

    return next_die


def _check_keys(data: Mapping[str, Any], required: set[str], allowed: set[str], what: str) -> None:
    missing = sorted(required - data.keys())
    unknown = sorted(str(key) for key in data.keys() - allowed)
    if missing:
        raise InvalidGameRecord(f"{what} lacks {', '.join(missing)}")
    if unknown:
        raise InvalidGameRecord(f"{what} has unknown fields: {', '.join(unknown)}")


def _member_from_dict(entry: Any) -> MemberResult:
    if not isinstance(entry, Mapping):
        raise InvalidGameRecord("each member entry is a JSON object")
    _check_keys(entry, _MEMBER_REQUIRED, _MEMBER_KEYS, "a member entry")
    stake, who = entry["stake"], entry["player"]
    return MemberResult(
        player=who,
        stake=stake,
        outcome=_enum(Outcome, entry["outcome"], f"{who}'s outcome"),
        cube_turned=entry.get("cube_turned", type(stake) is int and stake > 1),
        winner=_enum(Winner, entry["winner"], f"{who}'s winner") if "winner" in entry else None,
        result=_enum(BoardResult, entry["result"], f"{who}'s result")
        if "result" in entry
        else None,
    )


_Choice = TypeVar("_Choice", bound=enum.Enum)


def _enum(kind: type[_Choice], value: Any, what: str) -> _Choice:
    try:
        return kind(value)
    except ValueError:
        choices = ", ".join(str(choice.value) for choice in kind)
        raise InvalidGameRecord(f"{what} is one of {choices}, not {value!r}") from None
