from django.apps import AppConfig
from django.urls import register_converter


class WebConfig(AppConfig):
    """Installed for its management command (``runclub``); it has no models."""

    name = "web"

    def ready(self) -> None:
        from web.names import IdConverter, UsernameConverter

        # Every app's paths name rows by <id:...> and players by <username:...>: known
        # before any URLconf is read.
        register_converter(IdConverter, "id")
        register_converter(UsernameConverter, "username")
