from django.apps import AppConfig


class WebConfig(AppConfig):
    """Installed for its management command (``runclub``); it has no models."""

    name = "web"
