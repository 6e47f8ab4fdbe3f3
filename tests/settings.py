"""Test settings: the real settings with a fixed key, plain HTTP and a fast hasher."""

import atexit
import os
import shutil
import tempfile
from pathlib import Path

os.environ.setdefault("SECRET_KEY", "tests-only-secret-key-0123456789-abcdefghijklmnopqrstuvwxyz")

from config.settings import *  # noqa: F403
from config.settings import STORAGES as BASE_STORAGES

SECURE_SSL_REDIRECT = False
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
# Tests render pages without running collectstatic first.
STORAGES = {
    **BASE_STORAGES,
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
# The API fuzzer (tests/test_api_contract.py) calls the WSGI application as "localhost".
ALLOWED_HOSTS = [*ALLOWED_HOSTS, "localhost"]  # noqa: F405
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":  # noqa: F405
    # A file, as make run's: the threads of one test (tests/matches/test_concurrency.py)
    # then wait for each other's locks as the web and worker processes do; SQLite's
    # shared in-memory database refuses a locked table at once instead of waiting.
    # One file per test run (two runs side by side must not delete each other's).
    DATABASES["default"]["TEST"] = {  # noqa: F405
        "NAME": str(VAR_DIR / f"test-club-{os.getpid()}.sqlite3")  # noqa: F405
    }
if not CACHE_URL:  # noqa: F405
    # Each test run its own memory cache, which tests/conftest.py empties before every
    # test: the embedded default's files under VAR_DIR would be shared by two runs side by
    # side, each emptying the other's. tests/club/test_auth_cache.py runs the file cache.
    CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
        "throttle": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": "throttle",
        },
    }
# The web's actions are told to no engine worker: the club's FIFO under VAR_DIR is the
# club's own (tests/analysis/test_engine_governor.py makes one of its own).
WEB_ACTIONS_FIFO = ""
# The suite's bots play whole matches through the API faster than any member clicks (and
# faster still on an idle machine): under production's write rate a long match test would
# pass or be throttled by the machine's speed. The throttle's own tests set a rate of
# their own (tests/test_guessing_and_throttling.py, ``write_limit``).
REST_FRAMEWORK = {**REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {"writes": "100000/min"}}  # noqa: F405
if CELERY_BROKER_URL.startswith("filesystem://"):  # noqa: F405
    # Each test run its own broker folder, removed when the run ends: the tasks its tests
    # send (clocks, analyses) must not wait in the club's own folder under VAR_DIR for
    # the next `make run`, whose worker would take them for the club's own. The workers a
    # test starts inherit the folder through the environment.
    if "TEST_BROKER_DIR" not in os.environ:
        os.environ["TEST_BROKER_DIR"] = tempfile.mkdtemp(prefix="club-test-broker-")
        atexit.register(shutil.rmtree, os.environ["TEST_BROKER_DIR"], ignore_errors=True)
    BROKER_DIR = Path(os.environ["TEST_BROKER_DIR"]) / "broker"
    BROKER_DIR.mkdir(exist_ok=True)
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        **CELERY_BROKER_TRANSPORT_OPTIONS,  # noqa: F405
        "data_folder_in": str(BROKER_DIR),
        "data_folder_out": str(BROKER_DIR),
        "control_folder": str(BROKER_DIR.parent / "control"),
    }
