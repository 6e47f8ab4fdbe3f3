"""Fixtures shared by every Django test: players, staff and authenticated API clients."""

import importlib

import pytest
from django.apps import apps
from django.conf import settings
from django.core.cache import cache, caches
from rest_framework.test import APIClient

from tests.factories import PlayerFactory, UserFactory, token_for
from web import live


@pytest.fixture(autouse=True)
def cache_emptied():
    """Each test starts with an empty cache: the live channel's handed-over states are
    keyed by table id and version, which a rolled-back test database gives out again; so
    are the versions the live watcher read a moment ago. Nor does a test inherit the API
    writes another one counted (web/throttling.py): a fresh state, not switched off."""
    cache.clear()
    caches["throttle"].clear()
    live._WATCHER.forget()


@pytest.fixture
def robots(db):
    """The practice robots as their migration makes them: a test with
    ``transaction=True`` needs them made again, the flush after another such test having
    emptied the tables the migrations filled."""
    importlib.import_module("club.migrations.0007_player_robot").robots_create(apps, None)


@pytest.fixture
def worker(monkeypatch, django_capture_on_commit_callbacks):
    """The robot's engine worker, here: the requests it is sent are kept until the test
    has them answered (``tests.robot_worker.Worker.answer``)."""
    from matches import table_engine
    from tests.robot_worker import Worker

    found = Worker(django_capture_on_commit_callbacks)
    monkeypatch.setattr(table_engine, "robot_ask", found.asked.append)
    return found


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


def pytest_collection_modifyitems(config, items):
    """Tests of PostgreSQL's own guards (its triggers) are left out of a run on SQLite,
    which has no such triggers (the models refuse the same there, tested on both), and so
    are those of the production layout on PostgreSQL (its faults, several hosts:
    tests/integration/test_faults.py, test_scale_out.py): they are deselected and
    counted, not skipped; ``.ci/run``'s second run runs them. So are tests of SQLite's
    own behaviour (``sqlite``: its backup API's steps) on PostgreSQL."""
    on_postgresql = settings.DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql"
    other_engine = "sqlite" if on_postgresql else "postgresql"
    elsewhere = [item for item in items if item.get_closest_marker(other_engine)]
    if elsewhere:
        config.hook.pytest_deselected(items=elsewhere)
        items[:] = [item for item in items if not item.get_closest_marker(other_engine)]
