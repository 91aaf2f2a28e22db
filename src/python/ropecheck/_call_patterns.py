"""The call sequence of a stateful RoPE: the calls an inference server makes to one implementation
fn(x, positions), each to be checked against the rule config.json states for that call.

A server calls its RoPE once per forward pass: a prefill of a prompt (contiguous positions from the
start of the cache), single-token decodes continuing it, a chunked or cached prefill that starts at
an offset, a new short request after a long one. An implementation that keeps state between calls
(a cos/sin cache grown for the longest sequence so far, dynamic NTK's base updated on a long call
and never reset) is right on a fresh call and wrong on a later one. For dynamic NTK the reference
rule of a call is that of its own sequence length, max(positions) + 1 (``Call.sequence_length``).

``call_sequence`` is a pure function of its arguments (SplitMix64 from the seed, integer arithmetic
only: the same calls on every machine and NumPy version), and its first n calls are the sequence
of n calls. Its first five calls are a short
prefill at min_position (at most isqrt(min(max_tokens, span)) tokens) followed by a decode, then in
a seeded order a long call reaching max_position followed by a short prefill
(``short-after-long``), and a prefill at an offset; the rest are seeded episodes of
the same kinds and of prefills ending at a power of two followed by decodes crossing it (where
max_position_embeddings usually lies). Lengths are log-uniform (a uniform bit length, then uniform
within it), so that sequence lengths both cross a small threshold and come back under it: a
short-after-long call's sequence length is at most min_position + isqrt(min(max_tokens, span)).
"""

from __future__ import annotations

import dataclasses
import math
from typing import TYPE_CHECKING, Callable

from . import _arguments as args

if TYPE_CHECKING:
    import numpy
    import numpy.typing as npt

#: The kinds of call, in the order the module documents them.
KINDS = ("prefill", "decode", "offset-prefill", "long", "short-after-long")

_MASK = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15
_M1 = 0xBF58476D1CE4E5B9
_M2 = 0x94D049BB133111EB
_PICKS = 0xD1B54A32D192ED03  # the checked tokens' stream: the seed xor this
_MAX_CALLS = 1 << 16
_MAX_TOKENS = 1 << 16  # check_rope's own limit on tokens per call


def _mix(z: int) -> int:
    """SplitMix64's finalizer."""
    z = ((z ^ (z >> 30)) * _M1) & _MASK
    z = ((z ^ (z >> 27)) * _M2) & _MASK
    return z ^ (z >> 31)


class _Stream:
    """SplitMix64 from a seed, with exact integer draws (no floating point, no libm)."""

    def __init__(self, seed: int) -> None:
        self.state = seed

    def next(self) -> int:
        self.state = (self.state + _GOLDEN) & _MASK
        return _mix(self.state)

    def below(self, n: int) -> int:
        """An integer in [0, n): the high 64 bits of a 64 x 64-bit product (bias < n / 2^64)."""
        return (self.next() * n) >> 64

    def between(self, lo: int, hi: int) -> int:
        """An integer in [lo, hi]."""
        return lo + self.below(hi - lo + 1)

    def log_uniform(self, lo: int, hi: int) -> int:
        """An integer in [lo, hi] (1 <= lo <= hi): a uniform bit length, then uniform within it."""
        b = self.between(lo.bit_length(), hi.bit_length())
        return self.between(max(lo, 1 << (b - 1)), min(hi, (1 << b) - 1))


@dataclasses.dataclass(frozen=True, eq=False)
class Call:
    """One call of fn in a call sequence (arrays read-only; equality is identity).

    Attributes
    ----------
    index : int
        The call's place in the sequence, from 0.
    kind : str
        ``"prefill"`` (contiguous positions from min_position), ``"decode"`` (one token, the
        position after the previous call's last), ``"offset-prefill"`` (contiguous positions from
        above min_position), ``"long"`` (min(max_tokens, span) tokens ending at max_position) or
        ``"short-after-long"`` (a short prefill from min_position right after a long call).
    positions : numpy.ndarray of int64
        What fn is given: contiguous increasing positions [tokens].
    sequence_length : int
        max(positions) + 1: the sequence length the reference rule uses for this call.
    checked : numpy.ndarray of int64
        Indices into positions of the tokens whose outputs are checked: increasing, the first and
        last token always, the others sampled by the seed.
    follows : str
        What the call continues, for messages (``"after a prefill of 4096 at positions 0..4095"``);
        empty when it starts afresh.
    """

    index: int
    kind: str
    positions: npt.NDArray[numpy.int64]
    sequence_length: int
    checked: npt.NDArray[numpy.int64]
    follows: str = ""


