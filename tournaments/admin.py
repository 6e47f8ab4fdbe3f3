"""The director runs a tournament from the admin, every step through a service.

- **Tournaments**: create one and set its options; add entries inline (player search,
  a seed by hand if wanted); then the buttons at the top of its page (or the actions of
  the list): open registration, draw and start round 1, finish and pay out. Its page
  shows the draw as the players see it (bracket or standings) and links each round.
- **Rounds**: a round's page lists its pairings; choose each winner and save. When the
  last result of a round is in, the next round is drawn and the director is taken to it.
  The round's deadline is edited there too; the list filters the overdue rounds.
- **Entries**: the action "buy back" (a knocked-out player pays to play the last chance).

Refusals (drawing twice, a result for a finished pairing, paying out an unfinished
tournament...) come back as error messages, and nothing is changed.
"""

import copy
from collections.abc import Callable
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db import transaction as db_transaction
from django.db.models import Count, Model, Prefetch, Q, QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.loader import render_to_string
from django.urls import URLPattern, path, reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_POST

from club.auth import member
from tournaments import (
    pairing_admin,  # noqa: F401  # registers the pairings' list (mixed play)
    selectors,
    services,
)
from tournaments.models import Entry, Pairing, Round, Tournament, default_payout_table
from tournaments.payout_form import (
    EVENT_NAMES,
    UNIT_NAMES,
    PayoutTableField,
    rows_of,
    shares_sum,
)
from web.errors import ServiceError


def _editable(obj: Tournament | None) -> bool:
    return obj is None or obj.status in services.EDITABLE


def _rating(obj: Entry) -> str:
    """The rating at the draw as the site shows ratings (one decimal)."""
    return "-" if obj.rating is None else f"{obj.rating:.1f}"


# Tournaments --------------------------------------------------------------------------


def _saved_by_services(formset: Any) -> None:
    """The services save the rows: the admin's change message finds nothing more saved."""
    formset.new_objects, formset.changed_objects, formset.deleted_objects = [], [], []


class TournamentForm(forms.ModelForm[Tournament]):
    """A tournament's options, checked as ``tournament_create`` checks them; the payout
    table as rows of places and shares (``payout_form``)."""

    payout_table = PayoutTableField(
        label=gettext_lazy("payout table"),
        initial=default_payout_table,
        help_text=gettext_lazy(
            "The prize pool by place: one row per place or range of places (3-4: the "
            "share is for the whole range), for the main event, the consolation or the "
            "last chance. Percentages add up to 100, fractions to 1, amounts to the pool."
        ),
    )

    class Meta:
        model = Tournament
        fields = list(services.OPTION_FIELDS)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if not self.errors:
            candidate = copy.copy(self.instance)
            for name in services.OPTION_FIELDS:
                if name in data:
                    setattr(candidate, name, data[name])
            try:
                services.tournament_check(tournament=candidate)
            except ServiceError as error:
                raise forms.ValidationError(str(error.message)) from error
        return data


class EntryForm(forms.ModelForm[Entry]):
    """An entry: the player is chosen once; the seed can change until the draw."""

    class Meta:
        model = Entry
        fields = ["player", "seed"]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.instance.pk:
            self.fields["player"].disabled = True


class EntryInline(admin.TabularInline[Entry, Tournament]):
    model = Entry
    form = EntryForm
    fields = ["player", "seed", "rating_shown", "paid_shown"]
    readonly_fields = ["rating_shown", "paid_shown"]
    autocomplete_fields = ["player"]
    extra = 0

    @admin.display(description=gettext_lazy("fee paid"), boolean=True)
    def paid_shown(self, obj: Entry) -> bool:
        return obj.pk is not None and obj.paid

    @admin.display(description=gettext_lazy("rating at the draw"))
    def rating_shown(self, obj: Entry) -> str:
        return _rating(obj)

    def has_add_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        """On the tournament's page until the draw, and on the new tournament's page:
        entries are added in the same save as the tournament."""
        return obj is None or (isinstance(obj, Tournament) and _editable(obj))

    def has_change_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return isinstance(obj, Tournament) and _editable(obj)

    def has_delete_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return isinstance(obj, Tournament) and _editable(obj)


