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
from ._check_results import CLASS_TITLES
from ._errors import InputError
from ._options import ArrayRope, ModelOptions, TorchRope
from ._results import from_json
from ._spectra import Plan

CHECK_AXES = tuple(a for a in args.AXES if a != "auto")

#: What the engine calls: a NumPy RoPE (ropecheck.testing) or a torch one (ropecheck.torch), each
#: through its Adapter.
RopeFunction = Union[ArrayRope, TorchRope]

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

    def check(self, positions: Any, x: Any, options: dict[str, Any], *, request: Optional[dict[str, Any]] = None,
              y: Any = None) -> dict[str, Any]:
        """Calls fn (unless its output y is given); returns the element check of its output,
        failures at fn's own positions. options: check_elements' max_ulp, canonical_nan,
        signed_zeros, rtol, formulation; request: the reference's request (default the check's);
        a declared output permutation (options["permutation"]) is undone first."""
        np = args.numpy()
        if y is None:
            y = self.call(positions, x)
        perm = options.get("permutation")
        if perm is not None:
            from ._permutation import apply_permutation
            y = np.ascontiguousarray(apply_permutation(y, perm))
        p = np.ascontiguousarray(self.s.reference_positions(positions), dtype=np.int64)
        with args.VariantNames(self.s.variant):
            c = _core.check_elements(self.s.request if request is None else request, self.s.layout, self.s.dtype, p,
                                     np.ascontiguousarray(x), y, float(options["max_ulp"]), bool(options["canonical_nan"]),
                                     bool(options["signed_zeros"]), float(options["rtol"]), 4, bool(options["formulation"]),
                                     str(options["tables"]))
        if self.s.backward:
            failures = [c["worst"], *c["failures"], *(k["worst"] for k in c["classes"].values())]
            for f in failures:
                if f is not None:
                    f["position"] = -f["position"]
        return c
