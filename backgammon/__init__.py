"""The rules of backgammon as plain values and functions; imports no Django."""
