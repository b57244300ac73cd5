"""Shared test helpers (tests/conftest.py lists them); each game family keeps its helpers in
one module here."""
