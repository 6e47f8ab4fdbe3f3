from typing import Any

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


def match_finished(sender: Any, match_id: int, **kwargs: Any) -> None:
    """A match has ended: its analysis is queued (docs/analysis.md)."""
    from analysis import services

    services.analysis_queue(match_id=match_id)


def table_game_finished(
    sender: Any, table_id: int, game_number: int, seats: list[str], **kwargs: Any
) -> None:
    """An online chouette's game has ended: its analysis is queued (docs/analysis.md)."""
    from analysis import services

    services.chouette_game_queue(table_id=table_id, game_number=game_number, seats=seats)


class AnalysisConfig(AppConfig):
    name = "analysis"
    verbose_name = _("Analysis")

    def ready(self) -> None:
        from analysis import live
        from matches import signals

        live.register()

        signals.match_finished.connect(match_finished, dispatch_uid="analysis.match_finished")
        signals.table_game_finished.connect(
            table_game_finished, dispatch_uid="analysis.table_game_finished"
        )
