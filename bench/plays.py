"""How fast is our legal-play generator, next to the other implementations we could find?

    python bench/plays.py [--positions N] [--games G] [--seed S] [--rounds R] [--check K]

Times each generator (ours; GNU Backgammon's, bgsage's and OpenSpiel's in C/C++; the
pure-Python ones on PyPI, through the adapters in bench/peers.py) on the same
reproducible positions and rolls (OpenSpiel, which cannot be set up, on positions of its
own games), checks each one's answers against ours, and prints one
table: positions per second, the ratio to ours, the agreement with ours; then whether
the issue's targets are met, the time for G random self-play games with ours, and peak
memory. Progress goes to stderr. See bench/README.md for what the numbers mean.
"""

from __future__ import annotations

import argparse
import gc
import math
import random
import resource
import statistics
import sys
import time
import tracemalloc
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import peers
from peers import PYTHON, Case, Dice, Peer, Reference

from backgammon.moves import legal_plays
from backgammon.position import BAR, Position
from backgammon.variants import START

OURS = "this project (legal_plays)"
SLOW_PASS = 5.0  # seconds: a generator slower than this gets one timed pass, not more
CHUNK = 250  # cases timed at a stretch, by each generator in turn
CACHE_SUSPECT = 0.75  # later passes this much faster than the first, next to the others': cached


def _progress(label: str, done: int, total: int) -> None:
    if done == total or done % 250 == 0:
        end = "\n" if done == total else ""
        print(f"\r{label}: {done}/{total}", end=end, file=sys.stderr, flush=True)


# --- positions ---------------------------------------------------------------------


def _roll(rng: random.Random) -> Dice:
    return rng.randint(1, 6), rng.randint(1, 6)


def _over(pos: Position) -> bool:
    return not any(pos.player) or not any(pos.opponent)


def _random_game(rng: random.Random, max_turns: int = 2000) -> list[Case]:
    """One game of random legal plays from the start; every (position, roll) met."""
    cases = []
    pos = START
    for _ in range(max_turns):
        if _over(pos):
            break
        dice = _roll(rng)
        cases.append((pos, dice))
        plays = legal_plays(pos, dice)
        pos = (rng.choice(plays).result if plays else pos).mirror()
    return cases


def _crafted(rng: random.Random) -> Position:
    """A bear-off (with or without contact) or a side on the bar against a strong board."""
    while _over(pos := _crafted_try(rng)):
        pass
    return pos


def _crafted_try(rng: random.Random) -> Position:
    player = [0] * 25
    opponent = [0] * 25
    if rng.random() < 0.5:
        for _ in range(rng.randint(1, 15)):
            player[rng.randrange(6)] += 1
        contact = rng.random() < 0.5
        for _ in range(rng.randint(1, 15)):
            slot = rng.randrange(24) if contact else rng.randrange(12)
            if slot < 18 or not player[23 - slot]:
                opponent[slot] += 1
    else:
        for slot in rng.sample(range(6), rng.randint(3, 6)):
            opponent[slot] = 2
        player[BAR] = rng.randint(1, 3)
        for _ in range(rng.randint(0, 12)):
            slot = rng.randrange(24)
            if not opponent[23 - slot]:
                player[slot] += 1
    return Position(tuple(player), tuple(opponent))


