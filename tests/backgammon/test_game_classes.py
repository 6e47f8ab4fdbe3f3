"""Each variant family is played by its own subclass of ``Game`` (``backgammon.games``):
``game_class`` picks it from the options, ``Game.start``, ``replay`` and ``from_dict``
give it, and a game stored before the split loads as that class, unchanged."""

import json
from pathlib import Path

import pytest

from backgammon.game import Game, GameOptions, Opening
from backgammon.games import game_class
from backgammon.games.acey_deucey import AceyDeuceyGame
from backgammon.games.chouette import TeamGame
from backgammon.games.tavli import TavliGame
from backgammon.team import ChouetteRules, CubeMode
from backgammon.variants import Variants

# Written by ``Game.to_dict()`` before the variants were classes (main at 432d686): a
# double waiting, a tavli step pending, a game with no opening roll, acey-deucey's double
# to name, a chouette team's cube round open.
STORED = json.loads((Path(__file__).parent / "stored_games.json").read_text())
STORED_CLASS = {
    "backgammon": Game,
    "plakoto": TavliGame,
    "gulbara": TavliGame,
    "acey-deucey": AceyDeuceyGame,
    "chouette": TeamGame,
}
CHOUETTE = GameOptions(holders=("ann", "bob"), chouette=ChouetteRules(CubeMode.SINGLE))
CLASSES = [
    (GameOptions(), Game),
    (GameOptions(variant=Variants.NACKGAMMON.value, crawford=True), Game),
    (GameOptions(variant=Variants.HYPERGAMMON.value), Game),
    (GameOptions(variant=Variants.PORTES.value), TavliGame),
    (GameOptions(variant=Variants.PLAKOTO.value), TavliGame),
    (GameOptions(variant=Variants.FEVGA.value), TavliGame),
    (GameOptions(variant=Variants.GULBARA.value.with_options({"run_rest": "lost"})), TavliGame),
    (GameOptions(variant=Variants.ACEY_DEUCEY.value), AceyDeuceyGame),
    (
        GameOptions(variant=Variants.ACEY_DEUCEY.value.with_options({"exact_bear_off": True})),
        AceyDeuceyGame,
    ),
    (CHOUETTE, TeamGame),
]


@pytest.mark.parametrize(("options", "cls"), CLASSES, ids=lambda v: getattr(v, "__name__", ""))
def test_the_options_pick_the_class_and_a_game_round_trips_to_it(options, cls):
    assert game_class(options) is cls
    game = Game.start(options, [(5, 2)])
    assert type(game) is cls
    moved = game.roll((3, 1)) if game.dice is None else game
    assert type(moved) is cls
    for state in (game, moved):
        restored = Game.from_dict(json.loads(json.dumps(state.to_dict())))
        assert type(restored) is cls and restored == state
    replayed = Game.replay(options, Opening((5, 2)), moved.history)
    assert type(replayed) is cls and replayed == moved


@pytest.mark.parametrize("name", sorted(STORED_CLASS))
def test_a_game_stored_before_the_split_loads_as_its_class_unchanged(name):
    game = Game.from_dict(STORED[name])
    assert type(game) is STORED_CLASS[name]
    assert game.to_dict() == STORED[name]
    assert Game.replay(game.options, game.opening, game.history) == game
