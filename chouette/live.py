"""The chouette app's topic on the live channel (``web.live``): ``chouette:<id>``, the
session's ``version``, and its state: the session's body exactly as
``GET /api/chouettes/{id}/`` answers it. That body is the same for every viewer (its
members, the box, anyone else: ``chouette_card`` takes no viewer; the team's proposals
are their own endpoint, for the team only, and the server seed is only in the dice's
answer, after the close), so a member's board redraws from the live answer without
fetching the session."""

from collections.abc import Collection

from chouette import selectors
from chouette.api import ChouetteOutput, chouette_card
from web import live


def chouette_states(keys: Collection[str]) -> dict[str, tuple[int, live.State]]:
    """The version and body of each session named by ``keys`` that exists, in two
    queries whatever their number: the sessions as their card reads them, then their
    standings (set on each row, as an online action leaves it, so the card reads
    nothing more)."""
    chouettes = list(selectors.chouette_card_rows().filter(pk__in=selectors.topic_ids(keys)))
    standings = selectors.chouette_standings(chouettes=chouettes)
    states: dict[str, tuple[int, live.State]] = {}
    for chouette in chouettes:
        chouette.standing = standings[chouette.pk]
        body = ChouetteOutput(chouette_card(chouette)).data
        states[str(chouette.pk)] = (body["version"], body)
    return states


def register() -> None:
    live.topic_register(
        name="chouette", versions=selectors.chouette_versions, states=chouette_states
    )
