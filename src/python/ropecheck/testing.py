"""ropecheck.testing: fuzz anyone's RoPE against the exact map, from pytest.

    from ropecheck.testing import check_rope

    def test_my_rope():
        check_rope(my_rope, model="llama-3.1-8b", dtype="bfloat16", layout="half")

check_rope calls ``fn(x, positions)`` on tensors ropecheck generates (the kernel fuzz's adversarial
inputs: positions at 2^24 +- 1, 2^31, 2^40, near-returns of the model's own frequencies where an
angle comes closest to a multiple of pi/2, log-uniform magnitudes; inputs near cancellation for the
exact angle, edge values of the format, signed zeros, infinities and NaNs, bit patterns; p-RoPE
identity pairs and pass-through channels whenever the RoPE has them), checks every output element
against the exact map (accuracy/element_check.h), shrinks a failure to the smallest tensor that
still fails, and raises AssertionError giving the position, pair, inputs, expected and got in hex
and the seed that replays it. The same seed gives the same inputs on every machine.
"""

from __future__ import annotations

import dataclasses
import numbers
from typing import Any, Callable, Optional

from . import _arguments as args
from . import _core
from ._errors import InputError
from ._spectra import Plan
from ._results import from_json
from ._tensors import as_array

__all__ = ["check_rope", "fuzz_inputs", "CheckResult"]

_CHECK_AXES = tuple(a for a in args.AXES if a != "auto")


