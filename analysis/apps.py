from typing import Any

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


def match_finished(sender: Any, match_id: int, **kwargs: Any) -> None:
    """A match has ended: its analysis is queued (docs/analysis.md)."""
    from analysis import services

    services.analysis_queue(match_id=match_id)


class AnalysisConfig(AppConfig):
    name = "analysis"
    verbose_name = _("Analysis")

    def ready(self) -> None:
        from matches.signals import match_finished as finished

        finished.connect(match_finished, dispatch_uid="analysis.match_finished")
