"""Chouettes: seats, line, rotation, per-member cubes, settlement."""

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ChouetteConfig(AppConfig):
    name = "chouette"
    verbose_name = _("Chouettes")

    def ready(self) -> None:
        from chouette import selectors
        from club import live

        # The table page follows ``chouette:<id>``: every write moves the version on.
        live.topic_register(name="chouette", versions=selectors.chouette_versions)
