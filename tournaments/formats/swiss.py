"""Swiss pairings: one maximum-weight matching of the field per round.

Every pair of players who have not met is an edge (a rematch is no edge at all), and so
is every player without a bye with the *bye* (odd fields). The matching must pair
everyone (``networkx.max_weight_matching`` with ``maxcardinality``); if no such matching
exists the round cannot be paired and ``PairingImpossible`` says so. Among the perfect
matchings the weights choose, in strict priority order (docs/tournaments.md says the same):

1. the bye to the lowest-ranked player who has not had one;
2. as many pairs inside each score group as possible, the top group first;
3. the smallest score differences (the sum over the pairs);
4. inside a score group, its top half against its bottom half in order (the Dutch
   system's S1 v S2: in a group of eight 1 v 5, 2 v 6, 3 v 7, 4 v 8);
5. a player who floats down is the lowest of their group, and meets the highest of the
   lower group.

Each criterion is a *level*: every edge has a small non-negative value on each level
(higher is better), and its weight is those values as the digits of one integer in a
base larger than any level's total over a matching. The total weight of a matching is
then the levels' totals as digits, so no amount of a lower level outweighs one unit of a
higher one: maximising the weight maximises the levels lexicographically.

The ranking for pairing is score (wins and byes), then seed; the tie-breaks order the
standings, not the pairings.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from tournaments.formats.errors import PairingImpossible
from tournaments.formats.pairings import Bracket, Pairing
from tournaments.formats.standings import Record

if TYPE_CHECKING:  # imported where a round is paired: 24 MB a process that never pairs one
    import networkx as nx

BYE = ""  # the bye's node in the graph: an entry's id is never empty


def swiss_round(
    seed_order: Sequence[str], history: Sequence[Pairing], number: int
) -> tuple[Pairing, ...]:
    """The pairings of round ``number`` after the finished pairings of ``history``."""
    import networkx as nx

    record = Record(seed_order, history)
    seed_index = {entry: index for index, entry in enumerate(seed_order)}
    ranking = sorted(seed_order, key=lambda entry: (-record.score(entry), seed_index[entry]))
    graph = _graph(ranking, record)
    matching = nx.max_weight_matching(graph, maxcardinality=True)
    if 2 * len(matching) != graph.number_of_nodes():
        raise PairingImpossible(_impossible(number, ranking, record))
    rank = {entry: index for index, entry in enumerate(ranking)}
    tables: list[tuple[str] | tuple[str, str]] = []
    bye: tuple[str] | None = None
    for one, other in matching:
        if BYE in (one, other):
            bye = (one or other,)
        else:
            first, second = sorted((one, other), key=rank.__getitem__)
            tables.append((first, second))
    tables.sort(key=lambda players: rank[players[0]])
    if bye is not None:
        tables.append(bye)
    return tuple(
        Pairing.new(
            round=number,
            bracket=Bracket.MAIN,
            bracket_round=number,
            position=position,
            players=players,
        )
        for position, players in enumerate(tables, 1)
    )


class _Levels:
    """The values of a pair on every level (see the module's rules), highest first: the
    bye, each score group from the top, the score difference, the S1 v S2 order, the
    floaters' order. Each value is at least 0 and higher is better."""

    def __init__(self, ranking: Sequence[str], record: Record) -> None:
        self.rank = {entry: index for index, entry in enumerate(ranking)}
        self.score = {entry: record.score(entry) for entry in ranking}
        self.groups = sorted(set(self.score.values()), reverse=True)
        members = {
            score: [entry for entry in ranking if self.score[entry] == score]
            for score in self.groups
        }
        self.group_size = {entry: len(members[self.score[entry]]) for entry in ranking}
        self.position = {
            entry: index for group in members.values() for index, entry in enumerate(group)
        }
        self.field = len(ranking)

    def of(self, one: str, other: str) -> list[int]:
        if BYE in (one, other):
            holder = one or other
            return [self.rank[holder] + 1] + [0] * (len(self.groups) + 3)
        high, low = sorted((one, other), key=self.rank.__getitem__)
        score, position = self.score, self.position
        in_group = [int(score[high] == score[low] == group) for group in self.groups]
        difference = self.groups[0] - self.groups[-1] - (score[high] - score[low])
        if score[high] == score[low]:
            half = self.group_size[high] // 2
            distance = position[low] - position[high]
            return [0, *in_group, difference, self.field - abs(distance - half), 0]
        floats = self.group_size[high] - 1 - position[high] + position[low]
        return [0, *in_group, difference, 0, self.field - floats]


def _graph(ranking: list[str], record: Record) -> nx.Graph[str]:
    """Every pair allowed to meet, weighted by its levels as the digits of one integer."""
    import networkx as nx

    edges = [
        (one, other)
        for index, one in enumerate(ranking)
        for other in ranking[index + 1 :]
        if not record.met(one, other)
    ]
    if len(ranking) % 2:
        edges += [(entry, BYE) for entry in ranking if not record.byes[entry]]
    levels = _Levels(ranking, record)
    values = {edge: levels.of(*edge) for edge in edges}
    largest = max((value for row in values.values() for value in row), default=0)
    # A level's total over a matching is below the base: (n + 1) // 2 pairs, bye included.
    base = (len(ranking) + 1) // 2 * largest + 1
    graph: nx.Graph[str] = nx.Graph()
    graph.add_nodes_from([*ranking, BYE] if len(ranking) % 2 else ranking)
    for (one, other), row in values.items():
        weight = 0
        for value in row:
            weight = weight * base + value
        graph.add_edge(one, other, weight=weight)
    return graph


def _impossible(number: int, ranking: list[str], record: Record) -> str:
    """Why round ``number`` cannot be paired, for the director."""
    if len(ranking) % 2 and all(record.byes[entry] for entry in ranking):
        return f"round {number} cannot be paired: every player has had the bye"
    return (
        f"round {number} cannot be paired without a rematch: whichever way the "
        f"{len(ranking)} players are paired{' (with the bye)' if len(ranking) % 2 else ''}, "
        "two who have met would meet again"
    )
