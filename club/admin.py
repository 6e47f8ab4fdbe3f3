"""The club in the admin: players, match results, payments and the (read-only) ledger.

Every write goes through a service: adding a player, recording a result (which updates
ratings), recording a payment, reversing a transaction. The ledger itself cannot be added
to, changed or deleted here.
"""

from django import forms
from django.contrib import admin, messages
from django.db.models import Q, Sum
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from club import selectors, services
from club.errors import ServiceError
from club.models import (
    CLUB,
    Account,
    Leg,
    MatchResult,
    Payment,
    Player,
    RatingChange,
    Transaction,
)


class AppendOnly:
    """Rows are added (through a service), never changed or deleted in the admin."""

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def get_actions(self, request):
        actions = super().get_actions(request)
        actions.pop("delete_selected", None)
        return actions


class ReadOnly(AppendOnly):
    """Rows are looked at, never added to, changed or deleted in the admin."""

    def has_add_permission(self, request, obj=None):
        return False


class ReadOnlyAdmin(ReadOnly, admin.ModelAdmin):
    """The ledger can be looked at, never added to, changed or deleted in the admin."""


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
    list_display = ["display_name", "user", "rating_shown", "experience", "joined_at"]
    search_fields = ["display_name", "user__username"]
    readonly_fields = ["user", "rating_shown", "experience", "joined_at"]

    @admin.display(description=_("rating"), ordering="rating")
    def rating_shown(self, obj):
        return f"{obj.rating:.1f}"

    def get_form(self, request, obj=None, change=False, **kwargs):
        if obj is None:
            kwargs["form"] = PlayerCreationForm
        return super().get_form(request, obj, change=change, **kwargs)

    def get_readonly_fields(self, request, obj=None):
        return self.readonly_fields if obj else []

    def get_fields(self, request, obj=None):
        if obj:
            return ["user", "display_name", "rating_shown", "experience", "joined_at"]
        return PlayerCreationForm.Meta.fields

    def save_model(self, request, obj, form, change):
        if change:
            # Only the name is edited here; ratings belong to the rating services.
            obj.save(update_fields=["display_name"])
        else:
            super().save_model(request, obj, form, change)


# Results ------------------------------------------------------------------------------


class MatchResultForm(forms.ModelForm):
    """A result of a match played on a real board, checked as the service checks it."""

    class Meta:
        model = MatchResult
        fields = ["winner", "loser", "length", "rated", "ended_by", "played_at"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["length"].min_value = 1

    def clean(self):
        data = super().clean()
        if not self.errors:
            try:
                services.match_result_check(
                    winner=data["winner"],
                    loser=data["loser"],
                    length=data["length"],
                    rated=data["rated"],
                    ended_by=data["ended_by"],
                )
            except ServiceError as error:
                raise forms.ValidationError(str(error.message)) from error
        return data


@admin.register(MatchResult)
class MatchResultAdmin(AppendOnly, admin.ModelAdmin):
    list_display = ["played_at", "winner", "loser", "length", "rated", "ended_by", "recorded_by"]
    list_filter = ["rated", "ended_by"]
    search_fields = ["winner__display_name", "loser__display_name"]
    date_hierarchy = "played_at"
    form = MatchResultForm
    actions = ["delete_and_rebuild"]

    def save_form(self, request, form, change):
        """Record through the service, so both players' ratings change at once."""
        data = form.cleaned_data
        return services.match_result_record(
            winner=data["winner"],
            loser=data["loser"],
            length=data["length"],
            rated=data["rated"],
            ended_by=data["ended_by"],
            played_at=data.get("played_at"),
            recorded_by=request.user,
        )

    def save_model(self, request, obj, form, change):
        """``save_form`` recorded it."""

    def save_related(self, request, form, formsets, change):
        """Nothing related to save."""

    @admin.action(description=_("Remove the selected results and rebuild every rating"))
    def delete_and_rebuild(self, request, queryset):
        count = 0
        for result in queryset:
            services.match_result_delete(result=result, deleted_by=request.user)
            count += 1
        self.message_user(
            request,
            ngettext(
                "%(count)d result removed; ratings rebuilt.",
                "%(count)d results removed; ratings rebuilt.",
                count,
            )
            % {"count": count},
        )


@admin.register(RatingChange)
class RatingChangeAdmin(ReadOnlyAdmin):
    """The rating history, derived from the results: looked at, never edited."""

    list_display = ["result", "player", "rating_before", "change", "rating_after", "k"]
    search_fields = ["player__display_name", "player__user__username"]
    list_select_related = ["result__winner", "result__loser", "player"]


# The ledger ---------------------------------------------------------------------------


class LegInline(ReadOnly, admin.TabularInline):
    model = Leg
    fields = ["account", "amount"]
    readonly_fields = ["account", "amount"]
    extra = 0
    can_delete = False


@admin.register(Transaction)
class TransactionAdmin(ReadOnlyAdmin):
    list_display = ["id", "at", "kind", "memo", "total_moved", "posted_by", "reverses"]
    list_filter = ["kind"]
    search_fields = ["memo"]
    date_hierarchy = "at"
    inlines = [LegInline]
    fields = [
        "at",
        "recorded_at",
        "kind",
        "memo",
        "posted_by",
        "source_type",
        "source_id",
        "reverses",
        "reversed_by_link",
    ]
    readonly_fields = fields
    actions = ["reverse_selected"]

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .annotate(moved=Sum("legs__amount", filter=Q(legs__amount__gt=0)))
        )

    @admin.display(description=_("amount moved"))
    def total_moved(self, obj):
        return obj.moved

    @admin.display(description=_("reversed by"))
    def reversed_by_link(self, obj):
        reversal = Transaction.objects.filter(reverses=obj).first()
        return str(reversal) if reversal else "-"

    @admin.action(description=_("Reverse the selected transactions"))
    def reverse_selected(self, request, queryset):
        done = 0
        for posted in queryset.order_by("id"):
            try:
                services.ledger_reverse(transaction=posted, posted_by=request.user)
            except ServiceError as error:
                self.message_user(request, f"#{posted.pk}: {error.message}", messages.ERROR)
            else:
                done += 1
        if done:
            self.message_user(
                request,
                ngettext(
                    "%(count)d transaction reversed.", "%(count)d transactions reversed.", done
                )
                % {"count": done},
                messages.SUCCESS,
            )