class RoundInline(admin.TabularInline[Round, Tournament]):
    """The rounds started, each named by a link to its page where the results are
    entered (the whole name is the link: one click away)."""

    model = Round
    fields = ("round_link", "length", "results")
    readonly_fields = ("round_link", "length", "results")
    extra = 0
    can_delete = False

    @admin.display(description=gettext_lazy("round"))
    def round_link(self, obj: Round) -> str:
        return _round_link(obj)

    @admin.display(description=gettext_lazy("results"))
    def results(self, obj: Round) -> str:
        played = obj.pairings.filter(second__isnull=False)
        return _("%(done)s of %(total)s") % {
            "done": played.filter(winner__isnull=False).count(),
            "total": played.count(),
        }

    def has_add_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False


def _round_link(played: Round) -> str:
    return format_html(
        '<a href="{}">{}</a>',
        reverse("admin:tournaments_round_change", args=[played.pk]),
        _("Round %(number)s") % {"number": played.number},
    )


# The director's steps: (service call, the message when it is done).
Step = Callable[[Tournament, HttpRequest], object]
STEPS: dict[str, tuple[Step, Any]] = {
    "open": (
        lambda tournament, request: services.tournament_open(tournament=tournament),
        gettext_lazy("Registration for %(name)s is open."),
    ),
    "start": (
        lambda tournament, request: services.tournament_start(tournament=tournament),
        gettext_lazy("%(name)s is drawn: round 1 has started."),
    ),
    "next_round": (
        lambda tournament, request: services.round_start_next(tournament=tournament),
        gettext_lazy("%(name)s: the next round has started, buy-backs are closed."),
    ),
    "finish": (
        lambda tournament, request: services.tournament_finish(
            tournament=tournament, recorded_by=member(request.user)
        ),
        gettext_lazy("%(name)s is finished and its prizes are paid out."),
    ),
}


