"""The club in the admin: players, match results, payments and the (read-only) ledger.

Every write goes through a service: adding a player, recording a result (which updates
ratings), recording a payment, reversing a transaction. The ledger itself cannot be added
to, changed or deleted here.
"""

from collections.abc import Callable, Iterable
from datetime import datetime
from decimal import Decimal
from typing import Any, TypedDict

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.options import InlineModelAdmin
from django.db.models import Model, QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from club import money, selectors, services
from club.auth import member
from club.models import (
    Account,
    Leg,
    MatchResult,
    Payment,
    Player,
    RatingChange,
    Transaction,
)
from club.parties import CLUB, Party
from web.errors import ServiceError


class AppendOnly(admin.options.BaseModelAdmin[Any]):
    """Rows are added (through a service), never changed or deleted in the admin (so
    the admin offers no delete action either)."""

    def has_change_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False


class ReadOnly(AppendOnly):
    """Rows are looked at, never added to, changed or deleted in the admin."""

    def has_add_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False


def act_on_each(
    model_admin: admin.ModelAdmin[Any],
    request: HttpRequest,
    rows: Iterable[Any],
    act: Callable[[Any], object],
    done_message: Callable[[int], str],
) -> None:
    """An admin action that calls a service on each selected row: each refusal is an
    error message naming its row, and one message says how many were done."""
    done = 0
    for row in rows:
        try:
            act(row)
        except ServiceError as error:
            model_admin.message_user(request, f"#{row.pk}: {error.message}", messages.ERROR)
        else:
            done += 1
    if done:
        model_admin.message_user(request, done_message(done), messages.SUCCESS)


class SavedByService(admin.ModelAdmin[Any]):
    """The admin's ``save_form`` records the row through its service, which saves
    everything there is: nothing is left to save after it."""

    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        """``save_form`` saved it."""

    def save_related(self, request: HttpRequest, form: Any, formsets: Any, change: bool) -> None:
        """Nothing related to save."""


class AmountMovedColumn(admin.ModelAdmin[Transaction]):
    """A list of transactions with what each one moved (the sum of its positive legs),
    and their memos in the reader's language."""

    def get_queryset(self, request: HttpRequest) -> QuerySet[Transaction]:
        return selectors.transactions_with_amount_moved(transactions=super().get_queryset(request))

    @admin.display(description=_("amount moved"))
    def total_moved(self, obj: Transaction) -> Any:
        return getattr(obj, "moved", None)

    @admin.display(description=_("memo"), ordering="memo")
    def memo_shown(self, obj: Transaction) -> str:
        return obj.memo_translated


class PlayerCreationForm(forms.ModelForm[Player]):
    """Adding a player creates their login too: username, password, display name."""

    username = forms.CharField(label=_("Username"), max_length=150, strip=False)
    password = forms.CharField(label=_("Password"), widget=forms.PasswordInput, min_length=4)

    class Meta:
        model = Player
        fields = ["username", "password", "display_name"]

    def clean_username(self) -> str:
        username: str = self.cleaned_data["username"]
        try:
            services.username_check(username=username)
        except ServiceError as error:
            raise forms.ValidationError(str(error.message)) from error
        return username

    def save(self, commit: bool = True) -> Player:
        return services.player_create(
            username=self.cleaned_data["username"],
            password=self.cleaned_data["password"],
            display_name=self.cleaned_data["display_name"],
        )

    def save_m2m(self) -> None:
        """The service saved everything there is."""


