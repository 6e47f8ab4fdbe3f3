"""Fixed plans: every pairing of an elimination or a round robin, laid out at the draw.

A plan is a list of nodes, one per match that may be played. Each side of a node says
where its player comes from (a seed, the winner or loser of an earlier node, a place in
a pool of losers) so the plan is fixed at the draw while the players are filled in as
results come. Which sides are empty (byes) depends only on the number of entries, so
the builder knows them at the draw: a node with two empty sides is never made, a node
with one empty side is a bye. Each node's round is one more than the latest round its
sides come from, so every pairing is played as early as it can be.

The layouts (docs/tournaments.md says the same in words):
- a knockout places seeds by the standard bracket order (``bracket_order``): seeds 1
  and 2 can meet only in the final, 1 to 4 only in the semi-finals, and the byes of a
  field short of a power of two go to the top seeds;
- a *drop bracket* (the losers' bracket of a double elimination, the progressive
  consolation) takes the losers of the main rounds: first-round losers of neighbouring
  matches meet; the losers of each later round meet the drop bracket's survivors, after
  a round among the survivors whenever they outnumber them, in the bracket's placement
  order (``alternating_placement`` for a double elimination's losers' bracket,
  ``reversed_placement`` for the progressive consolation);
- a *pool bracket* (the consolation for first-round losers, the last chance) is a
  knockout of a pool of losers drawn once the pool is complete: its entries are seeded
  in their order in the main draw, byes to the best seeds.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from enum import Enum, StrEnum
from typing import Any, Literal, TypedDict

from tournaments.formats.errors import InvalidOptions, InvalidState
from tournaments.formats.options import DoubleElimination, SingleElimination
from tournaments.formats.pairings import (
    Bracket,
    LocationDict,
    Pairing,
    location_from_dict,
    location_to_dict,
    pairing_id,
)


class SlotKind(StrEnum):
    """Where one side of a node gets its player."""

    SEED = "seed"  # the entry with seed ``index + 1``
    WINNER = "winner"  # the winner of node ``ref``
    LOSER = "loser"  # the loser of node ``ref``
    POOL = "pool"  # the ``index + 1``-th best seed among the losers pooled for ``ref``
    NOBODY = "nobody"  # no player: the other side has a bye


class SlotDict(TypedDict):
    kind: str
    ref: str
    index: int


class NodeDict(LocationDict):
    sides: list[SlotDict]
    reset: bool


class PoolDict(TypedDict):
    bracket: str
    after_round: int
    feeders: list[str]


class PlanDict(TypedDict):
    """A plan's stored JSON form (``Plan.to_dict``)."""

    nodes: list[NodeDict]
    pools: list[PoolDict]


@dataclass(frozen=True, slots=True)
class Slot:
    """One side of a node, before its player is known."""

    kind: SlotKind
    ref: str = ""
    index: int = 0

    def to_dict(self) -> SlotDict:
        return {"kind": self.kind.value, "ref": self.ref, "index": self.index}

    @classmethod
    def from_dict(cls, data: Any) -> Slot:
        return cls(kind=SlotKind(data["kind"]), ref=data["ref"], index=data["index"])


NOBODY = Slot(SlotKind.NOBODY)


@dataclass(frozen=True, slots=True)
class Node:
    """A match the plan may play; ``reset`` marks the grand final's second match,
    played only when the losers' bracket champion won the first."""

    id: str
    round: int
    bracket: Bracket
    bracket_round: int
    position: int
    sides: tuple[Slot, Slot]
    reset: bool = False

    @property
    def bye(self) -> bool:
        return NOBODY in self.sides

    def to_dict(self) -> NodeDict:
        return {
            **location_to_dict(self),
            "sides": [side.to_dict() for side in self.sides],
            "reset": self.reset,
        }

    @classmethod
    def from_dict(cls, data: Any) -> Node:
        first, second = (Slot.from_dict(side) for side in data["sides"])
        return cls(**location_from_dict(data), sides=(first, second), reset=data["reset"])


@dataclass(frozen=True, slots=True)
class Pool:
    """The losers of ``feeders``, drawn into ``bracket`` once round ``after_round`` is
    complete."""

    bracket: Bracket
    after_round: int
    feeders: tuple[str, ...]

    def to_dict(self) -> PoolDict:
        return {
            "bracket": self.bracket.value,
            "after_round": self.after_round,
            "feeders": list(self.feeders),
        }

    @classmethod
    def from_dict(cls, data: Any) -> Pool:
        return cls(
            bracket=Bracket(data["bracket"]),
            after_round=data["after_round"],
            feeders=tuple(data["feeders"]),
        )


