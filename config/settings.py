"""Settings, all from the environment, with embedded defaults that need no server.

Left unset, the service runs on a SQLite file and a filesystem Celery broker under
``var/`` (what ``make run`` uses). Production sets ``DATABASE_URL`` (PostgreSQL),
``CELERY_BROKER_URL`` (Redis), ``SECRET_KEY``, ``ALLOWED_HOSTS`` and leaves ``DEBUG`` off.
"""

import os
from datetime import timedelta
from pathlib import Path

import dj_database_url
import django_stubs_ext
from celery.schedules import crontab
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _

from web.names import ID_SCHEMA, USERNAME_SCHEMA

# Django's generic classes (ModelAdmin[Player], ModelForm[...]) take type arguments.
django_stubs_ext.monkeypatch()

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("VAR_DIR", BASE_DIR / "var"))
VAR_DIR.mkdir(parents=True, exist_ok=True)

TRUE = {"1", "true", "yes", "on"}
FALSE = {"0", "false", "no", "off"}


def env_bool(name: str, default: bool) -> bool:
    """An on/off variable: unset or empty is ``default``; anything but 1/0, true/false,
    yes/no, on/off is refused, naming the variable (a typo is not "off")."""
    value = os.environ.get(name, "").strip().lower()
    if not value:
        return default
    if value not in TRUE | FALSE:
        raise ImproperlyConfigured(
            f"{name}={os.environ[name]!r}: say 1 or 0 (also true/false, yes/no, on/off)."
        )
    return value in TRUE


def env_list(name: str, default: str) -> list[str]:
    """A comma-separated list: unset is ``default``; an empty item or one with spaces
    inside (items separated by spaces, not commas) is refused, naming the variable."""
    value = os.environ.get(name, default)
    if not value.strip():
        return []
    items = [item.strip() for item in value.split(",")]
    if any(not item or any(c.isspace() for c in item) for item in items):
        raise ImproperlyConfigured(
            f"{name}={value!r}: separate the items with commas, with none left empty."
        )
    return items


def env_int(name: str, default: int) -> int:
    """A whole number: unset or empty is ``default``; anything else is refused."""
    value = os.environ.get(name, "").strip()
    if not value:
        return default
    if not value.isascii() or not value.isdigit():
        raise ImproperlyConfigured(f"{name}={value!r}: say a whole number of 0 or more.")
    return int(value)


DEBUG = env_bool("DEBUG", False)

SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("Set SECRET_KEY (or DEBUG=1 for a development server).")
    SECRET_KEY = "dev-only-insecure-key-do-not-use-in-production"

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "127.0.0.1,localhost" if DEBUG else "")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", "")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "csp",
    "django_filters",
    "axes",
    "web",
    "club",
    "matches",
    "chouette",
    "tournaments",
    "analysis",
]

MIDDLEWARE = [
    "web.logging.RequestLogMiddleware",
    # The engine worker of this machine holds still while an action runs.
    "web.middleware.ActionsToldMiddleware",
    "django.middleware.security.SecurityMiddleware",
    # Every answer (pages, the API, static files) carries the Content-Security-Policy.
    "csp.middleware.CSPMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # A login refused for too many wrong passwords answers web.guard.lockout_response.
    "axes.middleware.AxesMiddleware",
    # Last: the first asked about what a view raised (a busy database is a 503).
    "web.api_errors.ApiErrorMiddleware",
]
# The largest request body read (bytes; file uploads aside): a larger one is refused,
# a 413 under /api/ (web.api_parsers.JSONParser). The API's bodies are a few hundred bytes.
DATA_UPLOAD_MAX_MEMORY_SIZE = env_int("MAX_BODY_BYTES", 1024 * 1024)

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "django.template.context_processors.i18n",
                "web.context_processors.club",
            ],
        },
    },
]


def sqlite_options(busy_timeout: int) -> dict[str, object]:
    """The embedded database's connection: a write waits ``busy_timeout`` seconds for
    the file (then it is a 503 with Retry-After, web.api_errors, and changes nothing),
    taking its lock as it begins (IMMEDIATE: no deadlock between two readers turned
    writers). WAL: readers never wait for a writer, nor a writer for readers; NORMAL
    syncs the log at checkpoints, not at each commit (a power cut may lose the last
    commits, never the file). docs/operations.md."""
    return {
        "timeout": busy_timeout,
        "transaction_mode": "IMMEDIATE",
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }


