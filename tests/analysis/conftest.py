"""The matches' players, for the analysis' tests of matches played through the services;
a ``.mat`` file's text and upload, and the analyses sent to the worker."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from analysis import services
from analysis.engine import Engine
from analysis.selfplay import Player, human, play_match
from backgammon.matfile import export_mat
from tests.matches.conftest import alice, bob, carol

__all__ = ["alice", "bob", "carol"]


@pytest.fixture(scope="module")
def mat_text():
    """A 3-point match between "alice" and "bob" (three games, a double taken, one passed)."""
    record = play_match(Engine(0), (Player("alice", human), Player("bob", human)), 3, seed=4)
    return export_mat(record)


@pytest.fixture
def sent(monkeypatch):
    """The ids of the analyses sent to the worker (none is sent)."""
    ids = []
    monkeypatch.setattr(services, "_send", ids.append)
    return ids


def mat_file(text: str | bytes) -> SimpleUploadedFile:
    """``text`` as the ``.mat`` file a member uploads."""
    data = text.encode() if isinstance(text, str) else text
    return SimpleUploadedFile("match.mat", data, content_type="text/plain")
