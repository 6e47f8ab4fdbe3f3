"""The matches' players, for the analysis' tests of matches played through the services;
a ``.mat`` file's text and upload, and the analyses sent to the worker."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from analysis import services
from analysis.engine import Engine
from analysis.jobs import Job
from analysis.selfplay import Player, human, play_match
from backgammon.matfile import export_mat
from tests.matches.conftest import alice, bob, carol

__all__ = ["alice", "bob", "carol"]


@pytest.fixture(scope="module")
def mat_text():
    """A 3-point match between "alice" and "bob" (three games, a double taken, one passed)."""
    record = play_match(Engine(0), (Player("alice", human), Player("bob", human)), 3, seed=4)
    return export_mat(record)


class Sent(list[int]):
    """The ids of the analyses sent to a worker, in order: queued for the Django
    worker's start, or, an upload's, started and sent to the engine worker (its job in
    ``jobs``)."""

    def __init__(self) -> None:
        super().__init__()
        self.jobs: dict[int, Job] = {}

    def job(self, job: Job) -> None:
        self.append(job["analysis_id"])
        self.jobs[job["analysis_id"]] = job


@pytest.fixture
def sent(monkeypatch):
    """What the services send to the workers (nothing is sent)."""
    found = Sent()
    monkeypatch.setattr(services, "_send", found.append)
    monkeypatch.setattr(services, "judge_send", found.job)
    return found


def mat_file(text: str | bytes) -> SimpleUploadedFile:
    """``text`` as the ``.mat`` file a member uploads."""
    data = text.encode() if isinstance(text, str) else text
    return SimpleUploadedFile("match.mat", data, content_type="text/plain")
