"""A middleware for the benchmark's settings only (``bench/api_play_settings.py``): the
number of database queries a request made, in its ``X-Queries`` response header."""

from collections.abc import Callable
from typing import Any

from django.db import connection
from django.http import HttpRequest, HttpResponse


class QueryCountMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        count = 0

        def counted(execute: Callable[..., Any], sql: str, *args: Any) -> Any:
            nonlocal count
            count += 1
            return execute(sql, *args)

        with connection.execute_wrapper(counted):
            response = self.get_response(request)
        response["X-Queries"] = str(count)
        return response
