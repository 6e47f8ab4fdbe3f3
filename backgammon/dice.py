"""Verifiable dice, algorithm ``hmac-sha256-v1`` (commit before the match, reveal after).

The server draws a secret 32-byte server seed and publishes its SHA-256 (the
commitment) before any die is rolled; the players may contribute to the public client
seed. Die ``n`` of the match is then a pure function of the two seeds, so once the
server seed is revealed anyone can recompute every roll and check the commitment:

- the byte stream is HMAC-SHA256(key=server seed, msg=UTF-8 of ``client_seed + ":" +
  str(i)``) for blocks i = 0, 1, 2, ..., the 32-byte blocks concatenated;
- bytes of 252 or more are skipped (252 = 42 * 6, so each die face stays equally likely);
  any other byte b gives the die ``b % 6 + 1``;
- dice are taken in order, two per roll, for the whole match or chouette session; an
  opening roll takes two dice (the first for the first player listed), a tie the next two.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from collections.abc import Iterator, Mapping
from typing import Any

from backgammon.errors import DiceMismatch

ALGORITHM = "hmac-sha256-v1"
SEED_BYTES = 32
_UNBIASED_LIMIT = 252


def new_server_seed() -> bytes:
    """A fresh secret server seed: 32 bytes from the operating system's CSPRNG."""
    return secrets.token_bytes(SEED_BYTES)


def commitment(server_seed: bytes) -> str:
    """The public commitment to a server seed: lowercase hex SHA-256 of its 32 bytes."""
    _check_seed(server_seed)
    return hashlib.sha256(server_seed).hexdigest()


def make_client_seed(*player_seeds: str | None) -> str:
    """The client seed for a match, from the seeds its players chose (in player order).

    With no player seed (all missing or empty) the server picks 32 random hex digits.
    Otherwise the client seed is the lowercase hex SHA-256 of the UTF-8 JSON array of the
    player seeds, a missing one as ``""``, written compactly (``json.dumps(seeds,
    ensure_ascii=False, separators=(",", ":"))``): each player can recompute it and see
    that their own string went in, and no choice of strings can be confused with another.
    """
    seeds = [seed or "" for seed in player_seeds]
    if not any(seeds):
        return secrets.token_hex(16)
    text = json.dumps(seeds, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class DiceStream:
    """The dice of one match in order; ``used`` dice already taken (to resume after them).

    The server stores only the seeds and how many dice it has used; ``DiceStream(seed,
    client_seed, used=n)`` continues exactly where a stream that had given ``n`` dice
    stopped.
    """

    def __init__(self, server_seed: bytes, client_seed: str, used: int = 0) -> None:
        _check_seed(server_seed)
        if used < 0:
            raise ValueError(f"used must be 0 or more, not {used}")
        self._dice = _dice(server_seed, client_seed)
        self._used = 0
        for _ in range(used):
            self.die()

    @property
    def used(self) -> int:
        """How many dice this stream has given so far (counting the resumed ones)."""
        return self._used

    def die(self) -> int:
        """The next die, 1..6."""
        self._used += 1
        return next(self._dice)

    def roll(self) -> tuple[int, int]:
        """The next roll: the next two dice, in stream order."""
        return self.die(), self.die()

    def opening_roll(self) -> list[tuple[int, int]]:
        """The opening rolls (first player's die, second player's die), ties included.

        The last pair is the first non-tie: its higher die moves first, playing both
        dice (O1). Each pair uses two dice of the stream, as any roll does.
        """
        rolls = [self.roll()]
        while rolls[-1][0] == rolls[-1][1]:
            rolls.append(self.roll())
        return rolls


def verify(record: Mapping[str, Any]) -> None:
    """Check a revealed dice record; ``DiceMismatch`` names the first roll that differs.

    ``record`` is the JSON object the API reveals after a match: ``algorithm``,
    ``server_seed`` (hex), ``client_seed``, ``rolls`` (``[[d1, d2], ...]``, every roll in
    order, opening rolls and ties included) and optionally ``commitment``, which must
    then be the SHA-256 of the server seed. A malformed record (missing or mistyped
    field, unknown algorithm, a seed that is not 32 bytes of hex) raises ``ValueError``:
    it cannot be checked at all, which is a different answer from "it does not match".
    """
    seed, client_seed, rolls, committed = _parse_record(record)
    if committed is not None and committed.lower() != commitment(seed):
        raise DiceMismatch(
            f"commitment {committed} is not the SHA-256 of the server seed "
            f"(expected {commitment(seed)})"
        )
    stream = DiceStream(seed, client_seed)
    for index, found in enumerate(rolls):
        expected = list(stream.roll())
        if found != expected:
            raise DiceMismatch(f"rolls[{index}]: expected {expected}, found {found}")


def _parse_record(
    record: Mapping[str, Any],
) -> tuple[bytes, str, list[list[int]], str | None]:
    if not isinstance(record, Mapping):
        raise ValueError("a dice record must be a JSON object")
    missing = {"algorithm", "server_seed", "client_seed", "rolls"} - record.keys()
    if missing:
        raise ValueError(f"dice record lacks {', '.join(sorted(missing))}")
    if record["algorithm"] != ALGORITHM:
        raise ValueError(f"unknown dice algorithm {record['algorithm']!r}; know {ALGORITHM}")
    try:
        seed = bytes.fromhex(record["server_seed"])
    except (TypeError, ValueError) as exc:
        raise ValueError("server_seed must be a hex string") from exc
    _check_seed(seed)
    client_seed = record["client_seed"]
    if not isinstance(client_seed, str):
        raise ValueError("client_seed must be a string")
    rolls = record["rolls"]
    if not isinstance(rolls, list) or not all(
        isinstance(roll, list) and len(roll) == 2 and all(type(d) is int for d in roll)
        for roll in rolls
    ):
        raise ValueError("rolls must be a list of [d1, d2] pairs of integers")
    committed = record.get("commitment")
    if committed is not None and not isinstance(committed, str):
        raise ValueError("commitment must be a hex string")
    return seed, client_seed, rolls, committed


def _check_seed(server_seed: bytes) -> None:
    if not isinstance(server_seed, bytes) or len(server_seed) != SEED_BYTES:
        raise ValueError(f"a server seed is {SEED_BYTES} bytes")


def _dice(server_seed: bytes, client_seed: str) -> Iterator[int]:
    block = 0
    while True:
        message = f"{client_seed}:{block}".encode()
        for byte in hmac.new(server_seed, message, hashlib.sha256).digest():
            if byte < _UNBIASED_LIMIT:
                yield byte % 6 + 1
        block += 1
