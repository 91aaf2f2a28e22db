"""Norm-matched random-pair controls for the band removals (docs/usage.md, "Band ablations as
loss"): removing a band's query channels removes both its frequencies and its share of the
query and key norm, so a loss that moves under the removal could move for either reason. The
control removes as many other rotating pairs, drawn at random, whose share of the norm is as close
to the band's as the draws allow: where the band's removal costs much more than its control's,
the frequencies matter beyond the norm removed.

The draws are deterministic and independent of any library's random generator: draw d ranks every
candidate pair j by sha256("ropecheck-control:<seed>:<band>:<d>:<j>") and takes the first k (k the
band's size), so the same seed gives the same control on every machine and version.
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
        How many random sets were drawn; the closest in share was kept (the first on a tie).
    distinct : int
        How many different sets exist (C(candidates, k)); when it is 1 the control is every
        pair outside the band and matches nothing by choice.
    seed : int
    """

    band: str
    pairs: tuple[int, ...]
    band_share: float
    share: float
    draws: int
    distinct: int
    seed: int

    @property
    def matched(self) -> float:
        """The relative difference |share - band_share| / band_share (0: matched exactly)."""
        return abs(self.share - self.band_share) / self.band_share if self.band_share > 0 else math.inf

    def to_dict(self) -> dict[str, Any]:
        """Every field, with ``matched`` (JSON-ready)."""
        return {"band": self.band, "pairs": list(self.pairs), "band_share": self.band_share, "share": self.share,
                "matched": self.matched, "draws": self.draws, "distinct": self.distinct, "seed": self.seed,
                "rule": "k random rotating pairs outside the band (k its size), the closest in q + k norm share of the draws"}


def _rank(seed: int, band: str, draw: int, pair: int) -> bytes:
    return hashlib.sha256(f"ropecheck-control:{seed}:{band}:{draw}:{pair}".encode()).digest()


def norm_matched_control(band: str, band_pairs: Sequence[int], rotating: Sequence[int], shares: Sequence[float], *,
                         seed: int = 0, draws: int = 4096) -> Control:
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
        Random sets drawn, in [1, 2^20].

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
    draws = args.integer("draws", draws, 1, 1 << 20)
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
        chosen = tuple(sorted(sorted(candidates, key=lambda j: _rank(seed, band, d, j))[:k]))
        gap = abs(math.fsum(values[j] for j in chosen) - target)
        if gap < best[0]:
            best = (gap, chosen)
    share = math.fsum(values[j] for j in best[1])
    return Control(band, best[1], target, share, draws, math.comb(len(candidates), k), seed)
