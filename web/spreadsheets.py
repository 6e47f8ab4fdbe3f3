"""CSV files the service writes, safe to open in a spreadsheet.

A cell a spreadsheet would take for a formula (one beginning with ``=``, ``+``, ``-``,
``@``, a tab or a carriage return: OWASP's "CSV injection") is written with a single
quote in front, so a memo such as ``=HYPERLINK(...)`` is shown as text, never run. A
plain number (``-7.25``) is left as it is: it is no formula, and stays a number.
"""

import csv
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from _typeshed import SupportsWrite

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
PLAIN_NUMBER = re.compile(r"[+-]?[0-9]+(\.[0-9]+)?")


def spreadsheet_cell(value: object) -> str:
    """``value`` as the text of a cell no spreadsheet runs."""
    text = str(value)
    if text.startswith(FORMULA_STARTS) and not PLAIN_NUMBER.fullmatch(text):
        return "'" + text
    return text


class CsvWriter:
    """``csv.writer`` (lines ending in ``\\n``) whose every cell is a ``spreadsheet_cell``."""

    def __init__(self, stream: "SupportsWrite[str]") -> None:
        self._writer = csv.writer(stream, lineterminator="\n")

    def writerow(self, row: Iterable[object]) -> None:
        self._writer.writerow([spreadsheet_cell(cell) for cell in row])
