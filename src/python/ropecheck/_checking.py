"""The engine of check_rope and profile, for NumPy (ropecheck.testing) and torch (ropecheck.torch).

fn is called through an Adapter, which turns the generated NumPy tensors into fn's own (arrays, or
torch tensors of a dtype on a device) and fn's output back into NumPy, saying what fn returned when
it is not a tensor of the input's shape and dtype. Every output element is then checked against
the exact map (accuracy/element_check.h) or audited (accuracy/audit.h). In the backward direction
fn is a gradient map: the exact gradient of y = a R(p g) x is a R(-p g) grad_y, the forward map at
position -p, so the same checks run with negated positions and report fn's own positions.
"""

from __future__ import annotations

import dataclasses
import json
import math
import numbers
from typing import Any, Callable, Optional, Union

from . import _arguments as args
from . import _core
from ._audit import AuditErrors
from ._errors import InputError
from ._options import ArrayRope, ModelOptions, TorchRope
from ._results import from_json
from ._spectra import Plan

CHECK_AXES = tuple(a for a in args.AXES if a != "auto")

#: What the engine calls: a NumPy RoPE (ropecheck.testing) or a torch one (ropecheck.torch), each
#: through its Adapter.
RopeFunction = Union[ArrayRope, TorchRope]

#: The input classes of accuracy/element_check.h, in the order failures are reported: ordinary
#: inputs first, since there every implementation can be right.
CLASS_TITLES = {
    "finite": "ordinary finite inputs (the format's central range)",
    "subnormal": "subnormal inputs",
    "overflow": "inputs near the format's maximum: a(|x_a| + |x_b|) >= 2^emax",
    "zeros": "two signed zeros (only the sign of the zero result is at stake)",
    "nonfinite": "infinities and NaNs",
}
assert tuple(CLASS_TITLES) == _core.INPUT_CLASSES, "CLASS_TITLES must follow accuracy::InputClass"


class Adapter:
    """How fn's tensors are made and read back. The NumPy adapter; ropecheck.torch has its own."""

    api = "ropecheck.testing"
    dtype_text = ""  # the dtype as the caller wrote it in a replay line, e.g. "'bfloat16'"

    def __init__(self, dtype: str) -> None:
        self.dtype = dtype
        self.dtype_text = repr(dtype)

    def to_fn(self, x: Any, positions: Any) -> tuple[Any, Any]:
        """fn's arguments from a C-contiguous array in fn's axis order and its int64 positions."""
        return x.copy(), positions.copy()

    def describe(self, value: Any) -> str:
        """What fn was given or returned, for a message."""
        shape = getattr(value, "shape", None)
        return f"{type(value).__name__} of shape {tuple(shape)} dtype {getattr(value, 'dtype', '?')}" if shape is not None else \
            f"{type(value).__name__} {value!r:.80}"

    def from_fn(self, y: Any, shape: tuple[int, ...]) -> Any:
        """fn's output as a NumPy array of the check's dtype storage (bfloat16: uint16 bits) and
        `shape`; AssertionError saying what fn returned otherwise."""
        from ._tensors import as_array
        np = args.numpy()
        try:
            a = as_array(y, "fn's output")
        except InputError as e:
            raise AssertionError(f"check_rope: fn returned {type(y).__name__}, not an array or DLPack tensor ({e})") from None
        want = {"float32": np.float32, "float16": np.float16}.get(self.dtype, np.uint16)  # bfloat16: its bits
        if a.shape != shape or a.dtype != want:
            raise AssertionError(f"check_rope: fn returned shape {tuple(a.shape)} dtype {a.dtype} for an input of shape "
                                 f"{shape} dtype {np.dtype(want)}")
        return a


