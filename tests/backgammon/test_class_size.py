"""No class in the rules core grows past 500 lines: a variant's rules go in a subclass
of ``Game`` (``backgammon.games``), not into one class that knows every game."""

import ast
from pathlib import Path

import backgammon

LIMIT = 500


def _class_lengths() -> dict[str, int]:
    root = Path(backgammon.__file__).parent
    lengths = {}
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef):
                assert node.end_lineno is not None
                name = f"{path.relative_to(root.parent)}::{node.name}"
                lengths[name] = node.end_lineno - node.lineno + 1
    return lengths


def test_every_class_of_the_rules_core_is_found():
    lengths = _class_lengths()
    assert {"backgammon/game.py::Game", "backgammon/games/chouette.py::TeamGame"} <= set(lengths)


def test_no_class_of_the_rules_core_is_over_500_lines():
    over = {name: length for name, length in _class_lengths().items() if length > LIMIT}
    assert over == {}, f"classes over {LIMIT} lines: {over}"