@admin.register(Account)
class AccountAdmin(ReadOnlyAdmin):
    list_display = ["__str__", "kind", "balance_shown", "created_at"]
    list_filter = ["kind"]
    search_fields = ["player__display_name", "player__user__username"]
    fields = ["kind", "player", "created_at", "balance_shown"]
    readonly_fields = fields

    @admin.display(description=_("balance"))
    def balance_shown(self, obj):
        return selectors.account_balance(account=obj)


# Payments -----------------------------------------------------------------------------


class PartyChoiceField(forms.ModelChoiceField):
    """A player, or the club's cash (the empty choice reads "The club")."""

    def __init__(self, **kwargs):
        super().__init__(
            queryset=Player.objects.select_related("user").order_by("display_name"),
            required=False,
            empty_label=_("The club (cash)"),
            **kwargs,
        )

    def clean(self, value):
        player = super().clean(value)
        return player if player is not None else CLUB


class PaymentForm(forms.ModelForm):
    """Cash changing hands: the payer's balance rises, the payee's falls."""

    payer = PartyChoiceField(
        label=_("Payer"), help_text=_("Pays the cash; their balance rises by the amount.")
    )
    payee = PartyChoiceField(
        label=_("Payee"), help_text=_("Receives the cash; their balance falls by the amount.")
    )
    amount = forms.DecimalField(label=_("Amount"), max_digits=14, decimal_places=2)
    memo = forms.CharField(label=_("Memo"), max_length=200, required=False)

    class Meta:
        model = Payment
        fields = []

    def clean(self):
        data = super().clean()
        if not self.errors:
            try:
                data["amount"] = services.payment_check(
                    payer=data["payer"], payee=data["payee"], amount=data["amount"]
                )
            except ServiceError as error:
                raise forms.ValidationError(str(error.message)) from error
        return data


@admin.register(Payment)
class PaymentAdmin(AppendOnly, admin.ModelAdmin):
    """Record a payment (through ``payment_record``) and list the payments made."""

    form = PaymentForm
    list_display = ["id", "at", "memo", "total_moved", "posted_by"]
    date_hierarchy = "at"
    search_fields = ["memo"]
    inlines = [LegInline]

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .annotate(moved=Sum("legs__amount", filter=Q(legs__amount__gt=0)))
        )

    @admin.display(description=_("amount"))
    def total_moved(self, obj):
        return obj.moved

    def get_inlines(self, request, obj):
        return [LegInline] if obj else []

    def get_fields(self, request, obj=None):
        if obj:
            return ["at", "memo", "posted_by"]
        return ["payer", "payee", "amount", "memo"]

    def get_readonly_fields(self, request, obj=None):
        return ["at", "memo", "posted_by"] if obj else []

    def save_form(self, request, form, change):
        data = form.cleaned_data
        posted = services.payment_record(
            payer=data["payer"],
            payee=data["payee"],
            amount=data["amount"],
            memo=data["memo"],
            posted_by=request.user,
        )
        return Payment.objects.get(pk=posted.pk)

    def save_model(self, request, obj, form, change):
        """``save_form`` posted it."""

    def save_related(self, request, form, formsets, change):
        """Nothing related to save."""
