"""check_rope's loops, for ropecheck.testing and ropecheck.torch.

rounds mode: budget independent calls of fn on the kernel fuzz's adversarial tensors; each failing
input class's worst element is shrunk to one token and head, and (finite inputs) replayed at the
positions 1, 3, 7, ... below it on that token and ordinary inputs, which says whether the failure
grows with position or is there everywhere. calls mode: one implementation through a seeded
sequence of prefill and decode calls (_call_patterns.py), each call held to the rule its own
sequence length selects (dynamic NTK, longrope), so that a stale cache or base fails.

The default bound is the standard float32 formulation's reach (accuracy/float32_formulation.h);
"strict" is correct rounding, what ropecheck's own kernel meets; max_ulp an ulp bound.
"""

from __future__ import annotations

import math
import numbers
from typing import Any, Callable, Optional

from . import _arguments as args
from . import _core
from ._check_results import CLASS_TITLES, CheckResult, ClassSummary, Failure, RopeCheckError
from ._checking import Adapter, RopeFunction, Runner, Settings, function_name, round_seed
from ._errors import InputError

BOUNDS = ("standard", "strict")
MODES = ("rounds", "calls")
#: The rules that read the call's sequence length (spectrum/scaling.h: dynamic's S, longrope's S).
LENGTH_RULES = ("dynamic", "longrope")
SCAN_TOKENS = 16  # ordinary-input tokens beside the failing one at each scanned position
CALL_TOKENS_LIMIT = 4096  # the longest call of calls mode


def position_limit(runner: Runner) -> int:
    """The largest position of the model's trained context: its span - 1; for dynamic NTK, the
    factor x the span it is designed to stretch (transformers grows the base for S > M)."""
    plan = runner.plan
    context = plan.context if plan.context is not None else 8192
    if plan.scaling == "dynamic":
        return int(math.floor(float(plan.scaling_factor) * context)) - 1
    return context - 1


def _optional_number(name: str, value: object, accepted: str, ok: Callable[[float], bool]) -> Optional[float]:
    """None, or value as a float when it is a real number (not a bool) that `ok` accepts."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not ok(float(value)):
        raise InputError(name, accepted, repr(value))
    return float(value)


def _bound_options(bound: object, max_ulp: object, rtol: object, signed_zeros: object,
                   canonical_nan: object, tables: object) -> tuple[str, dict[str, Any]]:
    if not isinstance(bound, str) or bound not in BOUNDS:
        raise InputError("bound", "'standard' (the float32 formulation's reach) or 'strict' (correctly rounded)", repr(bound))
    if not isinstance(tables, str) or tables not in _core.TABLES:
        raise InputError("tables", "'float32' (the standard formulation's cos and sin) or 'dtype' (cos and sin rounded to x's "
                         "dtype, as transformers and vLLM build them)", repr(tables))
    if tables != "float32" and bound != "standard":
        raise InputError("tables", "'float32' with bound='strict' (tables widen the standard bound only)", repr(tables))
    ulp = _optional_number("max_ulp", max_ulp, "None or a number in [0.5, 2^30]", lambda v: 0.5 <= v <= 2.0 ** 30)
    if ulp is not None and bound != "standard":
        raise InputError("max_ulp", "None with bound='strict' (strict is max_ulp 0.5)", repr(max_ulp))
    tolerance = _optional_number("rtol", rtol, "None or a number in (0, 1]", lambda v: 0 < v <= 1)
    for name, flag in (("signed_zeros", signed_zeros), ("canonical_nan", canonical_nan)):
        if not isinstance(flag, bool):
            raise InputError(name, "True or False", repr(flag))
    label = "strict" if bound == "strict" else (f"within {ulp} ulp" if ulp is not None else
                                                ("standard" if tables == "float32" else "standard, dtype tables"))
    options: dict[str, Any] = dict(max_ulp=0.5 if ulp is None else ulp, canonical_nan=canonical_nan, signed_zeros=signed_zeros,
                                   rtol=0.0 if tolerance is None else tolerance, formulation=bound == "standard" and ulp is None,
                                   tables=tables)
    return label, options


def _failure(f: dict[str, Any], r: int, positions: Any, x: Any, **extra: Any) -> Failure:
    return Failure(input_class=f["input_class"], round=r, positions=tuple(int(p) for p in positions),
                   shape=tuple(int(n) for n in x.shape), x=tuple(x.reshape(-1).tolist()) if x.size <= 4096 else (), position=int(f["position"]),
                   head=int(f["head"]), pair=int(f["pair"]), element=int(f["element"]), component=int(f["component"]),
                   inputs=tuple(f["inputs"]), input_values=tuple(f["input_values"]), expected=f["expected"],
                   expected_value=f["expected_value"], got=f["got"], got_value=f["got_value"], ulps=float(f["ulps"]),
                   rel=float(f["rel"]), rule=f["rule"], reach=None if f.get("reach") is None else (str(f["reach"][0]), str(f["reach"][1])),
                   delta=float(f.get("delta", math.nan)), **extra)


def _worse(f: dict[str, Any], than: Optional[dict[str, Any]]) -> bool:
    """accuracy::check_elements's order: a larger ulp figure, a figure over none."""
    if than is None:
        return True
    return not math.isnan(f["ulps"]) and (math.isnan(than["ulps"]) or f["ulps"] > than["ulps"])


