"""Round deadlines: set when a round starts (or moved by the director in the admin), a
Celery task at the deadline plus beat's sweep, and the tournament's rule applied once:
list the unfinished pairings, or decide them (the side that did not play forfeits, or
the leader wins) through the matches' forfeit and the director's result path."""

from collections import Counter
from datetime import datetime, timedelta

import pytest
from django.conf import settings
from django.utils import timezone

from club.models import MatchResult
from matches.demo import play_on
from matches.models import Action, Match
from tests import threads
from tests.integration.worker import worker_process
from tests.matches.conftest import Clock
from tests.tournaments.admin_forms import submit
from tests.tournaments.test_admin import messages_of
from tests.waiting import wait_until
from tournaments import services, tasks
from tournaments.models import Pairing, Round, Tournament
from web import clock as web_clock


@pytest.fixture
def clock(monkeypatch):
    """The clock of play (``web.clock.now``), moved by hand."""
    fixed = Clock()
    monkeypatch.setattr(web_clock, "now", fixed)
    return fixed


@pytest.fixture
def sent(monkeypatch):
    """The deadline tasks sent to the broker: (task name, args, eta)."""
    calls = []

    def send_at(name, *, args, eta, queue):
        calls.append((name, args, eta))

    monkeypatch.setattr(services, "send_at", send_at)
    return calls


def knockout(staff, make_player, *, count=4, **options):
    """A single elimination of ``count`` players (``e1`` the best seed), drawn."""
    tournament = services.tournament_create(
        created_by=staff.user,
        name="Deadline cup",
        format="single_elimination",
        match_lengths="7",
        **options,
    )
    for n in range(1, count + 1):
        player = make_player(f"e{n}", rating=1700.0 - 10 * n)
        services.entry_add(tournament=tournament, player=player, recorded_by=staff.user)
    return services.tournament_start(tournament=tournament)


def first_round(tournament):
    return Round.objects.get(tournament=tournament, number=1)


def pairings_of(played):
    return list(
        played.pairings.select_related("first__player", "second__player", "winner", "match")
        .order_by("position")
        .all()
    )


