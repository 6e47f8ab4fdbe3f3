"""The house's stacking (docs/architecture.md): each package imports only itself and the
packages below it. Read from the source with ``ast`` (imports inside functions too), so
an import that points up the house fails here before it is ever run.

    config/                     the wiring: imported by no package of the house
    chouette/  tournaments/  analysis/
                                on matches, never each other
    matches/
    club/
    web/                        the web infrastructure
    backgammon/                 the rules core: the standard library alone
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

BELOW = {
    "backgammon": set(),
    "web": {"backgammon"},
    "club": {"web", "backgammon"},
    "matches": {"club", "web", "backgammon"},
    "chouette": {"matches", "club", "web", "backgammon"},
    "tournaments": {"matches", "club", "web", "backgammon"},
    "analysis": {"matches", "club", "web", "backgammon"},
}
# Every top-level package of the project: an import of one of these that is not the
# importer itself nor below it points up or sideways. Tests and bench stand outside the
# house (they may import anything, config's settings included).
PROJECT = {*BELOW, "config", "tests", "bench"}


def imported(path: Path) -> set[str]:
    """The absolute modules ``path`` imports (a relative import names its own package)."""
    modules: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                modules.add(path.relative_to(ROOT).parts[0])
            elif node.module:
                modules.add(node.module)
    return modules


def modules_of(package: str) -> list[Path]:
    return sorted((ROOT / package).rglob("*.py"))


def wrong_imports(package: str) -> list[str]:
    """``file: module`` for each import of ``package``'s modules that it may not make."""
    allowed = {package} | BELOW[package]
    found = []
    for path in modules_of(package):
        for module in sorted(imported(path)):
            top = module.split(".")[0]
            if package == "backgammon":
                wrong = top not in allowed and top not in sys.stdlib_module_names
            else:
                wrong = top in PROJECT and top not in allowed
            if wrong:
                found.append(f"{path.relative_to(ROOT)}: {module}")
    return found


@pytest.mark.parametrize("package", sorted(BELOW))
def test_each_package_imports_only_what_is_below_it(package: str) -> None:
    """backgammon/ the standard library alone (no Django, DRF or Celery); the apps
    nothing of the project above them or beside them."""
    assert modules_of(package), f"{package}/ has no modules: is the layout still so?"
    assert wrong_imports(package) == []


def test_a_package_importing_above_itself_is_found(tmp_path: Path) -> None:
    """The check reads what a module says: an upward import in a module is reported."""
    module = tmp_path / "upward.py"
    module.write_text("def f():\n    from matches import services\n")
    assert "matches" in imported(module)


# The engine worker's modules (analysis/engine_worker): no Django, no app of the house,
# only the rules core, Celery, the engine and each other.
ENGINE_SIDE = {
    "analysis.engine",
    "analysis.engine_governor",
    "analysis.engine_worker",
    "analysis.gnubg_engine",
    "analysis.jobs",
    "analysis.judging",
    "analysis.marks",
    "analysis.robot_engine",
    "web.broker",  # the filesystem broker's transport, which every process sends through
    "web.actions_in_flight",  # the web's actions, told to the engine worker's governor
}
ENGINE_SIDE_MAY_IMPORT = {"backgammon", "celery", "kombu", "bgsage", "bgbot_cpp", "gnubg"}


def test_the_engine_worker_imports_no_django() -> None:
    """Each module the engine worker loads imports the standard library, the rules core,
    Celery, the engine and the other modules of its side alone."""
    found = []
    for name in sorted(ENGINE_SIDE):
        path = ROOT / name.replace(".", "/")
        for source in (
            [path.with_suffix(".py")]
            if path.with_suffix(".py").exists()
            else (sorted(path.glob("*.py")))
        ):
            for module in sorted(imported(source)):
                top = module.split(".")[0]
                if not (
                    top in sys.stdlib_module_names
                    or top in ENGINE_SIDE_MAY_IMPORT
                    or module in ENGINE_SIDE
                ):
                    found.append(f"{source.relative_to(ROOT)}: {module}")
    assert found == []
