"""Who is asking: a request's user is a member (a ``User``) or anonymous."""

from typing import TypeAlias

from django.contrib.auth.models import AnonymousUser, User
from django.core.exceptions import PermissionDenied

Viewer: TypeAlias = User | AnonymousUser


def member(viewer: Viewer) -> User:
    """The logged-in user of a request that only members get through (its view's
    permissions or decorators let in no one else)."""
    if not isinstance(viewer, User):
        raise PermissionDenied
    return viewer