DATABASE_URL = os.environ.get("DATABASE_URL") or f"sqlite:///{VAR_DIR / 'club.sqlite3'}"
# Each web thread keeps its own connection for CONN_MAX_AGE seconds, idle or not: with
# gunicorn's threads (2 workers x 512) that is more than PostgreSQL's 100 connections,
# and requests fail (bench/api_play.py found it). So by default a request opens its own
# and closes it; behind a pooler (PgBouncer) set DATABASE_CONN_MAX_AGE to keep them. The
# worker's and beat's few threads keep theirs (config/worker.py). A kept connection is
# checked before each request's or task's first query (a database restarted meanwhile).
DATABASES = {
    "default": dj_database_url.parse(
        DATABASE_URL,
        conn_max_age=env_int("DATABASE_CONN_MAX_AGE", 0),
        conn_health_checks=True,
    )
}
# Seconds a write waits for a lock another holds (SQLite's busy timeout, PostgreSQL's
# lock_timeout) before the request answers 503 with Retry-After, changing nothing.
DATABASE_BUSY_TIMEOUT = env_int("DATABASE_BUSY_TIMEOUT", 20)
# Or DATABASE_POOL=N: on PostgreSQL, N connections at most per process, shared by its
# threads (Django's pool, the psycopg-pool package); a request waits for a free one up to
# DATABASE_POOL_TIMEOUT seconds (then a 503 with Retry-After). A pool that cannot connect
# (the database down) tries again after 1, 2, 4... s, doubling up to minutes: it gives
# each attempt up after 5 s instead, and the next request starts a new one at once, so
# the club serves again within seconds of the database's return (docs/operations.md).
DATABASE_POOL = env_int("DATABASE_POOL", 0)
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    DATABASES["default"]["OPTIONS"] = {"options": f"-c lock_timeout={DATABASE_BUSY_TIMEOUT}s"}
    if DATABASE_POOL:
        DATABASES["default"]["CONN_MAX_AGE"] = 0
        DATABASES["default"]["OPTIONS"]["pool"] = {
            "min_size": 1,
            "max_size": DATABASE_POOL,
            "timeout": env_int("DATABASE_POOL_TIMEOUT", 20),
            "reconnect_timeout": 5,
        }
        # The pool's connections outlive the requests, so a statement prepared on one
        # serves every later request that borrows it: the table engine's locked reads are
        # (web/prepared.py), planned once per connection. Only a cursor that binds its
        # parameters on the server prepares: Django's own bind them in the client, never.
        DATABASES["default"]["OPTIONS"]["prepare_threshold"] = 0
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # The web server and the Celery worker share the file: wait for locks, don't fail.
    DATABASES["default"]["OPTIONS"] = sqlite_options(DATABASE_BUSY_TIMEOUT)
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
# Guessing passwords (web/guard.py, docs/operations.md "Guessing and throttling"): after
# LOGIN_FAILURE_LIMIT wrong passwords for one account from one address, that account is
# locked from that address for LOGIN_LOCK_MINUTES (the right password refused too), on
# the login page and the token endpoint alike; the count is in the database, shared by
# every process. Another account from the same address (a club room behind one router)
# and the same account from another address are not locked. Staff lift a lock in the
# admin (Axes: access attempts, delete) or with ``manage.py axes_reset_username``.
AUTHENTICATION_BACKENDS = [
    "web.guard.GuessingGuardBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = env_int("LOGIN_FAILURE_LIMIT", 8)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("LOGIN_LOCK_MINUTES", 15))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
# Wrong passwords sent while locked neither count nor extend the lock; a right one
# after a few wrong (a typo) starts the count again.
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_CALLABLE = "web.guard.lockout_response"
# No banner from axes at the start of every process (each manage.py command too); its
# lines for failed logins and locks are logged all the same.
AXES_VERBOSE = False
# The proxies in front of the web server that add the client's address to
# X-Forwarded-For (a TLS proxy: 1); 0, the connection's address is the client's.
TRUSTED_PROXIES = env_int("TRUSTED_PROXIES", 0)
AXES_CLIENT_IP_CALLABLE = "web.guard.client_address"
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"

LANGUAGE_CODE = os.environ.get("LANGUAGE_CODE", "en")
LANGUAGES = [
    ("en", _("English")),
    ("bg", _("Bulgarian")),
    ("el", _("Greek")),
    ("ro", _("Romanian")),
]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = os.environ.get("TIME_ZONE", "UTC")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "static"
STATIC_ROOT.mkdir(parents=True, exist_ok=True)
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "whitenoise.storage.CompressedManifestStaticFilesStorage"
    },
}

