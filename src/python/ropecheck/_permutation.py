"""Equivalent output layouts: q and k returned with their channels permuted alike.

Attention reads q and k only through q . k, which a permutation of the channels applied to both
leaves unchanged; so an implementation may return its output in another channel order than the
exact map's (transformers' DeepSeek-V3 path de-interleaves the rotary channels: pairs (2i, 2i + 1)
in, pairs (i, i + d/2) out). A permutation ``perm`` here says that output channel j holds the exact
map's channel perm[j]: ``apply_permutation`` maps fn's output back to the exact order,
``find_permutation`` finds the one permutation under which fn's output matches, and
``describe_permutation`` names it for a message.
"""

from __future__ import annotations

import collections.abc
import numbers
from typing import TYPE_CHECKING, Optional

from . import _arguments as args
from ._errors import InputError

if TYPE_CHECKING:
    import numpy
    import numpy.typing as npt

#: find_permutation compares every output channel with every exact channel on at most this many
#: rows before calling the layout ambiguous, and switches to the surviving pairs alone once they
#: number at most _PAIRS_PER_CHANNEL per output channel.
_DENSE_ROWS = 256
_PAIRS_PER_CHANNEL = 16
_CHUNK = 1 << 22  # elements of one temporary


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:76] + " ..."


def _accepted(head_dim: int) -> str:
    return (f"a permutation of range({head_dim}) as {head_dim} ints (output channel j holds the exact map's "
            f"channel perm[j])")


def permutation_argument(value: object, head_dim: int) -> Optional[tuple[int, ...]]:
    """The ``permutation`` argument of check_rope, checked.

    Parameters
    ----------
    value : None or sequence of int
        None, or head_dim distinct ints covering range(head_dim) (a sequence: list, tuple, range,
        or a 1-D NumPy integer array): output channel j holds the exact map's channel value[j].
    head_dim : int
        The channels of one head.

    Returns
    -------
    tuple of int or None
        The permutation as Python ints; None for None.
    """
    if value is None:
        return None
    got = _short(value)
    np = args.numpy()
    if isinstance(value, np.ndarray):
        if value.ndim != 1 or not np.issubdtype(value.dtype, np.integer):
            raise InputError("permutation", _accepted(head_dim), f"{got} (an array of shape {value.shape} dtype {value.dtype})")
        items = [int(v) for v in value.tolist()]
    elif isinstance(value, (str, bytes)) or not isinstance(value, collections.abc.Sequence):
        raise InputError("permutation", _accepted(head_dim), got)
    else:
        items = []
        for v in value:
            if isinstance(v, bool) or not isinstance(v, numbers.Integral):
                raise InputError("permutation", _accepted(head_dim), f"{got} (holds {v!r})")
            items.append(int(v))
    if len(items) != head_dim:
        raise InputError("permutation", _accepted(head_dim), f"{got} ({len(items)} ints)")
    seen = [False] * head_dim
    for v in items:
        if not 0 <= v < head_dim:
            raise InputError("permutation", _accepted(head_dim), f"{got} (holds {v})")
        if seen[v]:
            raise InputError("permutation", _accepted(head_dim), f"{got} ({v} twice)")
        seen[v] = True
    return tuple(items)


def apply_permutation(y: npt.NDArray[numpy.float64], perm: tuple[int, ...]) -> npt.NDArray[numpy.float64]:
    """fn's output in the exact map's channel order.

    Parameters
    ----------
    y : numpy.ndarray [..., head_dim]
        fn's output, whose channel j holds the exact map's channel perm[j] (any dtype).
    perm : tuple of int
        A permutation of range(head_dim) (``permutation_argument``'s).

    Returns
    -------
    numpy.ndarray
        A new array z of y's shape and dtype with z[..., perm[j]] = y[..., j].
    """
    np = args.numpy()
    if len(perm) != y.shape[-1]:
        raise InputError("permutation", _accepted(y.shape[-1]), f"{_short(perm)} ({len(perm)} ints)")
    inverse = np.argsort(np.asarray(perm, dtype=np.int64))
    return y[..., inverse]


