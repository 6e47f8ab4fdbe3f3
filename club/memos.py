"""A ledger memo as a kind and its parameters, read in the reader's language.

A memo the server writes ("Entry fee: Friday knockout", "Chouette #3: settlement") is
stored as its kind (``MemoKind``) and parameters (``{"name": "Friday knockout"}``) beside
its text in English, the source language; pages, the API and the statement's CSV render
it with gettext in the language of whoever reads it (``memo_render``), so a member
reading Bulgarian reads "Такса за участие: Friday knockout". A memo written by hand (a
payment's note, "Cash") is of kind ``text``: its text is the memo, as written, in any
language. The texts are msgids of the catalogues (``gettext_noop``: translated when
rendered, not when written).

``memo_parser`` reads a stored English (or translated) text back into its kind and
parameters: the migration that gave existing rows their kind uses it
(club/migrations/0006_transaction_memo_kind.py); a text it cannot read stays ``text``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypedDict

from django.db import models
from django.utils import translation
from django.utils.translation import gettext, gettext_noop
from django.utils.translation import gettext_lazy as _


class MemoKind(models.TextChoices):
    """What a ledger memo says, whatever the language it is read in."""

    TEXT = "text", _("written by hand")
    PAYMENT = "payment", _("payment")
    REVERSAL = "reversal", _("reversal")
    MONEY_SESSION = "money_session", _("money session")
    ENTRY_FEE = "entry_fee", _("entry fee")
    ENTRY_FEE_REFUNDED = "entry_fee_refunded", _("entry fee refunded")
    BUY_BACK = "buy_back", _("buy-back")
    PRIZES = "prizes", _("prizes")
    CHOUETTE_LEAVES = "chouette_leaves", _("a chouette player leaves")
    CHOUETTE_SETTLEMENT = "chouette_settlement", _("chouette settlement")


# Each kind's text, a msgid: the parameters are named in it. A payment's payer and payee
# are display names, null for the club (read "the club" in the reader's language); a
# reversal's ``memo`` is the original's memo, {"kind", "params", "memo"}.
MEMO_TEXTS: dict[str, str] = {
    MemoKind.PAYMENT: gettext_noop("Payment from %(payer)s to %(payee)s"),
    MemoKind.REVERSAL: gettext_noop("Reversal of #%(id)s: %(memo)s"),
    MemoKind.MONEY_SESSION: gettext_noop(
        "Money session %(id)s: %(first)s %(a)s, %(second)s %(b)s at %(stake)s a point"
    ),
    MemoKind.ENTRY_FEE: gettext_noop("Entry fee: %(name)s"),
    MemoKind.ENTRY_FEE_REFUNDED: gettext_noop("Entry fee refunded: %(name)s"),
    MemoKind.BUY_BACK: gettext_noop("Buy-back: %(name)s"),
    MemoKind.PRIZES: gettext_noop("Prizes: %(name)s"),
    MemoKind.CHOUETTE_LEAVES: gettext_noop("Chouette #%(id)s: %(player)s leaves"),
    MemoKind.CHOUETTE_SETTLEMENT: gettext_noop("Chouette #%(id)s: settlement"),
}
# The transactions' kinds (``SourceKind`` values) each memo kind is written for: a memo
# is read back only as a kind its transaction can have ("Entry fee: cash" typed as a
# payment's note stays the note).
MEMO_SOURCES: dict[str, str] = {
    MemoKind.PAYMENT: "payment",
    MemoKind.REVERSAL: "correction",
    MemoKind.MONEY_SESSION: "money_session",
    MemoKind.ENTRY_FEE: "tournament",
    MemoKind.ENTRY_FEE_REFUNDED: "tournament",
    MemoKind.BUY_BACK: "tournament",
    MemoKind.PRIZES: "prize",
    MemoKind.CHOUETTE_LEAVES: "chouette",
    MemoKind.CHOUETTE_SETTLEMENT: "chouette",
}
PARTIES = ("payer", "payee")  # the parameters that are a party (null: the club)


class NestedMemo(TypedDict):
    """A reversal's ``memo`` parameter: the original's memo."""

    kind: str
    params: MemoParams
    memo: str


# A memo's parameters as stored: text, whole numbers, null (the club), a nested memo.
MemoParams = dict[str, "str | int | NestedMemo | None"]


@dataclass(frozen=True)
class Memo:
    """A memo the server writes: its kind and parameters (JSON values: text, whole
    numbers, null; a reversal's ``memo`` a nested memo)."""

    kind: str
    params: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def of(cls, kind: MemoKind, **params: Any) -> Memo:
        """The memo, its parameters made JSON (an amount as its text, ``"1.00"``)."""
        return cls(kind.value, {name: _json(value) for name, value in params.items()})

    def source_text(self) -> str:
        """Its text in English, the source language: what the ``memo`` column keeps."""
        with translation.override(None):
            return memo_render(kind=self.kind, params=self.params, memo="")


def _json(value: Any) -> Any:
    return value if value is None or isinstance(value, int | str | dict) else str(value)


def memo_render(*, kind: str, params: Mapping[str, Any], memo: str) -> str:
    """The memo in the active language: a written one (``text``) as written; one whose
    kind or parameters this server does not know (a newer one's, a damaged row) as its
    stored text ``memo``."""
    template = MEMO_TEXTS.get(kind)
    if template is None:
        return memo
    values = dict(params)
    for party in PARTIES:
        if party in values and values[party] is None:
            values[party] = gettext("the club")
    if kind == MemoKind.REVERSAL and isinstance(values.get("memo"), Mapping):
        original = values["memo"]
        values["memo"] = memo_render(
            kind=str(original.get("kind", "")),
            params=original.get("params") or {},
            memo=str(original.get("memo", "")),
        )
    try:
        return gettext(template) % values
    except (KeyError, TypeError, ValueError):
        return memo


def _pattern(text: str) -> re.Pattern[str]:
    """A regular expression matching ``text`` with each ``%(name)s`` read as a group."""
    parts = re.split(r"%\((\w+)\)s", text)
    expression = "".join(
        re.escape(part) if index % 2 == 0 else f"(?P<{part}>.+?)"
        for index, part in enumerate(parts)
    )
    return re.compile(f"^{expression}$", re.DOTALL)


def _patterns(languages: Iterable[str]) -> list[tuple[str, re.Pattern[str], str]]:
    """(kind, pattern, the club's name) for each kind's text in English and in each
    language given, English first."""
    found = []
    for language in [None, *languages]:
        with translation.override(language):
            club = gettext("the club")
            for kind, text in MEMO_TEXTS.items():
                found.append((kind, _pattern(gettext(text)), club))
    return found


def _parse(
    text: str, source: str, patterns: list[tuple[str, re.Pattern[str], str]], longest: int
) -> tuple[str, MemoParams]:
    if len(text) >= longest:
        return MemoKind.TEXT.value, {}
    for kind, pattern, club in patterns:
        if MEMO_SOURCES[kind] != source:
            continue
        match = pattern.match(text)
        if match is None:
            continue
        found: dict[str, str] = match.groupdict()
        if "id" in found and not found["id"].isdigit():
            continue
        params: MemoParams = {}
        for name, value in found.items():
            if name in PARTIES and value == club:
                params[name] = None
            elif name == "id":
                params[name] = int(value)
            elif name == "memo" and kind == MemoKind.REVERSAL:
                inner_kind, inner_params = _parse_any(value, patterns, longest)
                params[name] = {"kind": inner_kind, "params": inner_params, "memo": value}
            else:
                params[name] = value
        return kind, params
    return MemoKind.TEXT.value, {}


def _parse_any(
    text: str, patterns: list[tuple[str, re.Pattern[str], str]], longest: int
) -> tuple[str, MemoParams]:
    """A reversed memo's kind: whichever kind reads it (its transaction is not known)."""
    for source in dict.fromkeys(MEMO_SOURCES.values()):
        kind, params = _parse(text, source, patterns, longest)
        if kind != MemoKind.TEXT:
            return kind, params
    return MemoKind.TEXT.value, {}


Parser = Callable[[str, str], tuple[str, MemoParams]]


def memo_parser(languages: Iterable[str] = (), longest: int = 200) -> Parser:
    """``parse(text, source)``: the kind and parameters of a stored memo ``text`` of a
    transaction of kind ``source`` (``SourceKind``), written in English or one of
    ``languages``; ``("text", {})`` for a text no kind of that transaction reads, or one
    ``longest`` long or more (cut when written: its parameters would be cut too). The
    patterns are built once, for many rows."""
    patterns = _patterns(languages)
    return lambda text, source: _parse(text, source, patterns, longest)