def _round_seed(seed: int, round_index: int) -> int:
    """The seed of round r: SplitMix64 of seed + r * golden ratio (every round its own stream)."""
    z = (seed + (round_index + 1) * 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
    return z ^ (z >> 31)


def fuzz_inputs(*, seed: int = 0, round: int = 0, dtype: str = "float32", tokens: int = 32, heads: int = 2,
                min_position: int = 0, max_position: int = 1 << 40, model: Optional[str] = None,
                layer_type: Optional[str] = None, layout: Optional[str] = None, **spectrum_options: Any) -> tuple[Any, Any]:
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
        positions, x, _ = _core.fuzz_tensor(request, args.layout(layout), args.choice("dtype", dtype, args.DTYPES),
                                            _round_seed(seed, round), args.integer("tokens", tokens, 1, 1 << 20),
                                            args.integer("heads", heads, 1, 1 << 20),
                                            args.integer("min_position", min_position, *args.INT64),
                                            args.integer("max_position", max_position, *args.INT64))
    return positions, x


@dataclasses.dataclass(frozen=True)
class CheckResult:
    """What a passing check_rope did.

    Attributes
    ----------
    rounds : int
        Calls of fn.
    checked : int
        Output elements checked.
    max_ulps : float
        The largest error seen, in ulp (the floored metric): sampled, so a LOWER bound of fn's error.
    undecided : int
        Components the reference could not decide (never expected).
    seed : int
    """

    rounds: int
    checked: int
    max_ulps: float
    undecided: int
    seed: int

    def __repr__(self) -> str:
        return (f"check_rope: {self.checked} elements in {self.rounds} rounds, all within the bound; largest error "
                f"{self.max_ulps:.4g} ulp (sampled: a lower bound); {self.undecided} undecided; seed {self.seed}")


def _to_fn_layout(x: Any, positions: Any, axes: str) -> tuple[Any, Any]:
    """x [tokens, heads, dim] and positions as fn receives them under `axes`."""
    np = args.numpy()
    if axes == "shd":
        return np.ascontiguousarray(x), positions.copy()
    if axes == "bshd":
        return np.ascontiguousarray(x[None]), positions[None].copy()
    if axes == "bhsd":
        return np.ascontiguousarray(x.transpose(1, 0, 2)[None]), positions[None].copy()
    if axes == "hsd":
        return np.ascontiguousarray(x.transpose(1, 0, 2)), positions.copy()
    return np.ascontiguousarray(x.reshape(x.shape[0], -1)), positions.copy()  # sd


def _from_fn_layout(y: Any, shape: tuple[int, ...], axes: str) -> Any:
    """fn's output back in [tokens, heads, dim] order."""
    np = args.numpy()
    if axes == "shd":
        return np.ascontiguousarray(y)
    if axes == "bshd":
        return np.ascontiguousarray(y[0])
    if axes == "bhsd":
        return np.ascontiguousarray(y[0].transpose(1, 0, 2))
    if axes == "hsd":
        return np.ascontiguousarray(y.transpose(1, 0, 2))
    return np.ascontiguousarray(y.reshape(shape))  # sd


class _Runner:
    """Calls fn on generated tensors and checks its output (accuracy/element_check.h)."""

    def __init__(self, fn: Callable[[Any, Any], Any], request: dict[str, Any], layout: Optional[str], dtype: str, axes: str,
                 max_ulp: float, canonical_nan: bool, variant: Optional[str]) -> None:
        self.fn, self.request, self.layout, self.dtype, self.axes = fn, request, layout, dtype, axes
        self.max_ulp, self.canonical_nan, self.variant = max_ulp, canonical_nan, variant
        with args.VariantNames(variant):
            self.plan = from_json(Plan, _core.plan(request, layout))

    def run(self, positions: Any, x: Any) -> dict[str, Any]:
        """Calls fn on (positions, x [tokens, heads, dim]); returns the element check of its output."""
        np = args.numpy()
        x_in, p_in = _to_fn_layout(x, positions, self.axes)
        given = x_in.copy()
        y = self.fn(given, p_in)
        if y is None:  # an in-place RoPE: its output is the tensor it was given
            y = given
        try:
            y = as_array(y, "fn's output")
        except InputError as e:
            raise AssertionError(f"check_rope: fn returned {type(y).__name__}, not an array or DLPack tensor ({e})") from None
        want = {"float32": np.float32, "float16": np.float16}.get(self.dtype, np.uint16)  # bfloat16: its bits
        if y.shape != x_in.shape or y.dtype != want:
            raise AssertionError(f"check_rope: fn returned shape {tuple(y.shape)} dtype {y.dtype} for an input of shape "
                                 f"{tuple(x_in.shape)} dtype {np.dtype(want)}")
        y = _from_fn_layout(y, x.shape, self.axes)
        with args.VariantNames(self.variant):
            return _core.check_elements(self.request, self.layout, self.dtype, np.ascontiguousarray(positions, dtype=np.int64),
                                        np.ascontiguousarray(x), y, float(self.max_ulp), bool(self.canonical_nan), 4)


def _shrink(runner: _Runner, positions: Any, x: Any, failure: dict[str, Any]) -> tuple[Any, Any, dict[str, Any]]:
    """The smallest (positions, x, check) that still fails, starting from a failing tensor and the
    failure to report (the largest error): its token and head alone, then every other element
    zeroed; the report is the shrunk tensor's own worst failure."""
    np = args.numpy()
    t, h = failure["token"], failure["head"]
    best = None
    for tok, hd in (((t, t + 1), (h, h + 1)), ((t, t + 1), (0, x.shape[1])), ((0, x.shape[0]), (h, h + 1))):
        p1 = positions[tok[0]:tok[1]].copy()
        x1 = x[tok[0]:tok[1], hd[0]:hd[1]].copy()
        c1 = runner.run(p1, x1)
        if c1["failed"]:
            best = (p1, x1, c1)
            break
    if best is None:
        return positions, x, runner.run(positions, x)
    p1, x1, c1 = best
    f = c1["worst"]
    # Keep only the failing pair (or pass-through element); the rest +0.
    x2 = np.zeros_like(x1)
    for j in f["elements"]:
        x2[f["token"], f["head"], j] = x1[f["token"], f["head"], j]
    c2 = runner.run(p1, x2)
    if c2["failed"]:
        return p1, x2, c2
    return p1, x1, c1


def _describe(f: dict[str, Any]) -> str:
    lines = []
    where = f"position {f['position']}, head {f['head']}"
    if f["pair"] >= 0:
        comp = "y_a = a(x_a cos - x_b sin)" if f["component"] == 0 else "y_b = a(x_a sin + x_b cos)"
        lines.append(f"  {where}, pair {f['pair']} (element {f['element']}), component {comp}")
        lines.append(f"  inputs x_a = {f['input_values'][0]} ({f['inputs'][0]}), x_b = {f['input_values'][1]} ({f['inputs'][1]})")
    else:
        lines.append(f"  {where}, pass-through element {f['element']}")
        lines.append(f"  input x = {f['input_values'][0]} ({f['inputs'][0]})")
    err = "" if f["ulps"] != f["ulps"] else f", error {f['ulps']:.6g} ulp"
    lines.append(f"  expected {f['expected_value']} ({f['expected']}), got {f['got_value']} ({f['got']}){err}")
    lines.append(f"  rule: {f['rule']}")
    return "\n".join(lines)


def check_rope(fn: Callable[[Any, Any], Any], *, model: Optional[str] = None, layer_type: Optional[str] = None, dtype: str = "float32",
               layout: Optional[str] = None, axes: str = "shd", max_ulp: float = 0.5, seed: int = 0, budget: int = 16,
               tokens: int = 32, heads: int = 2, min_position: int = 0, max_position: int = 1 << 40,
               canonical_nan: bool = False, **spectrum_options: Any) -> CheckResult:
    """Fuzzes fn, a RoPE implementation, against the exact map.

    Parameters
    ----------
    fn : callable
        ``fn(x, positions)`` returns the rotated tensor (a NumPy array or DLPack tensor of x's
        shape and dtype), or None after rotating x in place.
    model, layer_type : str, optional
        The RoPE: a zoo name or config.json path and its layer type; or the spectrum keywords
        (``config``, ``dim``, ``theta``, ``p_rope``, ``scaling``, ...) with `layout`.
    dtype : {"float32", "bfloat16", "float16"}
        x's format: float32, uint16 bfloat16 bit patterns, or float16.
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
        On the first failing round, shrunk to one token and head: the position, pair, inputs,
        expected and got (hex float and bits), the rule broken, and a replay line.
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
    np = args.numpy()
    request, variant = args.spectrum_request(model=model, layer_type=layer_type, **spectrum_options)
    dtype = args.choice("dtype", dtype, args.DTYPES)
    checked_layout = args.layout(layout)
    axes = args.choice("axes", axes, _CHECK_AXES)
    if isinstance(max_ulp, bool) or not isinstance(max_ulp, numbers.Real) or not 0.5 <= float(max_ulp) <= 2.0 ** 30:
        raise InputError("max_ulp", "a number in [0.5, 2^30]", repr(max_ulp))
    seed = args.integer("seed", seed, 0, args.UINT64_MAX)
    budget = args.integer("budget", budget, 1, 1 << 20)
    tokens = args.integer("tokens", tokens, 1, 1 << 16)
    heads = args.integer("heads", heads, 1, 1 << 10)
    min_position = args.integer("min_position", min_position, *args.INT64)
    max_position = args.integer("max_position", max_position, min_position, args.INT64[1])
    if not callable(fn):
        raise InputError("fn", "a callable fn(x, positions)", type(fn).__name__)
    runner = _Runner(fn, request, checked_layout, dtype, axes, max_ulp, canonical_nan, variant)
    checked = undecided = 0
    worst = 0.0
    for r in range(budget):
        with args.VariantNames(variant):
            positions, x, _ = _core.fuzz_tensor(request, checked_layout, dtype, _round_seed(seed, r), tokens, heads, min_position,
                                                max_position)
        c = runner.run(positions, x)
        checked += c["checked"]
        undecided += c["undecided"]
        worst = max(worst, c["max_ulps"])
        if not c["failed"]:
            continue
        failed, total = c["failed"], c["checked"]
        p1, x1, c1 = _shrink(runner, positions, x, c["worst"])
        f = c1["worst"]
        name = getattr(fn, "__qualname__", getattr(fn, "__name__", repr(fn)))
        what = "correctly rounded" if float(max_ulp) <= 0.5 else f"within {max_ulp} ulp"
        spec = ", ".join(f"{k}={v!r}" for k, v in request.items())
        lines = [f"check_rope: {name} is not {what} ({runner.plan.description}; {dtype}, layout {runner.plan.layout})",
                 f"  round {r}: {failed} of {total} elements failed; shrunk to positions {p1.tolist()}, x of shape {list(x1.shape)} "
                 f"([tokens, heads, head_dim]; {c1['failed']} failing)",
                 _describe(f),
                 f"  replay: check_rope(fn, {spec}, dtype={dtype!r}, axes={axes!r}, max_ulp={max_ulp!r}, seed={seed}, "
                 f"budget={r + 1}, tokens={tokens}, heads={heads}, min_position={min_position}, max_position={max_position}); "
                 f"inputs: ropecheck.testing.fuzz_inputs(seed={seed}, round={r}, ...)"]
        raise AssertionError("\n".join(lines))
    return CheckResult(budget, checked, worst, undecided, seed)