@admin.register(Tournament)
class TournamentAdmin(admin.ModelAdmin[Tournament]):
    form = TournamentForm
    list_display = ["name", "format", "status", "entry_count", "round_links", "created_at"]
    list_filter = ["status", "format"]
    search_fields = ["name"]
    inlines = [EntryInline, RoundInline]
    actions = ["open_registration", "draw_and_start", "finish_and_pay_out"]
    change_form_template = "admin/tournaments/tournament/change_form.html"
    fieldsets = [
        (
            None,
            {
                "fields": [
                    "name",
                    "format",
                    "status",
                    "seeding",
                    "rated",
                    "online",
                ]
            },
        ),
        (
            gettext_lazy("Rounds"),
            {
                "fields": [
                    "match_lengths",
                    "clock",
                    "round_clocks",
                    "round_deadline_hours",
                    "deadline_rule",
                ]
            },
        ),
        (
            gettext_lazy("Money"),
            {
                "fields": [
                    "entry_fee",
                    "buy_back_fee",
                    "house_cut_percent",
                    "payout_table",
                    "pool_shown",
                ]
            },
        ),
        (
            gettext_lazy("Format options"),
            {
                "fields": [
                    "consolation_through_round",
                    "last_chance_after_round",
                    "bracket_reset",
                    "swiss_rounds",
                ]
            },
        ),
        (gettext_lazy("The draw"), {"fields": ["draw_commitment", "draw_seed_shown", "draw"]}),
    ]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Tournament]:
        return (
            super()
            .get_queryset(request)
            .annotate(entry_total=Count("entries"))
            .prefetch_related(Prefetch("rounds", Round.objects.order_by("number")))
        )

    @admin.display(description=gettext_lazy("entries"), ordering="entry_total")
    def entry_count(self, obj: Tournament) -> int:
        return getattr(obj, "entry_total", 0)

    @admin.display(description=gettext_lazy("rounds"))
    def round_links(self, obj: Tournament) -> str:
        """Every round, a click away from the list."""
        return format_html_join(" ", "{}", ((_round_link(played),) for played in obj.rounds.all()))

    @admin.display(description=gettext_lazy("payout table"))
    def payout_table_shown(self, obj: Tournament) -> str:
        """The table as the rows the director filled in, with their sum."""
        unit, rows = rows_of(obj.payout_table)
        total = shares_sum(rows)
        return format_html(
            '<table class="payout-shown"><thead><tr><th>{}</th><th>{}</th><th>{}</th></tr>'
            '</thead><tbody>{}</tbody><tfoot><tr><th colspan="2">{}</th><td>{}</td></tr>'
            "</tfoot></table>",
            _("Event"),
            _("Place"),
            UNIT_NAMES.get(unit, unit),
            format_html_join(
                "",
                "<tr><td>{}</td><td>{}</td><td>{}</td></tr>",
                ((EVENT_NAMES.get(row.event, row.event), row.place, row.share) for row in rows),
            ),
            _("Sum of the shares"),
            "" if total is None else total,
        )

    def get_fieldsets(self, request: HttpRequest, obj: Tournament | None = None) -> Any:
        """The payout table as rows to fill in while it can change, else as a table."""
        fieldsets = super().get_fieldsets(request, obj)
        if "payout_table" not in self.get_readonly_fields(request, obj):
            return fieldsets
        return [
            (title, {**options, "fields": [
                "payout_table_shown" if name == "payout_table" else name
                for name in options["fields"]
            ]})
            for title, options in fieldsets
        ]  # fmt: skip

    @admin.display(description=gettext_lazy("prize pool now"))
    def pool_shown(self, obj: Tournament) -> Any:
        return selectors.tournament_pool_balance(tournament=obj) if obj.pk else "-"

    @admin.display(description=gettext_lazy("draw commitment (SHA-256 of the seed)"))
    def draw_commitment(self, obj: Tournament) -> str:
        return obj.draw_commitment if obj.pk else "-"

    @admin.display(description=gettext_lazy("draw seed"))
    def draw_seed_shown(self, obj: Tournament) -> str:
        return obj.draw_seed if obj.state is not None else _("published at the draw")

    @admin.display(description=gettext_lazy("bracket or standings"))
    def draw(self, obj: Tournament) -> SafeString:
        if obj.state is None:
            return format_html("{}", _("Not drawn yet."))
        tournament = selectors.tournament_get(pk=obj.pk)
        return SafeString(
            render_to_string(
                "tournaments/_draw.html", selectors.tournament_draw(tournament=tournament)
            )
        )

    def get_readonly_fields(self, request: HttpRequest, obj: Tournament | None = None) -> list[str]:
        shown = [
            "status",
            "pool_shown",
            "draw_commitment",
            "draw_seed_shown",
            "draw",
            "payout_table_shown",
        ]
        if obj is not None and obj.status == Tournament.Status.RUNNING:
            fixed = [name for name in services.OPTION_FIELDS if name not in services.ROUND_FIELDS]
            return [*fixed, *shown]
        if not _editable(obj):
            return [*services.OPTION_FIELDS, *shown]
        if obj is not None and obj.entries.exists():
            return ["entry_fee", *shown]
        return shown

    def save_model(self, request: HttpRequest, obj: Tournament, form: Any, change: bool) -> None:
        options = {name: form.cleaned_data[name] for name in form.changed_data}
        try:
            if change:
                saved = services.tournament_update(tournament=obj, **options)
            else:
                options = {name: form.cleaned_data[name] for name in form.cleaned_data}
                saved = services.tournament_create(created_by=member(request.user), **options)
        except ServiceError as error:
            db_transaction.set_rollback(True)
            self.message_user(request, str(error.message), messages.ERROR)
            return
        obj.pk, obj.version = saved.pk, saved.version

    def save_formset(self, request: HttpRequest, form: Any, formset: Any, change: bool) -> None:
        """Entries go through the services: the fee is posted, a withdrawal refunded."""
        _saved_by_services(formset)
        tournament = form.instance
        if formset.model is not Entry or tournament.pk is None:  # not created: nothing to enter
            return
        by = member(request.user)
        try:
            for entry_form in formset.deleted_forms:
                if entry_form.instance.pk:
                    services.entry_withdraw(entry=entry_form.instance, recorded_by=by)
            for entry_form in formset.forms:
                if entry_form in formset.deleted_forms or not entry_form.has_changed():
                    continue
                data = entry_form.cleaned_data
                if entry_form.instance.pk:
                    services.entry_seed_set(entry=entry_form.instance, seed=data["seed"])
                else:
                    services.entry_add(
                        tournament=tournament,
                        player=data["player"],
                        seed=data["seed"],
                        recorded_by=by,
                    )
        except ServiceError as error:
            db_transaction.set_rollback(True)
            self.message_user(request, str(error.message), messages.ERROR)

    # The steps, as buttons on the tournament's page and as actions on the list.

    def get_urls(self) -> list[URLPattern]:
        step = self.admin_site.admin_view(require_POST(self.step_view))
        return [
            path("<int:pk>/step/<str:step>/", step, name="tournaments_tournament_step"),
            *super().get_urls(),
        ]

    def step_view(self, request: HttpRequest, pk: int, step: str) -> HttpResponse:
        if step not in STEPS:
            raise PermissionDenied
        tournament = get_object_or_404(Tournament, pk=pk)
        if not self.has_change_permission(request, tournament):
            raise PermissionDenied
        self._apply(request, [tournament], step)
        return HttpResponseRedirect(
            reverse("admin:tournaments_tournament_change", args=[tournament.pk])
        )

    def _apply(self, request: HttpRequest, tournaments: Any, step: str) -> None:
        call, done = STEPS[step]
        for tournament in tournaments:
            try:
                call(tournament, request)
            except ServiceError as error:
                self.message_user(request, str(error.message), messages.ERROR)
            else:
                self.message_user(request, done % {"name": tournament.name}, messages.SUCCESS)

    @admin.action(description=gettext_lazy("Open registration"))
    def open_registration(self, request: HttpRequest, queryset: QuerySet[Tournament]) -> None:
        self._apply(request, queryset, "open")

    @admin.action(description=gettext_lazy("Close registration, draw and start round 1"))
    def draw_and_start(self, request: HttpRequest, queryset: QuerySet[Tournament]) -> None:
        self._apply(request, queryset, "start")

    @admin.action(description=gettext_lazy("Finish and pay out"))
    def finish_and_pay_out(self, request: HttpRequest, queryset: QuerySet[Tournament]) -> None:
        self._apply(request, queryset, "finish")

    def render_change_form(
        self,
        request: HttpRequest,
        context: dict[str, Any],
        add: bool = False,
        change: bool = False,
        form_url: str = "",
        obj: Tournament | None = None,
    ) -> HttpResponse:
        if obj is not None:
            if selectors.next_round_impossible(tournament=obj):
                played = obj.rounds.count()
                self.message_user(
                    request,
                    _(
                        "Round %(number)s cannot be paired: every way to pair it would make "
                        "two players meet again or give a player a second bye. Finish and pay "
                        "out ends %(name)s after round %(played)s, with its standings as the "
                        "final places."
                    )
                    % {"number": played + 1, "name": obj.name, "played": played},
                    messages.ERROR,
                )
            context["steps"] = self._steps_for(obj)
            current = obj.rounds.order_by("-number").first()
            context["current_round"] = current
            context["overdue_count"] = (
                len(selectors.round_overdue_pairings(played=current)) if current else 0
            )
        return super().render_change_form(request, context, add, change, form_url, obj)

    @staticmethod
    def _steps_for(obj: Tournament) -> list[tuple[str, str]]:
        if obj.status == Tournament.Status.DRAFT:
            return [("open", _("Open registration")), ("start", _("Draw and start round 1"))]
        if obj.status == Tournament.Status.OPEN:
            return [("start", _("Close registration, draw and start round 1"))]
        if obj.status == Tournament.Status.RUNNING:
            if obj.buy_backs and obj.state is not None and services.state_of(obj).next_round_ready:
                return [("next_round", _("Close buy-backs and start the last chance"))]
            return [("finish", _("Finish and pay out"))]
        return []


