"""Progress for long management commands: a bar on a terminal, a running count otherwise."""

from collections.abc import Callable, Iterable, Iterator
from io import TextIOBase
from typing import TypeVar

from django.core.management.base import OutputWrapper

T = TypeVar("T")


def _write(out: TextIOBase, text: str) -> None:
    if isinstance(out, OutputWrapper):
        out.write(text, ending="")
    else:
        out.write(text)


def progress(items: Iterable[T], *, total: int, label: str, out: TextIOBase) -> Iterator[T]:
    """Yield ``items`` while showing how many of ``total`` are done."""
    interactive = hasattr(out, "isatty") and out.isatty()
    step = max(1, total // 20)
    for done, item in enumerate(items, start=1):
        yield item
        if interactive:
            filled = int(30 * done / total) if total else 30
            _write(out, f"\r{label} [{'#' * filled}{'.' * (30 - filled)}] {done}/{total}")
            out.flush()
        elif done % step == 0 or done == total:
            _write(out, f"{label}: {done}/{total}\n")
    if interactive:
        _write(out, "\n")


def progress_reporter(*, label: str, out: TextIOBase) -> Callable[[int, int], None]:
    """A callback taking (done, total) for work that reports its own steps (a backup's
    pages): the same bar or lines as ``progress``, a line at each step off a terminal."""
    interactive = hasattr(out, "isatty") and out.isatty()

    def report(done: int, total: int) -> None:
        if interactive:
            filled = int(30 * done / total) if total else 30
            ending = "\n" if done >= total else ""
            _write(out, f"\r{label} [{'#' * filled}{'.' * (30 - filled)}] {done}/{total}{ending}")
            out.flush()
        else:
            _write(out, f"{label}: {done}/{total}\n")

    return report
