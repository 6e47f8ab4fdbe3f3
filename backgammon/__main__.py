"""``python -m backgammon``: see ``backgammon.cli``."""

from backgammon.cli import main

raise SystemExit(main())
