"""Production configuration: docker-compose.yml and ``check --deploy``.

There is no Docker engine here, so the compose file is kept honest by checking that
every service runs a command this project has, and that the web server, the workers
and beat commands are the ones ``make run`` starts and the CI integration run tests.
"""

import os
import subprocess
import sys
import threading
from collections import deque
from pathlib import Path

import pytest
import yaml
from django.core.management import get_commands

from tests.processes import alive, in_group
from tests.waiting import PATIENCE, wait_until
from web.management.commands.runclub import service_commands
from web.supervision import children_stop

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
CLUB_SERVICES = {"migrate", "web", "worker", "analysis", "beat"}


def _without_python(command: list[str]) -> list[str]:
    return command[1:] if Path(command[0]).name.startswith("python") else command


def _without_option(command: list[str], option: str) -> list[str]:
    if option not in command:
        return command
    at = command.index(option)
    return command[:at] + command[at + 2 :]


def test_compose_has_every_production_service_with_health_checks():
    services = COMPOSE["services"]
    assert set(services) == {"postgres", "redis", "proxy"} | CLUB_SERVICES
    for name in ("postgres", "redis", "web", "worker", "analysis"):
        assert "healthcheck" in services[name], name
    assert {"postgres-data", "redis-data"} <= set(COMPOSE["volumes"])


def test_compose_runs_the_commands_make_run_starts():
    services = COMPOSE["services"]
    ours = service_commands("0.0.0.0:8000", beat_apart=True)
    assert _without_python(services["web"]["command"]) == _without_python(ours["web"])
    assert _without_python(services["worker"]["command"]) == _without_python(ours["worker"])
    assert _without_python(services["analysis"]["command"]) == _without_python(ours["analysis"])
    assert _without_option(_without_python(services["beat"]["command"]), "--schedule") == (
        _without_option(_without_python(ours["beat"]), "--schedule")
    )
    # make run's one worker keeps beat on a thread; compose's workers scale, beat apart.
    alone = service_commands("0.0.0.0:8000")
    assert "beat" not in alone and "--beat-thread" in alone["worker"]
    assert "--beat-thread" not in ours["worker"]


def test_every_compose_command_exists_in_the_project():
    services = COMPOSE["services"]
    migrate = services["migrate"]["command"]
    assert migrate[1] == "manage.py" and migrate[2] in get_commands()
    assert (ROOT / "manage.py").exists()
    assert (ROOT / "config" / "wsgi.py").exists()
    assert (ROOT / "config" / "celery.py").exists()
    for name in CLUB_SERVICES:
        assert services[name]["build"] == "." and (ROOT / "Dockerfile").exists()
        env = services[name]["environment"]
        assert env["DATABASE_URL"].startswith("postgres://")
        assert env["CELERY_BROKER_URL"].startswith("redis://")


