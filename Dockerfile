# The club service image: the web server, the Celery worker and beat all run from it.
# Debian bookworm, whose PostgreSQL client tools (15) match compose's server: the nightly
# backup runs pg_dump, which refuses a server newer than itself.
FROM python:3.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 VAR_DIR=/var/lib/club
WORKDIR /app

RUN apt-get update && apt-get install -y --no-install-recommends postgresql-client \
    && rm -rf /var/lib/apt/lists/*

COPY requirements/lock.txt requirements/lock.txt
RUN pip install --no-cache-dir -r requirements/lock.txt

COPY . .
RUN SECRET_KEY=build-only python manage.py collectstatic --noinput \
    && useradd --system --home /app club && mkdir -p /var/lib/club && chown club /var/lib/club
USER club
EXPOSE 8000