def round_seed(seed: int, round_index: int) -> int:
    """The seed of round r: SplitMix64 of seed + r * golden ratio (every round its own stream)."""
    z = (seed + (round_index + 1) * 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
    return z ^ (z >> 31)


def to_fn_layout(x: Any, positions: Any, axes: str) -> tuple[Any, Any]:
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


def from_fn_layout(y: Any, shape: tuple[int, ...], axes: str) -> Any:
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


@dataclasses.dataclass(frozen=True)
class Settings:
    """A checked call's settings: the RoPE, the format, fn's axes and the direction."""

    request: dict[str, Any]
    variant: Optional[str]
    layout: Optional[str]
    dtype: str
    axes: str
    backward: bool

    def reference_positions(self, positions: Any) -> Any:
        """The positions of the exact map fn is held to (-p for a gradient map)."""
        return -positions if self.backward else positions


def settings(*, model: Optional[str], layer_type: Optional[str], layout: Optional[str], dtype: object, axes: str, backward: bool,
             spectrum_options: ModelOptions) -> Settings:
    request, variant = args.spectrum_request(model=model, layer_type=layer_type, **spectrum_options)
    if not isinstance(backward, bool):
        raise InputError("backward", "True or False", repr(backward))
    return Settings(request, variant, args.layout(layout), args.dtype_name(dtype),
                    args.choice("axes", axes, CHECK_AXES), backward)


def function_name(fn: object) -> str:
    return str(getattr(fn, "__qualname__", getattr(fn, "__name__", repr(fn))))


class Runner:
    """Calls fn on generated tensors [tokens, heads, dim] and reads its output back."""

    def __init__(self, fn: RopeFunction, s: Settings, adapter: Adapter) -> None:
        if not callable(fn):
            raise InputError("fn", "a callable fn(x, positions)", type(fn).__name__)
        self.fn, self.s, self.adapter = fn, s, adapter
        with args.VariantNames(s.variant):
            self.plan = from_json(Plan, _core.plan(s.request, s.layout))

    def call(self, positions: Any, x: Any) -> Any:
        """fn's output for (positions, x [tokens, heads, dim]), as a NumPy array of x's shape."""
        x_in, p_in = to_fn_layout(x, positions, self.s.axes)
        given, p_given = self.adapter.to_fn(x_in, p_in)
        try:
            y = self.fn(given, p_given)
        except Exception as e:  # fn's own failure, reported as a test failure with what it was given
            raise AssertionError(f"check_rope: fn raised {type(e).__name__}: {e}\n  fn was given x = {self.adapter.describe(given)}, "
                                 f"positions = {self.adapter.describe(p_given)}") from e
        if y is None:  # an in-place RoPE: its output is the tensor it was given
            y = given
        return from_fn_layout(self.adapter.from_fn(y, tuple(x_in.shape)), x.shape, self.s.axes)

    def check(self, positions: Any, x: Any, *, max_ulp: float, canonical_nan: bool, signed_zeros: bool, rtol: float) -> dict[str, Any]:
        """Calls fn; returns the element check of its output, failures at fn's own positions."""
        np = args.numpy()
        y = self.call(positions, x)
        p = np.ascontiguousarray(self.s.reference_positions(positions), dtype=np.int64)
        with args.VariantNames(self.s.variant):
            c = _core.check_elements(self.s.request, self.s.layout, self.s.dtype, p, np.ascontiguousarray(x), y, float(max_ulp),
                                     bool(canonical_nan), bool(signed_zeros), float(rtol), 4)
        if self.s.backward:
            failures = [c["worst"], *c["failures"], *(k["worst"] for k in c["classes"].values())]
            for f in failures:
                if f is not None:
                    f["position"] = -f["position"]
        return c


def _worse(f: dict[str, Any], than: Optional[dict[str, Any]]) -> bool:
    """accuracy::check_elements's order: a larger ulp figure, a figure over none."""
    if than is None:
        return True
    return not math.isnan(f["ulps"]) and (math.isnan(than["ulps"]) or f["ulps"] > than["ulps"])


def _shrink(run: Callable[[Any, Any], dict[str, Any]], positions: Any, x: Any, failure: dict[str, Any],
            cls: str) -> tuple[Any, Any, dict[str, Any]]:
    """The smallest (positions, x, failure) that still fails in class `cls`, from a failing tensor
    and its worst failure of that class: its token and head alone, then every other element +0."""
    np = args.numpy()
    t, h = failure["token"], failure["head"]

    def fails(p: Any, xs: Any) -> Optional[dict[str, Any]]:
        k = run(p, xs)["classes"][cls]
        return k["worst"] if k["failed"] else None

    for tok, hd in (((t, t + 1), (h, h + 1)), ((t, t + 1), (0, x.shape[1])), ((0, x.shape[0]), (h, h + 1))):
        p1 = positions[tok[0]:tok[1]].copy()
        x1 = x[tok[0]:tok[1], hd[0]:hd[1]].copy()
        f1 = fails(p1, x1)
        if f1 is not None:
            x2 = np.zeros_like(x1)
            for j in f1["elements"]:
                x2[f1["token"], f1["head"], j] = x1[f1["token"], f1["head"], j]
            f2 = fails(p1, x2)
            return (p1, x2, f2) if f2 is not None else (p1, x1, f1)
    return positions, x, failure


def describe_failure(f: dict[str, Any], backward: bool) -> str:
    """The failing element: where, its inputs, the rule, expected and got in hex and bits."""
    lines = []
    where = f"position {f['position']}, head {f['head']}"
    if f["pair"] >= 0:
        if backward:
            comp = "dx_a = a(g_a cos + g_b sin)" if f["component"] == 0 else "dx_b = a(g_b cos - g_a sin)"
            names = ("g_a", "g_b")
        else:
            comp = "y_a = a(x_a cos - x_b sin)" if f["component"] == 0 else "y_b = a(x_a sin + x_b cos)"
            names = ("x_a", "x_b")
        lines.append(f"  {where}, pair {f['pair']} (element {f['element']}), component {comp}")
        lines.append(f"  inputs {names[0]} = {f['input_values'][0]} ({f['inputs'][0]}), "
                     f"{names[1]} = {f['input_values'][1]} ({f['inputs'][1]})")
    else:
        lines.append(f"  {where}, pass-through element {f['element']}")
        lines.append(f"  input = {f['input_values'][0]} ({f['inputs'][0]})")
    err = ""
    if f["ulps"] == f["ulps"]:
        err = f", error {f['ulps']:.6g} ulp"
        if f["rel"] == f["rel"]:
            err += f" = {f['rel']:.3g} x the pair's norm"
    lines.append(f"  expected {f['expected_value']} ({f['expected']}), got {f['got_value']} ({f['got']}){err}")
    lines.append(f"  rule: {f['rule']}")
    return "\n".join(lines)


@dataclasses.dataclass(frozen=True)
class ClassSummary:
    """One input class's share of a check: elements checked and failed, largest errors (sampled)."""

    checked: int
    failed: int
    max_ulps: float
    max_rel: float


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
    max_rel : float
        The largest error over the pair's norm ||(x_a, x_b)|| (sampled: a lower bound).
    undecided : int
        Components the reference could not decide (never expected).
    seed : int
    direction : str
        "forward", or "backward" (fn checked as the gradient map).
    classes : dict
        Per input class ("finite", "subnormal", "overflow", "zeros", "nonfinite"): a ClassSummary.
    """

    rounds: int
    checked: int
    max_ulps: float
    undecided: int
    seed: int
    max_rel: float = 0.0
    direction: str = "forward"
    classes: dict[str, ClassSummary] = dataclasses.field(default_factory=dict, repr=False, compare=False)

    def __repr__(self) -> str:
        return (f"check_rope ({self.direction}): {self.checked} elements in {self.rounds} rounds, all within the bound; largest "
                f"error {self.max_ulps:.4g} ulp, {self.max_rel:.3g} x the pair's norm (sampled: lower bounds); "
                f"{self.undecided} undecided; seed {self.seed}")


def check(fn: RopeFunction, adapter: Adapter, s: Settings, *, max_ulp: float, rtol: Optional[float],
          signed_zeros: bool, canonical_nan: bool, seed: int, budget: int, tokens: int, heads: int, min_position: int,
          max_position: int) -> CheckResult:
    """check_rope's loop: every round run, failures grouped by input class, each failing class
    shrunk and described in one AssertionError (finite inputs first)."""
    if isinstance(max_ulp, bool) or not isinstance(max_ulp, numbers.Real) or not 0.5 <= float(max_ulp) <= 2.0 ** 30:
        raise InputError("max_ulp", "a number in [0.5, 2^30]", repr(max_ulp))
    if rtol is not None and (isinstance(rtol, bool) or not isinstance(rtol, numbers.Real) or not 0 < float(rtol) <= 1):
        raise InputError("rtol", "None or a number in (0, 1]", repr(rtol))
    for name, flag in (("signed_zeros", signed_zeros), ("canonical_nan", canonical_nan)):
        if not isinstance(flag, bool):
            raise InputError(name, "True or False", repr(flag))
    seed = args.integer("seed", seed, 0, args.UINT64_MAX)
    budget = args.integer("budget", budget, 1, 1 << 20)
    tokens = args.integer("tokens", tokens, 1, 1 << 16)
    heads = args.integer("heads", heads, 1, 1 << 10)
    lowest = args.INT64[0] + (1 if s.backward else 0)  # the gradient's map is at -p, and -(-2^63) is no int64
    min_position = args.integer("min_position", min_position, lowest, args.INT64[1])
    max_position = args.integer("max_position", max_position, min_position, args.INT64[1])
    runner = Runner(fn, s, adapter)
    options = dict(max_ulp=max_ulp, canonical_nan=canonical_nan, signed_zeros=signed_zeros, rtol=0.0 if rtol is None else rtol)

    def run(p: Any, x: Any) -> dict[str, Any]:
        return runner.check(p, x, **options)

    totals = {name: [0, 0, 0.0, 0.0] for name in CLASS_TITLES}
    found: dict[str, tuple[int, Any, Any, dict[str, Any]]] = {}
    checked = undecided = 0
    worst = worst_rel = 0.0
    for r in range(budget):
        with args.VariantNames(s.variant):
            positions, x, _ = _core.fuzz_tensor(s.request, s.layout, s.dtype, round_seed(seed, r), tokens, heads, min_position,
                                                max_position)
        c = run(positions, x)
        checked += c["checked"]
        undecided += c["undecided"]
        worst = max(worst, c["max_ulps"])
        worst_rel = max(worst_rel, c["max_rel"])
        for name, k in c["classes"].items():
            t = totals[name]
            t[0] += k["checked"]
            t[1] += k["failed"]
            t[2] = max(t[2], k["max_ulps"])
            t[3] = max(t[3], k["max_rel"])
            if k["failed"] and (name not in found or _worse(k["worst"], found[name][3])):
                found[name] = (r, positions, x, k["worst"])
    classes = {n: ClassSummary(int(t[0]), int(t[1]), float(t[2]), float(t[3])) for n, t in totals.items()}
    direction = "backward" if s.backward else "forward"
    if not found:
        return CheckResult(budget, checked, worst, undecided, seed, worst_rel, direction, classes)
    what = "correctly rounded" if float(max_ulp) <= 0.5 else f"within {max_ulp} ulp"
    if rtol is not None:
        what += f" or {rtol} x the pair's norm"
    lines = [f"check_rope: {function_name(fn)} is not {what} ({direction}: "
             f"{'the gradient map a R(-p g) grad_y' if s.backward else 'the map a R(p g) x'}; {runner.plan.description}; "
             f"{s.dtype}, layout {runner.plan.layout})",
             f"  failures by input class, over {budget} rounds (one class does not hide another):"]
    for name, title in CLASS_TITLES.items():
        k = classes[name]
        if k.checked:
            state = f"{k.failed} of {k.checked} failed" if k.failed else f"all {k.checked} pass"
            figures = f", max {k.max_ulps:.4g} ulp" if name in ("finite", "subnormal", "overflow") else ""
            lines.append(f"    {name:<10} {state}{figures}: {title}")
    spec = ", ".join(f"{k}={v!r}" for k, v in s.request.items())
    for name in CLASS_TITLES:
        if name not in found:
            continue
        r, positions, x, f = found[name]
        p1, x1, f1 = _shrink(run, positions, x, f, name)
        lines.append(f"  [{name}] round {r}: shrunk to positions {p1.tolist()}, x of shape {list(x1.shape)} ([tokens, heads, head_dim])")
        lines.append(describe_failure(f1, s.backward))
    lines.append(f"  replay: {adapter.api}.check_rope(fn, {spec}, dtype={adapter.dtype_text}, axes={s.axes!r}, "
                 f"max_ulp={max_ulp!r}, rtol={rtol!r}, signed_zeros={signed_zeros}, backward={s.backward}, seed={seed}, "
                 f"budget={budget}, tokens={tokens}, heads={heads}, min_position={min_position}, max_position={max_position}); "
                 f"inputs: ropecheck.testing.fuzz_inputs(seed={seed}, round=R, ...)")
    raise AssertionError("\n".join(lines))


@dataclasses.dataclass(frozen=True)
class ProfileRow:
    """One position decade of a profile (measured on sampled inputs: lower bounds of fn's error)."""

    positions: str
    elements: int
    max_ulp: float
    max_rel: float
    correctly_rounded: float


@dataclasses.dataclass(frozen=True)
class Profile:
    """fn's error per position decade on ordinary inputs (accuracy/profile_tensor.h), measured by
    the exact audit: every figure is the exact maximum over these inputs, a LOWER bound of fn's
    error over all inputs (sampled). ``to_dict()`` gives the rows and the settings; the repr is the
    table.

    Attributes
    ----------
    function, model, dtype, direction : str
        fn's name, the RoPE (the model and layer type when given, and the plan), the format, and
        "forward" or "backward".
    seed : int
    rows : tuple of ProfileRow
        positions (the audit's decade label), elements, max_ulp (the floored ulp metric), max_rel
        (|got - y| over ||(x_a, x_b)||), correctly_rounded (a fraction).
    """

    function: str
    model: str
    dtype: str
    direction: str
    seed: int
    rows: tuple[ProfileRow, ...]

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def __repr__(self) -> str:
        n = sum(r.elements for r in self.rows)
        lines = [f"profile of {self.function} ({self.direction}, {self.dtype}): {self.model}",
                 f"measured: {n} elements of standard normal inputs, seed {self.seed}; maxima are lower bounds of the error",
                 f"{'positions':<16} {'elements':>9} {'max_ulp':>10} {'max_rel':>10} {'correctly_rounded':>18}"]
        for r in self.rows:
            lines.append(f"{r.positions:<16} {r.elements:>9} {r.max_ulp:>10.4g} {r.max_rel:>10.3g} {r.correctly_rounded:>18.6f}")
        return "\n".join(lines)


def profile(fn: RopeFunction, adapter: Adapter, s: Settings, *, seed: int, tokens: int, heads: int,
            max_position: int, threads: int) -> Profile:
    """fn called once on profile_tensor's inputs, its output audited; one row per decade."""
    np = args.numpy()
    seed = args.integer("seed", seed, 0, args.UINT64_MAX)
    tokens = args.integer("tokens", tokens, 1, 1 << 16)
    heads = args.integer("heads", heads, 1, 1 << 16)
    max_position = args.integer("max_position", max_position, 0, 1 << 62)
    checked_threads = args.threads(threads)
    runner = Runner(fn, s, adapter)
    with args.VariantNames(s.variant):
        positions, x = _core.profile_tensor(s.request, s.layout, s.dtype, seed, tokens, heads, max_position)
        y = runner.call(positions, x)
        _, data = _core.audit(x, np.ascontiguousarray(s.reference_positions(positions)), y, s.request, s.layout, "shd",
                              checked_threads, _core.DEFAULT_PRECISION_BITS)
    decades = AuditErrors._from_json(json.loads(data)["errors"]).decades
    rows = tuple(ProfileRow(d.positions, d.elements, d.max_ulps, d.max_abs_over_pair_norm, d.correctly_rounded / d.elements)
                 for d in decades)
    model = runner.plan.description
    if "model" in s.request:
        model = f"{s.request['model']}{'/' + s.request['layer_type'] if 'layer_type' in s.request else ''}: {model}"
    return Profile(function_name(fn), model, s.dtype, "backward" if s.backward else "forward", seed, rows)