def make_cases(n: int, seed: int) -> list[Case]:
    """``n`` (position, roll) pairs: three quarters from random self-play, a quarter crafted."""
    rng = random.Random(seed)
    cases: list[Case] = []
    while len(cases) < n * 3 // 4:
        cases += _random_game(rng)
        _progress("positions", min(len(cases), n), n)
    del cases[n * 3 // 4 :]
    while len(cases) < n:
        cases.append((_crafted(rng), _roll(rng)))
    _progress("positions", n, n)
    return list(dict.fromkeys(cases))  # each once: games meet the opening again and again


# --- timing and checking ------------------------------------------------------------


def time_in_turns(generators: Sequence[Peer], total: int, rounds: int) -> list[tuple[float, bool]]:
    """Seconds per case of each generator over all its cases, after a warm-up on 100.

    The cases are taken in chunks of CHUNK, each chunk by every generator in turn, and
    all of it ``rounds`` times; a generator's time is the sum over the chunks of its
    fastest time on each. So a change in the load of the machine (shared with other work)
    falls on all generators alike, and a passing one is filtered out. A generator whose
    first pass takes over SLOW_PASS seconds gets no more.

    A generator that remembers answers (a cache) rather than finding them runs its later
    passes much faster than its first. Every generator's first pass is a little slower
    (cold memory), and all of them are when the machine was busier then, so the test is
    relative: a generator whose first pass stands out from the others' by more than
    CACHE_SUSPECT (chunk by chunk, the median) is reported at its first pass, and the flag
    returned with it is True.
    """
    totals = [peer.own_cases or total for peer in generators]
    for peer, n in zip(generators, totals, strict=True):
        for i in range(min(100, n)):
            peer.run(i)
    # Every generator's boards, built beforehand, are out of the garbage collector's sight:
    # otherwise each full collection during a pass would walk all of them, and a generator
    # that allocates more would pay for the others' data.
    gc.collect()
    gc.freeze()
    first = [[0.0] * math.ceil(n / CHUNK) for n in totals]
    fastest = [[math.inf] * math.ceil(n / CHUNK) for n in totals]
    active = range(len(generators))
    for round_ in range(rounds):
        for chunk, start in enumerate(range(0, max(totals), CHUNK)):
            for g in active:
                run, stop = generators[g].run, min(start + CHUNK, totals[g])
                if start >= stop:
                    continue
                began = time.perf_counter()
                for i in range(start, stop):
                    run(i)
                seconds = time.perf_counter() - began
                fastest[g][chunk] = min(fastest[g][chunk], seconds)
                if round_ == 0:
                    first[g][chunk] = seconds
            done = min(start + CHUNK, max(totals))
            _progress(f"timing, pass {round_ + 1} of {rounds}", done, max(totals))
        active = [g for g in active if sum(first[g]) <= SLOW_PASS]
    gc.unfreeze()
    slowdown = [
        statistics.median(once / best for once, best in zip(firsts, bests, strict=True))
        for firsts, bests in zip(first, fastest, strict=True)
    ]
    repeated = [slowdown[g] for g in active]  # those timed more than once
    usual = statistics.median(repeated) if repeated else 1.0
    timings = []
    for g, n in enumerate(totals):
        cached = slowdown[g] > usual / CACHE_SUSPECT
        timings.append(((sum(first[g]) if cached else sum(fastest[g])) / n, cached))
    return timings


def reference(case: Case) -> Reference:
    plays = legal_plays(*case)
    return Reference(
        frozenset((play.result.player, play.result.opponent) for play in plays),
        max((len(play.dice_used) for play in plays), default=0),
    )


@dataclass(slots=True)
class Check:
    """How often a peer's answers match ours on the checked cases."""

    checked: int
    differ: list[int]  # indices of the cases where they do not
    raised: int  # of those, the cases where the peer (or its adapter) raised

    @property
    def rate(self) -> float:
        return 1 - len(self.differ) / self.checked


def check(peer: Peer, sample: Sequence[int], refs: dict[int, Reference]) -> Check | None:
    if peer.agrees is None:
        return None
    differ = []
    raised = 0
    for n, i in enumerate(sample, 1):
        try:
            same = peer.agrees(i, refs[i])
        except Exception:  # a crash on a position is a disagreement, counted apart
            same = False
            raised += 1
        if not same:
            differ.append(i)
        _progress(f"checking {peer.name}", n, len(sample))
    return Check(len(sample), differ, raised)


@dataclass(slots=True)
class Row:
    name: str
    kind: str
    rate: float | None = None  # positions per second
    check: Check | None = None
    compares: str = ""
    missing: str = ""  # why there is no rate
    cached: bool = False  # later passes were much faster: the first one is reported


def measure(cases: Sequence[Case], seed: int, rounds: int, sample: Sequence[int]) -> list[Row]:
    """One row for ours, then one per peer (or per library missing)."""
    ours = Peer(OURS, PYTHON, lambda i: legal_plays(*cases[i]), None, "the reference")
    rows = [Row(OURS, PYTHON, compares=ours.compares)]
    generators = [ours]
    for library in peers.LIBRARIES:
        try:
            found = library.build(cases, seed)
        except ImportError:
            missing = f"not installed; {library.install}"
            rows.append(Row(library.name, library.kind, missing=missing))
            continue
        except Exception as error:  # shown in the table rather than ending the run
            rows.append(Row(library.name, library.kind, missing=f"failed: {error!r}"))
            continue
        for peer in found:
            rows.append(Row(peer.name, peer.kind, compares=peer.compares))
            generators.append(peer)
    timed = [row for row in rows if not row.missing]
    timings = time_in_turns(generators, len(cases), rounds)
    refs = {i: reference(cases[i]) for i in sample}
    for row, peer, (seconds, cached) in zip(timed, generators, timings, strict=True):
        row.rate, row.cached = 1 / seconds, cached
        row.check = check(peer, sample, refs)
    return rows


def self_play(games: int, seed: int) -> tuple[float, int]:
    """Seconds for ``games`` random games with our generator, and the turns played."""
    rng = random.Random(seed)
    turns = 0
    start = time.perf_counter()
    for game in range(games):
        turns += len(_random_game(rng))
        _progress("self-play games", game + 1, games)
    return time.perf_counter() - start, turns


# --- report --------------------------------------------------------------------------


def _agreement(row: Row) -> str:
    if row.name == OURS:
        return "(reference)"
    if row.check is None:
        return "n/a"
    if not row.check.differ:
        return "100%"
    return f"{math.floor(10_000 * row.check.rate) / 100:.2f}% *"  # never rounded up to 100


def print_table(rows: Sequence[Row], cases: Sequence[Case], sample: Sequence[int]) -> None:
    base = rows[0].rate
    assert base is not None
    print(f"{'generator':<39}{'kind':<13}{'positions/s':>12}{'vs ours':>9}  agrees with ours")
    for row in rows:
        if row.rate is None:
            print(f"{row.name:<39}{row.kind:<13}{row.missing}")
        else:
            ratio = f"{row.rate / base:.2f}x"
            cached = "  (first pass kept: later ones much faster, a cache?)" if row.cached else ""
            print(
                f"{row.name:<39}{row.kind:<13}{row.rate:>12,.0f}{ratio:>9}  "
                f"{_agreement(row)}{cached}"
            )
    print(
        "\nkind: C and C++ are compiled engines called from Python; pure Python is Python "
        "code only.\nvs ours: that rate divided by ours (above 1: faster than ours)."
    )
    print(f"Agreement, on {len(sample)} of the {len(cases)} positions (* : not all agree):")
    for row in rows[1:]:
        if row.rate is None:
            continue
        if row.check is None:
            print(f"  {row.name}: {row.compares}")
            continue
        differ = row.check.differ
        verdict = f"{len(differ)} differ" if differ else "all agree"
        if differ:
            first = differ[0]
            dice = cases[first][1]
            verdict += f" (first: position #{first}, roll {dice[0]}-{dice[1]})"
        if row.check.raised:
            verdict += f"; it raised on {row.check.raised}"
        print(f"  {row.name}: {row.compares}: {verdict}")
    if any(row.check and row.check.differ for row in rows):
        print("  (positions numbered from 0 as made; the causes are in bench/README.md)")


def print_targets(rows: Sequence[Row]) -> None:
    """The issue's targets: a third of gnubg's throughput, and ahead of every
    pure-Python peer."""
    ours = rows[0]
    assert ours.rate is not None
    print(f"\nIssue targets, ours at {ours.rate:,.0f} positions/s:")
    gnubg = [row for row in rows if row.name.startswith("gnubg") and row.rate]
    if not gnubg:
        print("  at least 1/3 of gnubg's throughput: not measured (gnubg not installed)")
    for row in gnubg:
        assert row.rate is not None
        share = ours.rate / row.rate
        verdict = "met" if share >= 1 / 3 else "NOT met"
        print(
            f"  at least 1/3 of {row.name} ({row.rate:,.0f}/s): "
            f"ours is {share:.3f} of it: {verdict}"
        )
    python = [row for row in rows[1:] if row.kind == PYTHON]
    timed = [(row.name, row.rate) for row in python if row.rate]
    behind = [name for name, rate in timed if rate >= ours.rate]
    verdict = "NOT met, behind " + ", ".join(behind) if behind else "met"
    if not timed:
        verdict = "not measured (none installed)"
    print(f"  ahead of every pure-Python peer: {verdict}")
    for name, rate in timed:
        print(f"    ours is {ours.rate / rate:.2f}x as fast as {name}")
    for row in python:
        if not row.rate:
            print(f"    not counted, not installed: {row.name}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=3000, help="positions (default 3000)")
    parser.add_argument("--games", type=int, default=1000, help="self-play games (default 1000)")
    parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    parser.add_argument(
        "--rounds", type=int, default=5, help="timed passes, the best kept (default 5)"
    )
    parser.add_argument(
        "--check",
        type=int,
        default=0,
        help="check agreement on this many positions, spread over all (default 0: all)",
    )
    args = parser.parse_args(argv)

    cases = make_cases(args.positions, args.seed)
    step = max(1, len(cases) // args.check) if args.check else 1
    sample = range(0, len(cases), step)[: args.check or None]
    rows = measure(cases, args.seed, max(1, args.rounds), sample)

    seconds, turns = self_play(args.games, args.seed)
    tracemalloc.start()
    self_play(max(1, args.games // 20), args.seed)
    _, traced_peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    max_rss_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

    print(
        f"\nLegal-play generation, {len(cases)} positions (seed {args.seed}), "
        f"best of {max(1, args.rounds)} timed passes, in turns"
    )
    print_table(rows, cases, sample)
    print_targets(rows)
    print(f"\nSelf-play, our generator, random legal plays: {args.games} games")
    print(f"  {seconds:.1f} s, {turns} turns, {turns / seconds:,.0f} turns/s")
    print(
        f"  peak traced Python memory ({max(1, args.games // 20)} games): "
        f"{traced_peak / 2**20:.2f} MiB"
    )
    print(
        f"  peak process RSS (whole run, every library above loaded): {max_rss_kib / 1024:.0f} MiB"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
