"""The club itself: players, ledger, ratings."""
