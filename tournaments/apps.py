from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class TournamentsConfig(AppConfig):
    name = "tournaments"
    verbose_name = _("Tournaments")

    def ready(self) -> None:
        from club import live
        from tournaments import selectors

        # A tournament's page watches "tournament:<id>": its version moves with every
        # entry, draw, result and payout (docs/live.md).
        live.topic_register(name="tournament", versions=selectors.tournament_versions)