# Rounds and results -------------------------------------------------------------------


class PairingForm(forms.ModelForm[Pairing]):
    """A pairing's winner, chosen between its two players, once; a pairing played online
    is decided by its match."""

    class Meta:
        model = Pairing
        fields = ["winner"]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        pairing = self.instance
        winner = self.fields["winner"]
        assert isinstance(winner, forms.ModelChoiceField)
        winner.queryset = Entry.objects.filter(
            pk__in=[pairing.first_id, pairing.second_id]
        ).select_related("player")
        winner.empty_label = _("(to be played)")
        if pairing.winner_id is not None or pairing.bye or pairing.match_id is not None:
            winner.disabled = True


class PairingInline(admin.TabularInline[Pairing, Round]):
    model = Pairing
    form = PairingForm
    fields = [
        "label_shown", "first", "second", "winner", "source", "match_shown", "result",
    ]  # fmt: skip
    readonly_fields = [
        "label_shown", "first", "second", "source", "match_shown", "result",
    ]  # fmt: skip
    extra = 0
    can_delete = False

    def get_queryset(self, request: HttpRequest) -> QuerySet[Pairing]:
        return (
            super()
            .get_queryset(request)
            .select_related("first__player", "second__player", "winner__player", "round", "match")
            .order_by("bracket", "position")
        )

    def has_add_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    @admin.display(description=gettext_lazy("pairing"))
    def label_shown(self, obj: Pairing) -> str:
        """ "Round 1, match 3", never the formats' key (``main-1-3``)."""
        return obj.label

    @admin.display(description=gettext_lazy("online match"))
    def match_shown(self, obj: Pairing) -> str:
        if obj.match_id is None:
            return "-" if obj.bye or obj.winner_id is not None else _("on a board")
        return format_html(
            '<a href="{}">{}</a>',
            reverse("play-match", args=[obj.match_id]),
            _("match %(id)s (%(status)s)")
            % {"id": obj.match_id, "status": obj.match.get_status_display() if obj.match else ""},
        )


