"""Tests of arena/referee/."""
