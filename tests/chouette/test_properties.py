"""Properties of whole sessions: random recorded games with joins and leaves between
them. Every game's points sum to zero, the box's are minus the others', every ledger
transaction balances, and over the session each player's money is exactly their points
times the stake (H6, H13, H14); long rotations keep everyone seated once (H3, H12, H13)."""

from decimal import Decimal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chouette import selectors, services
from club import selectors as club_selectors
from club.models import Leg, SourceKind, Transaction
from tests.chouette.conftest import NAMES
from web.errors import Conflict

pytestmark = pytest.mark.django_db

OUTCOMES = st.sampled_from(["played", "played", "passed", "box_passed"])
STAKES = st.sampled_from([1, 2, 4])
STEP = st.one_of(
    st.tuples(
        st.just("game"),
        st.sampled_from(["box", "team"]),
        st.sampled_from(["single", "gammon", "backgammon"]),
        st.lists(st.tuples(OUTCOMES, STAKES), min_size=7, max_size=7),
    ),
    st.tuples(st.just("join"), st.sampled_from(NAMES)),
    st.tuples(st.just("leave"), st.sampled_from(NAMES)),
    st.tuples(st.just("undo")),
)


@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    steps=st.lists(STEP, max_size=14),
    jacoby=st.booleans(),
    box_keeps=st.sampled_from(["beats_captain", "no_net_loss"]),
    partner_from=st.sampled_from([4, 5, 7, None]),
)
def test_h6_h13_h14_random_sessions_balance_and_settle_points_times_stake(
    open_chouette, members, steps, jacoby, box_keeps, partner_from
):
    chouette = open_chouette(
        "alice",
        "bob",
        "carol",
        "dave",
        cube="multiple",
        jacoby=jacoby,
        box_keeps=box_keeps,
        partner_from=partner_from,
        stake=Decimal("1.50"),
    )
    for step in steps:
        chouette.refresh_from_db()
        seating = selectors.chouette_seating(chouette=chouette)
        by = chouette.recorded_by
        if step[0] == "game":
            _kind, winner, result, entries = step
            sent = [
                {"player": name, "stake": stake, "outcome": outcome}
                for name, (outcome, stake) in zip(seating.line, entries, strict=False)
            ]
            game = services.chouette_game_record(
                chouette=chouette,
                record={"winner": winner, "result": result, "members": sent},
                recorded_by=by,
            )
            points = {row.player.username: row.points for row in game.points.all()}
            assert set(points) == set(seating.players) and sum(points.values()) == 0
            # The box side is minus the members' sum; a partner's share is half of it,
            # rounded toward zero, so the odd point is the box's (H12).
            side = -sum(points[name] for name in seating.line)
            share = int(side / 2) if seating.partner else 0
            assert points[seating.box] == side - share
            if seating.partner:
                assert points[seating.partner] == share
        elif step[0] == "join" and step[1] not in seating.players:
            services.chouette_join(chouette=chouette, player=members[step[1]], by=by)
        elif step[0] == "leave" and step[1] in seating.players and len(seating.players) > 3:
            services.chouette_leave(chouette=chouette, player=members[step[1]], by=by)
        elif step[0] == "undo":
            before = chouette.version
            try:
                services.chouette_game_undo(chouette=chouette, recorded_by=by)
            except Conflict:
                chouette.refresh_from_db()
                assert chouette.version == before  # a refused undo changes nothing
        chouette.refresh_from_db()
        seated = selectors.chouette_seating(chouette=chouette).players
        assert len(set(seated)) == len(seated) >= 3
    services.chouette_close(chouette=chouette, by=chouette.recorded_by)
    posted = Transaction.objects.filter(kind=SourceKind.CHOUETTE, source_id=chouette.pk)
    for transaction in posted:
        assert sum(leg.amount for leg in transaction.legs.all()) == 0
    totals = {
        player.username: sum(
            row.points for row in player.chouette_points.filter(game__chouette=chouette)
        )
        for player in members.values()
    }
    for name, player in members.items():
        money = sum(
            (
                leg.amount
                for leg in Leg.objects.filter(transaction__in=posted, account__player=player)
            ),
            Decimal("0.00"),
        )
        assert money == totals[name] * chouette.stake, name
    assert sum(totals.values()) == 0


def test_h3_h12_h13_a_long_rotation_with_joins_and_leaves(open_chouette, members):
    """Worked by hand: box alice, line bob carol dave; the team wins, the box wins,
    erin joins, the box wins, carol leaves, the team wins."""
    chouette = open_chouette("alice", "bob", "carol", "dave")
    by = chouette.recorded_by

    def play(winner):
        chouette.refresh_from_db()
        line = selectors.chouette_seating(chouette=chouette).line
        services.chouette_game_record(
            chouette=chouette,
            record={
                "winner": winner,
                "result": "single",
                "members": [{"player": n, "stake": 1, "outcome": "played"} for n in line],
            },
            recorded_by=by,
        )
        chouette.refresh_from_db()
        return selectors.chouette_seating(chouette=chouette).players

    assert play("team") == ("bob", "carol", "dave", "alice")
    assert play("box") == ("bob", "dave", "alice", "carol")
    services.chouette_join(chouette=chouette, player=members["erin"], by=by)
    assert play("box") == ("bob", "alice", "carol", "erin", "dave")
    services.chouette_leave(chouette=chouette, player=members["carol"], by=by)
    assert play("team") == ("alice", "erin", "dave", "bob")
    # Game by game: alice -3 -1 -1 +1, bob +1 +3 +4 -3, dave +1 -1 -1 +1, erin -1 +1;
    # carol +1 -1 -1 left with -1 point, settled at once at 5.00 a point.
    assert selectors.chouette_scores(chouette=chouette) == {
        "alice": -4,
        "erin": 0,
        "dave": 0,
        "bob": 5,
    }
    assert club_selectors.player_balance(player=members["carol"]) == Decimal("-5.00")
