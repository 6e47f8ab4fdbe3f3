"""The largest number of pairs a field can make from the pairs allowed to meet.

Swiss pairing asks this again and again ("if these two meet, can everyone else still
be paired without a rematch?"), so it must be exact for any field: Edmonds' blossom
algorithm for a maximum matching in a general graph, growing one augmenting path at a
time from each unmatched player, shrinking odd cycles (blossoms) as they are found.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence


def maximum_matching_size(players: Sequence[str], allowed: Callable[[str, str], bool]) -> int:
    """How many disjoint pairs of ``players`` can be formed with ``allowed`` pairs only."""
    count = len(players)
    neighbours = [
        [other for other in range(count) if other != one and allowed(players[one], players[other])]
        for one in range(count)
    ]
    match = [-1] * count
    for one in range(count):
        if match[one] == -1:
            other = next((o for o in neighbours[one] if match[o] == -1), -1)
            if other != -1:
                match[one], match[other] = other, one
    for root in range(count):
        if match[root] == -1:
            _augment_from(root, neighbours, match)
    return sum(1 for partner in match if partner != -1) // 2


def _augment_from(root: int, neighbours: list[list[int]], match: list[int]) -> None:
    """Find an augmenting path from the unmatched ``root`` and flip it, if there is one."""
    count = len(match)
    parent = [-1] * count
    base = list(range(count))
    in_tree = [False] * count
    in_tree[root] = True
    queue = deque([root])

    def common_base(first: int, second: int) -> int:
        seen = [False] * count
        while True:
            first = base[first]
            seen[first] = True
            if match[first] == -1:
                break
            first = parent[match[first]]
        while True:
            second = base[second]
            if seen[second]:
                return second
            second = parent[match[second]]

    def mark_blossom(vertex: int, blossom_base: int, child: int, blossom: list[bool]) -> None:
        while base[vertex] != blossom_base:
            blossom[base[vertex]] = blossom[base[match[vertex]]] = True
            parent[vertex] = child
            child = match[vertex]
            vertex = parent[match[vertex]]

    while queue:
        vertex = queue.popleft()
        for to in neighbours[vertex]:
            if base[vertex] == base[to] or match[vertex] == to:
                continue
            if to == root or (match[to] != -1 and parent[match[to]] != -1):
                blossom_base = common_base(vertex, to)
                blossom = [False] * count
                mark_blossom(vertex, blossom_base, to, blossom)
                mark_blossom(to, blossom_base, vertex, blossom)
                for other in range(count):
                    if blossom[base[other]]:
                        base[other] = blossom_base
                        if not in_tree[other]:
                            in_tree[other] = True
                            queue.append(other)
            elif parent[to] == -1:
                parent[to] = vertex
                if match[to] == -1:
                    _flip(to, parent, match)
                    return
                in_tree[match[to]] = True
                queue.append(match[to])


def _flip(end: int, parent: list[int], match: list[int]) -> None:
    """Swap matched and unmatched pairs along the path ending at ``end``."""
    while end != -1:
        previous = parent[end]
        following = match[previous]
        match[end], match[previous] = previous, end
        end = following
