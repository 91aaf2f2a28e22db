"""What check_rope returns and raises: the full result a program can read (per input class: counts
and maxima at full precision, the worst element shrunk, its kind, the replay line), and the text a
person reads in a failing test.

``CheckResult.to_dict()`` is JSON-ready (non-finite floats as the strings "inf", "-inf", "nan");
``RopeCheckError`` is an AssertionError carrying the result, so pytest shows the text and a
program reads ``error.result``.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Optional

#: The input classes of accuracy/element_check.h, in the order failures are reported: ordinary
#: inputs first, since there every implementation can be right.
CLASS_TITLES = {
    "finite": "ordinary finite inputs (the format's central range)",
    "subnormal": "subnormal inputs",
    "overflow": "inputs near the format's maximum: a(|x_a| + |x_b|) >= 2^emax",
    "zeros": "two signed zeros (only the sign of the zero result is at stake)",
    "nonfinite": "infinities and NaNs",
}

#: A failure's kind, from replaying fn on the failing token and ordinary inputs at the positions
#: 1, 3, 7, ..., 2^k - 1 below the failing one (finite-input classes only).
KINDS = {
    "everywhere": "outside the bound already at the smallest positions tried: a mistake in the formula or in a format "
                  "it is computed in (a frequency, scaling rule, attention factor, pairing, rotary width; an angle, "
                  "frequency or table in a narrower format; a missing store), not a loss that only appears at large "
                  "positions",
    "grows-with-position": "within the bound at smaller positions, outside it from here: a loss that grows with position "
                           "(a position in a narrower format, an unreduced fast sin/cos, a table too short)",
}


def _json_value(v: Any) -> Any:
    if isinstance(v, float) and not math.isfinite(v):
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")
    if isinstance(v, dict):
        return {k: _json_value(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_json_value(x) for x in v]
    return v


@dataclasses.dataclass(frozen=True)
class ClassSummary:
    """One input class's share of a check: elements checked and failed, largest errors (sampled:
    lower bounds of fn's error), at full precision."""

    checked: int
    failed: int
    max_ulps: float
    max_rel: float


@dataclasses.dataclass(frozen=True)
class Failure:
    """The worst failing element of one input class, shrunk (rounds mode) to the smallest tensor
    that still fails.

    Attributes
    ----------
    input_class : str
    round : int
        The round (rounds mode) or call (calls mode) it came from.
    positions : tuple of int
        The shrunk tensor's positions; ``shape`` its [tokens, heads, head_dim]; ``x`` its inputs
        flattened (the format's storage: bfloat16 as uint16 bits).
    position, head, pair, element, component : int
        Where: pair -1 for a pass-through element; component 0 for y_a, 1 for y_b.
    inputs, input_values : tuple of str
        The pair's inputs as bits and as exact hex values.
    expected, expected_value, got, got_value : str
        The correctly rounded exact value and fn's output, bits and hex value.
    ulps, rel : float
        Its error in the floored ulp metric and over the pair's norm (NaN for specials).
    rule : str
        The rule broken.
    reach : tuple of str, optional
        The standard bound's accepted range [lo, hi] (hex values) at this element.
    delta : float
        The float32 formulation's angle error bound at this position, radians (NaN otherwise).
    kind, passes_up_to, fails_from : optional
        The kind (see KINDS) and the position scan behind it: the largest position tried that
        passes below the failure and the smallest that fails.
    call : str, optional
        In calls mode, the call it happened in.
    permutation : tuple of int, optional
        When fn's output matches the exact map under a channel permutation (output channel j
        holding the exact channel permutation[j]): that permutation.
    """

    input_class: str
    round: int
    positions: tuple[int, ...]
    shape: tuple[int, ...]
    x: tuple[Any, ...]
    position: int
    head: int
    pair: int
    element: int
    component: int
    inputs: tuple[str, ...]
    input_values: tuple[str, ...]
    expected: str
    expected_value: str
    got: str
    got_value: str
    ulps: float
    rel: float
    rule: str
    reach: Optional[tuple[str, str]] = None
    delta: float = math.nan
    kind: Optional[str] = None
    passes_up_to: Optional[int] = None
    fails_from: Optional[int] = None
    call: Optional[str] = None
    permutation: Optional[tuple[int, ...]] = None

    def describe(self, backward: bool) -> str:
        """The failing element: where, its inputs, the rule, expected and got in hex and bits."""
        lines = []
        where = f"position {self.position}, head {self.head}"
        if self.pair >= 0:
            if backward:
                comp = "dx_a = a(g_a cos + g_b sin)" if self.component == 0 else "dx_b = a(g_b cos - g_a sin)"
                names = ("g_a", "g_b")
            else:
                comp = "y_a = a(x_a cos - x_b sin)" if self.component == 0 else "y_b = a(x_a sin + x_b cos)"
                names = ("x_a", "x_b")
            lines.append(f"  {where}, pair {self.pair} (element {self.element}), component {comp}")
            lines.append(f"  inputs {names[0]} = {self.input_values[0]} ({self.inputs[0]}), "
                         f"{names[1]} = {self.input_values[1]} ({self.inputs[1]})")
        else:
            lines.append(f"  {where}, pass-through element {self.element}")
            lines.append(f"  input = {self.input_values[0]} ({self.inputs[0]})")
        err = ""
        if self.ulps == self.ulps:
            err = f", error {self.ulps!r} ulp"
            if self.rel == self.rel:
                err += f" = {self.rel:.3g} x the pair's norm"
        lines.append(f"  expected {self.expected_value} ({self.expected}), got {self.got_value} ({self.got}){err}")
        if self.reach is not None:
            lines.append(f"  the float32 formulation reaches [{self.reach[0]}, {self.reach[1]}] here "
                         f"(angle error bound {self.delta:.3g} rad at this position)")
        lines.append(f"  rule: {self.rule}")
        if self.kind is not None:
            scan = (f"passes at positions up to {self.passes_up_to}, fails from {self.fails_from}" if self.passes_up_to
                    else f"fails from position {self.fails_from}")
            lines.append(f"  kind: {self.kind}: {KINDS[self.kind]} ({scan}, on this token and ordinary inputs)")
        if self.call is not None:
            lines.append(f"  in {self.call}")
        if self.permutation is not None:
            from ._permutation import describe_permutation
            lines.append(f"  fn's output matches the exact map under a channel permutation ({describe_permutation(self.permutation)}): "
                         f"if fn permutes q and k alike, declare it: permutation={list(self.permutation)!r:.200}")
        return "\n".join(lines)