def _manage_in_production(*args: str, **settings: str) -> subprocess.CompletedProcess:
    """Run ``manage.py`` with the real settings as production has them (no DEBUG)."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in {"DEBUG", "SECRET_KEY", "DJANGO_SETTINGS_MODULE"}
    }
    env.update(DJANGO_SETTINGS_MODULE="config.settings", **settings)
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


def test_check_deploy_passes_with_production_settings():
    result = _manage_in_production(
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        SECRET_KEY="x" * 20 + "-production-grade-secret-key-with-entropy-8f3a9c",
        ALLOWED_HOSTS="club.example.org",
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_production_refuses_to_start_without_a_secret_key():
    result = _manage_in_production("check")
    assert result.returncode != 0
    assert "Set SECRET_KEY" in result.stderr


def test_demo_club_is_never_loaded_in_production():
    result = _manage_in_production("load_demo", SECRET_KEY="y" * 60)
    assert result.returncode != 0
    assert "only loaded with DEBUG on" in result.stderr


def _database_setting(name: str, **settings: str) -> str:
    """``DATABASES["default"][name]`` as production reads it from the environment."""
    result = _manage_in_production(
        "shell",
        "-c",
        f"from django.conf import settings; print(settings.DATABASES['default'].get({name!r}))",
        SECRET_KEY="z" * 60,
        DATABASE_URL="postgres://club@127.0.0.1:5432/club",
        **settings,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip().splitlines()[-1]


def test_web_threads_do_not_each_keep_a_database_connection_unless_told_to():
    """gunicorn's 2 x 512 threads each keeping one would pass PostgreSQL's 100
    connections (bench/api_play.py found requests refused): by default a request closes
    its connection; DATABASE_CONN_MAX_AGE keeps them (behind a pooler)."""
    assert _database_setting("CONN_MAX_AGE") == "0"
    assert _database_setting("CONN_MAX_AGE", DATABASE_CONN_MAX_AGE="60") == "60"
    assert _database_setting("CONN_HEALTH_CHECKS") == "True"  # a kept one checked


@pytest.mark.parametrize("database", ["sqlite:///club.sqlite3", "postgres://club@db/club"])
def test_the_workers_threads_keep_their_database_connections(database):
    """A few threads, not a thousand: each keeps its connection between tasks
    (config/worker.py), unless told otherwise."""
    code = "import config.worker, django; django.setup(); from django.conf import settings; "
    code += "print(settings.DATABASES['default']['CONN_MAX_AGE'])"
    env = {"DATABASE_URL": database, "DATABASE_CONN_MAX_AGE": ""}
    assert _printed_by_a_web_worker(code, **env).split() == ["600"]
    env["DATABASE_CONN_MAX_AGE"] = "30"
    assert _printed_by_a_web_worker(code, **env).split() == ["30"]


def test_database_pool_bounds_the_connections_of_a_process():
    options = _database_setting("OPTIONS", DATABASE_POOL="16", DATABASE_CONN_MAX_AGE="60")
    pool = "'min_size': 1, 'max_size': 16, 'timeout': 20, 'reconnect_timeout': 5"
    prepared = "'prepare_threshold': 0"  # the locked reads prepared (web/prepared.py)
    assert options == "{'options': '-c lock_timeout=20s', 'pool': {" + pool + "}, " + prepared + "}"
    options = _database_setting("OPTIONS", DATABASE_POOL="16", DATABASE_POOL_TIMEOUT="3")
    assert "'timeout': 3," in options
    assert _database_setting("CONN_MAX_AGE", DATABASE_POOL="16", DATABASE_CONN_MAX_AGE="60") == "0"


def _printed_by_a_web_worker(code: str, **environment: str) -> str:
    """What ``code`` prints in a fresh interpreter that loads ``config.wsgi`` as gunicorn's
    workers do (``code`` imports it where it must), with ``environment`` added."""
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", "DEBUG": "1"}
    env.update(environment)
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True, text=True, check=True
    )
    return out.stdout


def test_the_web_worker_hides_what_it_loaded_from_the_garbage_collector():
    """gunicorn's workers load ``config.wsgi``: what it loaded is frozen (``gc.freeze``), so
    the collector's full passes scan only what requests made (their pauses stopped every
    thread of a worker for 80-180 ms, bench/README.md)."""
    printed = _printed_by_a_web_worker("import gc, config.wsgi; print(gc.get_freeze_count())")
    assert int(printed) > 10_000


@pytest.mark.parametrize("app", ["config.celery", "analysis.engine_worker"])
def test_a_celery_worker_hides_what_it_loaded_from_the_garbage_collector(app):
    """The Django worker and the engine worker freeze what they loaded once ready, as the
    web's workers do: a full collection cost an analysis run 50-70 ms."""
    code = f"import gc, {app}; from celery import signals; "
    code += "signals.worker_ready.send(sender=None); print(gc.get_freeze_count())"
    assert int(_printed_by_a_web_worker(code)) > 10_000


@pytest.mark.django_db
def test_a_task_leaves_no_queries_kept_behind_with_debug_on(settings):
    """With DEBUG on (make run), Django keeps a connection's last 9,000 queries; each
    thread of the worker kept thousands, growing all night: a task ends with none kept."""
    from django.db import connection

    from matches.tasks import sweep

    settings.DEBUG = True
    made = []
    with connection.execute_wrapper(lambda execute, *args: made.append(1) or execute(*args)):
        sweep.apply()
    assert made and connection.queries_log == deque()


@pytest.mark.parametrize("entry", ["config.wsgi", "config.worker"])
def test_the_services_processes_leave_out_what_the_club_never_uses(entry):
    """gunicorn's workers and the Celery worker and beat load none of DRF's optional
    integrations the club does not use (config/lean.py: 17 MB a process), psycopg with
    them on SQLite; DRF takes them for not installed."""
    code = f"import sys, django, {entry}; django.setup(); import rest_framework.compat as c; "
    code += "from django.db import connection; "
    code += "unused = ['requests', 'pygments', 'django.contrib.postgres']; "
    code += "unused += ['psycopg'] if connection.vendor == 'sqlite' else []; "  # else Django's
    code += "print(sorted(n for n in unused if sys.modules.get(n)), c.postgres_fields, c.requests)"
    assert _printed_by_a_web_worker(code).split() == ["[]", "None", "None"]