def _shrink(runner: Runner, options: dict[str, Any], positions: Any, x: Any, failure: dict[str, Any],
            cls: str) -> tuple[Any, Any, dict[str, Any]]:
    """The smallest (positions, x, failure) that still fails in class `cls`, from a failing tensor
    and its worst failure of that class: its token and head alone, then every other element +0."""
    np = args.numpy()
    t, h = failure["token"], failure["head"]

    def fails(p: Any, xs: Any) -> Optional[dict[str, Any]]:
        k = runner.check(p, xs, options)["classes"][cls]
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


def _ordinary(s: Settings, seed: int, tokens: int, heads: int) -> Any:
    """Standard normal inputs rounded to the format (accuracy/profile_tensor.h), [tokens, heads, dim]."""
    with args.VariantNames(s.variant):
        _, x = _core.profile_tensor(s.request, s.layout, s.dtype, seed, tokens, heads, 99)
    return x


def _scan(runner: Runner, options: dict[str, Any], row: Any, position: int, ordinary: Any) -> tuple[Optional[int], int]:
    """(the largest scanned position that passes below the first failing one, the first failing):
    fn on the failing token's row and ordinary inputs at +-1, 3, 7, ..., 2^k - 1 < |position|, then
    position. Not powers of two: those are exact in every narrow format, so a position rounded to
    bfloat16 would pass at each of them."""
    np = args.numpy()
    sign = -1 if position < 0 else 1
    ladder = []
    q = 1
    while q < abs(position):
        ladder.append(sign * q)
        q = 2 * q + 1
    ladder.append(position)
    x = np.ascontiguousarray(np.concatenate([row, ordinary], axis=0))
    passed: Optional[int] = None
    for q in ladder:
        c = runner.check(np.full(x.shape[0], q, dtype=np.int64), x, options)["classes"]
        if c["finite"]["failed"] or c["subnormal"]["failed"]:
            return passed, q
        passed = q
    return passed, position


