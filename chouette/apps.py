"""Chouettes: seats, line, rotation, per-member cubes, settlement."""

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ChouetteConfig(AppConfig):
    name = "chouette"
    verbose_name = _("Chouettes")

    def ready(self) -> None:
        from chouette import live

        # The table page and the members' boards follow ``chouette:<id>``: every write
        # moves the version on, and the answer carries the session's body.
        live.register()
