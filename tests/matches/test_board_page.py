"""The board page speaks clearly (issue 22): whose turn it is, by display name and by
checker colour; the cube's action with the value it goes to; and a finished match's
summary (final score, how it ended, the ratings moved, the .mat and the result)."""

import pytest

from club.models import RatingChange
from matches import services
from tests.matches.conftest import act, game_of, on_turn, start

pytestmark = pytest.mark.django_db

DASH = "\u2013"  # between the two players' names


@pytest.fixture
def ann(make_player):
    return make_player("ann", display_name="Ann Archer")


@pytest.fixture
def ben(make_player):
    return make_player("ben", display_name="Ben Bishop")


def controls(page: str) -> str:
    return page.split('id="controls"')[1].split("</div>\n\n  <dl")[0]


def scoreboard(page: str) -> str:
    return page.split('class="scoreboard"')[1].split("</ul>")[0]


def test_the_page_names_the_players_by_their_display_names(logged_in, ann, ben):
    match = start(ann, ben)
    page = logged_in(ann).get(f"/play/{match.pk}/").content.decode()
    assert f"<title>Ann Archer {DASH} Ben Bishop" in page
    assert f'<h1 class="match-title">Ann Archer {DASH} Ben Bishop</h1>' in page
    board = scoreboard(page)
    assert "Ann Archer" in board and "Ben Bishop" in board


def test_each_name_beside_a_checker_of_its_colour(logged_in, ann, ben):
    """The first player's checkers are side 0's colour, the second's side 1's, on the
    board and in the scoreboard alike (from either player's view)."""
    match = start(ann, ben)
    for viewer in (ann, ben):
        board = scoreboard(logged_in(viewer).get(f"/play/{match.pk}/").content.decode())
        ann_row, ben_row = board.split("<li")[1:]
        assert 'data-player="ann"' in ann_row and "Ann Archer" in ann_row
        assert 'class="checker side-0"' in ann_row and "side-1" not in ann_row
        assert 'class="checker side-1"' in ben_row and "Ben Bishop" in ben_row


def test_your_turn_for_the_player_on_turn_only(logged_in, ann, ben, carol):
    match = start(ann, ben)
    mover = on_turn(match, ann, ben)
    other = ben if mover == ann else ann
    page = logged_in(mover).get(f"/play/{match.pk}/").content.decode()
    assert "Your turn." in controls(page)
    waiting = logged_in(other).get(f"/play/{match.pk}/").content.decode()
    assert "Your turn." not in waiting
    assert f"Waiting for {mover.display_name}." in controls(waiting)
    watched = logged_in(carol).get(f"/play/{match.pk}/").content.decode()
    assert "Your turn." not in watched
    assert f"You are watching; {mover.display_name} is on turn." in watched
    # The scoreboard marks the side on turn, in words as well.
    row = scoreboard(waiting).split(f'data-player="{mover.username}"')[1].split("</li>")[0]
    assert "on turn" in row


def doubled(ann, ben):
    """A match in which the side to roll has doubled: (match, doubler, doubled)."""
    match = start(ann, ben, length=5)
    doubler = on_turn(match, ann, ben)
    if game_of(match)["phase"] == "move":  # the opening roll is played first
        match = act(match, doubler, "move", play=game_of(match)["legal_plays"][0])
        doubler = on_turn(match, ann, ben)
    match = act(match, doubler, "double")
    assert game_of(match)["phase"] == "take_or_pass"
    return match, doubler, ben if doubler == ann else ann


def test_the_doubled_player_reads_the_value_the_cube_goes_to(logged_in, ann, ben, carol):
    """C2, C4: the cube turns to 2 on a take; the page says so, not "the cube is at 1"."""
    match, doubler, taker = doubled(ann, ben)
    page = controls(logged_in(taker).get(f"/play/{match.pk}/").content.decode())
    assert f"{doubler.display_name} doubles to 2. Take or pass?" in page
    assert "Your turn." in page and "cube is at 1" not in page
    assert 'data-act="take"' in page and 'data-act="pass"' in page
    own = controls(logged_in(doubler).get(f"/play/{match.pk}/").content.decode())
    assert f"{doubler.display_name} doubles to 2." in own
    assert f"Waiting for {taker.display_name}." in own and "Your turn." not in own
    watched = controls(logged_in(carol).get(f"/play/{match.pk}/").content.decode())
    assert f"{doubler.display_name} doubles to 2." in watched


