"""The club in the admin: staff create and edit players here."""

from django import forms
from django.contrib import admin
from django.utils.translation import gettext_lazy as _

from club import services
from club.errors import ServiceError
from club.models import Player


class PlayerCreationForm(forms.ModelForm):
    """Adding a player creates their login too: username, password, display name."""

    username = forms.RegexField(label=_("Username"), regex=r"^[\w.@+-]{1,150}$")
    password = forms.CharField(label=_("Password"), widget=forms.PasswordInput, min_length=4)

    class Meta:
        model = Player
        fields = ["username", "password", "display_name"]

    def save(self, commit=True):
        try:
            return services.player_create(
                username=self.cleaned_data["username"],
                password=self.cleaned_data["password"],
                display_name=self.cleaned_data["display_name"],
            )
        except ServiceError as error:
            raise forms.ValidationError(str(error.message)) from error

    def save_m2m(self):
        """The service saved everything there is."""


@admin.register(Player)
class PlayerAdmin(admin.ModelAdmin):
    list_display = ["display_name", "user", "joined_at"]
    search_fields = ["display_name", "user__username"]
    readonly_fields = ["user", "joined_at"]

    def get_form(self, request, obj=None, change=False, **kwargs):
        if obj is None:
            kwargs["form"] = PlayerCreationForm
        return super().get_form(request, obj, change=change, **kwargs)

    def get_readonly_fields(self, request, obj=None):
        return self.readonly_fields if obj else []

    def get_fields(self, request, obj=None):
        return ["user", "display_name", "joined_at"] if obj else PlayerCreationForm.Meta.fields
