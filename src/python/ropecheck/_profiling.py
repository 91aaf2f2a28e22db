"""profile: fn's error per position decade on ordinary inputs, for ropecheck.testing and
ropecheck.torch (through _checking's Adapter and Runner)."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from . import _arguments as args
from . import _core
from ._audit import AuditErrors
from ._checking import Adapter, RopeFunction, Runner, Settings, function_name


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
