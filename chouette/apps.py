"""Chouettes: seats, line, rotation, per-member cubes, settlement."""

from typing import TYPE_CHECKING

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _

if TYPE_CHECKING:  # the models cannot be imported before the apps are ready
    from django.contrib.auth.models import User


class ChouetteConfig(AppConfig):
    name = "chouette"
    verbose_name = _("Chouettes")

    def ready(self) -> None:
        from chouette import selectors
        from club import live

        # The table page follows ``chouette:<id>``: every write moves the version on.
        live.topic_register(name="chouette", versions=selectors.chouette_versions)

    def load_demo(self, *, recorded_by: "User") -> None:
        """``manage.py load_demo``'s hook: the demo club's chouette."""
        from chouette.demo import demo_load

        demo_load(recorded_by=recorded_by)
