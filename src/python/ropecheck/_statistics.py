"""Student's t intervals for the package's measured values (the loss ablations of
``ropecheck.torch.ablation_losses``, the real-model summaries).

The quantile is the library's: Boost.Math's Student t (``_core.t_quantile``), the law
``statistics/inference.h``'s intervals use, so Python and C++ state one t-interval (issue 54; the
package once carried a second implementation of the law in pure Python). Boost computes the
quantile from the inverse of the regularized incomplete beta function, to a few ulp
(tests/python/test_ablation.py checks the closed forms for df = 1, 2 and 4, the NIST table's values
and the normal limit).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Optional, Sequence

from . import _core
from ._errors import InputError


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
        The quantile (Boost.Math's, to a few ulp).

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
    return float(_core.t_quantile(float(p), float(df)))


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


def bonferroni_family(level: float, own: int, comparisons: Optional[int] = None) -> tuple[int, float]:
    """The family of simultaneous intervals a call states: its size (``comparisons``, at least the
    call's ``own``; default ``own``) and the Bonferroni level 1 - (1 - level) / size of each.
    InputError naming ``level`` when even ``own`` intervals would need a t quantile past
    ``t_quantile``'s range (tail below P_MIN), ``comparisons`` when it is not an integer in
    [own, the most the level allows]."""
    from . import _arguments as args
    most = min(1 << 20, int((1.0 - float(level)) / (2 * P_MIN)))
    if own > most:
        raise InputError("level", f"a level whose simultaneous intervals over the call's {own} comparisons stay within "
                         f"the t quantile's range (1 - level >= {own * 2 * P_MIN:.3g})", repr(level))
    family = own if comparisons is None else args.integer("comparisons", comparisons, own, most)
    return family, 1.0 - (1.0 - float(level)) / family
