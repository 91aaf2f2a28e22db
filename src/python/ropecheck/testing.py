"""ropecheck.testing: fuzz anyone's RoPE against the exact map, from pytest.

    from ropecheck.testing import check_rope

    def test_my_rope():
        check_rope(my_rope, model="llama-3.1-8b", dtype="bfloat16", layout="half")

By default fn is held to what the standard float32 formulation of RoPE can produce (float32
frequencies, angles, cos, sin and arithmetic, one rounding to the dtype: a correct production
RoPE passes, a wrong one fails), at positions up to the model's trained context; bound="strict"
demands correct rounding. check_rope calls ``fn(x, positions)`` on tensors ropecheck generates (the
kernel fuzz's adversarial inputs: positions at 2^24 +- 1, 2^31, 2^40 when in range, near-returns of the model's own frequencies where an
angle comes closest to a multiple of pi/2, log-uniform magnitudes; inputs near cancellation for the
exact angle, edge values of the format, signed zeros, infinities and NaNs, bit patterns; p-RoPE
identity pairs and pass-through channels whenever the RoPE has them), checks every output element
against the exact map (accuracy/element_check.h), groups failures by input class (ordinary finite
inputs first), shrinks each class's worst failure to the smallest tensor that still fails, and
raises RopeCheckError (an AssertionError carrying the full CheckResult) giving the position, pair,
inputs, expected and got in hex, whether the failure grows with position, and the seed that
replays it; raise_on_failure=False returns the result instead. mode="calls" runs fn through a
sequence of prefill and decode calls, catching stale caches. The same seed gives the same inputs on every machine. profile gives fn's error per
position decade on ordinary inputs. ropecheck.torch has both for torch tensors.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional, Sequence

from . import _arguments as args
from . import _check_engine, _checking, _profiling
from . import _core
from ._check_results import CheckResult, ClassSummary, Failure, RopeCheckError  # RopeCheckError: exported by the package
from ._profiling import Profile, ProfileRow
from ._options import ArrayRope, DTypeLike, KernelArray

if TYPE_CHECKING:
    import numpy
    import numpy.typing as npt
    from typing_extensions import Unpack

    from ._options import ModelOptions  # under TYPE_CHECKING: not a public name of ropecheck.testing

__all__ = ["check_rope", "profile", "fuzz_inputs", "CheckResult", "ClassSummary", "Failure", "Profile", "ProfileRow"]


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
               layout: Optional[str] = None, axes: str = "shd", bound: str = "standard", max_ulp: Optional[float] = None,
               rtol: Optional[float] = None, signed_zeros: bool = True, backward: bool = False, seed: int = 0, budget: int = 16,
               tokens: int = 32, heads: int = 2, min_position: int = 0, max_position: Optional[int] = None,
               beyond_context: bool = False, mode: str = "rounds", permutation: Optional[Sequence[int]] = None,
               raise_on_failure: bool = True, canonical_nan: bool = False, tables: str = "float32",
               **spectrum_options: Unpack[ModelOptions]) -> CheckResult:
    """Fuzzes fn, a RoPE implementation, against the exact map.

    The default holds fn to what the standard float32 formulation can produce (frequencies,
    positions, angles, cos and sin in float32, products and sums in float32, one rounding to the
    output dtype; accuracy/float32_formulation.h): every output that formulation can give for that
    element, position and dtype is accepted, certified per element, and nothing beyond it. The
    bound grows with position as the float32 angle's error does. bound="strict" demands correct
    rounding (what ropecheck's own kernel meets). docs/python.md, "Choosing the check", has the
    table of what correct implementations reach.

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
    bound : {"standard", "strict"}
        "standard" (default): the float32 formulation's reach; non-finite inputs and signed zeros
        must give one of the IEEE results that formulation can give; an identity pair (p-RoPE's
        zero frequencies) a copy or the formula at angle 0. "strict": the correctly rounded value,
        the IEEE result of the exact formula, identity pairs copied bit for bit. Both:
        pass-through elements copied bit for bit.
    max_ulp : float, optional
        Instead of `bound`, an error bound in ulp (the floored metric, ropecheck.audit's), in
        [0.5, 2^30] (0.5: correctly rounded).
    rtol : float, optional
        Also accept a rotary output within rtol x ||(x_a, x_b)|| of the exact value (the scale-free
        tolerance; pairs of norm below 2^-126 keep the bound alone). In (0, 1].
    signed_zeros : bool
        False accepts a zero of either sign wherever a zero is expected (and nothing else).
    backward : bool
        True checks fn as the gradient map: fn(grad_y, positions) against the exact a R(-p g) grad_y.
    seed : int
        The inputs are a pure function of (seed, round): the same on every machine.
    budget : int
        Rounds (rounds mode: calls of fn, each a fresh tensor of `tokens` x `heads` rows) or the
        calls of calls mode's sequence.
    tokens, heads : int
        calls mode: `tokens` is the tokens checked per call (sampled; the call itself may be longer).
    min_position, max_position : int
        The positions' range. Default: 0 to the end of the model's trained context (its span - 1;
        for dynamic NTK, factor x span - 1; a bare spectrum: its `context`, default 8192, - 1).
        Positions outside it need beyond_context=True.
    beyond_context : bool
        Allow positions outside the trained context (any int64; max_position then defaults to the
        context's end still).
    mode : {"rounds", "calls"}
        "rounds": independent calls on adversarial tensors. "calls": one implementation through a
        seeded sequence of prefill calls of different lengths, single-token decode calls at
        increasing positions, a long call followed by a short one, positions not starting at 0;
        each call held to the rule config.json states for it (dynamic NTK and longrope: the call's
        own sequence length, max position + 1). A stale cache or base fails it.
    permutation : sequence of int, optional
        fn's declared output channel order: output channel j holds the exact map's channel
        permutation[j] (valid when fn permutes q and k alike). Undeclared, a failure says when the
        output matches the exact map under a permutation, and which.
    raise_on_failure : bool
        False returns the CheckResult (``passed`` False) instead of raising.
    canonical_nan : bool
        A NaN output must be the canonical quiet NaN.
    tables : {"float32", "dtype"}
        Where the standard bound's cos and sin live: "float32" (default), or "dtype": rounded to
        x's dtype, with the products and the sum in float32 or in that dtype (transformers'
        apply_rotary_pos_emb under bf16, vLLM's cos_sin_cache in the model dtype); its reach is
        certified the same way. Only with bound="standard".

    Returns
    -------
    CheckResult
        Per input class: counts, maxima at full precision; for a failure, the worst element shrunk,
        its kind and the replay line (``to_dict()`` gives all of it as JSON).

    Raises
    ------
    RopeCheckError (an AssertionError)
        After every round ran, when any failed: its ``result`` is the CheckResult; its text gives
        the failures per input class (ordinary finite inputs, subnormals, near the format's
        maximum, signed zeros, non-finite), for each failing class its worst element shrunk to one
        token and head (position, pair, inputs, expected, got and the formulation's range in hex),
        its kind (a precision loss growing with position, or a mistake there at every position),
        and a replay line. Also an AssertionError when fn raises or returns something other than a
        tensor of x's shape and dtype, saying what.
    InputError
        A bad argument, naming it and the accepted range.

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
    return _check_engine.check(fn, _checking.Adapter(s.dtype), s, bound=bound, max_ulp=max_ulp, rtol=rtol,
                               signed_zeros=signed_zeros, canonical_nan=canonical_nan, seed=seed, budget=budget, tokens=tokens,
                               heads=heads, min_position=min_position, max_position=max_position,
                               beyond_context=beyond_context, mode=mode, permutation=permutation,
                               raise_on_failure=raise_on_failure, tables=tables)


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
    return _profiling.profile(fn, _checking.Adapter(s.dtype), s, seed=seed, tokens=tokens, heads=heads, max_position=max_position,
                             threads=threads)
