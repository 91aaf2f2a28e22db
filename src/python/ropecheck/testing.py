"""ropecheck.testing: fuzz anyone's RoPE against the exact map, from pytest.

    from ropecheck.testing import check_rope

    def test_my_rope():
        check_rope(my_rope, model="llama-3.1-8b", dtype="bfloat16", layout="half")

check_rope calls ``fn(x, positions)`` on tensors ropecheck generates (the kernel fuzz's adversarial
inputs: positions at 2^24 +- 1, 2^31, 2^40, near-returns of the model's own frequencies where an
angle comes closest to a multiple of pi/2, log-uniform magnitudes; inputs near cancellation for the
exact angle, edge values of the format, signed zeros, infinities and NaNs, bit patterns; p-RoPE
identity pairs and pass-through channels whenever the RoPE has them), checks every output element
against the exact map (accuracy/element_check.h), groups failures by input class (ordinary finite
inputs first), shrinks each class's worst failure to the smallest tensor that still fails, and
raises AssertionError giving the position, pair, inputs, expected and got in hex and the seed that
replays it. The same seed gives the same inputs on every machine. profile gives fn's error per
position decade on ordinary inputs. ropecheck.torch has both for torch tensors.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from . import _arguments as args
from . import _checking
from . import _core
from ._checking import CheckResult, ClassSummary, Profile, ProfileRow
from ._options import ArrayRope, DTypeLike, KernelArray

if TYPE_CHECKING:
    import numpy
    import numpy.typing as npt
    from typing_extensions import Unpack

    from ._options import ModelOptions  # under TYPE_CHECKING: not a public name of ropecheck.testing

__all__ = ["check_rope", "profile", "fuzz_inputs", "CheckResult", "ClassSummary", "Profile", "ProfileRow"]


def fuzz_inputs(*, seed: int = 0, round: int = 0, dtype: DTypeLike = "float32", tokens: int = 32, heads: int = 2,
                min_position: int = 0, max_position: int = 1 << 40, model: Optional[str] = None,
                layer_type: Optional[str] = None, layout: Optional[str] = None,
                **spectrum_options: Unpack[ModelOptions]) -> tuple[npt.NDArray[numpy.int64], KernelArray]:
    """The inputs check_rope gives fn in round `round`.

    Parameters
    ----------
    seed : int
        check_rope's seed.
    round : int
        The round index check_rope's failure report names.
    dtype, tokens, heads, min_position, max_position, model, layer_type, layout, **spectrum_options
        As for check_rope.

    Returns
    -------
    positions : numpy.ndarray of int64, [tokens]
    x : numpy.ndarray, [tokens, heads, head_dim]
        float32, uint16 bfloat16 bits for dtype="bfloat16", or float16.

    Examples
    --------
    >>> from ropecheck.testing import fuzz_inputs
    >>> positions, x = fuzz_inputs(seed=1, model="llama-3.1-8b", tokens=4)
    >>> positions.shape, x.shape, x.dtype
    ((4,), (4, 2, 128), dtype('float32'))
    """
    request, variant = args.spectrum_request(model=model, layer_type=layer_type, **spectrum_options)
    seed = args.integer("seed", seed, 0, args.UINT64_MAX)
    round = args.integer("round", round, 0, 1 << 40)
    with args.VariantNames(variant):
        positions, x, _ = _core.fuzz_tensor(request, args.layout(layout), args.dtype_name(dtype),
                                            _checking.round_seed(seed, round), args.integer("tokens", tokens, 1, 1 << 20),
                                            args.integer("heads", heads, 1, 1 << 20),
                                            args.integer("min_position", min_position, *args.INT64),
                                            args.integer("max_position", max_position, *args.INT64))
    return positions, x


def check_rope(fn: ArrayRope, *, model: Optional[str] = None, layer_type: Optional[str] = None, dtype: DTypeLike = "float32",
               layout: Optional[str] = None, axes: str = "shd", max_ulp: float = 0.5, rtol: Optional[float] = None,
               signed_zeros: bool = True, backward: bool = False, seed: int = 0, budget: int = 16, tokens: int = 32, heads: int = 2,
               min_position: int = 0, max_position: int = 1 << 40, canonical_nan: bool = False,
               **spectrum_options: Unpack[ModelOptions]) -> CheckResult:
    """Fuzzes fn, a RoPE implementation, against the exact map.

    Parameters
    ----------
    fn : callable
        ``fn(x, positions)`` returns the rotated tensor (a NumPy array or DLPack tensor of x's
        shape and dtype), or None after rotating x in place.
    model, layer_type : str, optional
        The RoPE: a zoo name or config.json path and its layer type; or the spectrum keywords
        (``config``, ``dim``, ``theta``, ``p_rope``, ``scaling``, ...) with `layout`.
    dtype : {"float32", "bfloat16", "float16"}, numpy dtype or scalar type, or torch.dtype
        x's format: float32, uint16 bfloat16 bit patterns, or float16 (``numpy.float16`` and
        ``torch.float16`` name the same format as "float16").
    layout : {"interleaved", "half"}, optional
    axes : {"shd", "bshd", "bhsd", "hsd", "sd"}
        x's shape: [tokens, heads, head_dim] (default); "bshd" and "bhsd" have batch 1 and
        positions [1, tokens] (Hugging Face's position_ids); "sd" is [tokens, heads * head_dim]
        (vLLM's).
    max_ulp : float
        0.5 (default) demands the correctly rounded value; larger, the error bound in ulp (the
        floored metric, ropecheck.audit's). Non-finite inputs and signed zeros must give the IEEE
        result of the formula (a NaN may be any NaN unless `canonical_nan`); identity pairs and
        pass-through elements must be copied bit for bit.
    rtol : float, optional
        Also accept a rotary output within rtol x ||(x_a, x_b)|| of the exact value (the scale-free
        tolerance; pairs of norm below 2^-126 keep max_ulp alone). In (0, 1].
    signed_zeros : bool
        False accepts a zero of either sign wherever a zero is expected (and nothing else).
    backward : bool
        True checks fn as the gradient map: fn(grad_y, positions) against the exact a R(-p g) grad_y
        (the forward map at -p; min_position must then exceed -2^63).
    seed : int
        The inputs are a pure function of (seed, round): the same on every machine.
    budget : int
        Rounds (calls of fn), each a fresh tensor of `tokens` x `heads` rows.
    tokens, heads : int
    min_position, max_position : int
        The positions' range (int64).
    canonical_nan : bool

    Returns
    -------
    CheckResult
        When every round passed.

    Raises
    ------
    AssertionError
        After every round ran, when any failed: the failures per input class (ordinary finite
        inputs, subnormals, near the format's maximum, signed zeros, non-finite), and for each
        failing class its worst element shrunk to one token and head (position, pair, inputs,
        expected and got in hex and bits, the rule broken); a replay line. Also when fn raises or
        returns something other than a tensor of x's shape and dtype, saying what.
    InputError
        A bad argument, naming it.

    Examples
    --------
    >>> import ropecheck
    >>> from ropecheck.testing import check_rope
    >>> def kernel(x, positions):
    ...     return ropecheck.apply(x, positions, model="llama-3.1-8b")
    >>> check_rope(kernel, model="llama-3.1-8b", budget=2).rounds
    2
    """
    s = _checking.settings(model=model, layer_type=layer_type, layout=layout, dtype=dtype, axes=axes, backward=backward,
                           spectrum_options=spectrum_options)
    return _checking.check(fn, _checking.Adapter(s.dtype), s, max_ulp=max_ulp, rtol=rtol, signed_zeros=signed_zeros,
                           canonical_nan=canonical_nan, seed=seed, budget=budget, tokens=tokens, heads=heads,
                           min_position=min_position, max_position=max_position)


def profile(fn: ArrayRope, *, model: Optional[str] = None, layer_type: Optional[str] = None, dtype: DTypeLike = "float32",
            layout: Optional[str] = None, axes: str = "shd", backward: bool = False, seed: int = 0, tokens: int = 64, heads: int = 4,
            max_position: int = 10 ** 7 - 1, threads: int = 1, **spectrum_options: Unpack[ModelOptions]) -> Profile:
    """fn's error per position decade, on ordinary inputs: the audit's table for a function.

    fn is called once on `tokens` positions per decade (uniform in [10^d, 10^(d+1)), up to
    max_position) with standard normal inputs rounded to `dtype` (accuracy/profile_tensor.h), and
    every output element is audited against the exact map (backward: the gradient map).

    Parameters
    ----------
    fn, model, layer_type, dtype, layout, axes, backward, seed
        As for check_rope.
    tokens, heads : int
        Per decade.
    max_position : int
        The last decade's top, in [0, 2^62] (default 10^7 - 1: seven decades).
    threads : int
        The audit's threads (the same figures for every count).

    Returns
    -------
    Profile
        One row per decade: positions, elements, max_ulp, max_rel (error over the pair's norm),
        correctly_rounded (a fraction). Measured on sampled inputs: lower bounds of fn's error.

    Examples
    --------
    >>> import ropecheck
    >>> from ropecheck.testing import profile
    >>> def kernel(x, positions):
    ...     return ropecheck.apply(x, positions, model="llama-3.1-8b")
    >>> [r.correctly_rounded for r in profile(kernel, model="llama-3.1-8b", tokens=2, heads=1, max_position=99).rows]
    [1.0, 1.0]
    """
    s = _checking.settings(model=model, layer_type=layer_type, layout=layout, dtype=dtype, axes=axes, backward=backward,
                           spectrum_options=spectrum_options)
    return _checking.profile(fn, _checking.Adapter(s.dtype), s, seed=seed, tokens=tokens, heads=heads, max_position=max_position,
                             threads=threads)
