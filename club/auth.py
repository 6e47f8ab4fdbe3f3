"""Who is asking: a request's user is a member (a ``User``) or anonymous."""

from typing import TypeAlias

from django.contrib.auth.models import AnonymousUser, User
from django.core.exceptions import PermissionDenied
from rest_framework import authentication
from rest_framework.authtoken.models import Token

Viewer: TypeAlias = User | AnonymousUser


def member(viewer: Viewer) -> User:
    """The logged-in user of a request that only members get through (its view's
    permissions or decorators let in no one else)."""
    if not isinstance(viewer, User):
        raise PermissionDenied
    return viewer


class TokenAuthentication(authentication.TokenAuthentication):
    """DRF's token authentication, with the user's club player read in the same query:
    every board action needs the player, and a query saved on each is a share of the
    action's time (bench/README.md, "Where an action's time goes"). Read with ``get``,
    not ``first``: ``first`` orders by the key, and compiling that ordering over the
    three rows' columns cost more than the query's execution."""

    def authenticate_credentials(self, key: str) -> tuple[User, Token]:
        try:
            token = Token.objects.select_related("user__player").get(key=key)
        except Token.DoesNotExist:
            token = None
        if token is None or not token.user.is_active:
            return super().authenticate_credentials(key)  # DRF's refusal, in its words
        return token.user, token
