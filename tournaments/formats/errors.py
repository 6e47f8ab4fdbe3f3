"""Every way the tournament formats refuse something, as a distinct exception.

Callers catch ``TournamentError`` for "the rules of the tournament said no" and the
subclasses to tell the cases apart (the admin shows the message, the API maps the class
to an error code). A refused call changes nothing: every value is immutable.
"""


class TournamentError(Exception):
    """Base class: the tournament's rules refused the request."""


class InvalidEntries(TournamentError):
    """The entries cannot make a tournament (too few, duplicate ids, bad seeds...)."""


class InvalidOptions(TournamentError):
    """The format's options do not fit this field (a consolation nobody can enter...)."""


class AlreadyDrawn(TournamentError):
    """The draw has been made already; a tournament is drawn once."""


class NotDrawn(TournamentError):
    """Rounds start only after the draw."""


class RoundNotComplete(TournamentError):
    """The current round still has pairings without a result."""


class TournamentComplete(TournamentError):
    """Every round has been played: there is no next round."""


class TournamentNotComplete(TournamentError):
    """Final places (and so payouts) exist only once the tournament is complete."""


class UnknownPairing(TournamentError):
    """No pairing of a started round has this id."""


class PairingFinished(TournamentError):
    """The pairing already has its winner (or is a bye, which needs no result)."""


class NotInPairing(TournamentError):
    """The winner named is not one of the pairing's two players."""


class WrongFormat(TournamentError):
    """The question does not apply to this format (standings of a knockout...)."""


class InvalidAmount(TournamentError):
    """A sum of money that is negative or not in whole cents."""


class InvalidPayoutTable(TournamentError):
    """A payout table that does not add up, overlaps, or pays a place nobody holds."""


class InvalidState(TournamentError):
    """Stored data that is not a tournament ``to_dict`` wrote."""


class PairingImpossible(TournamentError):
    """No pairing of the round avoids a rematch (or a second bye): the director decides."""