@dataclass(frozen=True, slots=True)
class Plan:
    """Every node of a tournament whose pairings are fixed at the draw."""

    nodes: tuple[Node, ...]
    pools: tuple[Pool, ...] = ()

    def to_dict(self) -> PlanDict:
        return {
            "nodes": [node.to_dict() for node in self.nodes],
            "pools": [pool.to_dict() for pool in self.pools],
        }

    @classmethod
    def from_dict(cls, data: Any) -> Plan:
        try:
            return cls(
                nodes=tuple(Node.from_dict(node) for node in data["nodes"]),
                pools=tuple(Pool.from_dict(pool) for pool in data["pools"]),
            )
        except (KeyError, TypeError, ValueError) as error:
            raise InvalidState(f"not a tournament plan: {error}") from error


def bracket_order(size: int) -> list[int]:
    """Seeds down a knockout of ``size`` (a power of two), neighbours meeting first.

    Each doubling puts against every seed s the seed ``2m + 1 - s`` (m the seeds so far):
    1 v 8, 4 v 5, 2 v 7, 3 v 6 for eight.
    """
    order = [1]
    while len(order) < size:
        mirror = 2 * len(order) + 1
        order = [seed for top in order for seed in (top, mirror - top)]
    return order


def berger_round(players: int, number: int) -> list[tuple[int, int]]:
    """Round ``number`` of the Berger table for an even number of ``players`` (1-based).

    The players other than the last are written in a circle, starting each round
    ``players / 2`` places on from the last round's start; the last player meets the
    first of the circle (listed first in even rounds), and the others meet across it.
    """
    half = players // 2
    circle = players - 1
    start = (number - 1) * half % circle
    order = [(start + step) % circle + 1 for step in range(circle)]
    first = (order[0], players) if number % 2 else (players, order[0])
    return [first, *((order[step], order[circle - step]) for step in range(1, half))]


