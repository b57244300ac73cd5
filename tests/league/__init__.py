"""Tests of arena/league/."""
