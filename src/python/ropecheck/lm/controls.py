"""Norm-matched random-pair controls for the band removals (docs/usage.md, "Band ablations as
loss"): removing a band's query channels removes both its frequencies and its share of the
query and key norm, so a loss that moves under the removal could move for either reason. The
control removes as many other rotating pairs, drawn at random, whose share of the norm is as close
to the band's as the draws allow: where the band's removal costs much more than its control's,
the frequencies matter beyond the norm removed.

A draw starts from k random pairs outside the band (k the band's size) and is then matched by
single swaps: while exchanging one of its pairs for one outside it (and outside the band) brings
its share closer to the band's, the best such exchange is made (a random set of many pairs sits
near the mean share, so without the swaps a band with an extreme share, as Gemma 3's 32-pair
quarters, stays 30% or more away). The closest of the draws is kept.

The draws are deterministic and independent of any library's random generator: draw d ranks every
candidate pair j by sha256("ropecheck-control:<seed>:<band>:<d>:<j>") and starts from the first k,
and the swaps take the smallest gap (ties: the first found), so the same seed gives the
same control on every machine and version.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
from typing import Any, Sequence

from .. import _arguments as args
from .._errors import InputError


@dataclasses.dataclass(frozen=True)
class Control:
    """One band's control.

    Attributes
    ----------
    band : str
        The band it controls.
    pairs : tuple of int
        The control's pairs (none of the band's), in pair order.
    band_share, share : float
        The band's and the control's share of the q + k norm (the shares given).
    draws : int
        How many random sets were drawn and matched by swaps; the closest in share was kept (the
        first on a tie).
    distinct : int
        How many different sets exist (C(candidates, k)); when it is 1 the control is every
        pair outside the band and matches nothing by choice.
    reachable : tuple of float
        The least and the greatest share any k pairs outside the band hold: a band whose share lies
        outside it cannot be matched, and its control is the nearest end (``reached`` False).
    seed : int
    """

    band: str
    pairs: tuple[int, ...]
    band_share: float
    share: float
    draws: int
    distinct: int
    reachable: tuple[float, float]
    seed: int

    @property
    def reached(self) -> bool:
        """Whether the band's share lies within what k pairs outside it can hold."""
        return self.reachable[0] <= self.band_share <= self.reachable[1]

    @property
    def matched(self) -> float:
        """The relative difference |share - band_share| / band_share (0: matched exactly)."""
        return abs(self.share - self.band_share) / self.band_share if self.band_share > 0 else math.inf

    def to_dict(self) -> dict[str, Any]:
        """Every field, with ``matched`` (JSON-ready)."""
        return {"band": self.band, "pairs": list(self.pairs), "band_share": self.band_share, "share": self.share,
                "matched": self.matched, "draws": self.draws, "distinct": self.distinct, "reachable": list(self.reachable),
                "reached": self.reached, "seed": self.seed,
                "rule": "k random rotating pairs outside the band (k its size), each draw matched to the band's q + k norm "
                        "share by single swaps with pairs outside both, the closest of the draws"}


def _rank(seed: int, band: str, draw: int, pair: int) -> bytes:
    return hashlib.sha256(f"ropecheck-control:{seed}:{band}:{draw}:{pair}".encode()).digest()


def _swapped(chosen: list[int], candidates: list[int], values: list[float], target: float) -> tuple[int, ...]:
    """`chosen` improved by the best single swap with a candidate outside it, until none helps."""
    chosen = list(chosen)
    total = math.fsum(values[j] for j in chosen)
    while True:
        outside = [j for j in candidates if j not in set(chosen)]
        best = (abs(total - target), -1, -1)
        for a, i in enumerate(chosen):
            for j in outside:
                gap = abs(total - values[i] + values[j] - target)
                if gap < best[0]:
                    best = (gap, a, j)
        if best[1] < 0:
            return tuple(sorted(chosen))
        chosen[best[1]] = best[2]
        total = math.fsum(values[j] for j in chosen)


def norm_matched_control(band: str, band_pairs: Sequence[int], rotating: Sequence[int], shares: Sequence[float], *,
                         seed: int = 0, draws: int = 64) -> Control:
    """The norm-matched random-pair control of one band.

    Parameters
    ----------
    band : str
        The band's name (it enters the draws, so each band gets its own).
    band_pairs : sequence of int
        The band's pair indices.
    rotating : sequence of int
        Every rotating pair index (the candidates are those outside the band).
    shares : sequence of float
        Per pair index, its share of the q + k norm (finite, >= 0).
    seed : int
        In [0, 2^63).
    draws : int
        Random starting sets, in [1, 2^16].

    Returns
    -------
    Control

    Raises
    ------
    InputError
        ``band_pairs`` (empty, not distinct, not rotating), ``rotating`` (fewer pairs outside the
        band than in it), ``shares`` (too short, a value not finite and >= 0), ``seed``, ``draws``.
    """
    seed = args.integer("seed", seed, 0, (1 << 63) - 1)
    draws = args.integer("draws", draws, 1, 1 << 16)
    values = [float(x) for x in shares]
    rot = sorted({int(j) for j in rotating})
    own = [int(j) for j in band_pairs]
    if not own or len(set(own)) != len(own) or not set(own) <= set(rot):
        raise InputError("band_pairs", "distinct rotating pair indices, at least one", repr(list(band_pairs))[:60])
    if len(values) <= max(rot) or any(not (math.isfinite(v) and v >= 0) for v in values):
        raise InputError("shares", f"a finite share >= 0 for every pair index up to {max(rot)}", repr(values[:8])[:60])
    candidates = [j for j in rot if j not in set(own)]
    k = len(own)
    if len(candidates) < k:
        raise InputError("rotating", f"at least {k} rotating pairs outside the band", str(len(candidates)))
    target = math.fsum(values[j] for j in own)
    best: tuple[float, tuple[int, ...]] = (math.inf, ())
    for d in range(draws):
        start = sorted(candidates, key=lambda j: _rank(seed, band, d, j))[:k]
        chosen = _swapped(start, candidates, values, target)
        gap = abs(math.fsum(values[j] for j in chosen) - target)
        if gap < best[0]:
            best = (gap, chosen)
    share = math.fsum(values[j] for j in best[1])
    ordered = sorted(values[j] for j in candidates)
    reachable = (math.fsum(ordered[:k]), math.fsum(ordered[-k:]))
    return Control(band, best[1], target, share, draws, math.comb(len(candidates), k), reachable, seed)
