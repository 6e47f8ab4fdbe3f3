"""Swiss pairings: players of equal score meet, nobody meets twice while it can be avoided.

The rules (docs/tournaments.md says the same):
- **Ranking for pairing**: score (wins and byes), then seed. Tie-breaks order the
  standings, not the pairings.
- **No rematch while avoidable**: a round has the fewest rematches any pairing of the
  field (bye included) could have; in practice none until every pairing would need one.
- **The bye** (odd fields) goes to a player who has not had one (at most one each), the
  lowest-ranked among those whose bye leaves the fewest rematches.
- **Score groups and floaters**: the highest-ranked unpaired player is paired first,
  with the first player on this list whose pairing still lets the rest of the field be
  paired with the fewest rematches: the players of the same score, starting half the
  score group below them (1 v 5, 2 v 6... in a group of eight) and going down, then back
  up from there; then the players of lower scores, highest first (the player *floats*
  down). A player left over in a score group floats to the next one the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from tournaments.formats.errors import InvalidState
from tournaments.formats.matching import maximum_matching_size
from tournaments.formats.pairings import Bracket, Pairing
from tournaments.formats.standings import Record

Allowed = Callable[[str, str], bool]


def swiss_round(
    seed_order: Sequence[str], history: Sequence[Pairing], number: int
) -> tuple[Pairing, ...]:
    """The pairings of round ``number`` after the finished pairings of ``history``."""
    record = Record(seed_order, history)
    seed_index = {entry: index for index, entry in enumerate(seed_order)}
    ranking = sorted(seed_order, key=lambda entry: (-record.score(entry), seed_index[entry]))

    def allowed(first: str, second: str) -> bool:
        return not record.met(first, second)

    tables: list[tuple[str] | tuple[str, str]] = []
    if len(ranking) % 2:
        bye = _bye(ranking, record, allowed)
        ranking.remove(bye)
        tables.append((bye,))
    tables[:0] = _pair(ranking, record, allowed)
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


def _bye(ranking: list[str], record: Record, allowed: Allowed) -> str:
    """The lowest-ranked player without a bye whose bye leaves the fewest rematches."""
    perfect = (len(ranking) - 1) // 2
    best: tuple[int, str] | None = None
    for candidate in reversed(ranking):
        if record.byes[candidate]:
            continue
        rest = [player for player in ranking if player != candidate]
        pairs = maximum_matching_size(rest, allowed)
        if pairs == perfect:
            return candidate
        if best is None or pairs > best[0]:
            best = (pairs, candidate)
    if best is None:
        raise InvalidState("every player has had a bye")
    return best[1]


def _pair(ranking: list[str], record: Record, allowed: Allowed) -> list[tuple[str, str]]:
    """Pair an even field top down, keeping the fewest rematches possible at each step."""
    remaining = list(ranking)
    clean_pairs = maximum_matching_size(remaining, allowed)
    pairs: list[tuple[str, str]] = []
    while remaining:
        player, others = remaining[0], remaining[1:]
        candidates = _preference(player, others, record)
        # A fresh pair must leave one clean pair fewer to find; a rematch, as many.
        for candidate in sorted(candidates, key=lambda other: not allowed(player, other)):
            rest = [other for other in others if other != candidate]
            rest_pairs = maximum_matching_size(rest, allowed)
            if rest_pairs == clean_pairs - allowed(player, candidate):
                break
        else:
            raise InvalidState("no pairing keeps the fewest rematches")
        pairs.append((player, candidate))
        remaining, clean_pairs = rest, rest_pairs
    return pairs


def _preference(player: str, others: list[str], record: Record) -> list[str]:
    """The order in which ``player`` tries opponents (see the module's rules)."""
    score = record.score(player)
    same = [other for other in others if record.score(other) == score]
    lower = [other for other in others if record.score(other) < score]
    middle = (len(same) + 1) // 2 - 1
    return same[middle:] + same[:middle][::-1] + lower
