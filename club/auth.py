"""Who is asking: a request's user is a member (a ``User``) or anonymous."""

import hashlib
import logging
from collections.abc import Iterable
from typing import Any, TypeAlias

from django.conf import settings
from django.contrib.auth.models import AnonymousUser, User
from django.core.cache import cache
from django.core.exceptions import PermissionDenied
from django.db import transaction
from rest_framework import authentication
from rest_framework.authtoken.models import Token

Viewer: TypeAlias = User | AnonymousUser

log = logging.getLogger("club.auth")


def member(viewer: Viewer) -> User:
    """The logged-in user of a request that only members get through (its view's
    permissions or decorators let in no one else)."""
    if not isinstance(viewer, User):
        raise PermissionDenied
    return viewer


def _cache_key(key: str) -> str:
    """The cache's key for a token: its hash, so no raw token is ever a cache key (a
    cache's keys are listed in its tools and logs)."""
    return "auth:token:" + hashlib.sha256(key.encode()).hexdigest()


def _cached(key: str) -> Token | None:
    """The token (with its user and player) a request stored, if it is still there. Each
    read unpickles a fresh copy, so no two requests share one user object. A cache that
    fails is logged and read past: the database answers instead."""
    try:
        token = cache.get(_cache_key(key))
    except Exception:
        log.warning("auth: reading a token from the cache failed", exc_info=True)
        return None
    return token if isinstance(token, Token) and token.key == key else None


def _store(token: Token) -> None:
    try:
        cache.set(_cache_key(token.key), token, settings.TOKEN_CACHE_SECONDS)
    except Exception:
        log.warning("auth: storing a token in the cache failed", exc_info=True)


def tokens_forget(keys: Iterable[str]) -> None:
    """Drop these tokens' cached users at once, and again when the transaction that
    changed them commits: a request that read the old rows in between (before the
    commit) may have stored them again."""
    cache_keys = [_cache_key(key) for key in keys]
    if not cache_keys:
        return

    def forget() -> None:
        try:
            cache.delete_many(cache_keys)
        except Exception:
            # Not raised: the change is the database's; the entries expire on their own
            # (TOKEN_CACHE_SECONDS). Logged as an error: until then they may be stale.
            log.error("auth: dropping %d cached tokens failed", len(cache_keys), exc_info=True)

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


def player_changed(sender: Any, instance: Any, **kwargs: Any) -> None:
    """A player saved or deleted: the cached user carries it (a new one too: the user
    was cached without one)."""
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
        token = _cached(key) if caching else None
        if token is not None:
            return token.user, token
        try:
            token = Token.objects.select_related("user__player").get(key=key)
        except Token.DoesNotExist:
            token = None
        if token is None or not token.user.is_active:
            return super().authenticate_credentials(key)  # DRF's refusal, in its words
        if caching:
            _store(token)
        return token.user, token
