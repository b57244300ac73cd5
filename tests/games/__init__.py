"""Tests of arena/games/."""
