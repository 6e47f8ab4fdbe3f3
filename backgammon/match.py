"""A match to N points, or a money session, as an immutable score keeper.

``MatchState`` knows the score and which game comes next; it decides the options of
each game (``next_game_options``): the Crawford game (P2) and the match-play
restrictions (P3) are applied here, so ``Game`` only plays what it is told.
Side 0 and side 1 are the match's first and second player for the whole match.

A tavli match (TM1-TM4) is a ``MatchState`` with ``tavli`` set to an order of games
(``GREEK``: portes, plakoto, fevga; ``BULGARIAN``: права, гюлбара, тапа): the games
follow each other in that order, with no cube and no Crawford game, a drawn game (PL5)
scores 0, and the winner of each game starts the next (TV2, ``next_opening``). A match
or money session of one tavli game alone is a ``MatchState`` with that variant.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from backgammon.game import Forfeit, ForfeitReason, Game, GameOptions, Opening, Phase, Result
from backgammon.gnubg_ids import GameState, MatchKey, Resignation
from backgammon.variants import Variant, Variants

MATCH_CUBE_MAX = 64
TAVLI_LENGTH = 5  # TM1: a tavli match is to 5 points unless set otherwise

# TM1: the orders of a tavli match.
GREEK = (Variants.PORTES.value, Variants.PLAKOTO.value, Variants.FEVGA.value)
BULGARIAN = (Variants.PORTES.value, Variants.GULBARA.value, Variants.PLAKOTO.value)
TAVLI_ORDERS = {"greek": GREEK, "bulgarian": BULGARIAN}


@dataclass(frozen=True, slots=True)
class MatchState:
    """Score and stage of a match (``length`` >= 1, P1) or money session (``length`` 0).

    ``options`` are the session's settings; in a match they are stored with automatic
    doubles, beavers and the Jacoby rule off whatever was asked (P3), and a cube
    maximum of 64 unless another is set (C1). ``crawford`` is true while the next game
    to play is the Crawford game; ``post_crawford`` once it has been played. ``games``
    counts the games applied. ``forfeit``: the forfeit that ended the match or session
    (``apply_forfeit``), if one did. ``tavli``: the order of a tavli match (``"greek"``
    or ``"bulgarian"``, TM1), whose games take their variant from it; ``last_winner``:
    the winner of the last game, who starts the next in the tavli games (TV2).
    """

    length: int = 0
    options: GameOptions = field(default_factory=GameOptions)
    score: tuple[int, int] = (0, 0)
    crawford: bool = False
    post_crawford: bool = False
    games: int = 0
    forfeit: Forfeit | None = None
    tavli: str | None = None
    last_winner: int | None = None

    def __post_init__(self) -> None:
        if self.length < 0:
            raise ValueError("a match is to 1 point or more; 0 is a money session")
        if self.tavli is not None and self.tavli not in TAVLI_ORDERS:
            raise ValueError(f"a tavli match is played in the {' or '.join(TAVLI_ORDERS)} order")
        if len(self.options.holders) != 1:
            raise ValueError("a match or money session has exactly one cube")
        if self.length:
            match_options = replace(
                self.options,
                jacoby=False,
                beavers=False,
                automatic_doubles=0,
                cube_max=self.options.cube_max or MATCH_CUBE_MAX,
            )
            object.__setattr__(self, "options", match_options)

    @classmethod
    def tavli_match(
        cls, order: str = "greek", length: int = TAVLI_LENGTH, options: GameOptions | None = None
    ) -> MatchState:
        """A tavli match (TM1): ``order`` ``"greek"`` or ``"bulgarian"``, to ``length``
        points (5 unless set; 0 makes it a money session played in that order)."""
        return cls(length=length, options=options or GameOptions(), tavli=order)

    @property
    def money(self) -> bool:
        """A money session: no target, points accumulate (P4)."""
        return self.length == 0

    @property
    def winner(self) -> int | None:
        """The side that reached the target (P1); never set in a money session."""
        if self.money:
            return None
        for side in (0, 1):
            if self.score[side] >= self.length:
                return side
        return None

    @property
    def over(self) -> bool:
        """A side has won the match, or a forfeit ended the match or money session."""
        return self.forfeit is not None or self.winner is not None

    @property
    def next_variant(self) -> Variant:
        """The variant of the next game: the session's, or the next of the tavli order
        (TM1: after a draw too, the order moves on)."""
        if self.tavli is None:
            return self.options.variant
        order = TAVLI_ORDERS[self.tavli]
        return order[self.games % len(order)]

    def next_game_options(self) -> GameOptions:
        """The options of the next game: the session's, and whether it is the Crawford
        game (P2); a tavli game has no cube and so no Crawford game (TV1, TM1)."""
        variant = self.next_variant
        if variant.rules is not None:
            return replace(self.options, variant=variant, crawford=False, cube_allowed=False)
        return replace(self.options, crawford=self.crawford)

    def next_opening(self) -> Opening | None:
        """How the next game opens when it is not by an opening roll: in the tavli games
        the winner of the game before starts (TV2). None: roll one die each."""
        if self.next_variant.rules is None or self.last_winner is None:
            return None
        return Opening.winner_starts(self.last_winner)

    def apply_game(self, points: int) -> MatchState:
        """The state after a game that gave ``points``, signed from side 0's view
        (``Game.points_for(0)``): positive, side 0 scores them; negative, side 1 does;
        0 for a drawn plakoto game (PL5, TM2).

        The first game after a side reaches exactly N-1 is the Crawford game; the games
        after it are post-Crawford and use the cube again (P2). A game that ended by a
        forfeit goes to ``apply_forfeit`` instead.
        """
        if self.over:
            raise ValueError("the match is already over")
        rules = self.next_variant.rules
        if points == 0:
            if rules is None or not rules.mother:
                raise ValueError("a finished game gives the winner at least one point")
            return replace(self, games=self.games + 1, last_winner=None)  # PL5, TM2: a draw
        side = 0 if points > 0 else 1
        score = list(self.score)
        score[side] += abs(points)
        if rules is not None:  # TM1: no Crawford game; TV2: the winner starts the next
            return replace(self, score=(score[0], score[1]), games=self.games + 1, last_winner=side)
        post = self.post_crawford or self.crawford
        crawford = not post and score[side] == self.length - 1
        return replace(
            self,
            score=(score[0], score[1]),
            crawford=crawford,
            post_crawford=post,
            games=self.games + 1,
        )

    def apply_forfeit(self, game: Game) -> MatchState:
        """The state after ``game`` ended by a forfeit (``Game.forfeit``): the side that
        ran out of time or left loses the match, and the match or session is over.

        In a match the winner's score becomes N: it is credited with exactly what it
        still needed, because the match is won but the points the rest would have given
        were never played for (a rating or a report then reads an ordinary won match,
        N to the loser's score). In a money session the game in play is lost as
        ``Game.forfeit`` values it (the cube value, or a gammon), and the session ends.
        """
        if self.over:
            raise ValueError("the match is already over")
        forfeit = game.history[-1] if game.history else None
        if not isinstance(forfeit, Forfeit) or game.winner is None:
            raise ValueError("that game did not end by a forfeit")
        winner = game.winner
        score = list(self.score)
        score[winner] = self.length if self.length else score[winner] + game.points_for(winner)
        return replace(
            self,
            score=(score[0], score[1]),
            crawford=False,
            post_crawford=self.post_crawford or self.crawford,
            games=self.games + 1,
            forfeit=forfeit,
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe; ``from_dict`` gives back an equal state."""
        return {
            "length": self.length,
            "options": self.options.to_dict(),
            "score": list(self.score),
            "crawford": self.crawford,
            "post_crawford": self.post_crawford,
            "games": self.games,
            "forfeit": None
            if self.forfeit is None
            else {"side": self.forfeit.side, "reason": self.forfeit.reason.value},
            "tavli": self.tavli,
            "last_winner": self.last_winner,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MatchState:
        """The state ``to_dict`` wrote."""
        forfeit = data["forfeit"]
        return cls(
            length=data["length"],
            options=GameOptions.from_dict(data["options"]),
            score=(data["score"][0], data["score"][1]),
            crawford=data["crawford"],
            post_crawford=data["post_crawford"],
            games=data["games"],
            forfeit=None
            if forfeit is None
            else Forfeit(forfeit["side"], ForfeitReason(forfeit["reason"])),
            tavli=data.get("tavli"),
            last_winner=data.get("last_winner"),
        )


_GAME_STATES = {
    Result.SINGLE: GameState.OVER,
    Result.GAMMON: GameState.OVER,
    Result.BACKGAMMON: GameState.OVER,
    Result.RESIGNED: GameState.RESIGNED,
    Result.PASSED: GameState.DROPPED,
    Result.FORFEIT: GameState.RESIGNED,  # gnubg has no forfeit; .mat files write a resignation
}
_RESIGNATIONS = {
    Result.SINGLE: Resignation.SINGLE,
    Result.GAMMON: Resignation.GAMMON,
    Result.BACKGAMMON: Resignation.BACKGAMMON,
}


def match_key(match: MatchState, game: Game) -> MatchKey:
    """GNU Backgammon's match ID fields for ``game``, played at ``match``'s score.

    ``match`` is the state before this game (its score is the score the game started
    at). ``dice_owner`` is the side whose turn it is (gnubg's ``fMove``) and ``turn``
    the side that must act (``fTurn``: the doubled side while a double waits, the
    offered side while a resignation does).
    """
    if game.options.variant.rules is not None:
        raise ValueError("GNU Backgammon's match ID cannot hold the tavli games")
    cube = game.cube
    resignation = Resignation.NONE
    if game.phase is Phase.RESIGN_OFFERED and game.resignation is not None:
        resignation = _RESIGNATIONS[game.resignation]
    return MatchKey(
        cube_value=cube.value,
        cube_owner=cube.owner,
        dice_owner=game.on_roll,
        crawford=game.options.crawford,
        game_state=GameState.PLAYING if game.result is None else _GAME_STATES[game.result],
        turn=game.on_roll if game.turn is None else game.turn,
        double_offered=game.phase is Phase.TAKE_OR_PASS,
        resignation=resignation,
        dice=game.dice or (0, 0),
        match_length=match.length,
        score=match.score,
        jacoby=game.options.jacoby or not match.money,
    )
