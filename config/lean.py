"""Modules the service's own processes never load (gunicorn's workers, the Celery worker
and beat): Django REST framework imports its optional integrations whenever they are
installed (``rest_framework.compat``), and the club uses none of these three:

- ``django.contrib.postgres``, which loads psycopg and its libraries even on SQLite (on
  PostgreSQL Django's backend loads psycopg itself; the club has no PostgreSQL-only
  field);
- ``requests``, installed for the contract test (schemathesis);
- ``pygments``, installed for pytest's output.

Left out, each Django process of the service holds 17 MB less (docs/operations.md,
"Footprint"). The tests and ``manage.py`` load everything as before.
"""

import sys

UNUSED = ("django.contrib.postgres", "requests", "pygments")


def leave_out_unused() -> None:
    """Make ``UNUSED`` unimportable in this process (an ``import`` of one raises
    ImportError, which DRF takes as "not installed"); one already loaded stays."""
    for name in UNUSED:
        sys.modules.setdefault(name, None)  # type: ignore[arg-type]