class _Builder:
    """Collects nodes, dropping empty ones and timing each as early as it can be."""

    def __init__(self, entries: int) -> None:
        self.entries = entries
        self.nodes: dict[str, Node] = {}
        self.pools: list[Pool] = []

    def _live(self, slot: Slot) -> bool:
        if slot.kind is SlotKind.SEED:
            return slot.index < self.entries
        if slot.kind is SlotKind.WINNER:
            return slot.ref in self.nodes
        if slot.kind is SlotKind.LOSER:
            return slot.ref in self.nodes and not self.nodes[slot.ref].bye
        if slot.kind is SlotKind.POOL:
            return slot.index < len(self._pool(slot.ref).feeders)
        return False

    def _ready(self, slot: Slot) -> int:
        if slot.kind in (SlotKind.WINNER, SlotKind.LOSER):
            return self.nodes[slot.ref].round
        if slot.kind is SlotKind.POOL:
            return self._pool(slot.ref).after_round
        return 0

    def _pool(self, bracket: str) -> Pool:
        return next(pool for pool in self.pools if pool.bracket.value == bracket)

    def add(
        self,
        bracket: Bracket,
        bracket_round: int,
        position: int,
        sides: tuple[Slot, Slot],
        *,
        round: int | None = None,
        reset: bool = False,
    ) -> Slot:
        """Add a node; the slot of its winner, or ``NOBODY`` if it has no player."""
        first, second = (side if self._live(side) else NOBODY for side in sides)
        if first == second == NOBODY:
            return NOBODY
        node = Node(
            id=pairing_id(bracket, bracket_round, position),
            round=round or 1 + max(self._ready(first), self._ready(second)),
            bracket=bracket,
            bracket_round=bracket_round,
            position=position,
            sides=(first, second),
            reset=reset,
        )
        self.nodes[node.id] = node
        return Slot(SlotKind.WINNER, node.id)

    def loser(self, winner: Slot) -> Slot:
        """The loser of the node whose winner is ``winner``; ``NOBODY`` after a bye."""
        if winner.kind is SlotKind.WINNER and not self.nodes[winner.ref].bye:
            return Slot(SlotKind.LOSER, winner.ref)
        return NOBODY

    def knockout(self, bracket: Bracket, slots: Sequence[Slot]) -> tuple[list[list[Slot]], Slot]:
        """Neighbours meet until one is left: each round's winner slots, and the champion."""
        rounds: list[list[Slot]] = []
        while len(slots) > 1:
            slots = self.play(bracket, len(rounds) + 1, _neighbours(slots))
            rounds.append(list(slots))
        return rounds, slots[0]

    def play(
        self, bracket: Bracket, bracket_round: int, pairs: Iterable[tuple[Slot, Slot]]
    ) -> list[Slot]:
        return [
            self.add(bracket, bracket_round, position, pair)
            for position, pair in enumerate(pairs, 1)
        ]

    def drop_bracket(
        self, bracket: Bracket, drops_by_round: Sequence[Sequence[Slot]], placement: Placement
    ) -> Slot:
        """The survivor of the losers dropped round by round (see the module's layouts);
        ``placement`` orders each later round's drops against the survivors."""
        survivors: list[Slot] = []
        played = 0

        def play(pairs: Iterable[tuple[Slot, Slot]]) -> list[Slot]:
            nonlocal played
            played += 1
            return self.play(bracket, played, pairs)

        for later, drops in enumerate(drops_by_round):
            if not survivors:
                survivors = list(drops) if len(drops) == 1 else play(_neighbours(drops))
                continue
            while len(survivors) > len(drops):
                survivors = play(_neighbours(survivors))
            survivors = play(zip(survivors, placement(drops, later), strict=True))
        while len(survivors) > 1:
            survivors = play(_neighbours(survivors))
        return survivors[0]

    def pool_bracket(self, bracket: Bracket, after_round: int, feeders: Sequence[str]) -> None:
        """A knockout of the losers of ``feeders``, seeded by their seeds in the main draw."""
        self.pools.append(Pool(bracket, after_round, tuple(feeders)))
        size = _bracket_size(len(feeders))
        self.knockout(
            bracket, [Slot(SlotKind.POOL, bracket.value, seed - 1) for seed in bracket_order(size)]
        )

    def routed_losers(self) -> set[str]:
        """Nodes whose loser plays on somewhere (in a drop bracket or a pool)."""
        routed = {
            side.ref
            for node in self.nodes.values()
            for side in node.sides
            if side.kind is SlotKind.LOSER
        }
        return routed.union(*(pool.feeders for pool in self.pools))

    def plan(self) -> Plan:
        return Plan(tuple(self.nodes.values()), tuple(self.pools))


Placement = Callable[[Sequence[Slot], int], list[Slot]]


def reversed_placement(drops: Sequence[Slot], later: int) -> list[Slot]:
    """Every later drop round in reverse order (the progressive consolation's)."""
    return list(reversed(drops))


def alternating_placement(drops: Sequence[Slot], later: int) -> list[Slot]:
    """The ``later``-th drop round (1 for the losers of the second main round) in turn
    reversed, with its quarters swapped, with its halves swapped, straight (and again),
    a swap of blocks smaller than one drop leaving them straight. Each dropped player
    then meets survivors from another part of the bracket than the players they beat,
    which keeps rematches out of every losers' round but the last few (measured by
    bench/double_elimination.py; reversed, then halves, then quarters swapped leaves up
    to 31% in some)."""
    step = (later - 1) % 4
    if step == 0:
        return list(reversed(drops))
    block = len(drops) // 4 if step == 1 else len(drops) // 2 if step == 2 else 0
    if block == 0:
        return list(drops)
    return [
        slot
        for start in range(0, len(drops), 2 * block)
        for slot in (*drops[start + block : start + 2 * block], *drops[start : start + block])
    ]


def _neighbours(slots: Sequence[Slot]) -> list[tuple[Slot, Slot]]:
    return [(slots[i], slots[i + 1]) for i in range(0, len(slots), 2)]


def _bracket_size(entries: int) -> int:
    """The smallest power of two that holds ``entries`` (at least 2)."""
    size = 2
    while size < entries:
        size *= 2
    return size


