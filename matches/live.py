"""The matches app's topics on the live channel (``web.live``): ``table:<id>``, the
table's ``version``, and its state: the match body exactly as ``GET /api/matches/{id}/``
answers it, which is the same for every viewer (players and watchers alike), so a
follower redraws from the live answer without fetching the match. Any member may watch
any table (issue 8: watching a match).

``lobby:<player id>``: a member's lobby (/play/), its version the sum of the club's
part and the player's own (``LobbyVersion``), no state (the page fetches its list
again). Only that member may watch it: it moves with their invitations, which are
nobody else's business (issue 22)."""

from collections.abc import Collection

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser

from club.models import Player
from matches import selectors
from matches.models import Table
from web import clock, live

# A table's or a player's id in a topic: the digits of a BigAutoField, no more.
MAX_ID_DIGITS = 18


def _ids(keys: Collection[str]) -> set[int]:
    return {
        int(key) for key in keys if key.isascii() and key.isdigit() and len(key) <= MAX_ID_DIGITS
    }


def table_versions(keys: Collection[str]) -> dict[str, int]:
    """The version of each table named by ``keys`` that exists, in one query."""
    versions = live.versions_by_id(Table, _ids(keys))
    return {str(table_id): version for table_id, version in versions.items()}


def table_states(keys: Collection[str]) -> dict[str, tuple[int, selectors.MatchDetail]]:
    """The version and match body of each table named by ``keys`` that a match owns, in
    one query (a chouette's table has no match body: left out)."""
    now = clock.now()
    states = {}
    for match in selectors.match_queryset().filter(table_id__in=_ids(keys)):
        body = selectors.match_detail(match, now=now)
        states[str(match.table_id)] = (body["version"], body)
    return states


def lobby_versions(keys: Collection[str]) -> dict[str, int]:
    """The lobby version of each player named by ``keys`` that exists, in one query."""
    return {str(pk): version for pk, version in selectors.lobby_versions(_ids(keys)).items()}


def lobby_may_watch(key: str, user: AbstractBaseUser | AnonymousUser) -> bool:
    """A member watches their own lobby, nobody else's."""
    ids, user_id = _ids([key]), user.pk
    return (
        bool(ids)
        and user_id is not None
        and Player.objects.filter(pk__in=ids, user_id=user_id).exists()
    )


def lobby_topic(player: Player) -> str:
    """The topic ``player``'s lobby page follows."""
    return f"lobby:{player.pk}"


def register() -> None:
    live.topic_register(name="table", versions=table_versions, states=table_states)
    live.topic_register(name="lobby", versions=lobby_versions, may_watch=lobby_may_watch)
