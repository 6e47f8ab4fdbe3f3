"""A chouette game as a ``Game``: the box (side 0) against a team (side 1) whose members
each hold a cube contract (RULES.md H4-H10; docs/rules-core.md, "Chouette games").

The board is backgammon's; what differs is the cube and the resignations, played per
contract: the team's cube round (one team cube doubled unanimously, H4, or a cube per
member, H8, sent to the box by the captain's roll), the box answering the team's doubles
in line order (H9, H10), the box's resignation to every member and a member's of their
own contract, and the captain handing over when he is out (H7). ``TeamState`` keeps
what the game holds beyond its contracts. The seating and the money around the games
are ``backgammon.chouette``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Self

from backgammon.cube import CubeContract, CubeState, Holder
from backgammon.errors import CubeNotAvailable, GameOver, NotYourTurn
from backgammon.game import (
    CUBE_ANSWERS,
    AcceptResign,
    Action,
    Beaver,
    CloseRound,
    ContractOutcome,
    Double,
    ForfeitReason,
    Game,
    GameOptions,
    Opening,
    Pass,
    Phase,
    RejectResign,
    Resign,
    ResignedContract,
    Result,
    Take,
)
from backgammon.team import BOX, TEAM, check_same_action


@dataclass(frozen=True, slots=True)
class TeamState:
    """What a chouette game keeps beyond its contracts (``Game.team``).

    - ``proposals``: one team cube (H4): the members who proposed the team's double this
      turn; it goes to the box once every member still in the game has.
    - ``answering``: the team's doubles the box is answering, in line order, each with
      the cube value doubled (for H9).
    - ``offered_at``: for each contract whose holder (or the box) owes an answer, the
      ``turn_no`` the offer was made at: the answer carries it (API.md), so members
      answering side by side do not make each other's answers stale.
    - ``resign_to``: the box's resignation: the members who still owe it an answer; the
      team's (the captain's, for the team): the contracts the box has still to answer.
    - ``resigner``: the member whose resignation of their own contract the box answers.
    - ``resigned``: the contracts settled by a resignation, in the order accepted.
    """

    proposals: tuple[Holder, ...] = ()
    answering: tuple[tuple[Holder, int], ...] = ()
    offered_at: tuple[tuple[Holder, int], ...] = ()
    resign_to: tuple[Holder, ...] = ()
    resigner: Holder | None = None
    resigned: tuple[ResignedContract, ...] = ()

    def resigned_by(self, holder: Holder) -> ResignedContract | None:
        """How ``holder``'s contract was resigned, if it was."""
        return next((r for r in self.resigned if r.holder == holder), None)

    def offered(self, holders: Iterable[Holder], turn_no: int) -> TeamState:
        """``holders`` owe an answer to an offer made at ``turn_no`` (theirs replaced)."""
        holders = tuple(holders)
        kept = tuple((h, at) for h, at in self.offered_at if h not in holders)
        return replace(self, offered_at=(*kept, *((h, turn_no) for h in holders)))

    def answered(self, holders: Iterable[Holder]) -> TeamState:
        """The offers to ``holders`` answered."""
        holders = tuple(holders)
        return replace(self, offered_at=tuple(p for p in self.offered_at if p[0] not in holders))

    def lapsed(self) -> TeamState:
        """Nothing waits any more (the game ended at once): only the resignations stand."""
        return TeamState(resigned=self.resigned)

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe; ``from_dict`` gives back an equal state."""
        return {
            "proposals": list(self.proposals),
            "answering": [list(pair) for pair in self.answering],
            "offered_at": [list(pair) for pair in self.offered_at],
            "resign_to": list(self.resign_to),
            "resigner": self.resigner,
            "resigned": [[r.holder, r.winner, r.value.value] for r in self.resigned],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TeamState:
        """The state ``to_dict`` wrote."""
        return cls(
            proposals=tuple(data["proposals"]),
            answering=tuple((h, v) for h, v in data["answering"]),
            offered_at=tuple((h, at) for h, at in data["offered_at"]),
            resign_to=tuple(data["resign_to"]),
            resigner=data["resigner"],
            resigned=tuple(ResignedContract(h, w, Result(v)) for h, w, v in data["resigned"]),
        )


class TeamGame(Game):
    """A chouette game (``options.chouette``): ``team`` keeps the team's cube round, the
    offers waiting with the ``turn_no`` each was made at, and the resignations;
    ``awaiting`` says who must act, ``captain`` who moves for the team, ``outcomes`` how
    each contract ended. ``doubled`` is the box's one double a turn; the team's members
    may double in several rounds of one turn (H8)."""

    @property
    def _team(self) -> TeamState:
        """``team``, which a chouette game always has."""
        assert self.team is not None
        return self.team

    # Reading the state

    def in_play(self, holder: Holder) -> bool:
        """``holder``'s contract is still played for: neither passed nor resigned."""
        return self.contract(holder).live and self._team.resigned_by(holder) is None

    def offered_at(self, holder: Holder) -> int | None:
        return dict(self._team.offered_at).get(holder)

    def may_double(self, holder: Holder) -> bool:
        """``holder`` may double the box now, in the team's cube round: on the team's
        turn before its roll, still in the game, the cube theirs to offer, not yet
        doubled (or, one team cube, proposed) in this round."""
        if self.on_roll != TEAM or self.phase is not Phase.ROLL or not self.in_play(holder):
            return False
        return holder not in self._team.proposals and self.contract(holder).can_offer(TEAM)

    @property
    def doubles_to_send(self) -> tuple[Holder, ...]:
        if self.phase is not Phase.ROLL:
            return ()
        return tuple(c.holder for c in self.contracts if c.pending == TEAM)

    def _answering_resignation(self) -> tuple[Holder, ...]:
        return self._team.resign_to

    def _outcome(self, contract: CubeContract) -> ContractOutcome | None:
        """A contract settled by a resignation ends with it; the others as in any game."""
        resigned = self._team.resigned_by(contract.holder)
        if contract.live and resigned is not None:
            multiplier = self._value_multiplier(resigned.value)
            points = contract.points(resigned.winner, multiplier, self.options.jacoby)
            return ContractOutcome(
                contract.holder,
                resigned.winner,
                Result.RESIGNED,
                resigned.value,
                contract.value,
                points,
            )
        return super()._outcome(contract)

    # The hooks

    @classmethod
    def _start(cls, options: GameOptions, opening: Opening) -> Self:
        return replace(super()._start(options, opening), team=TeamState())

    def _roll(self, dice: tuple[int, int], **changes: Any) -> Game:
        """The captain's roll ends the team's cube round: doubles made in it must go to
        the box first (``close_round``), and proposals of the team's double not yet
        unanimous lapse."""
        if self.doubles_to_send:
            raise NotYourTurn("the team's doubles go to the box before the roll: send them first")
        return super()._roll(dice, team=replace(self._team, proposals=()), **changes)

    def _offer_double(self, holders: Iterable[Holder] | None) -> Game:
        """On the box's turn: the box's one double a turn, to ``holders`` (default: every
        member it may double; with one team cube, every member still in the game), each
        answering alone (H5, H8). On the team's turn: ``holders`` double the box on their
        own cubes (multiple cubes, H8), or propose the team's double (one cube, H4), in
        the team's cube round (see ``close_round``)."""
        if self.on_roll == TEAM:
            return self._team_double(holders)
        return super()._offer_double(holders)

    def _doubled(self, chosen: Sequence[Holder], **changes: Any) -> Game:
        assert self.options.chouette is not None
        if self.options.chouette.single and len(chosen) != len(self.live_holders):
            raise CubeNotAvailable(
                "one team cube (H4): the box doubles every member still in the game"
            )
        team = self._team.offered(chosen, self.turn_no + 1)
        return super()._doubled(chosen, team=team, **changes)

    def _check_doubling(self, holder: Holder, side: int) -> None:
        contract = self.contract(holder)
        if contract.live and not self.in_play(holder):
            raise CubeNotAvailable(f"{holder} resigned: that cube is out of this game")
        if side == TEAM and contract.pending == TEAM:
            raise CubeNotAvailable(f"{holder} has already doubled in this cube round")
        super()._check_doubling(holder, side)

    def _close_round(self) -> Game:
        """The doubles the team's members made in its cube round go to the box, which
        answers them before the roll, in line order (H8, H9, H10)."""
        if self.on_roll != TEAM:
            return super()._close_round()
        team = self._team
        if not self.doubles_to_send:
            missing = [h for h in self.live_holders if h not in team.proposals]
            raise CubeNotAvailable(
                f"the team's double needs every member still in the game (H4): "
                f"{', '.join(map(str, missing))} did not propose it"
                if team.proposals
                else "no double waits to go to the box: roll"
            )
        return self._send_team_doubles([CloseRound()], self.contracts, team)

    def _answer_double(self, kind: type[Take | Pass | Beaver], holder: Holder | None) -> Game:
        """A member answers the box's double (or beaver) on their own cube (H5); or the
        box answers the team's doubles, one cube at a time in line order (H8, H10, H9
        when on), the team's one cube at once (H4). ``holder`` ``None``: the box
        answering the next in line."""
        chouette = self.options.chouette
        assert chouette is not None
        if self.phase is Phase.OVER:
            raise GameOver("the game is over")
        if self.phase is not Phase.TAKE_OR_PASS:
            raise NotYourTurn("there is no double to answer")
        due = [c for c in self.contracts if c.pending == TEAM]
        if holder is None and not due:
            raise CubeNotAvailable("the box owes no answer: name the member who answers")
        contract = due[0] if holder is None else self.contract(holder)
        if contract.pending is None:
            raise CubeNotAvailable(f"no double waits for an answer on {holder!r}'s cube")
        if kind is Beaver:
            if not self.options.beavers:
                raise CubeNotAvailable("beavers are not allowed in this game")
            if chouette.single and contract.pending == BOX:
                raise CubeNotAvailable(
                    "one team cube (H4): a member takes or passes; a beaver would split it"
                )
        answered = [contract]
        if contract.pending == TEAM and chouette.single:
            answered = due
        elif contract.pending == TEAM:
            if contract.holder != due[0].holder:
                raise CubeNotAvailable(
                    f"the box answers the team's doubles in line order (H10): "
                    f"{due[0].holder}'s first"
                )
            if chouette.same_action and not contract.beavered:
                self._check_same_action(contract.holder, took=kind is not Pass)
        updated = {c.holder: CUBE_ANSWERS[kind](c) for c in answered}
        contracts = tuple(updated.get(c.holder, c) for c in self.contracts)
        team = self._team.answered(updated)
        team = team.offered(
            [h for h, c in updated.items() if c.pending is not None], self.turn_no + 1
        )
        action = kind(answered[0].holder)
        if any(c.pending is not None for c in contracts):
            return self._next([action], contracts=contracts, team=team)
        return self._team_settled(action, contracts, replace(team, answering=()))

    def _offer_resignation(self, value: Result, holder: Holder | None) -> Game:
        """The box offers ``value`` to every member still in the game; or the captain,
        for the team (``holder`` None), for every contract still in play, the box
        answering each; or a member (``holder``) their own contract, the box answering."""
        team = self._team
        if self.on_roll == BOX:
            if holder is not None:
                raise ValueError("the box resigns to every member still in the game")
            live = self.live_holders
            team = replace(team, resign_to=live).offered(live, self.turn_no + 1)
        else:
            if holder is not None and not self.in_play(holder):
                raise NotYourTurn(f"{holder} is out of this game: there is nothing to resign")
            if team.proposals or self.doubles_to_send:
                raise NotYourTurn("the team's cube round is open: resign after the roll")
            if holder is None:
                live = self.live_holders
                team = replace(team, resign_to=live).offered(live, self.turn_no + 1)
            else:
                team = replace(team, resigner=holder).offered([holder], self.turn_no + 1)
        return self._next(
            [Resign(value, holder)], phase=Phase.RESIGN_OFFERED, resignation=value, team=team
        )

    def _answer_resignation(
        self, kind: type[AcceptResign | RejectResign], holder: Holder | None
    ) -> Game:
        """``holder`` answers the box's resignation for their own contract, or the box
        answers the member's, or the team's for ``holder``'s contract (None: the next in
        line); an accepted one settles that contract (S4)."""
        assert self.resignation is not None
        team = self._team
        if self.on_roll == BOX:
            if holder is None and len(team.resign_to) == 1:
                holder = team.resign_to[0]
            if holder is None or holder not in team.resign_to:
                raise NotYourTurn(
                    f"{holder!r} owes no answer to the box's resignation"
                    if holder is not None
                    else "name the member who answers the box's resignation"
                )
            winner = TEAM
            team = replace(team, resign_to=tuple(h for h in team.resign_to if h != holder))
        elif team.resigner is None:  # the team's resignation: the box answers each contract
            holder = team.resign_to[0] if holder is None else holder
            if holder not in team.resign_to:
                raise NotYourTurn(f"{holder!r} has no contract in the team's resignation")
            winner = BOX
            team = replace(team, resign_to=tuple(h for h in team.resign_to if h != holder))
        else:
            if holder is not None and holder != team.resigner:
                raise NotYourTurn(f"the box answers {team.resigner}'s resignation, not {holder}'s")
            holder, winner = team.resigner, BOX
            team = replace(team, resigner=None)
        team = team.answered([holder])
        if kind is AcceptResign:
            settled = ResignedContract(holder, winner, self.resignation)
            team = replace(team, resigned=(*team.resigned, settled))
        action = kind(holder)
        if team.resign_to:
            return self._next([action], team=team)
        play_on = Phase.ROLL if self.dice is None else Phase.MOVE
        return self._team_settled(action, self.contracts, team, play_on, resignation=None)

    def forfeit(self, side: int, reason: ForfeitReason | str) -> Game:
        """As in any game; the offers waiting lapse, the resignations accepted stand."""
        return replace(super().forfeit(side, reason), team=self._team.lapsed())

    def _fields_to_dict(self) -> dict[str, Any]:
        return {**super()._fields_to_dict(), "team": self._team.to_dict()}

    @classmethod
    def _fields_from_dict(cls, data: dict[str, Any]) -> dict[str, Any]:
        return {**super()._fields_from_dict(data), "team": TeamState.from_dict(data["team"])}

    # The team's cube round

    def _team_double(self, holders: Iterable[Holder] | None) -> Game:
        """Members double in the team's cube round: each on their own cube (H8), the
        round's doubles going to the box when the captain rolls or when nobody else
        could double; or each proposes the team's double, which goes to the box once
        every member still in the game has (H4)."""
        assert self.options.chouette is not None
        team, live = self._team, self.live_holders
        if self.options.chouette.single:
            if holders is None:
                self.contract(live[0]).check_offer(TEAM)
                chosen = [h for h in live if h not in team.proposals]
            else:
                chosen = self._doubling(holders, TEAM)
                again = [str(h) for h in chosen if h in team.proposals]
                if again:
                    raise CubeNotAvailable(f"{', '.join(again)} already proposed the double")
            team = replace(team, proposals=(*team.proposals, *chosen))
            if any(h not in team.proposals for h in live):
                return self._next([Double(tuple(chosen))], team=team)
            contracts = tuple(c.offer(TEAM) if c.holder in live else c for c in self.contracts)
            return self._send_team_doubles([Double(tuple(chosen))], contracts, team)
        if holders is None:
            chosen = [h for h in live if self.contract(h).can_offer(TEAM)]
            if not chosen:
                raise CubeNotAvailable("no member of the team may double now")
        else:
            chosen = self._doubling(holders, TEAM)
        contracts = tuple(c.offer(TEAM) if c.holder in chosen else c for c in self.contracts)
        if any(c.can_offer(TEAM) for c in contracts if c.holder in live):
            return self._next([Double(tuple(chosen))], contracts=contracts)
        return self._send_team_doubles([Double(tuple(chosen))], contracts, team)

    def _send_team_doubles(
        self, actions: list[Action], contracts: tuple[CubeContract, ...], team: TeamState
    ) -> Game:
        """The team's doubles (``contracts`` offered by the team) go to the box."""
        doubles = tuple((c.holder, c.value) for c in contracts if c.pending == TEAM)
        team = replace(team, proposals=(), answering=doubles)
        return self._next(
            actions,
            phase=Phase.TAKE_OR_PASS,
            contracts=contracts,
            team=team.offered([holder for holder, _ in doubles], self.turn_no + 1),
        )

    def _check_same_action(self, holder: Holder, took: bool) -> None:
        """H9 on the set of team doubles the box is answering."""
        answers = {}
        for answered, _ in self._team.answering:
            contract = self.contract(answered)
            if contract.pending != TEAM:
                answers[answered] = contract.state is CubeState.LIVE or contract.passer != BOX
        check_same_action(self._team.answering, answers, holder, took)

    def _team_settled(
        self,
        action: Action,
        contracts: tuple[CubeContract, ...],
        team: TeamState,
        play_on: Phase = Phase.ROLL,
        **changes: Any,
    ) -> Game:
        """Once nothing waits: play goes on (``play_on``) while a contract is still
        played for; once none is, the game is over, each contract with its outcome."""
        if any(c.live and team.resigned_by(c.holder) is None for c in contracts):
            return self._next([action], contracts=contracts, team=team, phase=play_on, **changes)
        return self._next(
            [action],
            contracts=contracts,
            team=team,
            phase=Phase.OVER,
            winner=None,
            result=Result.SETTLED,
            dice=None,
            pending=(),
            **changes,
        )
