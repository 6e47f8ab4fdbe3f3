"""The real workers analyse a whole played match, queued by the match's end: the Django
worker starts the run and stores it, the engine worker (no Django) judges it, a game a
task; on the embedded filesystem broker, and on Redis when CI's second run sets
``CELERY_BROKER_URL``."""

import subprocess
import sys

import pytest

from analysis.models import MatchAnalysis
from matches.demo import play_on
from tests.integration.worker import engine_worker_process, worker_process
from tests.matches.conftest import start
from tests.waiting import wait_until


@pytest.mark.integration
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("plies, judged_by", [(0, "bgsage "), (1, "gnubg ")])
def test_the_real_workers_analyse_a_finished_match(
    alice, bob, settings, api, monkeypatch, plies, judged_by
):
    """At 0-ply bgsage judges; deeper, gnubg, loaded by the engine worker's process."""
    monkeypatch.setenv("ANALYSIS_PLIES", str(plies))  # the Django worker's setting
    settings.ANALYSIS_PLIES = plies
    with (
        engine_worker_process() as engine,
        worker_process(test_database=True, engine_queue=engine) as django,
    ):
        settings.ANALYSIS_DJANGO_QUEUE = django
        match = play_on(start(alice, bob, length=3))
        assert match.status == "finished"

        def ended() -> MatchAnalysis | None:
            analysis = MatchAnalysis.objects.filter(match=match).first()
            return analysis if analysis and analysis.status in ("done", "failed") else None

        assert wait_until(ended, timeout=120, every=0.1)
    analysis = MatchAnalysis.objects.get(match=match)
    assert analysis.status == "done", analysis.error
    body = api.as_user(alice.user).get(f"/api/matches/{match.pk}/analysis/").json()
    assert body["progress"] == 1.0 and body["plies"] == settings.ANALYSIS_PLIES
    assert body["engine"].startswith(judged_by)
    assert [p["username"] for p in body["players"]] == ["alice", "bob"]
    assert all(p["decisions"] > 0 for p in body["players"])
    assert len(body["games"]) == match.table.game_number
    assert sum(len(g["decisions"]) for g in body["games"]) == analysis.decisions.count()


def test_the_engine_worker_loads_no_django(settings):
    """The engine worker's app with its task modules, its worker, pool and transports, as
    its process loads them (where Django is blocked: an import of it would fail)."""
    code = (
        "import sys\n"
        "from analysis.engine_worker import app\n"
        "app.loader.import_default_modules()\n"
        "import celery.apps.worker, celery.concurrency.solo\n"
        "import kombu.transport.filesystem, kombu.transport.redis\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'django'"
        " and sys.modules[m] is not None))\n"
        "print(sorted(t for t in app.tasks if not t.startswith('celery.')))\n"
    )
    env = {"PATH": "/usr/bin:/bin", "DJANGO_SETTINGS_MODULE": "tests.settings"}
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env=env,
        cwd=settings.BASE_DIR,
    ).stdout.splitlines()
    assert out == ["[]", "['analysis.judge_game', 'analysis.robot_move']"]


def autogroup() -> str:
    """This process's line in /proc/self/autogroup: empty where it is in no autogroup
    (a process whose session began before autogroups, as a container's first one)."""
    with open("/proc/self/autogroup") as group:
        return group.read()


@pytest.mark.parametrize("own_session", [True, False])
def test_the_engine_worker_gives_way_as_a_group_of_its_own(settings, own_session):
    """Started in a session of its own (as runclub's supervisor starts it), the engine
    worker puts its scheduling group at the lowest weight; started from another's
    session (a shell's, here the test's), it leaves that group alone."""
    code = (
        "from analysis.engine_worker import give_way_as_a_group\n"
        "give_way_as_a_group()\n"
        "print(open('/proc/self/autogroup').read(), end='')\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=settings.BASE_DIR,
        start_new_session=own_session,
    ).stdout
    if own_session:
        assert out.endswith(" nice 19\n")
    else:
        assert out == autogroup()
