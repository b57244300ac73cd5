"""Tests of arena/ladder/."""
