"""Match and tournament pages."""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from backgammon.dice import ALGORITHM


def play(request: HttpRequest) -> HttpResponse:
    return render(request, "matches/play.html")


def tournaments(request: HttpRequest) -> HttpResponse:
    return render(request, "matches/tournaments.html")


# The dice check shown on /play/dice/: plain Python, the standard library only, run as
# written by tests/matches/test_dice_page.py against a revealed record.
DICE_CHECK_CODE = """\
import hashlib, hmac, json

record = json.load(open("record.json"))
seed = bytes.fromhex(record["server_seed"])
assert hashlib.sha256(seed).hexdigest() == record["commitment"], "not the committed seed"

def dice(seed, client_seed):
    block = 0
    while True:
        message = f"{client_seed}:{block}".encode()
        for byte in hmac.new(seed, message, hashlib.sha256).digest():
            if byte < 252:
                yield byte % 6 + 1
        block += 1

stream = dice(seed, record["client_seed"])
for number, roll in enumerate(record["rolls"]):
    assert roll == [next(stream), next(stream)], f"roll {number} is not {roll}"
print(len(record["rolls"]), "rolls follow from the seeds")
"""


def dice(request: HttpRequest) -> HttpResponse:
    """How anyone checks the dice of a finished match (algorithm ``hmac-sha256-v1``)."""
    context = {
        "algorithm": ALGORITHM,
        "check_code": DICE_CHECK_CODE,
        "dice_path": "/api/matches/<id>/dice/",
    }
    return render(request, "matches/dice.html", context)