class OverdueFilter(admin.SimpleListFilter):
    """Rounds whose deadline has passed with pairings still waiting for a result."""

    title = gettext_lazy("deadline")
    parameter_name = "overdue"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, Any]]:
        return [("yes", gettext_lazy("overdue"))]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        if self.value() != "yes":
            return queryset
        return queryset.filter(pk__in=selectors.rounds_overdue().values("pk"))


@admin.register(Round)
class RoundAdmin(admin.ModelAdmin[Round]):
    """A round's page: its pairings, each winner chosen and saved; its deadline."""

    list_display = ["__str__", "tournament", "number", "length", "clock", "deadline", "waiting"]
    list_filter = [OverdueFilter, "tournament__status", "tournament"]
    fields = (
        "tournament",
        "number",
        "length",
        "clock",
        "started_at",
        "deadline",
        "deadline_applied_at",
        "overdue_pairings",
    )
    readonly_fields = (
        "tournament",
        "number",
        "length",
        "clock",
        "started_at",
        "deadline_applied_at",
        "overdue_pairings",
    )
    inlines = [PairingInline]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Round]:
        return (
            super()
            .get_queryset(request)
            .select_related("tournament")
            .annotate(waiting_total=Count("pairings", filter=Q(pairings__winner__isnull=True)))
        )

    @admin.display(description=gettext_lazy("waiting for a result"))
    def waiting(self, obj: Round) -> int:
        return getattr(obj, "waiting_total", 0)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    @admin.display(description=gettext_lazy("overdue pairings"))
    def overdue_pairings(self, obj: Round) -> str:
        overdue = selectors.round_overdue_pairings(played=obj)
        return ", ".join(str(pairing) for pairing in overdue) or "-"

    def save_model(self, request: HttpRequest, obj: Round, form: Any, change: bool) -> None:
        """A round's own field is its deadline (its results are its pairings')."""
        if "deadline" not in form.changed_data:
            return
        try:
            services.round_deadline_set(played=obj, deadline=form.cleaned_data["deadline"])
        except ServiceError as error:
            self.message_user(request, str(error.message), messages.ERROR)

    def save_formset(self, request: HttpRequest, form: Any, formset: Any, change: bool) -> None:
        _saved_by_services(formset)
        for pairing_form in formset.forms:
            winner = pairing_form.cleaned_data.get("winner")
            if "winner" not in pairing_form.changed_data or winner is None:
                continue
            try:
                services.pairing_result_record(
                    pairing=pairing_form.instance,
                    winner=winner,
                    recorded_by=member(request.user),
                )
            except ServiceError as error:
                self.message_user(request, str(error.message), messages.ERROR)

    def response_change(self, request: HttpRequest, obj: Round) -> HttpResponse:
        """After the results: on to the next round once it is drawn, or back to the
        tournament once the last round is complete."""
        if "_continue" in request.POST:
            return super().response_change(request, obj)
        tournament = Tournament.objects.get(pk=obj.tournament_id)
        following = tournament.rounds.filter(number__gt=obj.number).order_by("number").first()
        if following is not None:
            self.message_user(
                request,
                _("Round %(done)s is complete: round %(next)s is drawn.")
                % {"done": obj.number, "next": following.number},
                messages.SUCCESS,
            )
            return HttpResponseRedirect(
                reverse("admin:tournaments_round_change", args=[following.pk])
            )
        if selectors.next_round_impossible(tournament=tournament):
            return HttpResponseRedirect(
                reverse("admin:tournaments_tournament_change", args=[tournament.pk])
            )
        if tournament.buy_backs and services.state_of(tournament).next_round_ready:
            self.message_user(
                request,
                _(
                    "Round %(done)s is complete: buy-backs are open until you start the "
                    "last chance on %(name)s's page."
                )
                % {"done": obj.number, "name": tournament.name},
                messages.SUCCESS,
            )
            return HttpResponseRedirect(
                reverse("admin:tournaments_tournament_change", args=[tournament.pk])
            )
        if tournament.state is not None and services.state_of(tournament).complete:
            self.message_user(
                request,
                _("Every round is played: finish and pay out %(name)s.")
                % {"name": tournament.name},
                messages.SUCCESS,
            )
            return HttpResponseRedirect(
                reverse("admin:tournaments_tournament_change", args=[tournament.pk])
            )
        return super().response_change(request, obj)


