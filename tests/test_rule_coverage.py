"""Every rule the rules core enforces is named by a test that proves it.

The rule book (docs/rules.md, from shared/RULES.md) gives each rule an id; the tests
name the id in their function name (``test_m5_higher_die_...``). This test reads both
and lists any rule of the rules core's sections that no test names.
"""

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RULE_ID = re.compile(r"^- ([A-Z]{1,2})(\d+)\.", re.MULTILINE)
# Board, Opening, Moving, Bar, Bearing off, Scoring, Doubling cube, Match play, Chouette
# (the game in ``Game``, the seating and money in ``backgammon.chouette``); the games of
# the Greek and Bulgarian table (tavli, portes, plakoto, fevga, gul bara, acey-deucey, a
# tavli match); and T3 (taking moves back until the turn is confirmed), which the game
# state machine keeps.
CORE_SECTIONS = {*"BOMEFSCPH", "TV", "PO", "PL", "FV", "GB", "AD", "TM"}
# B4 is how a user likes the board drawn (not a rule of play): the board view proves it.
NOT_IN_THE_CORE = {"B4"}


def _rule_ids() -> set[str]:
    text = (ROOT / "docs" / "rules.md").read_text()
    ids = {f"{letter}{number}" for letter, number in RULE_ID.findall(text)}
    return {rule for rule in ids if rule.rstrip("0123456789") in CORE_SECTIONS} | {"T3"}


def _test_names() -> set[str]:
    names = set()
    for path in (ROOT / "tests").rglob("test_*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef | ast.ClassDef) and node.name.lower().startswith(
                "test"
            ):
                names.add(node.name.lower())
    return names


def test_the_rule_book_has_the_core_rules():
    ids = _rule_ids()
    assert {"B1", "O1", "M5", "E4", "F7", "S4", "C6", "P4", "H1", "H14", "T3"} <= ids
    assert {"TV4", "PO1", "PL5", "FV6", "GB3", "AD7", "TM4"} <= ids


def test_every_core_rule_is_named_by_a_test():
    names = _test_names()
    missing = sorted(
        rule
        for rule in _rule_ids() - NOT_IN_THE_CORE
        if not any(re.search(rf"(^|_){rule.lower()}(_|$)", name) for name in names)
    )
    assert missing == [], f"rules no test names: {missing}"
