"""The pentanomial SPRT: bounds, the LLR's sign and scale, and decisions on simulated pairs."""

from __future__ import annotations

import math
import random

import pytest

from arena.league.sprt import Sprt, elo_estimate, logistic_elo, logistic_score, pentanomial

DRAW_RATE = 0.3


def simulate_pair(rng: random.Random, elo: float) -> float:
    """Score of one pair (two games, win 1 / draw 0.5 / loss 0) for a bot `elo` stronger."""
    expected = logistic_score(elo)
    win = expected - DRAW_RATE / 2
    total = 0.0
    for _ in range(2):
        r = rng.random()
        total += 1.0 if r < win else 0.5 if r < win + DRAW_RATE else 0.0
    return total


def run_sprt(test: Sprt, elo: float, seed: int, max_pairs: int = 20_000) -> tuple[str, int]:
    """Play pairs until the test decides; the decision and the number of pairs it took."""
    rng = random.Random(seed)
    counts = [0] * 5
    for played in range(1, max_pairs + 1):
        counts[round(2 * simulate_pair(rng, elo))] += 1
        status = test.status(counts)
        if status != "continue":
            return status, played
    return "continue", max_pairs


def test_bounds_for_five_percent_errors():
    lower, upper = Sprt(0, 10).bounds()
    assert lower == pytest.approx(-2.944, abs=1e-3)
    assert upper == pytest.approx(2.944, abs=1e-3)
    lower, upper = Sprt(0, 10, alpha=0.05, beta=0.1).bounds()
    assert lower == pytest.approx(math.log(0.1 / 0.95))
    assert upper == pytest.approx(math.log(0.9 / 0.05))


def test_llr_is_zero_at_the_midpoint_and_signed_around_it():
    test = Sprt(-5, 5)  # midpoint score exactly 0.5
    assert test.llr([10, 20, 40, 20, 10]) == pytest.approx(0.0, abs=1e-12)
    assert test.llr([0, 0, 0, 0, 0]) == 0.0
    assert test.llr([5, 20, 40, 20, 15]) > 0.5
    assert test.llr([15, 20, 40, 20, 5]) < -0.5
    # Sprt(0, 10): the midpoint is 5 Elo (score 0.5072); mean scores just below and just
    # above it (0.5069, 0.5074) give a small LLR of the matching sign.
    test = Sprt(0, 10)
    below, above = [100, 200, 400, 200, 114], [100, 200, 400, 200, 115]
    assert -0.1 < test.llr(below) < 0.0 < test.llr(above) < 0.1


def test_llr_matches_the_normal_approximation():
    counts = [30, 150, 400, 250, 70]
    test = Sprt(0, 10)
    # Regularised by half a virtual pair at each end, as the module documents.
    cells = [30.5, 150, 400, 250, 70.5]
    n = sum(cells)
    values = [0, 0.25, 0.5, 0.75, 1]
    mean = sum(c * v for c, v in zip(cells, values, strict=True)) / n
    var = sum(c * (v - mean) ** 2 for c, v in zip(cells, values, strict=True)) / n
    s0, s1 = logistic_score(0), logistic_score(10)
    assert test.llr(counts) == pytest.approx(n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * var))


def test_a_few_equal_pairs_do_not_decide():
    test = Sprt(0, 10)
    for counts in ([0, 0, 1, 0, 0], [0, 0, 5, 0, 0], [0, 0, 0, 0, 3], [2, 0, 0, 0, 0]):
        assert test.status(counts) == "continue"


def test_status_follows_the_bounds():
    test = Sprt(0, 10)
    assert test.status([0, 0, 0, 0, 0]) == "continue"
    assert test.status([100, 200, 300, 400, 500]) == "H1"
    assert test.status([500, 400, 300, 200, 100]) == "H0"


def test_a_stronger_bot_is_accepted():
    decisions = [run_sprt(Sprt(0, 10), 30.0, seed) for seed in range(20)]
    assert sum(status == "H1" for status, _ in decisions) >= 19
    assert all(pairs > 10 for _, pairs in decisions)


def test_a_weaker_bot_is_rejected():
    decisions = [run_sprt(Sprt(0, 10), -10.0, seed) for seed in range(20)]
    assert sum(status == "H0" for status, _ in decisions) >= 19
    assert all(pairs > 10 for _, pairs in decisions)


def test_elo_estimate_covers_the_truth():
    rng = random.Random(5)
    counts = pentanomial(simulate_pair(rng, 40.0) for _ in range(3000))
    estimate = elo_estimate(counts)
    assert estimate is not None and estimate.pairs == 3000
    assert estimate.low < 40.0 < estimate.high
    assert 5.0 < estimate.error < 20.0
    assert estimate.elo == pytest.approx((estimate.low + estimate.high) / 2)
    assert elo_estimate([0, 0, 0, 0, 0]) is None
    even = elo_estimate([10, 20, 40, 20, 10])
    assert even is not None and even.elo == 0.0 and even.describe().startswith("+0.0 ± ")


def fishtest_interval(counts: list[int]) -> tuple[float, float]:
    """fishtest's and fastchess's 95% interval: mean ± 1.96·sd/sqrt(N) on the raw pair
    scores, mapped to Elo (infinite, or undefined, when it reaches a score of 0 or 1)."""
    n = sum(counts)
    values = [0, 0.25, 0.5, 0.75, 1]
    mean = sum(c * v for c, v in zip(counts, values, strict=True)) / n
    var = sum(c * (v - mean) ** 2 for c, v in zip(counts, values, strict=True)) / n
    spread = 1.959964 * math.sqrt(var / n)
    return logistic_elo(mean - spread), logistic_elo(mean + spread)


