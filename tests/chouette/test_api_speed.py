"""The work of one online chouette action and of its followers' reads (issue 9, "Speed"):
the session read once, its players read once, a fixed number of queries from the first
turn to the last, answers unchanged by answering from what the action wrote, and a
timeout task only for a new deadline."""

import pytest
from django.db import connection
from django.db.models import Sum
from django.test.utils import CaptureQueriesContext
from rest_framework import serializers

from chouette import selectors, services
from chouette.api import ChouetteOutput, chouette_card
from chouette.models import Chouette, GamePoints, Membership
from matches import table_engine
from matches.models import Table
from tests.chouette.conftest import NAMES, member
from tests.chouette.online_table import OnlineTable

# An action's queries: before the lock, the session's players with their points and its
# game rows counted; the session and its table locked in one query (its scorekeeper, games
# played and game rows joined in); the session's UPDATE (version, dice, seats); the
# table's UPDATE; the log rows. A game's end adds the game row and its points (its number
# from the rows counted under the lock). The token with its user and player comes from the
# cache once the member's first request read it (tests/club/test_auth_cache.py).
QUERIES_PER_ACTION = 5
QUERIES_AT_A_GAMES_END = QUERIES_PER_ACTION + 2
# Of them, from the lock to the commit: the locked read and the three writes.
QUERIES_UNDER_THE_LOCK = 4
# A proposal (H2): the session and its table locked in one query (no standing, no games
# played: the answer is the proposal); the member's proposal for the turn read, then
# written; the session's UPDATE. The same for a first proposal and for one replacing it
# (the token cached).
QUERIES_PER_PROPOSAL = 4
# The table page (or its live region): the session and its user; the viewer's player; the
# session with its table, scorekeeper and games played; its players with their points and
# names; the games; their points (by player id). The same for any seats and games.
QUERIES_PER_TABLE_PAGE = 7
# GET /api/chouettes/{id}/: the token; the session with its table, scorekeeper and games
# played; its players with their points. The same for any number of seats.
QUERIES_PER_GET = 3


def _queries(call):
    with CaptureQueriesContext(connection) as captured:
        response = call()
    # Not the action's work: the savepoints of the test's own transaction, and the test
    # client's fetching (or making) the acting user's token by user id.
    sql = [query["sql"] for query in captured.captured_queries]
    return response, [q for q in sql if "SAVEPOINT" not in q and not _test_token(q)]


def _test_token(sql):
    return sql.startswith('INSERT INTO "authtoken_token"') or (
        'FROM "authtoken_token" WHERE "authtoken_token"."user_id" =' in sql
    )


def _reads(sql, table):
    return [q for q in sql if q.startswith("SELECT") and f'FROM "{table}"' in q]


def _locking(sql):
    """Where the session and its table are locked (``FOR UPDATE`` on PostgreSQL; SQLite
    has no row locks, the query is the same otherwise)."""
    return next(
        i for i, q in enumerate(sql)
        if q.startswith("SELECT") and 'FROM "chouette_chouette" INNER JOIN "matches_table"' in q
    )  # fmt: skip


def _fresh_card(pk):
    """The answer as GET builds it from a fresh read."""
    return ChouetteOutput(chouette_card(Chouette.objects.get(pk=pk))).data


def _by_fields(pk):
    """The answer as DRF built it field by field before the speed work: the session's
    own values (its times, stake and options) through every field of ``ChouetteOutput``."""
    chouette = Chouette.objects.get(pk=pk)
    body = chouette_card(chouette)
    own = {"stake": chouette.stake, "options": chouette, "created_at": chouette.recorded_at,
           "closed_at": chouette.closed_at}  # fmt: skip
    if body["game"] is not None:
        own["game"] = {**body["game"], "deadline": chouette.table.deadline}
    return serializers.Serializer.to_representation(ChouetteOutput(), {**body, **own})


def _step(table):
    """One action of whoever must act: the mover's roll or first legal play, or each
    answer owed to a double taken (the table's bodies never double here)."""
    game = table.game
    if game is None or game["phase"] == "over":
        return table.post(table.box, "start")
    mover = game["awaiting"][0]
    if game["phase"] == "roll":
        return table.post(mover, "roll", turn_no=game["turn_no"])
    plays = game["legal_plays"]
    return table.post(mover, "move", turn_no=game["turn_no"], play=plays[0] if plays else "")


