"""Sequential probability ratio test on game pairs, as fishtest runs it.

A pair is one deal played twice with the seats swapped; its score (0, 0.5, 1, 1.5 or 2 for
the tested bot) is counted in a pentanomial [n0, n0.5, n1, n1.5, n2]. Pairing cancels most
of the luck of the deal, so the per-pair variance (not the per-game one) goes into the test.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Literal

import msgspec

PAIR_SCORES = (0.0, 0.5, 1.0, 1.5, 2.0)
"""Score of a pair for each pentanomial cell."""

PRIOR_PAIRS = (0.5, 0.0, 0.0, 0.0, 0.5)
"""Regularisation: one virtual pair, half scoring 0 and half 2, added to every pentanomial.

The normal approximation divides by the sample variance of the pair scores, which is 0 or
tiny after a few equal pairs; fishtest's 1e-3 for empty cells leaves it tiny, and a single
pair then pushes the LLR past a bound. The virtual pair keeps the variance (of the halved
pair score) at least 1/(4·N) and moves the mean towards 0.5 by a 1/N fraction, so its
effect fades as pairs come in.
"""

Z95 = 1.959963984540054
"""The two-sided 95% normal quantile."""
TAIL = 0.025
"""Probability beyond each end of a 95% interval."""
ELO_PER_LOGIT = 400.0 / math.log(10.0)
"""d elo / d ln(s/(1-s)): the logistic Elo scale."""

Status = Literal["H0", "H1", "continue"]


def logistic_score(elo: float) -> float:
    """Expected score for an Elo difference: 1 / (1 + 10^(-elo/400))."""
    power: float = 10.0 ** (-elo / 400.0)  # typeshed's float ** float is Any (it may be complex)
    return 1.0 / (1.0 + power)


def logistic_elo(score: float) -> float:
    """Elo difference for an expected score in 0..1 (±inf at the ends)."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def pentanomial(pair_scores: Iterable[float]) -> list[int]:
    """Count pair scores (each 0, 0.5, 1, 1.5 or 2) into [n0, n0.5, n1, n1.5, n2]."""
    counts = [0] * len(PAIR_SCORES)
    for score in pair_scores:
        cell = round(2.0 * score)
        if not 0 <= cell < len(counts) or PAIR_SCORES[cell] != score:
            raise ValueError(f"a pair scores 0, 0.5, 1, 1.5 or 2, not {score}")
        counts[cell] += 1
    return counts


def _pair_stats(counts: Sequence[int]) -> tuple[float, float, float]:
    """Pairs N, and mean and variance of the pair score halved (so in 0..1), regularised."""
    if len(counts) != len(PAIR_SCORES) or any(c < 0 for c in counts):
        raise ValueError(f"a pentanomial is 5 non-negative counts, not {list(counts)}")
    regular = [c + prior for c, prior in zip(counts, PRIOR_PAIRS, strict=True)]
    n = math.fsum(regular)
    values = [score / 2.0 for score in PAIR_SCORES]
    mean = math.fsum(c * v for c, v in zip(regular, values, strict=True)) / n
    var = math.fsum(c * (v - mean) ** 2 for c, v in zip(regular, values, strict=True)) / n
    return n, mean, var


class EloEstimate(msgspec.Struct, frozen=True):
    """The tested bot's Elo over its opponent with a 95% interval [low, high], from `pairs` pairs.

    `elo` is ±inf when every pair scored 2 (or 0): the data then bound the Elo on one side
    only, and `low` (or `high`) is that bound.
    """

    pairs: int
    elo: float
    low: float
    high: float

    @property
    def error(self) -> float:
        """Half-width of the interval (inf when it is open on one side)."""
        return (self.high - self.low) / 2.0

    def describe(self) -> str:
        """The estimate as shown: "+34.2 ± 20.1", or a bound: "> +182.4" (every pair won)."""
        if math.isinf(self.elo):
            return f"> {self.low:+.1f}" if self.elo > 0 else f"< {self.high:+.1f}"
        return f"{self.elo:+.1f} ± {self.error:.1f}"