def single_elimination_plan(entries: int, options: SingleElimination) -> Plan:
    """The main knockout, then the consolation and the last chance the options ask for."""
    builder = _Builder(entries)
    seeds = [Slot(SlotKind.SEED, index=seed - 1) for seed in bracket_order(_bracket_size(entries))]
    main, _ = builder.knockout(Bracket.MAIN, seeds)
    last_main_round = len(main)
    consolation = options.consolation_through_round
    if consolation:
        _check_before_final("consolation", consolation, entries, last_main_round)
        if consolation == 1:
            losers = [slot.ref for slot in main[0] if builder.loser(slot) != NOBODY]
            if len(losers) < 2:
                raise InvalidOptions(
                    f"with {entries} entries the first round has one match: a consolation "
                    "for its loser alone cannot be held"
                )
            builder.pool_bracket(Bracket.CONSOLATION, 1, losers)
        else:
            builder.drop_bracket(
                Bracket.CONSOLATION,
                [[builder.loser(slot) for slot in rnd] for rnd in main[:consolation]],
                reversed_placement,
            )
    last_chance = options.last_chance_after_round
    if last_chance:
        _check_before_final("last chance", last_chance, entries, last_main_round)
        routed = builder.routed_losers()
        knocked_out = [
            node.id
            for node in builder.nodes.values()
            if node.round <= last_chance and not node.bye and node.id not in routed
        ]
        if len(knocked_out) < 2:
            raise InvalidOptions(
                f"fewer than two entries are out of every bracket by round {last_chance}: "
                "a last chance needs two"
            )
        builder.pool_bracket(Bracket.LAST_CHANCE, last_chance, knocked_out)
    return builder.plan()


def _check_before_final(bracket: str, last_round: int, entries: int, main_rounds: int) -> None:
    """A consolation or last chance works with the rounds before the main final."""
    if main_rounds == 1:
        raise InvalidOptions(f"with {entries} entries there is only the final: no {bracket}")
    if last_round >= main_rounds:
        raise InvalidOptions(
            f"with {entries} entries the main bracket has {main_rounds} rounds: a {bracket} "
            f"goes up to round {main_rounds - 1} at the latest, not {last_round}"
        )


def double_elimination_plan(entries: int, options: DoubleElimination) -> Plan:
    """Winners' bracket, losers' bracket (a drop bracket of every winners' round), final."""
    builder = _Builder(entries)
    seeds = [Slot(SlotKind.SEED, index=seed - 1) for seed in bracket_order(_bracket_size(entries))]
    main, winners_champion = builder.knockout(Bracket.MAIN, seeds)
    losers_champion = builder.drop_bracket(
        Bracket.LOSERS,
        [[builder.loser(slot) for slot in rnd] for rnd in main],
        alternating_placement,
    )
    final = builder.add(Bracket.GRAND_FINAL, 1, 1, (winners_champion, losers_champion))
    if options.bracket_reset:
        builder.add(Bracket.GRAND_FINAL, 2, 1, (final, builder.loser(final)), reset=True)
    return builder.plan()


def round_robin_plan(entries: int) -> Plan:
    """The Berger table; with an odd number of entries the last number is the bye."""
    players = entries + entries % 2
    builder = _Builder(entries)
    for number in range(1, players):
        for position, (first, second) in enumerate(berger_round(players, number), 1):
            sides = (Slot(SlotKind.SEED, index=first - 1), Slot(SlotKind.SEED, index=second - 1))
            builder.add(Bracket.MAIN, number, position, sides, round=number)
    return builder.plan()


class Open(Enum):
    """A side whose player is not known yet."""

    UNDECIDED = "undecided"


UNDECIDED: Literal[Open.UNDECIDED] = Open.UNDECIDED
Side = str | None | Literal[Open.UNDECIDED]


