"""Error bars that mean what they say: over many simulated tournaments with known strengths,
each bot's 95% interval holds its true rating 94-96% of the time, in two-seat games with and
without draws and in four- and six-seat games (about 20 s; `bash bench/run ratings` prints
the same figures with more tournaments)."""

from __future__ import annotations

import pytest

from tests.helpers.rating_sim import coverage

TOURNAMENTS = 250


@pytest.mark.parametrize(("seats", "draws"), [(2, 0.0), (2, 0.4), (4, 0.0), (6, 0.0)])
def test_95_percent_error_bars_cover_95_percent_of_true_ratings(seats: int, draws: float) -> None:
    # 2,500 intervals: the binomial standard error of the share is 0.44%.
    assert (
        0.94
        <= coverage(seats, draws, seed=seats * 10 + round(draws * 10), count=TOURNAMENTS)
        <= 0.96
    )


def test_many_seat_games_without_their_keys_keep_the_wider_model_bars() -> None:
    # The same four-seat games, their results not grouped by game: the bars fall back to the
    # inverse Fisher information, which overstates the noise (the test above can fail).
    assert coverage(4, 0.0, seed=40, count=60, keyed=False) > 0.98