def _values(a: Any, dtype: str) -> Any:
    """The values of an array of the check's storage, as float64."""
    np = args.numpy()
    if dtype == "bfloat16":
        return (a.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    return a.astype(np.float64)


def _permutation_hint(runner: Runner, s: Settings, x: Any) -> Optional[tuple[int, ...]]:
    """The channel permutation under which fn's output on ordinary inputs x at positions 1, 2, ...
    matches the correctly rounded exact map (within 2^-6 of each row's scale: far above what the
    float32 formulation adds there, far below the distance between two channels of normal inputs)."""
    np = args.numpy()
    from ._permutation import find_permutation
    positions = np.arange(1, x.shape[0] + 1, dtype=np.int64)
    try:
        y = runner.call(positions, x)
    except AssertionError:
        return None
    exact = np.empty_like(x)
    with args.VariantNames(s.variant):
        _core.apply(x, exact, np.ascontiguousarray(s.reference_positions(positions)), s.request, s.layout, "shd", 1, "kernel")
    got, want = _values(y, s.dtype), _values(exact, s.dtype)
    scale = np.sqrt(np.mean(want * want, axis=2, keepdims=True))
    return find_permutation(got, want, 2.0 ** -6 * (np.abs(want) + scale))


class _Totals:
    def __init__(self) -> None:
        self.classes = {name: [0, 0, 0.0, 0.0] for name in CLASS_TITLES}
        self.checked = self.undecided = 0
        self.worst = self.worst_rel = 0.0

    def add(self, c: dict[str, Any]) -> None:
        self.checked += c["checked"]
        self.undecided += c["undecided"]
        self.worst = max(self.worst, c["max_ulps"])
        self.worst_rel = max(self.worst_rel, c["max_rel"])
        for name, k in c["classes"].items():
            t = self.classes[name]
            t[0] += k["checked"]
            t[1] += k["failed"]
            t[2] = max(t[2], k["max_ulps"])
            t[3] = max(t[3], k["max_rel"])

    def summaries(self) -> dict[str, ClassSummary]:
        return {n: ClassSummary(int(t[0]), int(t[1]), float(t[2]), float(t[3])) for n, t in self.classes.items()}


def check(fn: RopeFunction, adapter: Adapter, s: Settings, *, bound: str, max_ulp: Optional[float], rtol: Optional[float],
          signed_zeros: bool, canonical_nan: bool, seed: int, budget: int, tokens: int, heads: int, min_position: int,
          max_position: Optional[int], beyond_context: bool, mode: str, permutation: object,
          raise_on_failure: bool, tables: str = "float32") -> CheckResult:
    """check_rope: every round (call) run, failures grouped by input class, each failing class's
    worst element shrunk, classified and described; raises RopeCheckError unless raise_on_failure
    is False (then the result says passed=False)."""
    label, options = _bound_options(bound, max_ulp, rtol, signed_zeros, canonical_nan, tables)
    for name, flag in (("beyond_context", beyond_context), ("raise_on_failure", raise_on_failure)):
        if not isinstance(flag, bool):
            raise InputError(name, "True or False", repr(flag))
    if not isinstance(mode, str) or mode not in MODES:
        raise InputError("mode", "'rounds' (independent calls) or 'calls' (a sequence of prefill and decode calls)", repr(mode))
    seed = args.integer("seed", seed, 0, args.UINT64_MAX)
    budget = args.integer("budget", budget, 1, 1 << 20)
    tokens = args.integer("tokens", tokens, 1, 1 << 16)
    heads = args.integer("heads", heads, 1, 1 << 10)
    runner = Runner(fn, s, adapter)
    from ._permutation import permutation_argument
    options["permutation"] = permutation_argument(permutation, runner.plan.head_dim)
    limit = position_limit(runner)
    beyond = "; beyond_context=True checks past the model's trained context"
    if beyond_context:
        lowest = args.INT64[0] + (1 if s.backward else 0)  # the gradient's map is at -p, and -(-2^63) is no int64
        min_position = args.integer("min_position", min_position, lowest, args.INT64[1])
        top = args.INT64[1]
    else:
        min_position = args.integer("min_position", min_position, 0, limit, accepted=f"an integer in [0, {limit}]{beyond}")
        top = limit
    if max_position is None:
        max_position = max(limit, min_position) if beyond_context else limit
    max_position = args.integer("max_position", max_position, min_position, top,
                                accepted=None if beyond_context else f"an integer in [min_position, {limit}] (the model's "
                                f"trained context ends at position {limit}){beyond}")
    totals = _Totals()
    failures: dict[str, Failure] = {}
    if mode == "rounds":
        found: dict[str, tuple[int, Any, Any, dict[str, Any]]] = {}
        for r in range(budget):
            with args.VariantNames(s.variant):
                positions, x, _ = _core.fuzz_tensor(s.request, s.layout, s.dtype, round_seed(seed, r), tokens, heads, min_position,
                                                    max_position)
            c = runner.check(positions, x, options)
            totals.add(c)
            for name, k in c["classes"].items():
                if k["failed"] and (name not in found or _worse(k["worst"], found[name][3])):
                    found[name] = (r, positions, x, k["worst"])
        ordinary = _ordinary(s, seed, SCAN_TOKENS, heads) if {"finite", "subnormal"} & set(found) else None
        hint: list[Optional[tuple[int, ...]]] = []  # computed once, for the first class that fails everywhere
        for name, (r, positions, x, f) in found.items():
            p1, x1, f1 = _shrink(runner, options, positions, x, f, name)
            extra: dict[str, Any] = {}
            if name in ("finite", "subnormal"):
                row = x[f["token"]:f["token"] + 1]
                up_to, fails_from = _scan(runner, options, row, int(f["position"]), ordinary)
                extra = dict(kind="everywhere" if up_to is None else "grows-with-position", passes_up_to=up_to, fails_from=fails_from)
                if up_to is None and options["permutation"] is None:
                    if not hint:
                        hint.append(_permutation_hint(runner, s, ordinary))
                    extra["permutation"] = hint[0]
            failures[name] = _failure(f1, r, p1, x1, **extra)
    else:
        _calls(runner, s, options, seed, budget, tokens, heads, min_position, max_position, totals, failures)
    spec = ", ".join(f"{k}={v!r}" for k, v in s.request.items() if not (mode == "calls" and k == "sequence_length"))
    bound_text = f"max_ulp={max_ulp!r}" if max_ulp is not None else f"bound={bound!r}" + (
        f", tables={tables!r}" if tables != "float32" else "")
    replay = (f"{adapter.api}.check_rope(fn, {spec}, dtype={adapter.dtype_text}, axes={s.axes!r}, {bound_text}, rtol={rtol!r}, "
              f"signed_zeros={signed_zeros}, backward={s.backward}, seed={seed}, budget={budget}, tokens={tokens}, heads={heads}, "
              f"min_position={min_position}, max_position={max_position}, beyond_context={beyond_context}, mode={mode!r}"
              + (f", permutation={list(options['permutation'])!r}" if options["permutation"] is not None else "") + ")"
              + ("; inputs: ropecheck.testing.fuzz_inputs(seed=..., round=R, ...)" if mode == "rounds" else ""))
    result = CheckResult(rounds=budget, checked=totals.checked, max_ulps=totals.worst, undecided=totals.undecided, seed=seed,
                         max_rel=totals.worst_rel, direction="backward" if s.backward else "forward", classes=totals.summaries(),
                         passed=not failures, bound=label, mode=mode, function=function_name(fn), rope=runner.plan.description,
                         dtype=s.dtype, failures=failures, replay=replay)
    if failures and raise_on_failure:
        raise RopeCheckError(result)
    return result


def _calls(runner: Runner, s: Settings, options: dict[str, Any], seed: int, budget: int, tokens: int, heads: int,
           min_position: int, max_position: int, totals: _Totals, failures: dict[str, Failure]) -> None:
    """calls mode: fn through call_sequence's calls in order, each call's sampled tokens checked
    against the rule at the call's own sequence length; the first worst failure per class kept."""
    from ._call_patterns import call_sequence, describe
    np = args.numpy()
    per_call = "model" in s.request and runner.plan.scaling in LENGTH_RULES
    span = max_position - min_position + 1
    sequence = call_sequence(seed=seed, calls=budget, min_position=min_position, max_position=max_position,
                             max_tokens=min(CALL_TOKENS_LIMIT, span), checked_tokens=tokens)
    found: dict[str, tuple[int, Any, Any, dict[str, Any], str]] = {}
    for call in sequence:
        request = dict(s.request)
        if per_call:
            request["sequence_length"] = int(call.sequence_length)
        positions = np.ascontiguousarray(call.positions, dtype=np.int64)
        with args.VariantNames(s.variant):
            _, x, _ = _core.fuzz_tensor(request, s.layout, s.dtype, round_seed(seed, call.index), positions.shape[0], heads,
                                        min_position, max_position)
        y = runner.call(positions, x)
        rows = np.ascontiguousarray(call.checked, dtype=np.int64)
        xs, ys, ps = np.ascontiguousarray(x[rows]), np.ascontiguousarray(y[rows]), np.ascontiguousarray(positions[rows])
        c = runner.check(ps, xs, options, request=request, y=ys)
        totals.add(c)
        for name, k in c["classes"].items():
            if k["failed"] and (name not in found or _worse(k["worst"], found[name][3])):
                found[name] = (call.index, ps, xs, k["worst"], describe(call))
    for name, (index, ps, xs, f, text) in found.items():
        t, h = f["token"], f["head"]
        failures[name] = _failure(f, index, ps[t:t + 1], xs[t:t + 1, h:h + 1], call=text)
