"""Chouettes: seats, line, rotation, per-member cubes, settlement."""

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ChouetteConfig(AppConfig):
    name = "chouette"
    verbose_name = _("Chouettes")

    def ready(self) -> None:
        from chouette import live, online
        from matches import table_engine

        # The table page and the members' boards follow ``chouette:<id>``: every write
        # moves the version on, and the answer carries the session's body.
        live.register()
        table_engine.kind_register(online.ChouetteTurn)
