"""What the matches app tells the apps built on it, which it never imports (a tournament
follows its pairings' matches through these)."""

from django.dispatch import Signal

# Sent once the transaction that finished a match has committed, with ``match_id``. A
# receiver that fails is logged and does not undo the match (the database stays the
# truth: an app that missed the signal finds the finished match by itself).
match_finished = Signal()