# The club.
CLUB_NAME = os.environ.get("CLUB_NAME", "Backgammon Club")
CLUB_CURRENCY = os.environ.get("CLUB_CURRENCY", "EUR")

# REST API (docs/api.md): JSON in and out, token or session auth, errors always
# {"error", "detail"}, every list paged, filters from django-filter.
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "club.auth.TokenAuthentication",  # the player read with the token
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_PARSER_CLASSES": ["web.api_parsers.JSONParser"],
    "DEFAULT_PAGINATION_CLASS": "web.api_base.Page",
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "DEFAULT_SCHEMA_CLASS": "web.api_schema.ClubAutoSchema",
    "EXCEPTION_HANDLER": "web.api_errors.exception_handler",
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
    # Writes per user (per address if anonymous): web/throttling.py. A player at a brisk
    # game sends a few dozen a minute, bench/api_play.py's club peak (an action every 1
    # to 3 s) at most 60; only its throughput bots, acting as fast as the server answers
    # (about 1,600 a minute here), pass 300, and it raises the rate for them.
    "DEFAULT_THROTTLE_CLASSES": ["web.throttling.WriteRateThrottle"],
    "DEFAULT_THROTTLE_RATES": {"writes": os.environ.get("API_WRITE_RATE", "300/min")},
    "NUM_PROXIES": TRUSTED_PROXIES or None,
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Backgammon club API",
    "DESCRIPTION": _("Matches, chouettes, tournaments, the club ledger and ratings."),
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "DEFAULT_GENERATOR_CLASS": "web.api_schema.SchemaGenerator",
    # Request strings that may not be blank say so (minLength 1): the inputs are their
    # own serializers, so the schema can be exact.
    "ENFORCE_NON_BLANK_FIELDS": True,
    "PATH_CONVERTER_OVERRIDES": {"id": ID_SCHEMA, "username": USERNAME_SCHEMA},
    # Swagger UI from the installed sidecar package: no CDN, no network at run time.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # Choice sets named once: what a game is won by (a resignation's value, a chouette
    # game's result), the tournaments' status and format, and a chouette proposal's kind
    # (apps' fields called "status", "format" or "kind" would collide).
    "ENUM_NAME_OVERRIDES": {
        "GameValueEnum": ["single", "gammon", "backgammon"],
        "ChouetteSideEnum": ["box", "team"],
        "TournamentStatusEnum": "tournaments.models.Tournament.Status",
        "TournamentFormatEnum": "tournaments.models.FormatChoice",
        "KindEnum": "chouette.models.Proposal.Kind",
        "AnalysisOutputStatusEnum": "analysis.models.MatchAnalysis.Status",
    },
}

