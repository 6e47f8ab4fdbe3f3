"""The variants of ``backgammon.game.Game``, each in its own module, as python-chess keeps
its variants: ``tavli`` (portes, plakoto, fevga, gul bara), ``acey_deucey`` and
``chouette`` (the box against a team of cube holders). Each subclass overrides the hooks
of ``Game`` where its rules differ; ``game_class`` is the one place that says which class
plays a game's options, so ``Game.start``, ``Game.replay`` and ``Game.from_dict`` (and so
a stored game) always give the same class.
"""

from backgammon.game import Game, GameOptions
from backgammon.games.acey_deucey import AceyDeuceyGame
from backgammon.games.chouette import TeamGame
from backgammon.games.tavli import TavliGame
from backgammon.tavli.rules import ACEY_DEUCEY


def game_class(options: GameOptions) -> type[Game]:
    """The class that plays a game under ``options``: a chouette's team game, a tavli
    game (acey-deucey's own), or backgammon's ``Game``."""
    if options.chouette is not None:
        return TeamGame
    rules = options.variant.rules
    if rules is None:
        return Game
    return AceyDeuceyGame if rules.name == ACEY_DEUCEY.name else TavliGame
