"""Games on the server: board, dice, clock, action log; matches, money sessions, tournaments."""
