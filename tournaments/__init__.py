"""Tournaments: entries, draws, rounds, pairings, standings and payouts.

``tournaments.formats`` is the plain-Python heart (no Django): the formats, their
pairings and standings, final places and payout arithmetic, as immutable values the app
stores as JSON and drives from the admin.
"""
