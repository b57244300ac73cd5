"""arena: a tournament engine for competing bot programs."""

__version__ = "0.1.0"