def _checked(picks: _Stream, tokens: int, checked_tokens: int) -> npt.NDArray[numpy.int64]:
    """At most checked_tokens indices in [0, tokens): 0, tokens - 1 and a seeded sample between."""
    np = args.numpy()
    if tokens <= checked_tokens:
        return np.arange(tokens, dtype=np.int64)  # type: ignore[no-any-return]
    # One SplitMix64 key per interior index, from one draw of the stream; the smallest keys win.
    base = np.uint64(picks.next())
    z = base + np.arange(1, tokens - 1, dtype=np.uint64) * np.uint64(_GOLDEN)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(_M1)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(_M2)
    z = z ^ (z >> np.uint64(31))
    inner = np.argsort(z, kind="stable")[:checked_tokens - 2] + 1
    return np.sort(np.concatenate(([0], inner, [tokens - 1])).astype(np.int64))  # type: ignore[no-any-return]


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def call_sequence(*, seed: int, calls: int, min_position: int, max_position: int, max_tokens: int,
                  checked_tokens: int) -> tuple[Call, ...]:
    """The calls of one implementation in a seeded sequence like an inference server's.

    Parameters
    ----------
    seed : int
        In [0, 2^64 - 1]; the sequence is a pure function of the arguments.
    calls : int
        The number of calls, in [1, 65536]. With calls >= 5 the sequence holds a prefill, a decode,
        a long call and a short-after-long call and, when the range has two positions or more, an
        offset-prefill (a decode needs a position after its prefill).
    min_position, max_position : int
        Every position lies in [min_position, max_position], 0 <= min_position <= max_position <
        ropecheck's maximum length (so that sequence_length is a length the library accepts).
    max_tokens : int
        The most tokens in one call, in [1, 65536].
    checked_tokens : int
        The most checked tokens of one call, in [2, 65536] (the first and last are always checked).

    Returns
    -------
    tuple of Call
        ``calls`` calls, indexed from 0.
    """
    seed = args.integer("seed", seed, 0, args.UINT64_MAX)
    calls = args.integer("calls", calls, 1, _MAX_CALLS)
    min_position = args.integer("min_position", min_position, 0, args.MAX_LENGTH - 1)
    max_position = args.integer("max_position", max_position, min_position, args.MAX_LENGTH - 1)
    max_tokens = args.integer("max_tokens", max_tokens, 1, _MAX_TOKENS)
    checked_tokens = args.integer("checked_tokens", checked_tokens, 2, _MAX_TOKENS)
    np = args.numpy()

    stream = _Stream(seed)
    span = max_position - min_position + 1
    longest = min(max_tokens, span)
    plan: list[tuple[str, int, int, str]] = []  # (kind, first position, tokens, follows)

    def decodes(kind: str, start: int, length: int, count: int) -> None:
        """count decodes after a call of `length` tokens from `start` (as many as fit)."""
        for k in range(count):
            p = start + length + k
            if p > max_position:
                return
            after = f" and {_plural(k, 'decode')}" if k else ""
            article = "an" if kind[0] in "aeiou" else "a"
            plan.append(("decode", p, 1, f"after {article} {kind} of {length} at positions {start}..{start + length - 1}{after}"))

    def prefill(count: int, length: int = 0) -> None:
        length = length or stream.log_uniform(1, longest)
        plan.append(("prefill", min_position, length, ""))
        decodes("prefill", min_position, length, count)

    def offset_prefill(count: int) -> None:
        if span == 1:  # no position above min_position
            prefill(count)
            return
        length = stream.log_uniform(1, min(longest, span - 1))
        start = stream.between(min_position + 1, max_position - length + 1)
        plan.append(("offset-prefill", start, length, ""))
        decodes("offset-prefill", start, length, count)

    def long_then_short() -> None:
        plan.append(("long", max_position - longest + 1, longest, ""))
        follows = f"after call {len(plan) - 1} (long, sequence length {max_position + 1})"
        plan.append(("short-after-long", min_position, stream.log_uniform(1, max(1, math.isqrt(longest))), follows))

    def across_a_power_of_two() -> None:
        """A prefill from min_position to sequence length 2^b, then decodes past it."""
        bits = [b for b in range(1, 41) if min_position + 1 <= 1 << b <= min(max_position, min_position + longest)]
        if not bits:
            prefill(stream.below(5))
            return
        prefill(2, (1 << bits[stream.below(len(bits))]) - min_position)

    # The opening: a short prefill and its decode first (a server's first request is rarely its
    # longest, so a table sized by the first call and never regrown must be exceeded later), then
    # the long call with its short successor and an offset prefill in a seeded order: every kind
    # within five calls.
    prefill(1, stream.log_uniform(1, max(1, min(math.isqrt(longest), span - 1))))
    opening: list[Callable[[], None]] = [long_then_short, lambda: offset_prefill(0)]
    for i in range(len(opening) - 1, 0, -1):  # Fisher-Yates
        j = stream.below(i + 1)
        opening[i], opening[j] = opening[j], opening[i]
    for episode in opening:
        episode()
    while len(plan) < calls:
        choice = stream.below(8)
        if choice < 3:
            prefill(stream.below(5))
        elif choice < 5:
            offset_prefill(stream.below(3))
        elif choice < 7:
            across_a_power_of_two()
        else:
            long_then_short()

    # The checked tokens from a stream of their own, one draw per call: a sequence of n calls is the
    # first n calls of a longer one.
    picks = _Stream(seed ^ _PICKS)
    result = []
    for index, (kind, start, length, follows) in enumerate(plan[:calls]):
        positions = np.arange(start, start + length, dtype=np.int64)
        checked = _checked(picks, length, checked_tokens)
        positions.setflags(write=False)
        checked.setflags(write=False)
        result.append(Call(index, kind, positions, start + length, checked, follows))
    return tuple(result)


def describe(call: Call) -> str:
    """A call in a failure message.

    Parameters
    ----------
    call : Call
        A call of ``call_sequence``.

    Returns
    -------
    str
        E.g. ``"call 5 (decode, position 4097 after a prefill of 4096 at positions 0..4095 and
        1 decode; sequence length 4098)"``.
    """
    n = len(call.positions)
    first, last = int(call.positions[0]), int(call.positions[-1])
    where = f"position {first}" if n == 1 else f"{n} tokens at positions {first}..{last}"
    follows = f" {call.follows}" if call.follows else ""
    return f"call {call.index} ({call.kind}, {where}{follows}; sequence length {call.sequence_length})"
