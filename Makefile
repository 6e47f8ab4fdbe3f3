# Two commands: `make run` (set up and start the club on embedded defaults) and
# `make test` (set up and run the whole test suite). Everything else is a helper.

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
INSTALLED := $(VENV)/.installed
DEV_ENV := DEBUG=1
# The Django apps: every package with an apps.py (web, club, matches, chouette...).
DJANGO_APPS := $(patsubst %/apps.py,%,$(wildcard */apps.py))

.PHONY: run test test-browser bench bench-play bench-chouette lint format migrate demo clean help

help:
	@echo "make run    set up, migrate, load the demo club, serve on http://127.0.0.1:8000 (BIND=host:port)"
	@echo "make demo   set up, migrate and load the demo club, without serving"
	@echo "make test   set up and run every test"
	@echo "make lint   ruff check and format check, mypy --strict on the rules core and mypy over the Django apps and config"
	@echo "make test-browser   the pages in Debian's Chromium (Playwright)"
	@echo "make bench  legal-play generation and the command line against GNU Backgammon and others, and the tavli games"
	@echo "make bench-play   server play under load on PostgreSQL, Redis, gunicorn and Celery (BENCH_ARGS=--quick)"
	@echo "make bench-chouette   30 online chouettes under load, beside the matches' peak (BENCH_ARGS=--quick)"

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(INSTALLED): $(BIN)/python requirements/lock.txt
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements/lock.txt
	touch $(INSTALLED)

migrate: $(INSTALLED)
	$(DEV_ENV) $(BIN)/python manage.py migrate --noinput

demo: migrate
	$(DEV_ENV) $(BIN)/python manage.py load_demo

# Where `make run` listens: `make run BIND=0.0.0.0:8080` serves the room's network on port 8080.
BIND ?= 127.0.0.1:8000

run: demo
	$(DEV_ENV) exec $(BIN)/python manage.py runclub --bind $(BIND)

# Two test processes (pytest-xdist): most tests wait on a clock, a worker or a socket for
# part of their time, and each process has its own test database.
TEST_WORKERS ?= 2

test: $(INSTALLED)
	$(BIN)/python -m pytest -n $(TEST_WORKERS) $(PYTEST_ARGS)

# Needs Debian's Chromium (apt-get install chromium); .ci/run installs it. Without
# schemathesis's plugin (no browser test uses it): its end-of-session import, rewritten by
# pytest with ast.parse, raced a live watcher still formatting a traceback (Python 3.11
# parses source for a traceback's carets) and CPython 3.11 raised "AST constructor
# recursion depth mismatch" after every test had passed.
test-browser: $(INSTALLED)
	$(BIN)/python -m pytest -p no:schemathesis -m browser tests/browser $(PYTEST_ARGS)

# The move generator side by side with GNU Backgammon, OpenSpiel and pure-Python peers;
# position ID in, resulting IDs out (the command line) against gnubg's Python binding;
# then each tavli game's plays next to backgammon's.
bench: $(INSTALLED)
	$(BIN)/python -m pip install --quiet -r requirements/bench.txt
	$(BIN)/python bench/plays.py
	$(BIN)/python bench/cli.py
	$(BIN)/python bench/tavli.py

# Server play under load (bench/README.md): needs the local PostgreSQL and Redis; not in CI.
bench-play: $(INSTALLED)
	$(BIN)/python bench/api_play.py $(BENCH_ARGS)

# Online chouettes under load on the same layout, the matches' peak beside (bench/README.md).
bench-chouette: $(INSTALLED)
	$(BIN)/python bench/api_chouette.py $(BENCH_ARGS)

lint: $(INSTALLED)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy --strict backgammon
	$(BIN)/mypy --config-file mypy-django.ini config $(DJANGO_APPS)

format: $(INSTALLED)
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

clean:
	rm -rf $(VENV) var
