"""Chouettes: seats, line, rotation, per-member cubes, settlement."""