def test_a_round_gets_its_deadline_and_its_task_when_it_starts(
    staff, make_player, clock, sent, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        tournament = knockout(staff, make_player, round_deadline_hours=48)
    played = first_round(tournament)
    assert played.deadline == clock.now + timedelta(hours=48)
    assert sent == [("tournaments.round_deadline", [played.pk], played.deadline)]


def test_the_public_page_shows_a_rounds_deadline(client, staff, make_player):
    tournament = knockout(staff, make_player, round_deadline_hours=48)
    played = first_round(tournament)
    played.deadline = timezone.make_aware(datetime(2030, 5, 17, 20, 30))
    played.save(update_fields=["deadline"])
    page = client.get(tournament.get_absolute_url()).content.decode()
    assert "Deadline: May 17, 2030, 8:30 p.m." in page


def test_without_hours_per_round_a_round_has_no_deadline(staff, make_player, sent):
    tournament = knockout(staff, make_player)
    assert first_round(tournament).deadline is None
    assert tasks.deadlines() == 0


def test_the_list_rule_only_lists_the_overdue_pairings(staff, make_player, clock):
    tournament = knockout(staff, make_player, round_deadline_hours=2)
    played = first_round(tournament)
    clock.advance(3599)
    assert tasks.round_deadline(played.pk) is False  # early: nothing done
    clock.advance(2 * 3600)
    assert tasks.round_deadline(played.pk) is True
    assert tasks.round_deadline(played.pk) is False  # once only
    assert all(pairing.winner_id is None for pairing in pairings_of(played))
    assert Round.objects.get(pk=played.pk).deadline_applied_at == clock.now
    assert not MatchResult.objects.exists()


def test_forfeit_online_the_side_that_made_fewer_moves_loses(staff, make_player, clock):
    tournament = knockout(staff, make_player, online=True, round_deadline_hours=24,
                          deadline_rule="forfeit")  # fmt: skip
    played = first_round(tournament)
    active, idle = pairings_of(played)  # e1 v e4, e2 v e3
    # The first match is played on until one side has made more actions than the other.
    match = active.match
    while True:
        match = play_on(match, actions=1)
        made = Counter(
            Action.objects.filter(table=match.table, actor__isnull=False).values_list(
                "actor__user__username", flat=True
            )
        )
        if made["e1"] != made["e4"]:
            break
    busier = "e1" if made["e1"] > made["e4"] else "e4"
    clock.advance(24 * 3600)
    assert tasks.deadlines() == 1
    active.refresh_from_db()
    idle.refresh_from_db()
    assert active.winner.player.username == busier
    # Nobody moved in the second: the better seed of the draw (e2) goes through.
    assert idle.winner.player.username == "e2"
    for pairing in (active, idle):
        match = Match.objects.get(pk=pairing.match_id)
        assert match.status == Match.Status.FINISHED and match.ended_by == "abandoned"
        assert pairing.result == match.result and pairing.result.ended_by == "abandoned"
        assert pairing.source == Pairing.Source.ONLINE
    # The bracket moves on as usual: the final between the two winners has started.
    [final] = Round.objects.get(tournament=tournament, number=2).pairings.all()
    assert {final.first.player.username, final.second.player.username} == {busier, "e2"}
    assert final.match.status == Match.Status.PLAYING
    # Once only: the sweep and a repeated task find nothing more to do.
    assert tasks.deadlines() == 0
    assert tasks.round_deadline(played.pk) is False
    assert MatchResult.objects.count() == 2


def test_leader_the_player_ahead_in_the_match_wins(staff, make_player, clock):
    tournament = knockout(staff, make_player, count=2, online=True, round_deadline_hours=1,
                          deadline_rule="leader")  # fmt: skip
    [pairing] = pairings_of(first_round(tournament))
    match = pairing.match
    while match.state["score"][0] == match.state["score"][1]:
        match = play_on(match, actions=1)
    assert match.status == Match.Status.PLAYING  # a game won of seven points
    ahead = match.creator if match.state["score"][0] > match.state["score"][1] else match.opponent
    clock.advance(3600)
    assert tasks.deadlines() == 1
    pairing.refresh_from_db()
    assert pairing.winner.player == ahead
    assert Match.objects.get(pk=match.pk).winner == ahead
    assert Tournament.objects.get(pk=tournament.pk).state is not None


def test_leader_level_falls_back_to_the_forfeit_rule(staff, make_player, clock):
    tournament = knockout(staff, make_player, count=2, online=True, round_deadline_hours=1,
                          deadline_rule="leader")  # fmt: skip
    [pairing] = pairings_of(first_round(tournament))
    clock.advance(3600)
    assert tasks.deadlines() == 1
    pairing.refresh_from_db()
    assert pairing.winner.player.username == "e1"  # 0-0, no moves: the better seed


def test_forfeit_over_the_board_the_better_seed_advances_on_time(staff, make_player, clock):
    tournament = knockout(staff, make_player, round_deadline_hours=5, deadline_rule="forfeit")
    played = first_round(tournament)
    first, second = pairings_of(played)
    services.pairing_result_record(pairing=second, winner=second.second, recorded_by=staff.user)
    clock.advance(5 * 3600)
    assert tasks.deadlines() == 1
    first.refresh_from_db()
    assert first.winner.player.username == "e1"
    assert first.source == Pairing.Source.OVER_THE_BOARD
    assert first.result.ended_by == MatchResult.EndedBy.TIMEOUT
    # The result of the pairing played in time stays as the director entered it.
    second.refresh_from_db()
    assert second.winner.player.username == "e3"
    assert second.result.ended_by == MatchResult.EndedBy.PLAYED
    final = Round.objects.get(tournament=tournament, number=2)
    assert final.deadline == clock.now + timedelta(hours=5)


def test_forfeit_in_a_mixed_round_decides_each_pairing_its_own_way(staff, make_player, clock):
    tournament = knockout(staff, make_player, online=True, round_deadline_hours=1,
                          deadline_rule="forfeit")  # fmt: skip
    board, online = pairings_of(first_round(tournament))
    services.pairing_play_on_board(pairing=board)  # e1 v e4 moves to a real board
    clock.advance(3600)
    assert tasks.deadlines() == 1
    board.refresh_from_db()
    online.refresh_from_db()
    assert board.match is None and board.source == Pairing.Source.OVER_THE_BOARD
    assert board.winner.player.username == "e1" and board.result.ended_by == "timeout"
    assert online.source == Pairing.Source.ONLINE
    assert online.winner.player.username == "e2" and online.result.ended_by == "abandoned"


def test_the_sweep_applies_a_deadline_whose_task_was_lost(staff, make_player, clock, sent):
    tournament = knockout(staff, make_player, round_deadline_hours=1, deadline_rule="forfeit")
    assert sent == []  # the commit never came: no task was sent
    clock.advance(3601)
    assert tasks.deadlines() == 1
    played = first_round(tournament)
    assert all(pairing.winner_id is not None for pairing in pairings_of(played))
    assert settings.CELERY_BEAT_SCHEDULE["tournaments-deadlines"]["task"] == "tournaments.deadlines"


def test_a_finished_tournaments_deadline_does_nothing(staff, make_player, clock):
    tournament = knockout(staff, make_player, count=2, round_deadline_hours=1,
                          deadline_rule="forfeit")  # fmt: skip
    [pairing] = pairings_of(first_round(tournament))
    services.pairing_result_record(pairing=pairing, winner=pairing.first, recorded_by=staff.user)
    services.tournament_finish(tournament=tournament, recorded_by=staff.user)
    clock.advance(3600)
    assert tasks.deadlines() == 0
    assert MatchResult.objects.count() == 1


def overdue_listed(client):
    """The rounds the admin's list shows under its filter "overdue"."""
    response = client.get("/admin/tournaments/round/?overdue=yes")
    assert response.status_code == 200
    return list(response.context["cl"].result_list)


def admin_round(played):
    return f"/admin/tournaments/round/{played.pk}/change/"


def test_the_director_moves_a_deadline_and_sees_the_overdue_rounds(
    client, staff, make_player, clock
):
    tournament = knockout(staff, make_player, round_deadline_hours=24)
    played = first_round(tournament)
    client.force_login(staff.user)
    past = timezone.localtime(timezone.now() - timedelta(hours=1))
    response = submit(
        client,
        admin_round(played),
        "round_form",
        {"deadline_0": past.strftime("%Y-%m-%d"), "deadline_1": past.strftime("%H:%M:%S")},
    )
    assert response.status_code == 302
    played.refresh_from_db()
    assert played.deadline == past.replace(microsecond=0)
    assert overdue_listed(client) == [played]
    page = client.get(admin_round(played)).content.decode()
    for pairing in pairings_of(played):
        assert str(pairing) in page
    tournament_page = client.get(f"/admin/tournaments/tournament/{tournament.pk}/change/")
    assert "Results of round 1 (2 overdue)" in tournament_page.content.decode()
    # The list rule: the sweep marks the deadline applied and decides nothing.
    clock.now = timezone.now()
    assert tasks.deadlines() == 1
    assert all(pairing.winner_id is None for pairing in pairings_of(played))
    # Moved later, the deadline is due once more when it passes.
    later = timezone.localtime(timezone.now() + timedelta(hours=2))
    submit(
        client,
        admin_round(played),
        "round_form",
        {"deadline_0": later.strftime("%Y-%m-%d"), "deadline_1": later.strftime("%H:%M:%S")},
    )
    played.refresh_from_db()
    assert played.deadline_applied_at is None
    assert overdue_listed(client) == []


def test_a_complete_rounds_deadline_cannot_be_moved(client, staff, make_player):
    tournament = knockout(staff, make_player, count=2)
    played = first_round(tournament)
    [pairing] = pairings_of(played)
    services.pairing_result_record(pairing=pairing, winner=pairing.first, recorded_by=staff.user)
    client.force_login(staff.user)
    response = submit(
        client,
        admin_round(played),
        "round_form",
        {"deadline_0": "2030-01-01", "deadline_1": "12:00:00"},
    )
    assert "is complete: it needs no deadline." in " ".join(messages_of(response))
    assert Round.objects.get(pk=played.pk).deadline is None


@pytest.mark.django_db(transaction=True)
def test_five_tasks_at_once_apply_a_deadline_once(staff, make_player, clock):
    tournament = knockout(staff, make_player, count=4, online=True, round_deadline_hours=1,
                          deadline_rule="forfeit")  # fmt: skip
    played = first_round(tournament)
    clock.advance(3600)
    outcomes = threads.at_once(lambda: tasks.round_deadline(played.pk), 5)
    assert sorted(outcomes, key=str) == [False] * 4 + [True], outcomes
    assert MatchResult.objects.count() == 2
    assert Match.objects.filter(ended_by="abandoned").count() == 2
    assert Round.objects.filter(tournament=tournament, number=2).count() == 1


@pytest.mark.integration
@pytest.mark.django_db(transaction=True)
def test_a_real_worker_applies_a_round_deadline_when_it_comes(staff, make_player, settings):
    tournament = knockout(staff, make_player, count=2, online=True, deadline_rule="forfeit")
    [pairing] = pairings_of(first_round(tournament))
    with worker_process(test_database=True) as queue:
        settings.TOURNAMENTS_DEADLINE_QUEUE = queue
        deadline = timezone.now() + timedelta(seconds=2)
        services.round_deadline_set(played=first_round(tournament), deadline=deadline)

        def won():
            pairing.refresh_from_db()
            return pairing.winner_id is not None

        assert wait_until(won, timeout=60, every=0.1)
    assert pairing.winner.player.username == "e1"
    match = Match.objects.get(pk=pairing.match_id)
    assert match.ended_by == "abandoned" and match.finished_at >= deadline
    assert Round.objects.get(pk=pairing.round_id).deadline_applied_at >= deadline
