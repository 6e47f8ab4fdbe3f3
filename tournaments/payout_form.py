"""The payout table on the tournament's admin page: one row per place (event, place or
range, share), the unit chosen once, and the shares' sum shown under the rows.

The table is stored as ``formats.PayoutTable.to_dict()`` (``{"unit", "places": {event:
{place: share}}}``); the director never sees that JSON. A form posts ``<name>-unit``,
``<name>-rows`` and, for each row ``i``, ``<name>-<i>-event``, ``<name>-<i>-place`` and
``<name>-<i>-share``; a row left blank is dropped. The page has blank rows to fill in
(more after each save), and static/tournaments/payout_table.js adds rows and keeps the
sum up to date as the director types; without it the sum is the one of the rows saved.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from django import forms
from django.template.loader import render_to_string
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django_stubs_ext import StrOrPromise

from tournaments import formats

BLANK_ROWS = 3  # rows to fill in under the table's own
EVENT_NAMES: dict[str, StrOrPromise] = {
    formats.Event.MAIN: gettext_lazy("main event"),
    formats.Event.CONSOLATION: gettext_lazy("consolation"),
    formats.Event.LAST_CHANCE: gettext_lazy("last chance"),
}
UNIT_NAMES: dict[str, StrOrPromise] = {
    formats.PayoutUnit.PERCENT: gettext_lazy("percent of the pool (adding up to 100)"),
    formats.PayoutUnit.FRACTION: gettext_lazy("fraction of the pool (adding up to 1)"),
    formats.PayoutUnit.AMOUNT: gettext_lazy("amount (adding up to the pool)"),
}
EXPECTED_SUM = {formats.PayoutUnit.PERCENT: Decimal(100), formats.PayoutUnit.FRACTION: Decimal(1)}


@dataclass(frozen=True)
class Row:
    """One row as posted (text: a row can be wrong and is shown back as typed)."""

    event: str
    place: str
    share: str


def _plain(number: Decimal) -> str:
    """``70`` for 70.00, ``0.5`` for 0.50: a share as people write it."""
    return format(number.normalize(), "f")


def rows_of(table: Any) -> tuple[str, list[Row]]:
    """The unit and rows of a stored table (or of one posted back, already rows)."""
    if isinstance(table, tuple):
        return table
    if not isinstance(table, Mapping):
        return formats.PayoutUnit.PERCENT.value, []
    rows = []
    for event, places in dict(table.get("places") or {}).items():
        for place, share in dict(places).items():
            try:
                shown = _plain(Decimal(str(share)))
            except InvalidOperation:
                shown = str(share)
            rows.append(Row(str(event), str(place), shown))
    return str(table.get("unit", formats.PayoutUnit.PERCENT.value)), rows


def shares_sum(rows: list[Row]) -> Decimal | None:
    """The sum of the rows' shares; None while one is not a number."""
    try:
        return sum((Decimal(row.share) for row in rows if row.share.strip()), Decimal(0))
    except InvalidOperation:
        return None