def test_a_redouble_says_the_value_it_goes_to(logged_in, ann, ben):
    """C4: taken at 2, the cube's owner redoubles to 4."""
    match, doubler, taker = doubled(ann, ben)
    match = act(match, taker, "take")
    while on_turn(match, ann, ben) != taker or game_of(match)["phase"] != "roll":
        player = on_turn(match, ann, ben)
        if game_of(match)["phase"] == "roll":
            match = act(match, player, "roll")
        else:
            match = act(match, player, "move", play=game_of(match)["legal_plays"][0])
    match = act(match, taker, "double")
    page = controls(logged_in(doubler).get(f"/play/{match.pk}/").content.decode())
    assert f"{taker.display_name} doubles to 4. Take or pass?" in page


def test_a_match_won_by_a_pass_shows_its_summary(logged_in, ann, ben, carol):
    """A rated match to 1 ended by a passed double (C4): the final score line, how it
    ended, each player's rating change as recorded, the .mat and the result."""
    match = start(ann, ben, length=1, rated=True)
    doubler = on_turn(match, ann, ben)
    if game_of(match)["phase"] == "move":
        match = act(match, doubler, "move", play=game_of(match)["legal_plays"][0])
        doubler = on_turn(match, ann, ben)
    match = act(match, doubler, "double")
    taker = ben if doubler == ann else ann
    match = act(match, taker, "pass")
    match.refresh_from_db()
    assert match.status == "finished" and match.result_id is not None
    for viewer in (ann, ben, carol):
        page = logged_in(viewer).get(f"/play/{match.pk}/").content.decode()
        summary = page.split('id="match-summary"')[1].split("</section>")[0]
        assert f"{doubler.display_name} won the match." in summary
        ann_points = 1 if doubler == ann else 0
        assert (
            f"Final score: Ann Archer <strong>{ann_points}</strong> {DASH} "
            f"Ben Bishop <strong>{1 - ann_points}</strong> (Match to 1 point)"
        ) in summary
        assert "Played to the end; the last game: a double passed." in summary
        for change in RatingChange.objects.filter(result_id=match.result_id):
            shown = (
                f"{change.player.display_name}: {change.rating_before:.1f} → "
                f'{change.rating_after:.1f} (<span class="change">'
                f"{'+' if change.change >= 0 else ''}{change.change:.1f}</span>)"
            )
            assert shown in summary
        assert RatingChange.objects.filter(result_id=match.result_id).count() == 2
        assert f'href="/api/matches/{match.pk}/export.mat"' in summary
        assert f'href="/api/results/{match.result_id}/"' in summary


def test_a_resigned_match_says_who_resigned(logged_in, ann, ben):
    match = start(ann, ben, length=1, rated=False)
    resigner = on_turn(match, ann, ben)
    if game_of(match)["phase"] == "move":
        match = act(match, resigner, "move", play=game_of(match)["legal_plays"][0])
        resigner = on_turn(match, ann, ben)
    other = ben if resigner == ann else ann
    match = act(match, resigner, "resign", value="single")
    match = act(match, other, "accept_resign")
    page = logged_in(ann).get(f"/play/{match.pk}/").content.decode()
    summary = page.split('id="match-summary"')[1].split("</section>")[0]
    assert f"{resigner.display_name} resigned." in summary
    assert "An unrated match: no rating moved." in summary


def test_an_abandoned_match_says_who_left(logged_in, ann, ben):
    match = start(ann, ben, length=3)
    match = services.match_abandon(match=match, player=ben)
    page = logged_in(ann).get(f"/play/{match.pk}/").content.decode()
    summary = page.split('id="match-summary"')[1].split("</section>")[0]
    assert "Ann Archer won the match." in summary and "Ben Bishop left the match." in summary
    # A forfeit scores the match's length to the winner (as .mat and the API count it).
    assert (
        f"Final score: Ann Archer <strong>3</strong> {DASH} Ben Bishop <strong>0</strong>"
        in summary
    )
