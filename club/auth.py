"""Who is asking: a request's user is a member (a ``User``) or anonymous."""

import hashlib
import logging
import uuid
from collections.abc import Iterable
from typing import Any, TypeAlias

from django.conf import settings
from django.contrib.auth.models import AnonymousUser, User
from django.core.cache import cache
from django.core.exceptions import PermissionDenied
from django.db import transaction
from rest_framework import authentication
from rest_framework.authtoken.models import Token

from club.models import Player

Viewer: TypeAlias = User | AnonymousUser

log = logging.getLogger("club.auth")


def member(viewer: Viewer) -> User:
    """The logged-in user of a request that only members get through (its view's
    permissions or decorators let in no one else)."""
    if not isinstance(viewer, User):
        raise PermissionDenied
    return viewer


def _cache_keys(key: str) -> tuple[str, str]:
    """The cache's keys for a token: its entry's and its stamp's (a new one with each
    change of the token, its user or their player). Keyed by the token's hash, so no
    raw token is ever a cache key (a cache's keys are listed in its tools and logs)."""
    digest = hashlib.sha256(key.encode()).hexdigest()
    return f"auth:token:{digest}", f"auth:token-stamp:{digest}"


_UNREAD = object()  # the stamp when the cache could not be read: nothing is stored then


def _cached(key: str) -> tuple[Token | None, object]:
    """The token (with its user and player) a request stored, if it is still there and
    was read after the last change (its stamp is the current one); and the current stamp,
    which the request stores with what it reads from the database. Each read unpickles a
    fresh copy, so no two requests share one user object. A cache that fails is logged
    and read past: the database answers instead."""
    entry_key, stamp_key = _cache_keys(key)
    try:
        found = cache.get_many([entry_key, stamp_key])
    except Exception:
        log.warning("auth: reading a token from the cache failed", exc_info=True)
        return None, _UNREAD
    stamp = found.get(stamp_key)
    match found.get(entry_key):
        case (stored_stamp, Token() as token) if stored_stamp == stamp and token.key == key:
            return token, stamp
    return None, stamp


def _store(token: Token, stamp: object) -> None:
    """Keep the token read with the stamp read before it: if a change came in between,
    the stamp has moved on and the entry is never used."""
    if stamp is _UNREAD:
        return
    try:
        cache.set(_cache_keys(token.key)[0], (stamp, token), settings.TOKEN_CACHE_SECONDS)
    except Exception:
        log.warning("auth: storing a token in the cache failed", exc_info=True)


def tokens_forget(keys: Iterable[str]) -> None:
    """Give these tokens a new stamp and drop their cached users, at once and again when
    the transaction that changed them commits. A request that read the old rows before
    the commit and stores them after it stores them with an old stamp: never used."""
    pairs = [_cache_keys(key) for key in keys]
    if not pairs:
        return

    def forget() -> None:
        stamp = uuid.uuid4().hex
        try:
            # The stamp outlives every entry stored with the one before it.
            cache.set_many(
                {stamp_key: stamp for _entry, stamp_key in pairs},
                2 * settings.TOKEN_CACHE_SECONDS,
            )
            cache.delete_many([entry_key for entry_key, _stamp in pairs])
        except Exception:
            # Not raised: the change is the database's; the entries expire on their own
            # (TOKEN_CACHE_SECONDS). Logged as an error: until then they may be stale.
            log.error("auth: dropping %d cached tokens failed", len(pairs), exc_info=True)

    forget()
    if transaction.get_connection().in_atomic_block:
        transaction.on_commit(forget, robust=True)


def users_forget(user_ids: Iterable[int]) -> None:
    """Drop the cached tokens of these users (the user or their player changed)."""
    ids = list(user_ids)
    if ids:
        tokens_forget(Token.objects.filter(user_id__in=ids).values_list("key", flat=True))


def token_changed(sender: Any, instance: Token, created: bool = False, **kwargs: Any) -> None:
    """A token saved or deleted (logout, a new token): its cached user goes. A token just
    created has nothing cached."""
    if not created:
        tokens_forget([instance.key])


def user_changed(sender: Any, instance: User, created: bool = False, **kwargs: Any) -> None:
    """A user saved (active, staff, username; a login's ``last_login`` too) or deleted. A
    user just created has no token yet."""
    if not created:
        users_forget([instance.pk])


def player_changed(
    sender: Any, instance: Player, update_fields: frozenset[str] | None = None, **kwargs: Any
) -> None:
    """A player saved or deleted: the cached user carries it (a new one too: the user
    was cached without one). Not for a save of its ratings alone, which the cache leaves
    out: each match's end saves both players' ratings, and a timeout would otherwise
    drop two entries (a query and the cache's round trips) for nothing."""
    if update_fields is not None and update_fields <= set(Player.RATING_FIELDS):
        return
    users_forget([instance.user_id])


class TokenAuthentication(authentication.TokenAuthentication):
    """DRF's token authentication, with the user's club player read in the same query:
    every board action needs the player, and a query saved on each is a share of the
    action's time (bench/README.md, "Where an action's time goes"). Read with ``get``,
    not ``first``: ``first`` orders by the key, and compiling that ordering over the
    three rows' columns cost more than the query's execution.

    The token found (with its user and player) is kept in Django's cache for
    ``TOKEN_CACHE_SECONDS``, keyed by the token's hash: the next request with it, an
    action or a live poll, reads no database at all. Every change of the token, its
    user or their player drops it at once (the receivers above, connected in
    ``club.apps``); a refused token (unknown, or its user inactive) is never cached."""

    def authenticate_credentials(self, key: str) -> tuple[User, Token]:
        caching = settings.TOKEN_CACHE_SECONDS > 0
        token, stamp = _cached(key) if caching else (None, _UNREAD)
        if token is not None:
            return token.user, token
        try:
            # Left in the database: the password's hash (nothing a token request does
            # needs it) and the player's ratings (read fresh when asked for, so a match's
            # end, which changes them, need not drop the entry). A user or player read
            # without some fields saves only those it has.
            token = (
                Token.objects.select_related("user__player")
                .defer("user__password", *(f"user__player__{f}" for f in Player.RATING_FIELDS))
                .get(key=key)
            )
        except Token.DoesNotExist:
            token = None
        if token is None or not token.user.is_active:
            return super().authenticate_credentials(key)  # DRF's refusal, in its words
        _store(token, stamp)
        return token.user, token
