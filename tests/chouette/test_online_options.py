"""The cube options of an online chouette (H9, H11) through the HTTP API with real
tokens: given at ``POST /api/chouettes/``, stored, shown by ``GET``, on the table page's
options line, and played by the engine. alice is the box, bob the captain, carol and
dave the crew."""

import pytest

from backgammon.dice import DiceStream, commitment
from chouette.models import Chouette
from tests.chouette.online_table import OnlineTable

ORDER = ["alice", "bob", "carol", "dave"]


@pytest.fixture
def open_table(api, members):
    def make(start=True, **options):
        at = OnlineTable(api, members, ORDER, **options)
        if start:
            at.act("carol", "start")
        return at

    return make


def refused(at, name, action, status, error, **body):
    """``action`` is refused with ``status`` and ``error`` and changes nothing."""
    before = at.snapshot()
    response = at.post(name, action, **body)
    assert (response.status_code, response.json()["error"]) == (status, error), response.json()
    assert at.snapshot() == before
    return response.json()


def the_team_doubles(at, *members):
    """Each of ``members`` doubles on their own cube; the captain's roll sends them (a
    round where nobody is left who could double goes to the box by itself)."""
    at.team_to_roll()
    for name in members:
        at.act(name, "double")
    if at.game["phase"] == "roll":
        at.act("bob", "roll")
    assert at.game["phase"] == "take_or_pass" and at.game["awaiting"] == ["alice"]


def box_answer(at, member):
    """The box's answer to ``member``'s double carries that double's turn_no."""
    return {"turn_no": at.game["cubes"][member]["offered_at"]}


def test_h9_h11_the_options_are_stored_and_shown(open_table, client, members):
    at = open_table(start=False, cube="multiple", same_action=True, automatic_doubles=1, cube_max=8)
    shown = at.get("erin").json()["options"]
    assert {k: shown[k] for k in ("cube", "same_action", "automatic_doubles", "cube_max")} == {
        "cube": "multiple",
        "same_action": True,
        "automatic_doubles": 1,
        "cube_max": 8,
    }
    stored = Chouette.objects.get(pk=at.pk)
    assert (stored.same_action, stored.automatic_doubles, stored.cube_max) == (True, 1, 8)
    client.force_login(members["erin"].user)
    facts = client.get(f"/chouettes/{at.pk}/").content.decode()
    facts = facts[facts.index('class="facts"') :].split("</p>")[0]
    assert "same value, same action" in facts
    assert "1 automatic double" in facts and "cube up to 8" in facts
    # The defaults: off, off, no maximum; none of them on the options line.
    plain = open_table(start=False, cube="multiple")
    shown = plain.body["options"]
    assert (shown["same_action"], shown["automatic_doubles"], shown["cube_max"]) == (False, 0, None)
    facts = client.get(f"/chouettes/{plain.pk}/").content.decode()
    assert all(text not in facts for text in ("same value", "automatic double", "cube up to"))


@pytest.mark.parametrize(
    ("body", "why"),
    [
        ({"mode": "online", "options": {"cube": "single", "same_action": True}}, "multiple cubes"),
        ({"mode": "online", "options": {"same_action": True}}, "multiple cubes"),
        ({"mode": "recorded", "options": {"cube": "multiple", "same_action": True}}, "online"),
        ({"mode": "recorded", "options": {"automatic_doubles": 1}}, "online"),
        ({"mode": "recorded", "options": {"cube_max": 4}}, "online"),
        ({"mode": "online", "options": {"cube_max": 3}}, "maximum cube"),
        ({"mode": "online", "options": {"cube_max": 1}}, "maximum cube"),
        ({"mode": "online", "options": {"automatic_doubles": 7}}, "automatic_doubles"),
    ],
)
def test_h9_h11_options_that_cannot_be_are_a_400_and_open_nothing(api, members, body, why):
    response = api.as_user(members["alice"].user).post(
        "/api/chouettes/", {"players": ORDER, "stake": "5.00", **body}, format="json"
    )
    assert response.status_code == 400 and response.json()["error"] == "invalid"
    assert why in str(response.json()["detail"])
    assert not Chouette.objects.exists()


