"""What the matches app tells the apps built on it, which it never imports (a tournament
follows its pairings' matches through these)."""

from django.dispatch import Signal

# Sent once the transaction that finished a match has committed, with ``match_id``. A
# receiver that fails is logged and does not undo the match (the database stays the
# truth: an app that missed the signal finds the finished match by itself).
match_finished = Signal()

# Sent once the transaction that finished a game on a table no match owns (an online
# chouette's) has committed, with ``table_id``, ``game_number`` and ``seats``: the
# usernames of the players of that game, side 0's first (a chouette: the box, then the
# line in order, captain first). The same promise as ``match_finished``.
table_game_finished = Signal()
