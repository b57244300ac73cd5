"""Error bars that mean what they say: over many simulated tournaments with known strengths,
each bot's 95% interval holds its true rating 94-96% of the time, in two-seat games with and
without draws and in four- and six-seat games, each game on a fresh deal; and on paired
deals (every deal played in every rotation of its table) at 2 to 6 seats, with no deal
luck, some, or deals that decide the games, the rotations of a deal counted as one draw of
chance (about 15 s; `bash bench/run ratings` and `bash bench/run paired` print the same
figures with more tournaments)."""

from __future__ import annotations

import pytest

from tests.helpers.rating_sim import coverage, paired_coverage

TOURNAMENTS = 250


@pytest.mark.slow
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


@pytest.mark.slow
@pytest.mark.parametrize(
    ("seats", "luck"),
    [(2, 0.0), (2, 0.5), (2, 1.0), (3, 1.0), (4, 0.5), (4, 1.0), (5, 1.0), (6, 0.0), (6, 1.0)],
)
def test_paired_deals_grouped_by_deal_cover_95_percent(seats: int, luck: float) -> None:
    # `luck`: the share of deals whose luck decides the games (each seat's noise drawn once
    # for the deal, so it cancels over the rotations). However strong, the bars grouped by
    # deal still cover: they measure the spread of whole deals. (5,000 intervals: the
    # standard error of the share is 0.31%.)
    share = paired_coverage(seats, luck, seed=seats * 100 + round(luck * 10), count=500)
    assert 0.94 <= share <= 0.96


@pytest.mark.parametrize("seats", [2, 4])
def test_paired_deals_taken_game_by_game_overstate_the_noise(seats: int) -> None:
    # The same deals with their luck, the bars taken game by game: they count the luck that
    # cancels within each deal, and so are wider than they need be.
    assert paired_coverage(seats, 1.0, seed=seats * 100 + 10, count=60, grouped=False) > 0.98


def test_few_deals_still_cover_with_the_t_quantile() -> None:
    # Six bots at one six-seat table playing 10 paired deals: each bot's spread is measured
    # from 10 draws of chance only, and its bar takes t with 9 degrees of freedom (2.26).
    # With 1.96 instead, the same intervals cover 91-93%.
    assert paired_coverage(6, 1.0, seed=1, count=400, bots=6, games_per_bot=60) >= 0.94
