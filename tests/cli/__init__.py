"""Tests of arena/cli/."""
