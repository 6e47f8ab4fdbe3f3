"""Matches played through the services, with a clock the tests move by hand."""

from datetime import datetime, timedelta

import pytest
from django.utils import timezone

from matches import selectors, services
from matches.demo import play_on
from web import clock as web_clock


class Clock:
    """``web.clock.now`` for a test: fixed until ``advance`` moves it."""

    def __init__(self) -> None:
        self.now: datetime = timezone.now()

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


@pytest.fixture
def clock(monkeypatch):
    fixed = Clock()
    monkeypatch.setattr(web_clock, "now", fixed)
    return fixed


@pytest.fixture
def logged_in(client):
    """Log the test client in as a player: ``logged_in(alice).get(...)``."""

    def as_player(player):
        client.force_login(player.user)
        return client

    return as_player


@pytest.fixture
def alice(make_player):
    return make_player("alice")


@pytest.fixture
def bob(make_player):
    return make_player("bob")


@pytest.fixture
def carol(make_player):
    return make_player("carol")


def start(creator, opponent, **kwargs):
    """A match created by ``creator`` and accepted by ``opponent``."""
    kwargs.setdefault("length", 3)
    kwargs["game_options"] = kwargs.pop("options", None)
    options = services.MatchOptions(**kwargs)
    match = services.match_create(creator=creator, opponent=opponent, options=options)
    return services.match_accept(match=match, player=opponent)


def game_of(match):
    return selectors.match_detail(match)["game"]


def on_turn(match, *players):
    """The one of ``players`` who must act now."""
    name = game_of(match)["turn"]
    return next(player for player in players if player.username == name)


def act(match, player, what, **kwargs):
    """``player`` does ``what`` at the turn the match is at."""
    turn_no = game_of(match)["turn_no"]
    return services.match_act(match=match, player=player, turn_no=turn_no, act=what, **kwargs)


def play_turn(match, first, second, choose=lambda plays: plays[0]):
    """Whoever is on turn rolls if need be and plays ``choose(legal_plays)``."""
    player = on_turn(match, first, second)
    if game_of(match)["phase"] == "roll":
        match = act(match, player, "roll")
    game = game_of(match)
    if game and game["phase"] == "move" and game["turn"] == player.username:
        match = act(match, player, "move", play=choose(game["legal_plays"]))
    return match


def play_out(match, first, second):
    """Play the match to its end, each side taking the first legal play and every double."""
    match = play_on(match)
    assert match.status != "playing" or game_of(match)["phase"] == "over", "the match did not end"
    return match
