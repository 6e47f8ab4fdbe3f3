from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class MatchesConfig(AppConfig):
    name = "matches"
    verbose_name = _("Matches")

    def ready(self) -> None:
        from matches import live, services, table_engine  # the models are loaded by now

        live.register()
        table_engine.kind_register(services.MatchTurn)
