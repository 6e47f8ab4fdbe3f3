"""Playing matches through the HTTP API, as a client does: real users, real tokens."""

from typing import Any

from rest_framework.test import APIClient

from tests.factories import token_for


def client_for(user) -> APIClient:
    """An API client sending ``user``'s token (``Authorization: Token ...``)."""
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token_for(user)}")
    return client


def path(match_id: int, action: str = "") -> str:
    """``/api/matches/{id}/``, ``.../{action}/``; the export is a file: ``.../export.mat``."""
    if action == "export.mat":
        return f"/api/matches/{match_id}/export.mat"
    return f"/api/matches/{match_id}/" + (f"{action}/" if action else "")


def act(client: APIClient, match: dict[str, Any], action: str, **body: Any):
    """POST an action with the ``turn_no`` of ``match`` (the client's last view)."""
    body.setdefault("turn_no", match["game"]["turn_no"])
    return client.post(path(match["id"], action), body, format="json")


def ok(response, status: int = 200) -> dict[str, Any]:
    assert response.status_code == status, (response.status_code, response.content[:500])
    return response.json()


def step(clients: dict[str, APIClient], match: dict[str, Any], *, double: bool) -> Any:
    """Whoever must act does the simplest thing: answer a double with a pass (or a take,
    when ``double`` is off), double when allowed and ``double`` is on, else roll, and
    play the first legal play. Returns the response."""
    game = match["game"]
    client = clients[game["turn"]]
    if game["phase"] == "take_or_pass":
        return act(client, match, "pass")
    if game["phase"] == "roll":
        if double and game["can_double"]:
            return act(client, match, "double")
        return act(client, match, "roll")
    if game["phase"] == "move":
        plays = game["legal_plays"]
        return act(client, match, "move", play=plays[0] if plays else "")
    raise AssertionError(f"nothing to do in phase {game['phase']}")


def start_match(creator, opponent, **options: Any) -> tuple[dict[str, APIClient], dict[str, Any]]:
    """``creator`` invites ``opponent``, who accepts: the clients by username and the match."""
    clients = {
        creator.username: client_for(creator.user),
        opponent.username: client_for(opponent.user),
    }
    body = {"opponent": opponent.username, "length": 3, **options}
    created = ok(clients[creator.username].post("/api/matches/", body, format="json"), 201)
    match = ok(clients[opponent.username].post(path(created["id"], "accept"), {}, format="json"))
    return clients, match
