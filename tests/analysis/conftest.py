"""The matches' players, for the analysis' tests of matches played through the services."""

from tests.matches.conftest import alice, bob, carol

__all__ = ["alice", "bob", "carol"]
