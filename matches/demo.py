"""The demo club's matches (``manage.py load_demo`` calls ``load_demo``): one finished,
one being played, so the lobby, the board and the results have something to show."""

from django.core.management.base import OutputWrapper

from club import selectors as club_selectors
from matches import selectors, services
from matches.models import Match


def play_on(match: Match, *, actions: int = 5000) -> Match:
    """Play ``match`` on for at most ``actions`` actions, or to its end: each side rolls,
    plays the first legal play, takes every double and accepts every resignation."""
    players = {match.creator.username: match.creator}
    if match.opponent is not None:
        players[match.opponent.username] = match.opponent
    for _ in range(actions):
        game = selectors.match_detail(match)["game"]
        if match.status != Match.Status.PLAYING or game is None or game["turn"] is None:
            break
        player, turn_no = players[game["turn"]], game["turn_no"]
        act, play = {
            "roll": (services.Act.ROLL, ""),
            "move": (services.Act.MOVE, (game["legal_plays"] or [""])[0]),
            "take_or_pass": (services.Act.TAKE, ""),
            "resign_offered": (services.Act.ACCEPT_RESIGN, ""),
        }[game["phase"]]
        match = services.match_act(match=match, player=player, turn_no=turn_no, act=act, play=play)
    return match


def load_demo(*, out: OutputWrapper) -> None:
    """A match to 3 played to its end (alice and bob) and one to 5 in play (carol and
    dave), the first time only."""
    if Match.objects.exists():
        return
    player = {
        name: club_selectors.player_get(username=name) for name in ("alice", "bob", "carol", "dave")
    }
    finished = services.match_create(
        creator=player["alice"], opponent=player["bob"], options=services.MatchOptions(length=3)
    )
    play_on(services.match_accept(match=finished, player=player["bob"]))
    playing = services.match_create(
        creator=player["carol"],
        opponent=player["dave"],
        options=services.MatchOptions(length=5, rated=False),
    )
    play_on(services.match_accept(match=playing, player=player["dave"]), actions=12)
    out.write("Demo matches: one finished, one being played.")