class Progress:
    """What the results so far decide in a plan: who plays where, what comes next."""

    def __init__(self, plan: Plan, seed_order: Sequence[str], pairings: Iterable[Pairing]):
        self.plan = plan
        self.nodes = {node.id: node for node in plan.nodes}
        self.pools = {pool.bracket.value: pool for pool in plan.pools}
        self.seed_order = tuple(seed_order)
        self.seed_index = {entry: index for index, entry in enumerate(seed_order)}
        self.results = {p.id: p.winner for p in pairings if p.winner is not None}
        self.losers = {p.id: p.loser for p in pairings if p.loser is not None}
        self._pooled: dict[str, tuple[str, ...] | Literal[Open.UNDECIDED]] = {}

    def side(self, slot: Slot) -> Side:
        if slot.kind is SlotKind.SEED:
            return self.seed_order[slot.index]
        if slot.kind is SlotKind.WINNER:
            return self.winner(self.nodes[slot.ref])
        if slot.kind is SlotKind.LOSER:
            return self.loser(self.nodes[slot.ref])
        if slot.kind is SlotKind.POOL:
            pooled = self.pooled(self.pools[slot.ref])
            return pooled[slot.index] if pooled is not UNDECIDED else UNDECIDED
        return None

    def players(self, node: Node) -> tuple[Side, Side]:
        return self.side(node.sides[0]), self.side(node.sides[1])

    def winner(self, node: Node) -> Side:
        if node.id in self.results:
            return self.results[node.id]
        first, second = self.players(node) if node.bye else (UNDECIDED, UNDECIDED)
        return second if first is None else first if second is None else UNDECIDED

    def loser(self, node: Node) -> Side:
        return self.losers.get(node.id, UNDECIDED)

    def pooled(self, pool: Pool) -> tuple[str, ...] | Literal[Open.UNDECIDED]:
        """The pool's entries by seed, once every feeder has its loser."""
        if pool.bracket.value not in self._pooled:
            known = [self.losers[feeder] for feeder in pool.feeders if feeder in self.losers]
            self._pooled[pool.bracket.value] = (
                tuple(sorted(known, key=self.seed_index.__getitem__))
                if len(known) == len(pool.feeders)
                else UNDECIDED
            )
        return self._pooled[pool.bracket.value]

    def needed(self, node: Node) -> bool | Literal[Open.UNDECIDED]:
        """Whether the node is played: always, but for a reset, only after an upset."""
        if not node.reset:
            return True
        final = self.nodes[node.sides[0].ref]
        champion = self.winner(final)
        if champion is UNDECIDED:
            return UNDECIDED
        return champion != self.side(final.sides[0])

    def pairings(self, number: int) -> tuple[Pairing, ...]:
        """The pairings of round ``number``, once every earlier round is complete."""
        found: list[Pairing] = []
        for node in self.plan.nodes:
            if node.round != number or self.needed(node) is not True:
                continue
            first, second = self.players(node)
            if first is UNDECIDED or second is UNDECIDED:
                raise InvalidState(f"{node.id} is not decided before round {number}")
            found.append(
                Pairing.new(
                    round=number,
                    bracket=node.bracket,
                    bracket_round=node.bracket_round,
                    position=node.position,
                    players=_present(first, second),
                )
            )
        return tuple(found)

    def fixtures(self) -> tuple[Fixture, ...]:
        """Every node still to be played or played, players filled in as far as known;
        a reset the first grand final made unnecessary is left out."""
        fixtures: list[Fixture] = []
        for node in self.plan.nodes:
            if self.needed(node) is False:
                continue
            first, second = (
                FixtureSide(slot, entry if isinstance(entry, str) else None)
                for slot, entry in zip(node.sides, self.players(node), strict=True)
            )
            winner = self.results.get(node.id)
            fixtures.append(
                Fixture(
                    id=node.id,
                    round=node.round,
                    bracket=node.bracket,
                    bracket_round=node.bracket_round,
                    position=node.position,
                    sides=(first, second),
                    winner=winner,
                    reset=node.reset,
                )
            )
        return tuple(fixtures)

    @property
    def complete(self) -> bool:
        return all(
            node.id in self.results or self.needed(node) is False for node in self.nodes.values()
        )


def _present(first: str | None, second: str | None) -> tuple[str] | tuple[str, str]:
    """The players of a node whose sides are known: two, or one with a bye."""
    if first is None:
        if second is None:
            raise InvalidState("a pairing with no player")
        return (second,)
    return (first,) if second is None else (first, second)


@dataclass(frozen=True, slots=True)
class FixtureSide:
    """One side of a fixture: where its player comes from, and who it is once known
    (``entry`` stays ``None`` for a bye, whose ``source`` is ``NOBODY``)."""

    source: Slot
    entry: str | None


@dataclass(frozen=True, slots=True)
class Fixture:
    """A node of the plan as the bracket page draws it, played or not."""

    id: str
    round: int
    bracket: Bracket
    bracket_round: int
    position: int
    sides: tuple[FixtureSide, FixtureSide]
    winner: str | None
    reset: bool
