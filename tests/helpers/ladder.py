"""Ladders for tests: comparing the live table with the batch fit's."""

from __future__ import annotations

import math
from typing import Any


def same_table(live: Any, batch: Any, tolerance: float = 1e-6) -> bool:
    """Whether two leaderboards (as JSON) give every version the same figures: equal but for
    their floats, which may differ within `tolerance` (the live fit refits from its last
    solution and adds its sums in the order the games came), and for the order of versions
    whose ratings are that close (their rank, their LOS over the next one, and the order the
    pairs are listed in follow it)."""
    return _same(_by_version(live), _by_version(batch), tolerance)


def _by_version(value: Any) -> Any:
    """Lists of rows and pairs keyed by version (and opponent), without what follows from
    the order of near-equal ratings."""
    if isinstance(value, dict):
        return {k: _by_version(v) for k, v in value.items() if k not in ("rank", "los_next")}
    if isinstance(value, list) and value and all(isinstance(v, dict) and "bot" in v for v in value):
        return {(v["bot"], v.get("opponent")): _by_version(v) for v in value}
    if isinstance(value, list):
        return [_by_version(v) for v in value]
    return value


def _same(live: Any, batch: Any, tolerance: float) -> bool:
    if isinstance(live, dict) and isinstance(batch, dict):
        return live.keys() == batch.keys() and all(
            _same(live[key], batch[key], tolerance) for key in live
        )
    if isinstance(live, list) and isinstance(batch, list):
        return len(live) == len(batch) and all(
            _same(a, b, tolerance) for a, b in zip(live, batch, strict=True)
        )
    if isinstance(live, float) or isinstance(batch, float):
        return math.isclose(float(live), float(batch), rel_tol=tolerance, abs_tol=tolerance)
    return bool(live == batch)