# Entries and buy-backs ----------------------------------------------------------------


@admin.register(Entry)
class EntryAdmin(admin.ModelAdmin[Entry]):
    """Every entry, by tournament; the action buys a knocked-out player into the last
    chance (entries are added and withdrawn on the tournament's page)."""

    list_display = [
        "player", "tournament", "seed", "rating_shown", "paid_shown", "bought_back_shown",
    ]  # fmt: skip
    list_filter = ["tournament"]
    search_fields = ["player__user__username", "tournament__name"]
    list_select_related = ["player__user", "tournament"]
    fields = readonly_fields = (
        "tournament",
        "player",
        "seed",
        "rating_shown",
        "fee_transaction",
        "buy_back_transaction",
    )
    actions = ["buy_back"]

    @admin.display(description=gettext_lazy("fee paid"), boolean=True)
    def paid_shown(self, obj: Entry) -> bool:
        return obj.paid

    @admin.display(description=gettext_lazy("bought back"), boolean=True)
    def bought_back_shown(self, obj: Entry) -> bool:
        return obj.bought_back

    @admin.display(description=gettext_lazy("rating at the draw"), ordering="rating")
    def rating_shown(self, obj: Entry) -> str:
        return _rating(obj)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    @admin.action(description=gettext_lazy("Buy back into the last chance"))
    def buy_back(self, request: HttpRequest, queryset: QuerySet[Entry]) -> None:
        by = member(request.user)
        for entry in queryset.select_related("player", "tournament"):
            try:
                services.entry_buy_back(entry=entry, recorded_by=by)
            except ServiceError as error:
                self.message_user(request, str(error.message), messages.ERROR)
            else:
                self.message_user(
                    request,
                    _("%(player)s has bought back into %(name)s (%(fee)s).")
                    % {
                        "player": entry.player,
                        "name": entry.tournament.name,
                        "fee": entry.tournament.buy_back_fee,
                    },
                    messages.SUCCESS,
                )
