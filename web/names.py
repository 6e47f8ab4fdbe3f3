"""How the club names players and rows in paths and bodies: usernames and ids.

No database here: the settings take the schema of the path converters from this module.
A path that cannot name a row is unknown (404) before any view runs.
"""

import re

# Letters, digits and @.+-_ (ASCII), as in a URL: the API and the pages name players so.
USERNAME_PATTERN = r"[A-Za-z0-9_.@+-]{1,150}"
USERNAME_RE = re.compile(USERNAME_PATTERN)
MAX_ID = 2**63 - 1  # the largest id a BigAutoField holds

ID_SCHEMA = {"type": "integer", "minimum": 1, "maximum": MAX_ID}
USERNAME_SCHEMA = {"type": "string", "pattern": f"^{USERNAME_PATTERN}$"}


class IdConverter:
    """``<id:pk>``: a row's id, 1 to ``MAX_ID``."""

    regex = "[0-9]{1,19}"

    def to_python(self, value: str) -> int:
        number = int(value)
        if not 1 <= number <= MAX_ID:
            raise ValueError(f"{value} is not an id")
        return number

    def to_url(self, value: int) -> str:
        return str(value)


class UsernameConverter:
    """``<username:username>``: a player's username (``USERNAME_PATTERN``)."""

    regex = USERNAME_PATTERN

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value
