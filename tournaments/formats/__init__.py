"""The tournament formats as plain Python: draws, pairings, standings, places, payouts.

Imports no Django. The app builds a ``Tournament`` from its entries and format, stores
``to_dict()`` and calls ``draw``, ``start_round`` and ``record_result``; each returns a
new value, and a refused call raises a ``TournamentError`` subclass and changes nothing.
The rules are in docs/tournaments.md.
"""

from tournaments.formats.entries import Entry, Seeding
from tournaments.formats.errors import (
    AlreadyDrawn,
    InvalidAmount,
    InvalidEntries,
    InvalidOptions,
    InvalidPayoutTable,
    InvalidState,
    NotDrawn,
    NotInPairing,
    PairingFinished,
    PairingImpossible,
    RoundNotComplete,
    TournamentComplete,
    TournamentError,
    TournamentNotComplete,
    UnknownPairing,
    WrongFormat,
)
from tournaments.formats.options import (
    DoubleElimination,
    Format,
    FormatOptions,
    RoundRobin,
    SingleElimination,
    Swiss,
)
from tournaments.formats.pairings import Bracket, Event, Pairing, Round
from tournaments.formats.payouts import (
    Payout,
    PayoutLine,
    PayoutTable,
    PayoutUnit,
    PrizePool,
    money,
    payouts,
    prize_pool,
)
from tournaments.formats.places import FinalPlace
from tournaments.formats.plan import Fixture, FixtureSide, Slot, SlotKind, bracket_order
from tournaments.formats.standings import Place, Standing
from tournaments.formats.tournament import Tournament

__all__ = [
    "AlreadyDrawn",
    "Bracket",
    "DoubleElimination",
    "Entry",
    "Event",
    "FinalPlace",
    "Fixture",
    "FixtureSide",
    "Format",
    "FormatOptions",
    "InvalidAmount",
    "InvalidEntries",
    "InvalidOptions",
    "InvalidPayoutTable",
    "InvalidState",
    "NotDrawn",
    "NotInPairing",
    "Pairing",
    "PairingFinished",
    "PairingImpossible",
    "Payout",
    "PayoutLine",
    "PayoutTable",
    "PayoutUnit",
    "Place",
    "PrizePool",
    "Round",
    "RoundNotComplete",
    "RoundRobin",
    "Seeding",
    "SingleElimination",
    "Slot",
    "SlotKind",
    "Standing",
    "Swiss",
    "Tournament",
    "TournamentComplete",
    "TournamentError",
    "TournamentNotComplete",
    "UnknownPairing",
    "WrongFormat",
    "bracket_order",
    "money",
    "payouts",
    "prize_pool",
]
