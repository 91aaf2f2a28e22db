"""Student's t law in pure Python, for the package's intervals over a few measured values (the loss
ablations of ``ropecheck.torch.ablation_losses``).

The C++ layer computes its intervals with Boost.Math (``statistics/inference.h``) but exports none of
them to Python, so the quantile is computed here from the law itself (Abramowitz and Stegun 26.7.1
with 26.5.2):

    P(|T_df| > t) = I_x(df/2, 1/2),   P(|T_df| <= t) = I_y(1/2, df/2),
    x = df / (df + t^2),  y = t^2 / (df + t^2) = 1 - x,

I the regularized incomplete beta function, evaluated by its continued fraction (A&S 26.5.8) with the
modified Lentz method where the fraction converges fast (x < (a + 1) / (a + b + 2); else through
I_x(a, b) = 1 - I_y(b, a)), and ln B(a, b) from Stirling's series for a large argument (no
cancellation of two large lgamma values). The quantile is found by bisection on t down to adjacent
binary64 numbers, on whichever of the two probabilities is the smaller (so neither is 1 minus
another), x, y and their logarithms each formed from t without cancellation. Accuracy, measured
against mpmath at 40 digits over p in [1e-10, 1 - 1e-10]: within 3e-14 relative for df <= 1000,
5e-14 at df = 1e4, 3e-13 at 1e5 (tests/python/test_ablation.py checks the closed forms for df = 1, 2
and 4, the NIST table's values and the normal limit).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Optional, Sequence

from ._errors import InputError

_TINY = 1e-300
_EPS = 1e-16
_MAX_TERMS = 100_000


def _beta_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of I_x(a, b) (A&S 26.5.8) by the modified Lentz method."""
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > _TINY else _TINY)
    h = d
    for m in range(1, _MAX_TERMS + 1):
        m2 = 2 * m
        delta = 1.0
        for coefficient in (m * (b - m) * x / ((a + m2 - 1.0) * (a + m2)),
                            -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0))):
            d = 1.0 + coefficient * d
            d = 1.0 / (d if abs(d) > _TINY else _TINY)
            c = 1.0 + coefficient / c
            c = c if abs(c) > _TINY else _TINY
            delta = c * d
            h *= delta
        if abs(delta - 1.0) < _EPS:
            return h
    raise ArithmeticError(f"the incomplete beta fraction did not converge (a={a}, b={b}, x={x})")  # pragma: no cover


def _stirling_tail(x: float) -> float:
    """lgamma(x) - ((x - 1/2) ln x - x + ln(2 pi)/2) for x >= 20: Stirling's series to x^-9 (A&S 6.1.40;
    the next term, 691 / (360360 x^11), is below 1e-17 there)."""
    r = 1.0 / (x * x)
    return (1.0 / 12 - r * (1.0 / 360 - r * (1.0 / 1260 - r * (1.0 / 1680 - r / 1188)))) / x


def _log_beta(a: float, b: float) -> float:
    """ln B(a, b) = lgamma(a) + lgamma(b) - lgamma(a + b). For a large argument the difference
    lgamma(big + small) - lgamma(big) is formed from Stirling's series term by term, so that the
    cancellation of two large lgamma values costs no accuracy."""
    big, small = max(a, b), min(a, b)
    if big < 20.0:
        return math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)
    ratio = ((big - 0.5) * math.log1p(small / big) + small * math.log(big + small) - small
             + _stirling_tail(big + small) - _stirling_tail(big))  # lgamma(big + small) - lgamma(big)
    return math.lgamma(small) - ratio


def incomplete_beta(a: float, b: float, x: float) -> float:
    """I_x(a, b), the regularized incomplete beta function, for a, b > 0 and x in [0, 1]."""
    if not (a > 0 and b > 0 and 0.0 <= x <= 1.0):
        raise ValueError(f"incomplete_beta: a, b > 0 and x in [0, 1] (got a={a}, b={b}, x={x})")
    if x == 0.0 or x == 1.0:
        return x
    return _incomplete_beta(a, b, x, 1.0 - x, math.log(x), math.log1p(-x))


def _incomplete_beta(a: float, b: float, x: float, y: float, log_x: float, log_y: float) -> float:
    """I_x(a, b) from x, y = 1 - x and their logarithms, each as accurate as the caller can form it
    (a ln x is the term whose absolute error becomes I's relative error, and a may be large)."""
    log_front = a * log_x + b * log_y - _log_beta(a, b)
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _beta_fraction(a, b, x) / a
    return 1.0 - math.exp(log_front) * _beta_fraction(b, a, y) / b


def t_probabilities(t: float, df: float) -> tuple[float, float]:
    """(P(|T| > t), P(|T| <= t)) for Student's t with df degrees of freedom and t > 0, each computed
    directly, not as 1 minus the other: x = df / (df + t^2), y = t^2 / (df + t^2) and their
    logarithms -log1p(t^2 / df), -log1p(df / t^2) are formed without cancellation."""
    u = t * t
    x, y = df / (df + u), u / (df + u)
    log_x, log_y = -math.log1p(u / df), -math.log1p(df / u)
    return _incomplete_beta(df / 2.0, 0.5, x, y, log_x, log_y), _incomplete_beta(0.5, df / 2.0, y, x, log_y, log_x)


