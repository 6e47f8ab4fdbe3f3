"""The API's fields carrying money: amounts sent to the club, with their exact pattern,
minimum and maximum in the schema, and amounts it answers with. Every app's API takes
them from here; the limits are the books' (``club.money``)."""

import re
from decimal import Decimal
from typing import Any

from django.utils.translation import gettext as _
from drf_spectacular.extensions import OpenApiSerializerFieldExtension
from drf_spectacular.openapi import AutoSchema
from rest_framework import serializers

from club import money


class MoneyInputField(serializers.DecimalField):
    """An amount sent to the club: a decimal string from 0.01 to ``most`` (a power of
    ten) with at most two places, as ``money.amount_pattern`` spells it; the schema
    carries the same pattern, with the minimum and maximum."""

    def __init__(self, *, most: Decimal, **kwargs: Any) -> None:
        self.most = most
        self.pattern = money.amount_pattern(most=most)
        super().__init__(
            max_digits=money.LEG_DIGITS,
            decimal_places=money.PLACES,
            min_value=money.CENT,
            max_value=most,
            **kwargs,
        )

    def problem(self) -> str:
        """What the amount must be, in the language of the request."""
        return _(
            'Must be an amount from 0.01 to %(most)s with at most two places, like "12.50".'
        ) % {"most": self.most}

    def to_internal_value(self, data: Any) -> Decimal:
        if not isinstance(data, str) or not re.fullmatch(self.pattern, data):
            raise serializers.ValidationError(self.problem())
        value: Decimal = super().to_internal_value(data)
        return value


class MoneyField(serializers.DecimalField):
    """An amount the club answers with: a decimal string with two places, as long as the
    books make it (a balance is a sum of legs, so no fixed number of digits holds it)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(max_digits=None, decimal_places=money.PLACES, **kwargs)


class MoneyInputFieldExtension(OpenApiSerializerFieldExtension):
    """An amount sent to the club: its exact pattern, minimum and maximum."""

    target_class = "club.api_money.MoneyInputField"

    def map_serializer_field(self, auto_schema: AutoSchema, direction: Any) -> dict[str, Any]:
        field: MoneyInputField = self.target
        return {
            "type": "string",
            "format": "decimal",
            "pattern": field.pattern,
            "minimum": float(money.CENT),
            "maximum": float(field.most),
            "description": field.problem(),
        }