@dataclasses.dataclass(frozen=True)
class CheckResult:
    """What check_rope did, passing or not.

    Attributes
    ----------
    passed : bool
    rounds : int
        Calls of fn.
    checked : int
        Output elements checked.
    max_ulps : float
        The largest error seen, in ulp (the floored metric): sampled, so a LOWER bound of fn's error.
    undecided : int
        Components the reference could not decide (never expected).
    seed : int
    max_rel : float
        The largest error over the pair's norm ||(x_a, x_b)|| (sampled: a lower bound).
    direction : str
        "forward", or "backward" (fn checked as the gradient map).
    classes : dict
        Per input class ("finite", "subnormal", "overflow", "zeros", "nonfinite"): a ClassSummary.
    bound : str
        What fn was held to: "standard" (the float32 formulation's reach), "standard, dtype
        tables" (the same with cos and sin rounded to the dtype), "strict" (correctly rounded), or
        "within N ulp".
    mode : str
        "rounds" (independent calls) or "calls" (a sequence of prefill and decode calls).
    function, rope, dtype : str
    failures : dict
        Per failing class: its Failure (the worst element, shrunk; its kind).
    replay : str
        The call that replays this check.
    """

    rounds: int
    checked: int
    max_ulps: float
    undecided: int
    seed: int
    max_rel: float = 0.0
    direction: str = "forward"
    classes: dict[str, ClassSummary] = dataclasses.field(default_factory=dict, repr=False, compare=False)
    passed: bool = True
    bound: str = "standard"
    mode: str = "rounds"
    function: str = ""
    rope: str = ""
    dtype: str = ""
    failures: dict[str, Failure] = dataclasses.field(default_factory=dict, repr=False, compare=False)
    replay: str = ""

    def to_dict(self) -> dict[str, Any]:
        """Every field, JSON-ready (non-finite floats as strings)."""
        d: dict[str, Any] = _json_value(dataclasses.asdict(self))
        return d

    def message(self) -> str:
        """The text a failing check_rope raises (or a one-line summary when it passed)."""
        if self.passed:
            return repr(self)
        bound = {"standard": "within what the standard float32 formulation can produce",
                 "standard, dtype tables": "within what the float32 formulation with cos and sin rounded to the dtype can produce",
                 "strict": "correctly rounded"}.get(self.bound, self.bound)
        lines = [f"check_rope: {self.function} is not {bound} ({self.direction}: "
                 f"{'the gradient map a R(-p g) grad_y' if self.direction == 'backward' else 'the map a R(p g) x'}; {self.rope}; "
                 f"{self.dtype}; {self.mode} mode)",
                 f"  failures by input class, over {self.rounds} {'calls' if self.mode == 'calls' else 'rounds'} "
                 f"(one class does not hide another):"]
        for name, title in CLASS_TITLES.items():
            k = self.classes.get(name)
            if k is not None and k.checked:
                state = f"{k.failed} of {k.checked} failed" if k.failed else f"all {k.checked} pass"
                figures = f", max {k.max_ulps!r} ulp" if name in ("finite", "subnormal", "overflow") else ""
                lines.append(f"    {name:<10} {state}{figures}: {title}")
        for name in CLASS_TITLES:
            f = self.failures.get(name)
            if f is None:
                continue
            lines.append(f"  [{name}] {'call' if self.mode == 'calls' else 'round'} {f.round}: shrunk to positions "
                         f"{list(f.positions)}, x of shape {list(f.shape)} ([tokens, heads, head_dim])")
            lines.append(f.describe(self.direction == "backward"))
        lines.append(f"  replay: {self.replay}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        if not self.passed:
            failed = ", ".join(f"{n} {k.failed}" for n, k in self.classes.items() if k.failed)
            return f"check_rope ({self.direction}, {self.bound}): FAILED ({failed}); seed {self.seed}"
        return (f"check_rope ({self.direction}, {self.bound}): {self.checked} elements in {self.rounds} "
                f"{'calls' if self.mode == 'calls' else 'rounds'}, all within the bound; largest "
                f"error {self.max_ulps:.4g} ulp, {self.max_rel:.3g} x the pair's norm (sampled: lower bounds); "
                f"{self.undecided} undecided; seed {self.seed}")


class RopeCheckError(AssertionError):
    """check_rope's failure: the message a person reads, and ``result``, the full CheckResult."""

    def __init__(self, result: CheckResult) -> None:
        super().__init__(result.message())
        self.result = result