@pytest.mark.django_db
@pytest.mark.parametrize("players", [4, 6])
def test_an_action_reads_the_session_once_and_its_queries_stay_flat(api, members, players):
    order = ["alice", "bob", "carol", "dave", "erin", "frank"][:players]
    table = OnlineTable(api, members, order, cube="multiple", turn_time=60)
    for name in order:
        table.get(name)  # each member's token read once, then cached
    counts, games_ended = [], 0
    for _action in range(400):
        response, sql = _queries(lambda: _step(table))
        assert response.status_code == 200, response.json()
        table.body = response.json()
        assert len(_reads(sql, "chouette_chouette")) == 1, sql  # with its table, locked
        assert 'INNER JOIN "matches_table"' in _reads(sql, "chouette_chouette")[0], sql
        assert len(_reads(sql, "club_player")) == 1, sql  # the names and points, once
        assert not _reads(sql, "chouette_membership"), sql
        assert not _reads(sql, "matches_table"), sql
        updates = [q for q in sql if q.startswith('UPDATE "chouette_chouette"')]
        assert len(updates) == 1, sql  # the version moves on with the dice and the seats
        ended = table.game["phase"] == "over"
        games_ended += ended
        locked = _locking(sql)
        assert _reads(sql[:locked], "club_player"), sql  # the standing read before the lock
        assert len(sql) - locked == QUERIES_UNDER_THE_LOCK + 2 * ended, sql
        counts.append((ended, len(sql)))
        if games_ended == 2:
            break
    assert games_ended == 2 and len(counts) > 60
    assert {n for ended, n in counts if not ended} == {QUERIES_PER_ACTION}, counts
    assert {n for ended, n in counts if ended} == {QUERIES_AT_A_GAMES_END}, counts


@pytest.mark.django_db
def test_each_answer_is_what_a_fresh_get_answers_across_a_games_end(api, members):
    # A clock: every answer carries a deadline.
    order = ["alice", "bob", "carol", "dave"]
    table = OnlineTable(api, members, order, cube="single", turn_time=60)
    games_seen, scores_seen = set(), set()
    for _action in range(400):
        response = _step(table)
        assert response.status_code == 200, response.json()
        table.body = response.json()
        assert table.body == _fresh_card(table.pk) == _by_fields(table.pk)
        assert table.body == table.get("erin").json()  # a member watching
        games_seen.add(table.body["games"])
        scores_seen.add(tuple(sorted(table.body["scores"].items())))
        if table.body["games"] == 2:
            break
    assert games_seen == {0, 1, 2}
    assert len(scores_seen) > 1  # a game's end moved the scores on
    assert sum(table.body["scores"].values()) == 0


@pytest.mark.django_db
def test_h2_a_proposal_reads_only_the_rows_it_locks_and_replaces_the_members_own(api, members):
    table = OnlineTable(api, members, ["alice", "bob", "carol", "dave"], cube="multiple")
    table.act("alice", "start")
    game = table.play(until=lambda g: g["phase"] == "move" and g["awaiting"] == ["bob"]
                      and len(g["legal_plays"]) > 1)  # fmt: skip
    version = table.get("alice").json()["version"]
    table.get("dave")  # dave's token read once, then cached
    for play in game["legal_plays"][:2]:
        body = {"turn_no": game["turn_no"], "kind": "play", "play": play}
        response, sql = _queries(lambda body=body: table.post("dave", "proposals", **body))
        assert response.status_code == 201, response.json()
        assert len(sql) == QUERIES_PER_PROPOSAL, "\n".join(q[:160] for q in sql)
        assert not _reads(sql, "club_player"), sql  # no standing: the answer is the proposal
        assert not [q for q in sql if "SAVEPOINT" in q], sql
    seen = table.get("carol", "proposals/").json()
    assert [(p["player"], p["play"], p["turn_no"]) for p in seen] == [
        ("dave", game["legal_plays"][1], game["turn_no"])
    ]
    assert table.get("alice").json()["version"] == version + 2  # the team's boards look again