class PayoutTableWidget(forms.Widget):
    template_name = "admin/tournaments/payout_table.html"

    class Media:
        js = ["tournaments/payout_table.js"]
        css = {"all": ["tournaments/admin.css"]}

    def get_context(self, name: str, value: Any, attrs: dict[str, Any] | None) -> dict[str, Any]:
        context = super().get_context(name, value, attrs)
        unit, rows = rows_of(value)
        shown = [*rows, *[Row(formats.Event.MAIN.value, "", "")] * BLANK_ROWS]
        total = shares_sum(rows)
        context["payout"] = {
            "unit": unit,
            "units": list(UNIT_NAMES.items()),
            "events": list(EVENT_NAMES.items()),
            "rows": list(enumerate(shown)),
            "count": len(shown),
            "sum": "" if total is None else _plain(total),
            "expected": {choice.value: _plain(whole) for choice, whole in EXPECTED_SUM.items()},
        }
        return context

    def format_value(self, value: Any) -> Any:
        """The table or the rows as they are (not their text)."""
        return value

    def _render(self, template_name: str, context: dict[str, Any], renderer: Any = None) -> Any:
        """With the project's templates (a form renderer knows only the apps' own)."""
        return mark_safe(render_to_string(template_name, context))

    def value_from_datadict(self, data: Any, files: Any, name: str) -> tuple[str, list[Row]]:
        try:
            count = min(int(data.get(f"{name}-rows", 0)), 100)
        except ValueError:
            count = 0
        rows = [
            Row(
                str(data.get(f"{name}-{index}-event", "")).strip(),
                str(data.get(f"{name}-{index}-place", "")).strip(),
                str(data.get(f"{name}-{index}-share", "")).strip(),
            )
            for index in range(max(count, 0))
        ]
        filled = [row for row in rows if row.place or row.share]
        return str(data.get(f"{name}-unit", "")), filled

    def value_omitted_from_data(self, data: Any, files: Any, name: str) -> bool:
        return f"{name}-unit" not in data


class PayoutTableField(forms.Field):
    """The rows as the stored table, checked as ``formats.PayoutTable`` checks it, with
    the errors a director reads (the sum the shares reach, the row that is wrong)."""

    widget = PayoutTableWidget

    def to_python(self, value: Any) -> Any:
        if not isinstance(value, tuple):
            return value
        unit, rows = value
        if unit not in {choice.value for choice in formats.PayoutUnit}:
            raise forms.ValidationError(
                _("Choose what the shares are: percent, fraction or amount.")
            )
        if not rows:
            raise forms.ValidationError(_("The payout table pays at least one place."))
        places: dict[str, dict[str, str]] = {}
        for row in rows:
            if row.event not in {choice.value for choice in formats.Event}:
                raise forms.ValidationError(_("%(event)s is not an event.") % {"event": row.event})
            label = self._place(row.place)
            share = self._share(row)
            if label in places.get(row.event, {}):
                raise forms.ValidationError(_("Place %(place)s is paid twice.") % {"place": label})
            places.setdefault(row.event, {})[label] = _plain(share)
        expected = EXPECTED_SUM.get(formats.PayoutUnit(unit))
        total = sum(
            (Decimal(share) for event in places.values() for share in event.values()), Decimal(0)
        )
        if expected is not None and total != expected:
            raise forms.ValidationError(
                _("The shares add up to %(total)s, not %(expected)s.")
                % {"total": _plain(total), "expected": _plain(expected)}
            )
        table = {"unit": unit, "places": places}
        try:
            formats.PayoutTable.from_dict(table)
        except (formats.InvalidPayoutTable, formats.InvalidAmount) as error:
            raise forms.ValidationError(
                _("The payout table does not add up: %(reason)s.") % {"reason": error}
            ) from None
        return table

    @staticmethod
    def _place(text: str) -> str:
        """``3`` or ``3-4``, as the table keeps it."""
        first, dash, last = text.replace(" ", "").partition("-")
        last = last if dash else first
        if not (first.isdigit() and last.isdigit()) or not 1 <= int(first) <= int(last):
            raise forms.ValidationError(
                _("%(place)s is not a place: a number, or a range like 3-4.") % {"place": text}
            )
        return str(int(first)) if int(first) == int(last) else f"{int(first)}-{int(last)}"

    @staticmethod
    def _share(row: Row) -> Decimal:
        try:
            share = Decimal(row.share)
        except InvalidOperation:
            share = Decimal(0)
        if not share.is_finite() or share <= 0:
            raise forms.ValidationError(
                _("Place %(place)s: a share is a number above 0.") % {"place": row.place}
            )
        return share

    def has_changed(self, initial: Any, data: Any) -> bool:
        try:
            return bool(self.to_python(data) != self.to_python(rows_of(initial)))
        except forms.ValidationError:
            return True