def test_with_many_pairs_the_interval_is_fishtests():
    """The regularisation and the Elo-scale interval fade: at 1000 pairs the estimate and
    both ends agree with fishtest's to within a few Elo."""
    counts = [30, 150, 400, 250, 170]
    estimate = elo_estimate(counts)
    low, high = fishtest_interval(counts)
    assert estimate is not None
    assert estimate.elo == pytest.approx(logistic_elo(0.595), abs=1e-9)  # the raw mean score
    assert estimate.low == pytest.approx(low, abs=2.0)
    assert estimate.high == pytest.approx(high, abs=2.0)


def small_pentanomials(most: int) -> list[list[int]]:
    """Every pentanomial of 1 to `most` pairs."""
    found: list[list[int]] = []

    def fill(prefix: list[int], left: int) -> None:
        if len(prefix) == 4:
            found.append([*prefix, left])
            return
        for c in range(left + 1):
            fill([*prefix, c], left - c)

    for pairs in range(1, most + 1):
        fill([], pairs)
    return found


def test_the_interval_is_finite_whenever_the_score_is_strictly_between_0_and_1():
    """Few pairs, one-sided pairs, pairs that all scored alike: a finite interval around a
    finite Elo, of positive width, for every score other than 0 and 1."""
    for counts in small_pentanomials(5):
        estimate = elo_estimate(counts)
        assert estimate is not None and estimate.pairs == sum(counts)
        score = sum(c * i for i, c in enumerate(counts)) / (4 * sum(counts))
        if 0 < score < 1:
            assert math.isfinite(estimate.low) and math.isfinite(estimate.high), counts
            assert estimate.low < estimate.elo < estimate.high, counts
            assert "±" in estimate.describe()
        else:
            assert math.isinf(estimate.elo), counts
    # fishtest's interval is infinite for some of the same counts
    assert math.isinf(fishtest_interval([0, 0, 0, 1, 1])[1])
    assert math.isfinite(elo_estimate([0, 0, 0, 1, 1]).high)  # type: ignore[union-attr]
    # every pair a 1-1 split (a strong first-seat advantage): not a zero-width interval
    alike = elo_estimate([0, 0, 5, 0, 0])
    assert alike is not None and alike.elo == 0.0 and 50 < alike.error < 200


def test_all_pairs_won_give_a_lower_bound_only():
    """N pairs all scoring 2: no finite Elo, a 95% lower bound s^N = 0.025 that rises with
    N; all scoring 0 mirrors it."""
    bounds = []
    for n in (1, 3, 10, 50):
        won = elo_estimate([0, 0, 0, 0, n])
        lost = elo_estimate([n, 0, 0, 0, 0])
        assert won is not None and lost is not None
        assert won.elo == won.high == math.inf and math.isfinite(won.low)
        assert logistic_score(won.low) ** n == pytest.approx(0.025)
        assert (lost.elo, lost.low, lost.high) == (-math.inf, -math.inf, -won.low)
        assert won.describe() == f"> {won.low:+.1f}" and lost.describe() == f"< {-won.low:+.1f}"
        bounds.append(won.low)
    assert bounds == sorted(bounds) and bounds[0] < 0 < bounds[-1]


def simulate_seated_pair(rng: random.Random, elo: float, seat_edge: float) -> float:
    """A pair where the first seat is worth `seat_edge` Elo (no draws)."""
    total = 0.0
    for edge in (seat_edge, -seat_edge):
        total += rng.random() < logistic_score(elo + edge)
    return total


@pytest.mark.parametrize("pairs", [5, 20, 100])
@pytest.mark.parametrize("elo", [0.0, 100.0, 300.0])
@pytest.mark.parametrize("seat_edge", [0.0, 300.0])
def test_the_interval_holds_the_true_elo_about_95_times_in_100(
    pairs: int, elo: float, seat_edge: float
) -> None:
    """Simulated matches of few and many pairs: the 95% interval (or the bound, when every
    pair was won) holds the Elo of the true expected score in at least 90% of them."""
    rng = random.Random(f"{pairs}:{elo}:{seat_edge}")
    expected = (logistic_score(elo + seat_edge) + logistic_score(elo - seat_edge)) / 2
    truth = logistic_elo(expected)
    trials = 400
    held = 0
    for _ in range(trials):
        if seat_edge:
            scores = [simulate_seated_pair(rng, elo, seat_edge) for _ in range(pairs)]
        else:
            scores = [simulate_pair(rng, elo) for _ in range(pairs)]
        estimate = elo_estimate(pentanomial(scores))
        assert estimate is not None
        held += estimate.low <= truth <= estimate.high
    assert held >= 0.9 * trials


def test_pentanomial_counts_pair_scores():
    assert pentanomial([0, 0.5, 1, 1, 1.5, 2, 2, 2]) == [1, 1, 2, 1, 3]
    with pytest.raises(ValueError):
        pentanomial([0.25])
    with pytest.raises(ValueError):
        pentanomial([2.5])


def test_logistic_elo_inverts_logistic_score():
    for elo in (-400.0, -30.0, 0.0, 10.0, 190.0):
        assert logistic_elo(logistic_score(elo)) == pytest.approx(elo)
    assert logistic_score(400 * math.log10(3)) == pytest.approx(0.75)


def test_bad_parameters_are_refused():
    with pytest.raises(ValueError):
        Sprt(10, 0)
    with pytest.raises(ValueError):
        Sprt(0, 10, alpha=0.0)
    with pytest.raises(ValueError):
        Sprt(0, 10, alpha=0.6, beta=0.5)
    with pytest.raises(ValueError):
        Sprt(0, 10).llr([1, 2, 3])
    with pytest.raises(ValueError):
        Sprt(0, 10).llr([1, 2, 3, -1, 0])
