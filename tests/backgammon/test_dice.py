"""Verifiable dice ``hmac-sha256-v1`` (T2), checked against the algorithm as API.md states it.

Expected dice are computed here with ``hmac``/``hashlib`` straight from the text of
API.md, never by calling ``backgammon.dice``, so a bug there cannot hide in both.
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
import json

import pytest

from backgammon.dice import (
    DiceStream,
    commitment,
    make_client_seed,
    new_server_seed,
    verify,
)
from backgammon.errors import DiceMismatch

SEED = bytes(range(32))
CLIENT = "alice+bob"


def _block(server_seed: bytes, client_seed: str, i: int) -> bytes:
    return hmac.new(server_seed, f"{client_seed}:{i}".encode(), hashlib.sha256).digest()


def _reference_dice(server_seed: bytes, client_seed: str, n: int) -> list[int]:
    """API.md, read literally: the blocks concatenated, bytes >= 252 skipped, b % 6 + 1."""
    stream = b"".join(_block(server_seed, client_seed, i) for i in range(n // 8 + 2))
    return [b % 6 + 1 for b in stream if b < 252][:n]


def test_known_vector() -> None:
    # Pinned once from the reference above, so a change to either shows up here.
    assert _reference_dice(SEED, CLIENT, 12) == [2, 1, 2, 1, 3, 6, 3, 4, 6, 5, 6, 3]
    stream = DiceStream(SEED, CLIENT)
    assert [stream.roll() for _ in range(6)] == [(2, 1), (2, 1), (3, 6), (3, 4), (6, 5), (6, 3)]


def test_long_stream_matches_reference() -> None:
    stream = DiceStream(SEED, "x")
    assert [stream.die() for _ in range(500)] == _reference_dice(SEED, "x", 500)
    assert stream.used == 500


def test_client_seed_is_utf8() -> None:
    stream = DiceStream(SEED, "çé:ü")
    assert [stream.die() for _ in range(40)] == _reference_dice(SEED, "çé:ü", 40)


def test_bytes_of_252_and_more_are_skipped() -> None:
    # Search for a server seed whose first block starts with a byte >= 252 whose die
    # would differ from the next byte's: only skipping gives the right first die.
    for n in itertools.count():
        seed = hashlib.sha256(str(n).encode()).digest()
        block = _block(seed, "skip", 0)
        if block[0] >= 252 and block[0] % 6 != block[1] % 6 and block[1] < 252:
            break
    stream = DiceStream(seed, "skip")
    assert stream.die() == block[1] % 6 + 1
    # And the block boundary: the die after block 0's usable bytes comes from block 1.
    usable = [b for b in block if b < 252]
    rest = [stream.die() for _ in range(len(usable) - 1)]
    assert rest == [b % 6 + 1 for b in usable[1:]]
    first_of_next = next(b for b in _block(seed, "skip", 1) if b < 252)
    assert stream.die() == first_of_next % 6 + 1


@pytest.mark.parametrize("used", [0, 1, 2, 7, 31, 32, 33, 100, 257])
def test_resume_after_n_dice_equals_continuous_stream(used: int) -> None:
    continuous = DiceStream(SEED, CLIENT)
    expected = [continuous.die() for _ in range(used + 50)][used:]
    resumed = DiceStream(SEED, CLIENT, used=used)
    assert resumed.used == used
    assert [resumed.die() for _ in range(50)] == expected
    assert resumed.used == used + 50


def test_opening_roll_takes_pairs_until_the_first_non_tie() -> None:
    # Find a client seed whose stream opens with a tie, so the re-roll is exercised.
    for n in itertools.count():
        client = f"tie{n}"
        dice = _reference_dice(SEED, client, 8)
        if dice[0] == dice[1] and dice[2] != dice[3]:
            break
    stream = DiceStream(SEED, client)
    assert stream.opening_roll() == [(dice[0], dice[1]), (dice[2], dice[3])]
    assert stream.used == 4
    assert stream.roll() == (dice[4], dice[5])


def test_commitment_is_hex_sha256_of_the_seed() -> None:
    assert commitment(SEED) == hashlib.sha256(SEED).hexdigest()
    assert commitment(SEED) == commitment(SEED).lower()


def test_new_server_seed() -> None:
    seeds = {new_server_seed() for _ in range(5)}
    assert len(seeds) == 5
    assert all(len(seed) == 32 for seed in seeds)


@pytest.mark.parametrize("seed", [b"", bytes(31), bytes(33), "00" * 32])
def test_server_seed_must_be_32_bytes(seed: object) -> None:
    with pytest.raises(ValueError):
        commitment(seed)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        DiceStream(seed, "c")  # type: ignore[arg-type]


def test_make_client_seed_from_player_seeds() -> None:
    expected = hashlib.sha256(b'["lucky","",""]').hexdigest()
    assert make_client_seed("lucky", None, "") == expected
    assert make_client_seed("a", "b") != make_client_seed("b", "a")
    assert make_client_seed("a,b") != make_client_seed("a", "b")
    assert make_client_seed("ü") == hashlib.sha256('["ü"]'.encode()).hexdigest()


def test_make_client_seed_without_player_seeds_is_random() -> None:
    seeds = {make_client_seed(), make_client_seed(None, ""), make_client_seed()}
    assert len(seeds) == 3
    assert all(len(s) == 32 and int(s, 16) >= 0 for s in seeds)


def _record(n_rolls: int = 20, **changes: object) -> dict[str, object]:
    dice = _reference_dice(SEED, CLIENT, 2 * n_rolls)
    record: dict[str, object] = {
        "algorithm": "hmac-sha256-v1",
        "server_seed": SEED.hex(),
        "client_seed": CLIENT,
        "commitment": hashlib.sha256(SEED).hexdigest(),
        "rolls": [dice[i : i + 2] for i in range(0, len(dice), 2)],
    }
    record.update(changes)
    return record


def test_verify_accepts_an_honest_record() -> None:
    verify(_record())
    verify(json.loads(json.dumps(_record(n_rolls=0))))
    without_commitment = _record()
    del without_commitment["commitment"]
    verify(without_commitment)


def test_verify_names_the_first_tampered_roll() -> None:
    record = _record()
    rolls = record["rolls"]
    assert isinstance(rolls, list)
    original = list(rolls[7])
    rolls[7] = [original[0] % 6 + 1, original[1]]
    rolls[9] = [original[1] % 6 + 1, 1]
    with pytest.raises(DiceMismatch) as err:
        verify(record)
    assert str(err.value) == f"rolls[7]: expected {original}, found {rolls[7]}"


def test_verify_catches_a_wrong_commitment() -> None:
    with pytest.raises(DiceMismatch, match="commitment"):
        verify(_record(commitment=hashlib.sha256(b"other").hexdigest()))


def test_verify_catches_a_swapped_server_seed() -> None:
    with pytest.raises(DiceMismatch):
        verify(_record(server_seed=bytes(32).hex(), commitment=None))


@pytest.mark.parametrize(
    "changes",
    [
        {"algorithm": "hmac-sha512-v9"},
        {"server_seed": "zz"},
        {"server_seed": "00" * 31},
        {"client_seed": 5},
        {"rolls": [[1, 2, 3]]},
        {"rolls": "1,2"},
        {"commitment": 7},
    ],
)
def test_verify_refuses_malformed_records(changes: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        verify(_record(**changes))


def test_verify_refuses_a_record_without_rolls() -> None:
    record = _record()
    del record["rolls"]
    with pytest.raises(ValueError, match="rolls"):
        verify(record)
