"""The dice-verification page (T2, API.md "Dice"): what it tells a player to run works."""

import html
import json
import re
import subprocess
import sys

import pytest
from django.urls import reverse

from backgammon.dice import ALGORITHM, DiceStream, commitment, new_server_seed

pytestmark = pytest.mark.django_db


@pytest.fixture
def revealed_record(tmp_path):
    """A record as ``GET /api/matches/{id}/dice/`` reveals it after a match."""
    seed = new_server_seed()
    stream = DiceStream(seed, "club-night")
    record = {
        "algorithm": ALGORITHM,
        "commitment": commitment(seed),
        "client_seed": "club-night",
        "server_seed": seed.hex(),
        "rolls": [list(stream.roll()) for _ in range(40)],
    }
    return record


def _page_code(client) -> str:
    page = client.get(reverse("play-dice")).content.decode()
    found = re.search(r'<code class="python" id="dice-check">(.*?)</code>', page, re.S)
    assert found is not None
    return html.unescape(found.group(1))


def _run(code: str, record: dict, tmp_path) -> subprocess.CompletedProcess[str]:
    (tmp_path / "record.json").write_text(json.dumps(record))
    return subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=30
    )


def test_t2_the_page_says_how_to_check_with_the_command_line(client):
    page = client.get(reverse("play-dice"))
    assert page.status_code == 200
    text = page.content.decode()
    assert "python -m backgammon verify-dice record.json" in text
    assert "/api/matches/&lt;id&gt;/dice/" in text
    assert ALGORITHM in text


def test_t2_the_python_on_the_page_checks_a_revealed_record(client, revealed_record, tmp_path):
    done = _run(_page_code(client), revealed_record, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "40 rolls follow from the seeds"


def test_t2_the_python_on_the_page_catches_a_changed_roll(client, revealed_record, tmp_path):
    first = revealed_record["rolls"][7]
    revealed_record["rolls"][7] = [first[0] % 6 + 1, first[1]]
    done = _run(_page_code(client), revealed_record, tmp_path)
    assert done.returncode != 0
    assert "roll 7 is not" in done.stderr


def test_t2_the_python_on_the_page_catches_a_seed_that_was_not_committed(
    client, revealed_record, tmp_path
):
    revealed_record["commitment"] = commitment(new_server_seed())
    done = _run(_page_code(client), revealed_record, tmp_path)
    assert done.returncode != 0
    assert "not the committed seed" in done.stderr


def test_the_command_line_the_page_names_agrees(revealed_record, tmp_path):
    (tmp_path / "record.json").write_text(json.dumps(revealed_record))
    done = subprocess.run(
        [sys.executable, "-m", "backgammon", "verify-dice", str(tmp_path / "record.json")],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("OK: 40 rolls")


@pytest.mark.parametrize(
    ("language", "title"),
    [("bg", "Проверка на заровете"), ("el", "Έλεγχος των ζαριών"), ("ro", "Verificarea zarurilor")],
)
def test_the_page_speaks_the_players_language(client, language, title):
    page = client.get(reverse("play-dice"), headers={"accept-language": language})
    text = page.content.decode()
    assert f"<h1>{title}</h1>" in text
    assert "Checking the dice" not in text
    assert "python -m backgammon verify-dice record.json" in text  # commands stay as they are
