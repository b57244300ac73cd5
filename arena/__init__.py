"""arena: a tournament engine for competing bot programs.

`arena.play` plays one game from Python (Python agents, the built-in random player and bot
programs at one table) and returns its record; `arena.play_async` is its trio form. Both
are loaded when first used (`arena.referee.api`), so that `import arena` stays light.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from arena.referee.api import AgentError, Seat, play, play_async

#: What `arena` offers from `arena.referee.api`, imported on first use
_API = ("AgentError", "Seat", "play", "play_async")

__all__ = ["AgentError", "Seat", "__version__", "play", "play_async"]


def __getattr__(name: str) -> Any:
    if name in _API:
        from arena.referee import api

        value = getattr(api, name)
        globals()[name] = value  # (looked up here once)
        return value
    raise AttributeError(f"module 'arena' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_API})