@admin.register(Player)
class PlayerAdmin(admin.ModelAdmin[Player]):
    list_display = [
        "display_name",
        "user",
        "rating_shown",
        "experience",
        "tavli_rating_shown",
        "tavli_experience",
        "joined_at",
    ]
    search_fields = ["display_name", "user__username"]
    readonly_fields = [
        "user",
        "rating_shown",
        "experience",
        "tavli_rating_shown",
        "tavli_experience",
        "joined_at",
    ]

    @admin.display(description=_("rating"), ordering="rating")
    def rating_shown(self, obj: Player) -> str:
        return f"{obj.rating:.1f}"

    @admin.display(description=_("tavli rating"), ordering="tavli_rating")
    def tavli_rating_shown(self, obj: Player) -> str:
        return f"{obj.tavli_rating:.1f}"

    def get_form(
        self, request: HttpRequest, obj: Player | None = None, change: bool = False, **kwargs: Any
    ) -> type[forms.ModelForm[Player]]:
        if obj is None:
            kwargs["form"] = PlayerCreationForm
        return super().get_form(request, obj, change=change, **kwargs)

    def get_readonly_fields(
        self, request: HttpRequest, obj: Player | None = None
    ) -> list[str] | tuple[str, ...]:
        return self.readonly_fields if obj else []

    def get_fields(self, request: HttpRequest, obj: Player | None = None) -> tuple[str, ...]:
        if obj:
            return (
                "user",
                "display_name",
                "rating_shown",
                "experience",
                "tavli_rating_shown",
                "tavli_experience",
                "joined_at",
            )
        return tuple(PlayerCreationForm.Meta.fields)

    def save_model(
        self, request: HttpRequest, obj: Player, form: forms.ModelForm[Player], change: bool
    ) -> None:
        if change:
            # Only the name is edited here; ratings belong to the rating services.
            obj.save(update_fields=["display_name"])
        else:
            super().save_model(request, obj, form, change)


# Results ------------------------------------------------------------------------------


class ResultFields(TypedDict):
    """A result's fields as ``match_result_check`` and ``match_result_record`` take them."""

    winner: Player
    loser: Player
    length: int
    rated: bool
    rating_kind: str
    ended_by: str
    played_at: datetime | None


class MatchResultForm(forms.ModelForm[MatchResult]):
    """A result of a match played on a real board, checked as the service checks it."""

    class Meta:
        model = MatchResult
        fields = ["winner", "loser", "length", "rated", "rating_kind", "ended_by", "played_at"]

    def result(self) -> ResultFields:
        """The result as the services take it (from a valid form: every field is there)."""
        data = self.cleaned_data
        return {
            "winner": data["winner"],
            "loser": data["loser"],
            "length": data["length"],
            "rated": data["rated"],
            "rating_kind": data["rating_kind"],
            "ended_by": data["ended_by"],
            "played_at": data["played_at"],
        }

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if not self.errors:
            try:
                services.match_result_check(**self.result())
            except ServiceError as error:
                raise forms.ValidationError(str(error.message)) from error
        return data


@admin.register(MatchResult)
class MatchResultAdmin(AppendOnly, SavedByService):
    list_display = [
        "played_at",
        "winner",
        "loser",
        "length",
        "rated",
        "rating_kind",
        "ended_by",
        "recorded_by",
    ]
    list_filter = ["rated", "rating_kind", "ended_by"]
    search_fields = ["winner__display_name", "loser__display_name"]
    date_hierarchy = "played_at"
    form = MatchResultForm
    actions = ["delete_and_rebuild"]

    def save_form(self, request: HttpRequest, form: MatchResultForm, change: bool) -> MatchResult:
        """Record through the service, so both players' ratings change at once."""
        return services.match_result_record(**form.result(), recorded_by=member(request.user))

    @admin.action(description=_("Remove the selected results and rebuild every rating"))
    def delete_and_rebuild(self, request: HttpRequest, queryset: QuerySet[MatchResult]) -> None:
        count = 0
        for result in queryset:
            services.match_result_delete(result=result, deleted_by=member(request.user))
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
class RatingChangeAdmin(ReadOnly, admin.ModelAdmin[RatingChange]):
    """The rating history, derived from the results: looked at, never edited."""

    list_display = ["result", "player", "rating_before", "change", "rating_after", "k"]
    search_fields = ["player__display_name", "player__user__username"]
    list_select_related = ["result__winner", "result__loser", "player"]


# The ledger ---------------------------------------------------------------------------


class LegInline(ReadOnly, admin.TabularInline[Leg, Transaction]):
    model = Leg
    fields = ["account", "amount"]
    readonly_fields = ["account", "amount"]
    extra = 0
    can_delete = False