def test_h9_the_box_answering_two_equal_cubes_differently_is_refused(open_table):
    at = open_table(cube="multiple", same_action=True, jacoby=False)
    the_team_doubles(at, "bob", "carol", "dave")  # three cubes at 1, doubled together
    at.act("alice", "take", **box_answer(at, "bob"))
    error = refused(at, "alice", "pass", 400, "illegal_play", **box_answer(at, "carol"))
    assert "same value, same action (H9)" in error["detail"]
    assert error.get("reason") == "cube_not_available"
    # Taking the other cubes at the same value is what H9 leaves the box.
    at.act("alice", "take", **box_answer(at, "carol"))
    at.act("alice", "take", **box_answer(at, "dave"))
    cubes = at.game["cubes"]
    assert {name: (c["value"], c["owner"]) for name, c in cubes.items()} == {
        "bob": (2, "box"),
        "carol": (2, "box"),
        "dave": (2, "box"),
    }


def test_h9_the_box_taking_less_than_half_of_the_teams_doubles_is_refused(open_table):
    at = open_table(cube="multiple", same_action=True, jacoby=False)
    at.box_to_roll()
    at.act("alice", "double", to=["bob"])
    at.act("bob", "take", turn_no=at.game["cubes"]["bob"]["offered_at"])  # bob's cube at 2
    the_team_doubles(at, "bob", "carol", "dave")  # bob's to 4, carol's and dave's to 2
    at.act("alice", "take", **box_answer(at, "bob"))
    # Passing carol's 2 means passing dave's 2 too: one take of three is less than half.
    error = refused(at, "alice", "pass", 400, "illegal_play", **box_answer(at, "carol"))
    assert "at least half of the 3 doubles" in error["detail"]
    at.act("alice", "take", **box_answer(at, "carol"))
    at.act("alice", "take", **box_answer(at, "dave"))
    assert [c["value"] for c in at.game["cubes"].values()] == [4, 2, 2]


def test_h9_off_the_box_answers_each_cube_as_it_likes(open_table):
    at = open_table(cube="multiple", jacoby=False)
    the_team_doubles(at, "bob", "carol", "dave")
    at.act("alice", "take", **box_answer(at, "bob"))
    at.act("alice", "pass", **box_answer(at, "carol"))  # H8: each cube on its own
    at.act("alice", "pass", **box_answer(at, "dave"))
    assert [c["state"] for c in at.game["cubes"].values()] == ["live", "passed", "passed"]


def test_h11_c1_a_members_double_past_the_maximum_cube_is_refused(open_table):
    at = open_table(cube="multiple", cube_max=2)
    at.box_to_roll()
    at.act("alice", "double", to=["bob"])
    at.act("bob", "take", turn_no=at.game["cubes"]["bob"]["offered_at"])
    at.team_to_roll()
    error = refused(at, "bob", "double", 400, "illegal_play", turn_no=at.game["turn_no"])
    assert "maximum of 2" in error["detail"]
    at.act("carol", "double")  # carol's cube, at 1, may still turn
    assert at.game["cubes"]["carol"]["state"] == "offered"


def test_h11_o2_a_tied_opening_roll_doubles_every_members_cube(open_table, members):
    at = open_table(start=False, cube="multiple", automatic_doubles=1)
    seed = tied_seed(Chouette.objects.get(pk=at.pk).client_seed)
    Chouette.objects.filter(pk=at.pk).update(server_seed=seed, dice_commitment=commitment(seed))
    at.act("carol", "start")
    cubes = at.game["cubes"]
    assert {name: (c["value"], c["owner"], c["state"]) for name, c in cubes.items()} == {
        name: (2, None, "live") for name in ORDER[1:]
    }
    plain = open_table(start=False, cube="multiple")  # off: a tie doubles nothing
    seed = tied_seed(Chouette.objects.get(pk=plain.pk).client_seed)
    Chouette.objects.filter(pk=plain.pk).update(server_seed=seed, dice_commitment=commitment(seed))
    plain.act("carol", "start")
    assert {c["value"] for c in plain.game["cubes"].values()} == {1}


def tied_seed(client_seed: str) -> bytes:
    """A server seed whose first opening roll with ``client_seed`` is a tie."""
    for n in range(1000):
        seed = n.to_bytes(32, "big")
        if len(DiceStream(seed, client_seed).opening_roll()) > 1:
            return seed
    raise AssertionError("no seed found")
