"""Fixtures shared by every Django test: players, staff and authenticated API clients."""

import pytest
from rest_framework.test import APIClient

from tests.factories import PlayerFactory, UserFactory, token_for


@pytest.fixture
def make_player(db):
    """Create a player (a real user with a password) by username."""

    def make(username: str, *, staff: bool = False, **kwargs):
        user = UserFactory(username=username, is_staff=staff, is_superuser=staff)
        return PlayerFactory(user=user, **kwargs)

    return make


@pytest.fixture
def api(db):
    """An API client that can act as a given user through a real token."""

    class Client(APIClient):
        def as_user(self, user):
            self.credentials(HTTP_AUTHORIZATION=f"Token {token_for(user)}")
            return self

    return Client()


@pytest.fixture
def staff(make_player):
    return make_player("director", staff=True)


@pytest.fixture
def staff_api(api, staff):
    return api.as_user(staff.user)
