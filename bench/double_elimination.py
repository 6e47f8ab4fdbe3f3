"""How often does a double elimination's losers' bracket pair two players who have met?

    python bench/double_elimination.py [--trials T] [--seed S]

For fields of 8, 16, 32 and 64 entries, T brackets are played out with random results
(each match a coin toss), once with the losers' bracket laid out as drawn today
(``double_elimination_plan``: each later round's drops in turn reversed, with quarters
swapped, with halves swapped, straight) and once with the layout drawn before it (every
later round's drops in reverse order, rebuilt here for the comparison only). The report
gives, per losers' round, the share of its matches whose two players had met earlier in
the tournament, the old layout beside the new. See bench/README.md.
"""

from __future__ import annotations

import argparse
import random
import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.tournaments.play import field, losers_rematch_rates, play_out, random_winner
from tournaments.formats import Bracket, DoubleElimination, SlotKind, Tournament
from tournaments.formats.plan import Plan, double_elimination_plan

FIELDS = (8, 16, 32, 64)


def reversed_plan(plan: Plan) -> Plan:
    """The plan as drawn before the alternating placement: in each losers' round that
    takes drops, the winners' round's losers meet the survivors in reverse order."""
    drops: dict[str, list[str]] = {}
    for node in plan.nodes:
        survivor, dropped = node.sides
        if node.bracket is Bracket.LOSERS and (survivor.kind, dropped.kind) == (
            SlotKind.WINNER,
            SlotKind.LOSER,
        ):
            drops.setdefault(node.id.rsplit("-", 1)[0], []).append(dropped.ref)
    order = {
        round_id: sorted(refs, key=lambda ref: int(ref.rsplit("-", 1)[1]), reverse=True)
        for round_id, refs in drops.items()
    }
    nodes = []
    for node in plan.nodes:
        round_id = node.id.rsplit("-", 1)[0]
        if round_id in order:
            slot = replace(node.sides[1], ref=order[round_id][node.position - 1])
            node = replace(node, sides=(node.sides[0], slot))
        nodes.append(node)
    return replace(plan, nodes=tuple(nodes))


def rematch_rates(plan: Plan, entries: int, trials: int, seed: int) -> dict[int, float]:
    """Per losers' round: the share of its matches between two players who had met."""
    rng = random.Random(seed)
    seeds = tuple(entry.id for entry in field(entries))
    drawn = Tournament(DoubleElimination(), field(entries), seed_order=seeds, plan=plan)
    return losers_rematch_rates(play_out(drawn, random_winner(rng)) for _ in range(trials))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=400, help="brackets a field (400)")
    parser.add_argument("--seed", type=int, default=1, help="random results' seed (1)")
    args = parser.parse_args()
    print(f"Rematches per losers' round, {args.trials} random brackets a field")
    print("old: every later drop round reversed; new: in turn reversed, quarters swapped,")
    print("halves swapped, straight (plan.alternating_placement)")
    for entries in FIELDS:
        plan = double_elimination_plan(entries, DoubleElimination())
        old = rematch_rates(reversed_plan(plan), entries, args.trials, args.seed)
        new = rematch_rates(plan, entries, args.trials, args.seed)
        print(f"\n{entries} entries")
        print(f"{'losers round':>12} {'old':>7} {'new':>7}")
        for number in old:
            last_two = "  (one of the last two)" if number > len(old) - 2 else ""
            print(f"{number:>12} {old[number]:>7.1%} {new[number]:>7.1%}{last_two}")


if __name__ == "__main__":
    main()
