from typing import Any

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


def match_finished(sender: Any, match_id: int, **kwargs: Any) -> None:
    """A match has ended: if it is a tournament pairing's, the pairing takes its winner."""
    from tournaments import services

    services.pairing_result_from_match(match_id=match_id)


class TournamentsConfig(AppConfig):
    name = "tournaments"
    verbose_name = _("Tournaments")

    def ready(self) -> None:
        from matches.signals import match_finished as finished
        from tournaments import selectors
        from web import live

        # A tournament's page watches "tournament:<id>": its version moves with every
        # entry, draw, result and payout (docs/live.md). Public, as the page is: a
        # visitor who is not logged in follows it too; it carries a version, no state.
        live.topic_register(name="tournament", versions=selectors.tournament_versions, public=True)
        finished.connect(match_finished, dispatch_uid="tournaments.match_finished")
