"""An online chouette driven through the HTTP API with each player's own token, for the
tests of the session's options and of resignations."""

from typing import Any

from chouette.models import Chouette
from matches.models import Action, Table


class OnlineTable:
    """One online session opened by its box through ``POST /api/chouettes/``: ``act``
    sends an action with the player's token and the current ``turn_no`` (unless given)
    and keeps the answer; ``post`` sends one and returns the response as it is."""

    def __init__(self, api: Any, members: dict[str, Any], order: list[str], **options: Any):
        self.api, self.members, self.box = api, members, order[0]
        opened = self.client(self.box).post(
            "/api/chouettes/",
            {"players": order, "order": order, "stake": "5.00", "mode": "online",
             "options": options},
            format="json",
        )  # fmt: skip
        assert opened.status_code == 201, opened.json()
        self.pk, self.body = opened.json()["id"], opened.json()

    def client(self, name: str) -> Any:
        return self.api.as_user(self.members[name].user)

    def post(self, name: str, action: str, **body: Any) -> Any:
        return self.client(name).post(f"/api/chouettes/{self.pk}/{action}/", body, format="json")

    def act(self, name: str, action: str, **body: Any) -> dict[str, Any]:
        if action != "start":
            body.setdefault("turn_no", self.game["turn_no"])
        response = self.post(name, action, **body)
        assert response.status_code == 200, response.json()
        self.body = response.json()
        return self.body

    def get(self, name: str, path: str = "") -> Any:
        return self.client(name).get(f"/api/chouettes/{self.pk}/{path}")

    @property
    def game(self) -> dict[str, Any]:
        return self.body["game"]

    def play(self, *, until: Any, box_rolls: bool = True) -> dict[str, Any]:
        """Roll and play the first legal play for whoever is on roll until ``until(game)``;
        stop at the box's roll too unless ``box_rolls``."""
        for _step in range(1000):
            game = self.game
            if until(game):
                return game
            mover = game["awaiting"][0]
            if game["phase"] == "roll":
                if mover == self.box and not box_rolls:
                    return game
                self.act(mover, "roll")
            else:
                plays = game["legal_plays"]
                self.act(mover, "move", play=plays[0] if plays else "")
        raise AssertionError("the game did not get there")

    def box_to_roll(self) -> dict[str, Any]:
        return self.play(until=lambda g: g["awaiting"] == [self.box] and g["phase"] == "roll",
                         box_rolls=False)  # fmt: skip

    def team_to_roll(self) -> dict[str, Any]:
        return self.play(
            until=lambda g: g["phase"] == "roll" and g["awaiting"] not in ([], [self.box])
        )

    def snapshot(self) -> tuple[int, int, int, Any]:
        """What a refused request must leave as it was: the log, the session's version,
        the table's version and the game."""
        table = Table.objects.get(chouette__pk=self.pk)
        return (
            Action.objects.filter(table=table).count(),
            Chouette.objects.get(pk=self.pk).version,
            table.version,
            table.state,
        )
