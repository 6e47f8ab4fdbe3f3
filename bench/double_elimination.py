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
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.tournaments.play import field, play_out, random_winner
from tournaments.formats import Bracket, DoubleElimination, Tournament
from tournaments.formats.plan import (
    Plan,
    Slot,
    SlotKind,
    _bracket_size,
    _Builder,
    bracket_order,
    double_elimination_plan,
    reversed_placement,
)

FIELDS = (8, 16, 32, 64)


def reversed_plan(entries: int) -> Plan:
    """The layout drawn before the alternating order: every later drop reversed."""
    builder = _Builder(entries)
    seeds = [Slot(SlotKind.SEED, index=seed - 1) for seed in bracket_order(_bracket_size(entries))]
    main, winners_champion = builder.knockout(Bracket.MAIN, seeds)
    losers_champion = builder.drop_bracket(
        Bracket.LOSERS,
        [[builder.loser(slot) for slot in rnd] for rnd in main],
        reversed_placement,
    )
    final = builder.add(Bracket.GRAND_FINAL, 1, 1, (winners_champion, losers_champion))
    builder.add(Bracket.GRAND_FINAL, 2, 1, (final, builder.loser(final)), reset=True)
    return builder.plan()


def rematch_rates(plan: Plan, entries: int, trials: int, seed: int) -> dict[int, float]:
    """Per losers' round: the share of its matches between two players who had met."""
    matches: Counter[int] = Counter()
    rematches: Counter[int] = Counter()
    rng = random.Random(seed)
    for _ in range(trials):
        drawn = Tournament(
            format=DoubleElimination(),
            entries=field(entries),
            seed_order=tuple(entry.id for entry in field(entries)),
            plan=plan,
        )
        played = play_out(drawn, random_winner(rng))
        met: set[frozenset[str]] = set()
        for number in range(1, len(played.rounds) + 1):
            pairings = [p for p in played.pairings if p.round == number and not p.bye]
            for pairing in pairings:
                if pairing.bracket is Bracket.LOSERS:
                    matches[pairing.bracket_round] += 1
                    rematches[pairing.bracket_round] += frozenset(pairing.players) in met
            met.update(frozenset(p.players) for p in pairings)
    return {number: rematches[number] / matches[number] for number in sorted(matches)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=400, help="brackets a field (400)")
    parser.add_argument("--seed", type=int, default=1, help="random results' seed (1)")
    args = parser.parse_args()
    print(f"Rematches per losers' round, {args.trials} random brackets a field")
    print("old: every later drop round reversed; new: in turn reversed, quarters swapped,")
    print("halves swapped, straight (plan.alternating_placement)")
    for entries in FIELDS:
        old = rematch_rates(reversed_plan(entries), entries, args.trials, args.seed)
        new = rematch_rates(
            double_elimination_plan(entries, DoubleElimination()), entries, args.trials, args.seed
        )
        print(f"\n{entries} entries")
        print(f"{'losers round':>12} {'old':>7} {'new':>7}")
        for number in old:
            last_two = "  (one of the last two)" if number > len(old) - 2 else ""
            print(f"{number:>12} {old[number]:>7.1%} {new[number]:>7.1%}{last_two}")


if __name__ == "__main__":
    main()