@pytest.mark.django_db
@pytest.mark.parametrize("players", [4, 6])
def test_a_get_reads_the_session_and_its_players_once_whatever_the_seats(api, members, players):
    order = ["alice", "bob", "carol", "dave", "erin", "frank"][:players]
    table = OnlineTable(api, members, order, cube="multiple")
    table.act("bob", "start")
    response, sql = _queries(lambda: table.get("gina"))
    assert response.status_code == 200
    assert response.json()["game"]["turn_no"] == table.game["turn_no"]
    assert len(sql) == QUERIES_PER_GET, sql
    assert response.json() == _fresh_card(table.pk)


@pytest.mark.django_db
def test_an_action_at_an_unknown_or_a_recorded_chouette_is_refused_in_json(
    api, members, open_chouette
):
    table = OnlineTable(api, members, ["alice", "bob", "carol", "dave"])
    recorded = open_chouette("alice", "bob", "carol", "dave")
    client = table.client("alice")
    unknown = client.post(f"/api/chouettes/{table.pk + 1000}/start/", {}, format="json")
    assert unknown.status_code == 404 and set(unknown.json()) == {"error", "detail"}
    played = client.post(f"/api/chouettes/{recorded.pk}/start/", {}, format="json")
    assert played.status_code == 409 and set(played.json()) == {"error", "detail"}
    assert Chouette.objects.get(pk=recorded.pk).version == recorded.version


@pytest.mark.django_db
def test_a_timeout_task_is_sent_only_for_a_new_deadline_and_outlives_the_answers(
    api, members, clock, django_capture_on_commit_callbacks
):
    table = OnlineTable(api, members, ["alice", "bob", "carol", "dave"], cube="multiple",
                        turn_time=30)  # fmt: skip
    table.act("alice", "start")
    table.box_to_roll()
    with django_capture_on_commit_callbacks() as sent:
        table.act("alice", "double")
    assert len(sent) == 1  # the box's double: a new deadline
    doubled = Table.objects.get(chouette__pk=table.pk)
    with django_capture_on_commit_callbacks() as sent:
        for name in ("bob", "carol"):
            table.act(name, "take", turn_no=table.game["cubes"][name]["offered_at"])
    assert sent == []  # the members' answers leave the double's deadline running
    kept = Table.objects.get(chouette__pk=table.pk)
    assert (kept.deadline, kept.deadline_turn) == (doubled.deadline, doubled.turn_no)
    clock.advance(31)
    # The task sent with the double (its turn) applies the deadline: dave passes.
    assert table_engine.table_timeout(table_id=kept.pk, turn_no=doubled.deadline_turn)
    assert table.get("alice").json()["game"]["cubes"]["dave"]["state"] == "passed"
    assert not table_engine.table_timeout(table_id=kept.pk, turn_no=doubled.deadline_turn)


def _played(api, members, order, games):
    """An online session of ``order`` with ``games`` games played to their end."""
    table = OnlineTable(api, members, order, cube="multiple")
    for _action in range(2000):
        if table.body["games"] == games:
            return table
        response = _step(table)
        assert response.status_code == 200, response.json()
        table.body = response.json()
    raise AssertionError("the games did not end")


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["", "?live=region"])  # the page; its region, live_region.js's
def test_the_table_page_reads_the_same_whatever_the_seats_and_the_games(api, client, members, path):
    for order, games in ((["alice", "bob", "carol", "dave"], 1), (NAMES[:6], 3)):
        table = _played(api, members, order, games)
        client.force_login(members["gina"].user)
        response, sql = _queries(lambda pk=table.pk: client.get(f"/chouettes/{pk}/{path}"))
        assert response.status_code == 200
        html = response.content.decode()
        for pk in Chouette.objects.get(pk=table.pk).seats:
            assert members_by_pk(members)[pk].display_name in html
        assert f'data-live-version="{table.body["version"]}"' in html
        assert len(_reads(sql, "chouette_chouette")) == 1, sql
        standing = [q for q in sql if 'INNER JOIN "chouette_membership"' in q]
        assert len(standing) == 1, sql  # the players, their points and names, once
        assert len(sql) == QUERIES_PER_TABLE_PAGE, sql