# The cache: what the live channel's writers hand to every web process's watcher
# (docs/live.md) and each API token's user and player (club/auth.py). Redis in
# production (CACHE_URL, its own database number); left unset, files under
# VAR_DIR/cache, which every process of one machine shares (make run's two gunicorn
# workers): an entry dropped by one (a token's user changed) is gone for the others too.
# A per-process memory cache could not say so. Django's file cache keeps to 300 entries
# (then drops a third of them at random: a miss, read again from the database), checked
# at most once a second (web/cache.py; Redis through Django's backend with its clients
# built once, there too).
# "throttle": each user's recent API writes (web/throttling.py), shared by every process the
# same way: in Redis under its own prefix, or files of their own under VAR_DIR/throttle,
# kept to more entries than the club has members writing within a minute.
CACHE_URL = os.environ.get("CACHE_URL", "")
CACHES = {
    "default": {"BACKEND": "web.cache.RedisCache", "LOCATION": CACHE_URL}
    if CACHE_URL
    else {
        "BACKEND": "web.cache.FileCache",
        "LOCATION": str(VAR_DIR / "cache"),
    },
    "throttle": {
        "BACKEND": "web.cache.RedisCache",
        "LOCATION": CACHE_URL,
        "KEY_PREFIX": "throttle",
    }
    if CACHE_URL
    else {
        "BACKEND": "web.cache.FileCache",
        "LOCATION": str(VAR_DIR / "throttle"),
        "OPTIONS": {"MAX_ENTRIES": 5000},
    },
}
# Seconds an API token's user and player stay in the cache after a request read them
# (club/auth.py); every change of the token, the user or the player drops them at once.
# 0: no caching, every request reads them from the database.
TOKEN_CACHE_SECONDS = env_int("TOKEN_CACHE_SECONDS", 300)

# Celery: Redis in production; with no broker server, kombu's filesystem transport. Its
# URL names a host, which the transport ignores, so that kombu does not warn on every
# connection that it "reverts to localhost" (the demo's load printed it).
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "filesystem://localhost/")
CELERY_RESULT_BACKEND = os.environ.get(
    "CELERY_RESULT_BACKEND", f"file://{VAR_DIR / 'celery' / 'results'}"
)
if CELERY_BROKER_URL.startswith("filesystem://"):
    BROKER_DIR = VAR_DIR / "celery" / "broker"
    BROKER_DIR.mkdir(parents=True, exist_ok=True)
    # kombu's transport with each message written whole before a worker can see it
    # (web/broker.py: kombu's own lets a worker read a message half written, and crash).
    CELERY_BROKER_TRANSPORT = "web.broker:Transport"
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(BROKER_DIR),
        "data_folder_out": str(BROKER_DIR),
        "control_folder": str(VAR_DIR / "celery" / "control"),
        # How often an idle worker looks for a message (kombu's default: every second):
        # a run's analysis crosses three queues (docs/analysis.md, "The engine worker").
        "polling_interval": 0.1,
    }
if CELERY_RESULT_BACKEND.startswith("file://"):
    Path(CELERY_RESULT_BACKEND.removeprefix("file://")).mkdir(parents=True, exist_ok=True)
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TIMEZONE = TIME_ZONE
CELERY_BEAT_SCHEDULE_FILENAME = str(VAR_DIR / "celery" / "beat-schedule")
# Beat keeps its schedule file there whatever the broker (Redis included).
(VAR_DIR / "celery").mkdir(parents=True, exist_ok=True)
# Beat: every few seconds, apply the timeouts of every table (matches and chouettes alike)
# whose task was lost (a worker that was down catches up); an old sweep nobody ran is
# dropped, the next one does its work.
CELERY_BEAT_SCHEDULE = {
    "matches-sweep": {"task": "matches.sweep", "schedule": 2.0, "options": {"expires": 2.0}},
    # Tournament pairings whose online match finished while its signal was lost.
    "tournaments-collect": {
        "task": "tournaments.collect",
        "schedule": 30.0,
        "options": {"expires": 30.0},
    },
    # Analyses whose run died with its process (a crash, the hard time limit).
    "analysis-sweep": {"task": "analysis.sweep", "schedule": 60.0, "options": {"expires": 60.0}},
    # Tournament rounds whose deadline passed while its task was lost.
    "tournaments-deadlines": {
        "task": "tournaments.deadlines",
        "schedule": 60.0,
        "options": {"expires": 60.0},
    },
}
# Backups (web/backup.py, docs/operations.md "Backups"): `manage.py club_backup` and
# `club_restore`, and beat's nightly backup at BACKUP_HOUR (the club's time zone; set
# BACKUP_NIGHTLY=0 where another tool takes them), into BACKUP_DIR. Kept: the newest
# BACKUP_KEEP, and also every one younger than BACKUP_KEEP_DAYS days (0: none by age).
BACKUP_DIR = Path(os.environ.get("BACKUP_DIR", VAR_DIR / "backups"))
BACKUP_KEEP = env_int("BACKUP_KEEP", 14)
BACKUP_KEEP_DAYS = env_int("BACKUP_KEEP_DAYS", 0)
if env_bool("BACKUP_NIGHTLY", True):
    CELERY_BEAT_SCHEDULE["backup-nightly"] = {
        "task": "web.backup_nightly",
        "schedule": crontab(hour=env_int("BACKUP_HOUR", 4), minute=0),
        # A night's backup nobody ran by the next morning gives way to the next night's.
        "options": {"expires": 12 * 3600},
    }