def test_the_web_worker_hands_the_interpreter_over_sooner():
    """A request back from a query waits at most 2 ms, not Python's 5, for the thread
    that holds the interpreter to let go (bench/README.md, "Where the chouettes' tail
    is")."""
    code = "import sys; before = sys.getswitchinterval(); import config.wsgi; "
    code += "print(before, sys.getswitchinterval())"
    assert _printed_by_a_web_worker(code).split() == ["0.005", "0.002"]


def test_stopping_the_service_leaves_none_of_its_processes_behind():
    """A child that does not stop on SIGTERM in time (gunicorn's master waiting for a
    worker that holds a live stream) is killed after the grace, and so is every process
    it started: nothing of its group outlives ``runclub``."""
    child = subprocess.Popen(
        ["sh", "-c", 'trap "" TERM; sleep 600 & sleep 600'], start_new_session=True
    )
    assert wait_until(lambda: len(in_group(child.pid)) == 3)  # the shell and its two sleeps
    group = in_group(child.pid)
    stopping = threading.Thread(target=children_stop, args=([child],), kwargs={"grace": 0.5})
    stopping.start()
    stopping.join(PATIENCE)  # far short of the ten minutes the group would live unkilled
    assert not stopping.is_alive()
    assert wait_until(lambda: not [pid for pid in group if alive(pid)])


def test_the_web_server_reads_request_lines_up_to_gunicorns_largest():
    """8190 bytes (gunicorn's default is 4094): a long query string reaches the API, which
    answers it in JSON; a longer one gets gunicorn's own 400 (docs/api.md)."""
    web = service_commands("127.0.0.1:8000")["web"]
    assert web[web.index("--limit-request-line") + 1] == "8190"


def test_the_web_server_keeps_connections_alive_beyond_its_threads():
    """gthread keeps alive only the connections above its threads (worker_connections
    minus threads): with 1,024 threads and the default 1,000 it kept none, closed every
    connection after one request and warned so at every start."""
    web = service_commands("127.0.0.1:8000")["web"]
    threads = int(web[web.index("--threads") + 1])
    assert int(web[web.index("--worker-connections") + 1]) >= 2 * threads


def test_the_demo_club_loads_quietly_on_the_embedded_defaults(tmp_path):
    """What `make demo` prints is the demo's own lines: no library warning (kombu once
    warned of a missing broker host on every connection)."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in {"DJANGO_SETTINGS_MODULE", "DATABASE_URL", "CACHE_URL"}
        and not key.startswith("CELERY_")
    }
    env.update(DJANGO_SETTINGS_MODULE="config.settings", DEBUG="1", VAR_DIR=str(tmp_path))
    for command in (["migrate", "--noinput"], ["load_demo"]):
        result = subprocess.run(
            [sys.executable, "manage.py", *command],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        assert result.returncode == 0, result.stderr
    assert "Demo club ready" in result.stdout
    assert "warning" not in (result.stdout + result.stderr).lower(), result.stderr


def test_compose_scales_web_and_workers_behind_one_proxy_and_one_beat():
    """``docker compose up --scale web=3 --scale worker=3`` (docs/
    operations.md, "Several hosts"): a replicated service has no fixed container name and
    publishes no host port (replicas would collide on it); the proxy alone listens,
    passing to every replica of ``web`` through Docker's DNS; beat is never replicated."""
    services = COMPOSE["services"]
    for name in ("web", "worker", "analysis"):
        assert "container_name" not in services[name], name
        assert "ports" not in services[name], name
        assert "replicas" not in services[name].get("deploy", {}), name
    assert services["proxy"]["ports"] == ["8000:8000"]
    assert "web" in services["proxy"]["depends_on"]
    mount = next(v for v in services["proxy"]["volumes"] if v.startswith("./deploy/nginx.conf:"))
    config = (ROOT / mount.split(":")[0]).read_text()
    assert "server web:8000;" in config
    assert "proxy_set_header X-Forwarded-Proto $http_x_forwarded_proto;" in config
    assert "proxy_read_timeout 60s;" in config  # a stream's 15 s, a held request's 25 s
    assert services["beat"].get("deploy", {}).get("replicas", 1) == 1
