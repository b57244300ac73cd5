"""Shared test helpers; each game family keeps its helpers in one module here."""