def elo_estimate(counts: Sequence[int]) -> EloEstimate | None:
    """Elo of the tested bot from its mean pair score, with a 95% interval; None for no pairs.

    The Elo is that of the observed mean m of the pair scores halved (as fishtest and
    fastchess show it). The interval is elo ± 1.96·SE on the Elo scale, by the delta method:
    SE = sqrt(var/N)·400/(ln 10·m·(1 - m)), with var/N the spread of the mean on the
    pentanomial regularised by `PRIOR_PAIRS` (as the LLR), so it is finite for every
    0 < m < 1 and not 0 after pairs that all scored alike. (fishtest's interval, m ± 1.96·SE
    mapped to Elo, is infinite or undefined whenever it reaches a score of 0 or 1.) When all
    N pairs scored 2 (m = 1) the Elo is +inf and only a lower bound exists: any pair score in
    0..1 with mean s scores 1 with probability at most s, so N pairs all scoring 1 has
    probability at most s^N, and s >= 0.025^(1/N) holds at 97.5%, the lower end of a 95%
    interval; m = 0 mirrors it.
    """
    n, _, var = _pair_stats(counts)
    pairs = sum(counts)
    if pairs == 0:
        return None
    mean = math.fsum(c * s / 2.0 for c, s in zip(counts, PAIR_SCORES, strict=True)) / pairs
    if mean <= 0.0 or mean >= 1.0:
        least: float = TAIL ** (1.0 / pairs)  # the lowest mean for which N top pairs are likely
        bound = logistic_elo(least)
        if mean >= 1.0:
            return EloEstimate(pairs, math.inf, bound, math.inf)
        return EloEstimate(pairs, -math.inf, -math.inf, -bound)
    elo = logistic_elo(mean) + 0.0  # + 0.0: an even score is +0.0 Elo, not -0.0
    error = Z95 * math.sqrt(var / n) * ELO_PER_LOGIT / (mean * (1.0 - mean))
    return EloEstimate(pairs, elo, elo - error, elo + error)


class Sprt(msgspec.Struct, frozen=True):
    """A GSPRT of H0: elo = elo0 against H1: elo = elo1 (logistic Elo), error rates alpha, beta.

    `llr` is the normal approximation (fishtest's `LLR_alt2`) of the generalised
    log-likelihood ratio of fishtest's `LLR_logistic` on the pentanomial: with s0, s1 the
    expected scores of elo0, elo1, N pairs, and the mean and variance of the per-pair score
    halved, LLR = N·(s1 - s0)·(2·mean - s0 - s1)/(2·var), on counts regularised by
    `PRIOR_PAIRS`.
    """

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        if not self.elo0 < self.elo1:
            raise ValueError(f"elo0 must be below elo1, not {self.elo0} and {self.elo1}")
        if not (self.alpha > 0.0 and self.beta > 0.0 and self.alpha + self.beta < 1.0):
            raise ValueError(
                f"need alpha, beta > 0 and alpha + beta < 1: {self.alpha}, {self.beta}"
            )

    def bounds(self) -> tuple[float, float]:
        """(lower, upper) = (ln(beta/(1-alpha)), ln((1-beta)/alpha)): accept H0 below, H1 above."""
        return (
            math.log(self.beta / (1.0 - self.alpha)),
            math.log((1.0 - self.beta) / self.alpha),
        )

    def llr(self, pentanomial: Sequence[int]) -> float:
        """Log-likelihood ratio of H1 over H0 after the pairs counted (0 before any pair)."""
        n, mean, var = _pair_stats(pentanomial)
        if sum(pentanomial) == 0:
            return 0.0
        s0, s1 = logistic_score(self.elo0), logistic_score(self.elo1)
        return n * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * var)

    def status(self, pentanomial: Sequence[int]) -> Status:
        """H1 once the LLR reaches the upper bound, H0 once it reaches the lower one."""
        llr = self.llr(pentanomial)
        lower, upper = self.bounds()
        if llr >= upper:
            return "H1"
        if llr <= lower:
            return "H0"
        return "continue"