def find_permutation(got: npt.NDArray[numpy.float64], expected: npt.NDArray[numpy.float64],
                     tolerance: npt.NDArray[numpy.float64]) -> Optional[tuple[int, ...]]:
    """The one channel permutation under which got matches expected, if any and not the identity.

    Output channel j matches exact channel i when |got[..., j] - expected[..., i]| <=
    tolerance[..., i] on every row (token and head): the tolerance is the exact element's. Rows with
    a non-finite value of got or expected, or a NaN tolerance, are ignored.

    Parameters
    ----------
    got, expected : numpy.ndarray of float64 [tokens, heads, head_dim]
        fn's output and the exact map's (any shape [..., head_dim], the same for both).
    tolerance : numpy.ndarray of float64
        Absolute tolerances, broadcastable to got's shape.

    Returns
    -------
    tuple of int or None
        perm, with got[..., j] matching expected[..., perm[j]], when every output channel matches
        exactly one exact channel, these are distinct and the identity does not already match; None
        otherwise (not a permutation, ambiguous, the identity, or no finite row). When more than 16
        pairs per channel still match on the first 256 rows, the layout is called ambiguous (None).
        Cost: about head_dim^2 per row for the first few rows, then head_dim per row.
    """
    np = args.numpy()
    if got.shape != expected.shape or got.ndim == 0:
        raise InputError("expected", f"an array of got's shape {got.shape}", f"shape {expected.shape}")
    try:
        tol = np.broadcast_to(np.asarray(tolerance, dtype=np.float64), got.shape)
    except ValueError:
        raise InputError("tolerance", f"an array broadcastable to {got.shape}", f"shape {np.shape(tolerance)}") from None
    d = got.shape[-1]
    g = np.asarray(got, dtype=np.float64).reshape(-1, d)
    e = np.asarray(expected, dtype=np.float64).reshape(-1, d)
    t = tol.reshape(-1, d)
    rows = np.isfinite(g).all(axis=1) & np.isfinite(e).all(axis=1) & ~np.isnan(t).any(axis=1)
    g, e, t = g[rows], e[rows], t[rows]
    n = g.shape[0]
    if n == 0 or d == 0 or bool(np.all(np.abs(g - e) <= t)):
        return None

    # Every pair (output j, exact i) on the first rows, until few pairs survive.
    match = np.ones((d, d), dtype=bool)
    r = 0
    while r < min(n, _DENSE_ROWS):
        match &= np.abs(g[r][:, None] - e[r][None, :]) <= t[r][None, :]
        r += 1
        count = int(match.sum())
        if not match.any(axis=1).all():
            return None  # an output channel matches no exact channel
        if count <= _PAIRS_PER_CHANNEL * d:
            break
    else:
        if r < n:
            return None  # still too many pairs: ambiguous on the rows seen
    js, is_ = np.nonzero(match)

    # The surviving pairs on the remaining rows, in chunks.
    step = max(1, _CHUNK // max(1, len(js)))
    while r < n and len(js):
        stop = min(n, r + step)
        ok = np.all(np.abs(g[r:stop][:, js] - e[r:stop][:, is_]) <= t[r:stop][:, is_], axis=0)
        js, is_ = js[ok], is_[ok]
        r = stop
    if len(js) != d or not np.array_equal(js, np.arange(d)):
        return None  # some output channel matches none or several exact channels
    if len(np.unique(is_)) != d:
        return None  # two output channels hold the same exact channel
    perm = tuple(int(i) for i in is_)
    return None if perm == tuple(range(d)) else perm


def _pattern(perm: tuple[int, ...]) -> Optional[str]:
    """The name of a known layout change of all of perm's channels, or None."""
    d = len(perm)
    h = d // 2
    if d >= 2 and d % 2 == 0:
        if perm == tuple(range(0, d, 2)) + tuple(range(1, d, 2)):
            return (f"interleaved -> half: output channel j holds channel 2j for j < {h} and 2(j - {h}) + 1 "
                    f"for j >= {h}")
        if perm == tuple(v for k in range(h) for v in (k, k + h)):
            return f"half -> interleaved: output channel 2k holds channel k and 2k + 1 holds k + {h}, for k < {h}"
        if perm == tuple(range(h, d)) + tuple(range(h)):
            return f"halves swapped: output channel j holds channel (j + {h}) mod {d}"
        if perm == tuple(v for k in range(h) for v in (2 * k + 1, 2 * k)):
            return "pairs swapped: output channel 2k holds channel 2k + 1 and 2k + 1 holds 2k"
    if d >= 2 and perm == tuple(range(d - 1, -1, -1)):
        return f"reversed: output channel j holds channel {d - 1} - j"
    return None


def describe_permutation(perm: tuple[int, ...]) -> str:
    """A permutation in a message.

    Parameters
    ----------
    perm : tuple of int
        Output channel j holds the exact map's channel perm[j].

    Returns
    -------
    str
        A known layout change by name (interleaved -> half, half -> interleaved, halves swapped,
        pairs swapped, reversed), on the leading channels when the others are unchanged; else the
        first few moved channels.
    """
    d = len(perm)
    moved = [j for j in range(d) if perm[j] != j]
    if not moved:
        return f"the identity on {d} channels"
    # A known change of the leading `end` channels, the others unchanged (a partial rotary
    # dimension); the patterns leave at most their last channel in place.
    for end in range(moved[-1] + 1, min(d, moved[-1] + 2) + 1):
        name = _pattern(tuple(perm[:end]))
        if name is not None:
            return name + (f" (channels 0..{end - 1}; {end}..{d - 1} unchanged)" if end < d else "")
    shown = ", ".join(f"{j} <- {perm[j]}" for j in moved[:6])
    more = ", ..." if len(moved) > 6 else ""
    return f"output channel <- exact channel: {shown}{more} ({len(moved)} of {d} channels moved)"
