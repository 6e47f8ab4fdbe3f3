"""The one name for a JSON document the code hands on as it is, without looking inside
it: a game's saved state (``Game.to_dict``), an action log row's payload, a tavli board
in the rules core's JSON form, the options a row stores as the client sent them. A shape
the code builds or reads field by field is a ``TypedDict`` or a dataclass instead."""

from typing import Any

JSONDocument = dict[str, Any]
