"""The web infrastructure every app builds on: the live channel, the API base, its schema
and errors, request logging, the cache, health checks and the commands that run the
service. The lowest Django-side package: it imports no app."""