@admin.register(Transaction)
class TransactionAdmin(ReadOnly, AmountMovedColumn):
    list_display = ["id", "at", "kind", "memo_shown", "total_moved", "recorded_by", "reverses"]
    list_filter = ["kind"]
    search_fields = ["memo"]
    date_hierarchy = "at"
    inlines = [LegInline]
    fields = readonly_fields = (
        "at",
        "recorded_at",
        "kind",
        "memo_shown",
        "memo_kind",
        "memo_params",
        "recorded_by",
        "source_type",
        "source_id",
        "reverses",
        "reversed_by_link",
    )
    actions = ["reverse_selected"]

    @admin.display(description=_("reversed by"))
    def reversed_by_link(self, obj: Transaction) -> str:
        reversal = Transaction.objects.filter(reverses=obj).first()
        return str(reversal) if reversal else "-"

    @admin.action(description=_("Reverse the selected transactions"))
    def reverse_selected(self, request: HttpRequest, queryset: QuerySet[Transaction]) -> None:
        act_on_each(
            self,
            request,
            queryset.order_by("id"),
            lambda posted: services.ledger_reverse(
                transaction=posted, recorded_by=member(request.user)
            ),
            lambda done: (
                ngettext(
                    "%(count)d transaction reversed.", "%(count)d transactions reversed.", done
                )
                % {"count": done}
            ),
        )


@admin.register(Account)
class AccountAdmin(ReadOnly, admin.ModelAdmin[Account]):
    list_display = ["__str__", "kind", "balance_shown", "created_at"]
    list_filter = ["kind"]
    search_fields = ["player__display_name", "player__user__username"]
    fields = readonly_fields = ("kind", "player", "created_at", "balance_shown")

    @admin.display(description=_("balance"))
    def balance_shown(self, obj: Account) -> Decimal:
        return selectors.account_balance(account=obj)


# Payments -----------------------------------------------------------------------------


class PartyChoiceField(forms.ModelChoiceField[Player]):
    """A player, or the club's cash (the empty choice reads "The club")."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(
            queryset=Player.objects.select_related("user").order_by("display_name"),
            required=False,
            empty_label=_("The club (cash)"),
            **kwargs,
        )

    def clean(self, value: Any) -> Party:
        player = super().clean(value)
        return player if isinstance(player, Player) else CLUB


class PaymentForm(forms.ModelForm[Payment]):
    """Cash changing hands: the payer's balance rises, the payee's falls."""

    payer = PartyChoiceField(
        label=_("Payer"), help_text=_("Pays the cash; their balance rises by the amount.")
    )
    payee = PartyChoiceField(
        label=_("Payee"), help_text=_("Receives the cash; their balance falls by the amount.")
    )
    amount = forms.DecimalField(
        label=_("Amount"), max_digits=money.LEG_DIGITS, decimal_places=money.PLACES
    )
    memo = forms.CharField(label=_("Memo"), max_length=services.MEMO_LENGTH, required=False)

    class Meta:
        model = Payment
        fields: list[str] = []

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if not self.errors:
            try:
                data["amount"] = services.payment_check(
                    payer=data["payer"], payee=data["payee"], amount=data["amount"]
                )
            except ServiceError as error:
                raise forms.ValidationError(str(error.message)) from error
        return data


@admin.register(Payment)
class PaymentAdmin(AppendOnly, SavedByService, AmountMovedColumn):
    """Record a payment (through ``payment_record``) and list the payments made."""

    form = PaymentForm
    list_display = ["id", "at", "memo_shown", "total_moved", "recorded_by"]
    date_hierarchy = "at"
    search_fields = ["memo"]
    inlines = [LegInline]

    def get_inlines(
        self, request: HttpRequest, obj: Model | None
    ) -> list[type[InlineModelAdmin[Any, Any]]]:
        return [LegInline] if obj else []

    def get_fields(self, request: HttpRequest, obj: Model | None = None) -> tuple[str, ...]:
        if obj:
            return ("at", "memo", "recorded_by")
        return ("payer", "payee", "amount", "memo")

    def get_readonly_fields(self, request: HttpRequest, obj: Model | None = None) -> list[str]:
        return ["at", "memo", "recorded_by"] if obj else []

    def save_form(self, request: HttpRequest, form: Any, change: bool) -> Payment:
        data = form.cleaned_data
        posted = services.payment_record(
            payer=data["payer"],
            payee=data["payee"],
            amount=data["amount"],
            memo=data["memo"],
            recorded_by=member(request.user),
        )
        return Payment.objects.get(pk=posted.pk)