@pytest.mark.django_db
def test_the_games_list_names_the_points_from_the_sessions_names(api, members):
    table = _played(api, members, NAMES[:6], 3)
    response, sql = _queries(lambda: table.get("gina", "games/"))
    listed = response.json()
    listed = listed.get("results", listed)
    assert [game["number"] for game in listed] == [1, 2, 3]
    assert all(sum(game["points"].values()) == 0 for game in listed)
    assert set(listed[0]["points"]) <= set(NAMES[:6])
    assert not _reads(sql, "auth_user"), sql  # the points by player id, named by the names


@pytest.mark.django_db
def test_a_members_board_reads_the_same_whatever_the_seats_and_the_games(api, client, members):
    counts = []
    for order, games in ((["alice", "bob", "carol", "dave"], 1), (NAMES[:6], 3)):
        table = _played(api, members, order, games)
        client.force_login(members["bob"].user)
        response, sql = _queries(lambda pk=table.pk: client.get(f"/chouettes/{pk}/play/"))
        assert response.status_code == 200
        html = response.content.decode()
        for pk in Chouette.objects.get(pk=table.pk).seats:
            assert members_by_pk(members)[pk].display_name in html
        standing = [q for q in sql if 'INNER JOIN "chouette_membership"' in q]
        assert len(standing) == 1, sql  # the players, their points and names, once
        assert len(_reads(sql, "chouette_chouette")) == 1, sql
        counts.append(len(sql))
    assert counts[0] == counts[1], counts


def members_by_pk(members):
    return {player.pk: player for player in members.values()}


def _locked_row(pk):
    """The session as the online action reads it under the lock (outside one here)."""
    return selectors.chouette_card_rows().annotate(rows_count=selectors.game_rows()).get(pk=pk)


@pytest.mark.django_db
def test_the_standing_read_ahead_of_the_lock_stands_only_while_nothing_it_shows_moved(
    open_chouette, members, staff
):
    chouette = open_chouette("alice", "bob", "carol")
    ahead = selectors.chouette_standing_ahead(pk=chouette.pk)
    fresh = selectors.chouette_standing(chouette=_locked_row(chouette.pk))
    assert ahead.standing_if_current(locked=_locked_row(chouette.pk)) == fresh
    # A game written since: the points moved, so it is read again.
    services.chouette_game_record(
        chouette=chouette,
        record={"winner": "box", "result": "single",
                "members": [member("bob"), member("carol")]},
        recorded_by=staff.user,
    )  # fmt: skip
    assert ahead.standing_if_current(locked=_locked_row(chouette.pk)) is None
    ahead = selectors.chouette_standing_ahead(pk=chouette.pk)
    standing = ahead.standing_if_current(locked=_locked_row(chouette.pk))
    assert standing == selectors.chouette_standing(chouette=_locked_row(chouette.pk))
    assert standing is not None and standing.games == 1 and sum(standing.totals.values()) == 0
    # A player seated since (H13): not named by what was read ahead.
    services.chouette_join(chouette=chouette, player=members["dave"], by=staff.user)
    assert ahead.standing_if_current(locked=_locked_row(chouette.pk)) is None
    # An unknown session: nothing read, nothing kept.
    assert selectors.chouette_standing_ahead(pk=chouette.pk + 1000).rows is None


@pytest.mark.django_db
def test_an_action_whose_standing_moved_before_its_lock_reads_it_again_under_the_lock(
    api, members, monkeypatch
):
    """The standing read ahead of the lock is from before the game's last action: the
    action that ends the game answers with the points it wrote, and the next start reads
    the standing again under the lock (the game row counted there is one more)."""
    table = OnlineTable(api, members, ["alice", "bob", "carol", "dave"], cube="multiple")
    stale = selectors.chouette_standing_ahead(pk=table.pk)  # no game written yet
    for _action in range(400):
        response = _step(table)
        assert response.status_code == 200, response.json()
        table.body = response.json()
        if table.body["games"] == 1:
            break
    assert table.body["games"] == 1 and table.body["scores"] != dict.fromkeys(
        table.body["scores"], 0
    )
    monkeypatch.setattr(selectors, "chouette_standing_ahead", lambda *, pk: stale)
    response, sql = _queries(lambda: table.post(table.body["players"][0], "start"))
    assert response.status_code == 200, response.json()
    locked = _locking(sql)
    assert len(_reads(sql[locked:], "club_player")) == 1, sql  # read again, under the lock
    assert response.json() == _fresh_card(table.pk)
    assert response.json()["scores"] == table.body["scores"]


