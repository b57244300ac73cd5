"""Ladders for tests: comparing the live table with the batch fit's."""

from __future__ import annotations

import math
from typing import Any


def same_table(live: Any, batch: Any, tolerance: float = 1e-6) -> bool:
    """Whether two leaderboards (as JSON) are the same: equal but for their floats, which may
    differ within `tolerance` (the live fit refits from its last solution, and adds its sums
    in the order the games came)."""
    if isinstance(live, dict) and isinstance(batch, dict):
        return live.keys() == batch.keys() and all(
            same_table(live[key], batch[key], tolerance) for key in live
        )
    if isinstance(live, list) and isinstance(batch, list):
        return len(live) == len(batch) and all(
            same_table(a, b, tolerance) for a, b in zip(live, batch, strict=True)
        )
    if isinstance(live, float) or isinstance(batch, float):
        return math.isclose(float(live), float(batch), rel_tol=tolerance, abs_tol=tolerance)
    return bool(live == batch)