# The queue the timeout tasks of matches and chouettes go to, which the clock worker
# alone takes (``manage.py runclub``), so a timeout never waits behind another task.
MATCHES_TIMEOUT_QUEUE: str | None = "timeouts"
# A worker reserves one task a thread or process: a timeout due now is never held in
# the buffer of one busy with another (the ETA tasks wait in the worker's timer).
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# The queue the tournaments' round deadline tasks go to (None: Celery's default queue).
TOURNAMENTS_DEADLINE_QUEUE: str | None = None
# Match analysis (docs/analysis.md): the engine's depth in GNU Backgammon's plies (0, the
# network alone: a 7-point match in well under a second), the queue the engine worker
# takes, the time a run may take (checked between decisions; the engine worker's process
# is killed 10 s later; its second start comes after, then it fails), how many starts.
# The queue's name is a setting for a broker several clubs (or test runs) share: runclub
# starts its analysis worker when that queue holds work, and another's is not its own.
ANALYSIS_PLIES = env_int("ANALYSIS_PLIES", 0)
ANALYSIS_QUEUE = os.environ.get("ANALYSIS_QUEUE", "analysis")
# The queue of the analysis' Django side (starting a run, storing its progress and its
# numbers: analysis.tasks), which the ordinary worker takes; the engine worker, without
# Django, answers there (analysis.jobs).
ANALYSIS_DJANGO_QUEUE = os.environ.get("ANALYSIS_DJANGO_QUEUE", "celery")
ANALYSIS_TIME_LIMIT = 300
ANALYSIS_ATTEMPTS = 2
ANALYSIS_IMPORT_MAX_BYTES = 256 * 1024  # a .mat file (a 25-point match: about 60 KB)
# The FIFO through which the web tells the engine worker of the same machine when an
# action starts and ends, so that the engine holds still meanwhile (web.actions_in_flight,
# analysis.engine_governor); empty: not told, the engine never held.
WEB_ACTIONS_FIFO = os.environ.get("WEB_ACTIONS_FIFO", str(VAR_DIR / "web-actions"))
# The practice robot (docs/practice.md): its moves are computed on ANALYSIS_QUEUE and its
# answers applied by the ordinary worker, on Celery's default queue.
ROBOT_REPLY_QUEUE = "celery"
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True

# Security: strict by default when not DEBUG (``manage.py check --deploy`` passes).
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", not DEBUG)
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0 if DEBUG else 31536000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", not DEBUG)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", not DEBUG)
SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", not DEBUG)
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", not DEBUG)
X_FRAME_OPTIONS = "DENY"
# The Content-Security-Policy (docs/operations.md, "Headers"): scripts and styles are
# static files of this origin, none inline (tests/test_security_headers.py greps
# the templates and the pages); the live channel is same-origin; the boards, charts and
# brackets are SVG drawn inline with presentation attributes and classes. The API docs
# page alone adds data: images (web/api_docs.py says why).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    }
}
# Under /api/ a CSRF failure answers the API's JSON error, elsewhere Django's page.
CSRF_FAILURE_VIEW = "web.api_errors.csrf_failure"

# One structured line per request and per task.
LOG_LEVEL = os.environ.get("LOG_LEVEL", "INFO")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"kv": {"()": "web.logging.KeyValueFormatter"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "kv"}},
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
    "loggers": {
        "django.server": {"level": "WARNING"},
        "django.request": {"level": "ERROR"},
        "celery": {"level": LOG_LEVEL},
    },
}