@pytest.mark.django_db
def test_the_counts_written_out_in_sql_agree_with_the_orms(open_chouette, staff):
    """``games_played`` and the game rows, counted in SQL written out (cheap to compile),
    against the ORM's counts, across games recorded and undone."""
    chouette = open_chouette("alice", "bob", "carol")
    other = open_chouette("dave", "erin", "frank")
    record = {"winner": "box", "result": "single", "members": [member("bob"), member("carol")]}
    steps = [
        lambda: services.chouette_game_record(chouette=chouette, record=record,
                                              recorded_by=staff.user),
        lambda: services.chouette_game_record(chouette=chouette, record=record,
                                              recorded_by=staff.user),
        lambda: services.chouette_game_undo(chouette=chouette, recorded_by=staff.user),
        lambda: services.chouette_game_undo(chouette=chouette, recorded_by=staff.user),
        lambda: services.chouette_game_record(chouette=chouette, record=record,
                                              recorded_by=staff.user),
    ]  # fmt: skip
    seen = []
    for step in [lambda: None, *steps]:
        step()
        for pk in (chouette.pk, other.pk):
            row = _locked_row(pk)
            assert row.games_played == selectors.chouette_games_played(chouette=row)
            assert row.rows_count == selectors.chouette_rows(chouette=row)
            ahead = selectors.chouette_standing_ahead(pk=pk)
            assert ahead.rows == row.rows_count
        seen.append((_locked_row(chouette.pk).games_played, _locked_row(chouette.pk).rows_count))
    assert seen == [(0, 0), (1, 1), (2, 2), (1, 3), (0, 4), (1, 5)]
    listed = {c.pk: c.games_played for c in selectors.chouette_list()}
    assert listed == {chouette.pk: 1, other.pk: 0}


@pytest.mark.django_db
def test_the_standing_written_out_in_sql_agrees_with_the_orms(open_chouette, staff, members):
    """The players and their points (``chouette_standings``, ``chouette_standing_ahead``),
    read in SQL written out (cheap to compile), against the ORM's sums of the game points
    and its memberships, for two sessions read at once, across games recorded and undone,
    a player joining, leaving and coming back."""
    chouette = open_chouette("alice", "bob", "carol")
    other = open_chouette("dave", "erin", "frank")
    gina = members["gina"]
    gina.display_name = "Aa Gina"  # first in display-name order
    gina.save()
    record = {"winner": "box", "result": "gammon", "members": [member("bob"), member("carol")]}
    with_gina = {**record, "members": [member("bob"), member("carol"), member("gina")]}

    def play(game):
        return lambda: services.chouette_game_record(
            chouette=chouette, record=game, recorded_by=staff.user
        )

    def seat(change):
        return lambda: change(chouette=chouette, player=gina, by=staff.user)

    steps = [
        play(record), play(record), lambda: services.chouette_game_undo(
            chouette=chouette, recorded_by=staff.user
        ), seat(services.chouette_join), play(with_gina), seat(services.chouette_leave),
        seat(services.chouette_join), play(with_gina),
    ]  # fmt: skip
    for step in [lambda: None, *steps]:
        step()
        sessions = list(Chouette.objects.filter(pk__in=[chouette.pk, other.pk]))
        standings = selectors.chouette_standings(chouettes=sessions)
        for session in sessions:
            stints = Membership.objects.filter(chouette=session).select_related("player__user")
            players = {stint.player for stint in stints}
            sums = dict(
                GamePoints.objects.filter(game__chouette=session)
                .values("player")
                .annotate(total=Sum("points"))
                .values_list("player", "total")
            )
            standing = standings[session.pk]
            assert standing.names == {p.pk: p.user.username for p in players}
            assert standing.totals == {p.pk: sums.get(p.pk, 0) for p in players}
            shown = sorted(players, key=lambda p: p.display_name)
            assert list(standing.display_names.values()) == [p.display_name for p in shown]
            ahead = selectors.chouette_standing_ahead(pk=session.pk)
            assert (ahead.names, ahead.totals) == (standing.names, standing.totals)
            assert ahead.rows == session.game_rows.count()
    totals = standings[chouette.pk].totals
    assert sum(totals.values()) == 0
    assert totals[gina.pk] != 0