#: The range t_quantile accepts: p in [P_MIN, 1 - P_MIN], df in [1, DF_MAX] (|t| stays below 4e9).
P_MIN = 1e-10
DF_MAX = 1e7


def t_quantile(p: float, df: float) -> float:
    """The p quantile of Student's t with df degrees of freedom: P(T <= t) = p.

    Parameters
    ----------
    p : float
        In [1e-10, 1 - 1e-10].
    df : float
        Degrees of freedom in [1, 1e7] (an interval over n values uses n - 1).

    Returns
    -------
    float
        The quantile, within 3e-14 relative for df <= 1000 (3e-13 up to df = 1e5).

    Raises
    ------
    InputError
        ``p`` or ``df`` outside its range.

    Examples
    --------
    >>> from ropecheck._statistics import t_quantile
    >>> round(t_quantile(0.975, 9), 3), round(t_quantile(0.025, 1), 3)
    (2.262, -12.706)
    """
    if isinstance(p, bool) or not isinstance(p, (int, float)) or not P_MIN <= p <= 1.0 - P_MIN:
        raise InputError("p", "a probability in [1e-10, 1 - 1e-10]", repr(p))
    if isinstance(df, bool) or not isinstance(df, (int, float)) or not 1.0 <= df <= DF_MAX:
        raise InputError("df", "a number of degrees of freedom in [1, 1e7]", repr(df))
    if p == 0.5:
        return 0.0
    tail = 2.0 * min(p, 1.0 - p)   # P(|T| > t) at the quantile (1 - p is exact for p >= 1/2)
    central = abs(2.0 * p - 1.0)   # P(|T| <= t), exact in binary64
    use_tail = tail <= 0.5         # solve on the smaller of the two

    def below(t: float) -> bool:   # whether t lies below the quantile's magnitude
        outside, inside = t_probabilities(t, df)
        return outside > tail if use_tail else inside < central

    lo, hi = 0.0, 1.0
    while below(hi):
        lo, hi = hi, 2.0 * hi
    while True:  # bisection down to adjacent binary64 numbers
        mid = 0.5 * (lo + hi)
        if mid <= lo or mid >= hi:
            break
        if below(mid):
            lo = mid
        else:
            hi = mid
    return hi if p > 0.5 else -hi


#: What the intervals of ``mean_interval`` are, stated once.
T_INTERVAL_METHOD = ("two-sided Student t-interval over sequences (mean +- t_{(1+level)/2, n-1} s / sqrt(n)): exact when "
                     "the per-sequence values are independent and normal, asymptotic (central limit theorem) otherwise")


@dataclasses.dataclass(frozen=True)
class MeanInterval:
    """The mean of n measured values with its two-sided Student t-interval.

    Attributes
    ----------
    n : int
        The sample size (values: sequences).
    mean : float
    sd : float or None
        The sample standard deviation (n - 1 in the denominator); None when n < 2.
    half_width : float or None
        t_{(1+level)/2, n-1} sd / sqrt(n); None when n < 2.
    level : float
        The interval's confidence level (0.95: 95%).
    """

    n: int
    mean: float
    sd: Optional[float]
    half_width: Optional[float]
    level: float

    @property
    def low(self) -> Optional[float]:
        """mean - half_width (None when n < 2)."""
        return None if self.half_width is None else self.mean - self.half_width

    @property
    def high(self) -> Optional[float]:
        """mean + half_width (None when n < 2)."""
        return None if self.half_width is None else self.mean + self.half_width

    @property
    def excludes_zero(self) -> Optional[bool]:
        """Whether the interval lies wholly above or below 0: the two-sided t-test at 1 - level
        rejects a zero mean (None when n < 2)."""
        return None if self.half_width is None else abs(self.mean) > self.half_width

    def to_dict(self) -> dict[str, Any]:
        """n, mean, sd, half_width, low, high, level (JSON-ready)."""
        return {"n": self.n, "mean": self.mean, "sd": self.sd, "half_width": self.half_width, "low": self.low,
                "high": self.high, "level": self.level}

    def text(self, signed: bool = False, digits: int = 4) -> str:
        """``mean ± half_width`` (the mean alone when n < 2)."""
        m = f"{self.mean:+.{digits}f}" if signed else f"{self.mean:.{digits}f}"
        return m if self.half_width is None else f"{m} ± {self.half_width:.{digits}f}"


def mean_interval(values: Sequence[float], level: float = 0.95) -> MeanInterval:
    """The mean of `values` and its two-sided Student t-interval at `level` (sd and half-width None
    for fewer than 2 values). The sum is math.fsum's (correctly rounded)."""
    n = len(values)
    if n == 0:
        raise ValueError("mean_interval: no values")
    mean = math.fsum(values) / n
    if n < 2:
        return MeanInterval(n, mean, None, None, level)
    sd = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (n - 1))
    return MeanInterval(n, mean, sd, t_quantile((1.0 + level) / 2.0, n - 1) * sd / math.sqrt(n), level)
