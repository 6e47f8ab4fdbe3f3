"""The one clock of play: every read of "now" by a game's turns and deadlines, a
chouette's or a tournament's (``matches``, ``chouette``, ``tournaments``), and a match
result's time (``club.services``: when it was played, never in the future) goes through
``now()``, read as ``clock.now()`` at call time. A test that freezes or advances time
patches this one name (``monkeypatch.setattr(web.clock, "now", ...)``) and every clock of
play moves together, never with a sleep. Model defaults (``default=timezone.now``), the
ledger's transaction times and the analyses' job times stay on Django's clock."""

from datetime import datetime

from django.utils import timezone


def now() -> datetime:
    """The time of play, aware (UTC)."""
    return timezone.now()
