"""check_rope's defaults on real implementations: the docs' one-line check,
``check_rope(fn, model=M, dtype=D)``, passes every correct implementation of rope_styles (both
float32 styles, every scaling rule ropecheck reads, both layouts, float32, bfloat16 and float16)
and fails every mutant of rope_mutants in each dtype where it is a mistake, in the input class and
of the kind the mutant's construction states; mode="calls" passes the correct stateful
implementations and fails the stale ones; a declared permutation is accepted and an undeclared one
named.

The table in docs/python.md ("Choosing the check") is what
``PYTHONPATH=build/python python3 tests/python/test_check_bounds.py`` prints (the same checks).
"""

from __future__ import annotations

import os
import sys

import pytest

import rope_mutants as rm
import rope_styles as rs
from ropecheck.testing import check_rope

#: Every STRIDE-th case and mutant (ROPECHECK_CHECK_BOUNDS_STRIDE, default 1: all of them). The
#: Release suite runs them all; the sanitizer build (the same C++ paths, 3x slower) and the PyPI
#: stack (NumPy 2 compatibility of the same Python) run every 4th, which still meets every dtype
#: and both styles (4 is prime to the 3 dtypes).
STRIDE = int(os.environ.get("ROPECHECK_CHECK_BOUNDS_STRIDE", "1"))
CASES = rs.cases()[::STRIDE]
# Stateless mutants whose mistake shows in rounds mode; stateful ones need mode="calls".
STATELESS = [(m, d) for m, d in rm.mutants() if not m.stateful and m.perm is None][::STRIDE]
STATEFUL_MUTANTS = [(m, d) for m, d in rm.mutants() if m.stateful][::STRIDE]
INDISTINGUISHABLE = [(m, d) for m in rm.MUTANTS for d in m.indistinguishable]

#: Where rope_mutants calls a mutant indistinguishable (by its one-ulp tolerance), whether the
#: default check fails it: the model-dtype casts are no-ops in float32 (the formulation itself), so
#: they pass; fp16 tables flip roundings by up to one ulp where the float32 formulation is exact (at
#: small positions), so the default sees them.
SEEN_BY_THE_DEFAULT = {("inv-freq-model-dtype", "float32"): False, ("positions-model-dtype", "float32"): False,
                       ("fp16-tables", "bfloat16"): True, ("fp16-tables", "float16"): True}


def ident(v):
    return v.name if hasattr(v, "name") else str(v)


@pytest.mark.parametrize("case,dtype", CASES, ids=ident)
def test_a_correct_implementation_passes_the_default_check(case, dtype):
    r = check_rope(case.make(dtype), dtype=dtype, **case.ropecheck_kwargs())
    assert r.passed and r.bound == "standard"


@pytest.mark.parametrize("case,dtype", [(c, d) for c in rs.STATEFUL for d in rs.DTYPES][::STRIDE], ids=ident)
def test_a_correct_stateful_implementation_passes_the_call_sequence(case, dtype):
    r = check_rope(case.make(dtype), dtype=dtype, mode="calls", model=case.model, layer_type=case.layer_type)
    assert r.passed and r.mode == "calls"


def expected_kind(m, dtype):
    """The kind the mutant's construction states: one that agrees with a correct RoPE below a
    position by construction (rope_mutants' sharp_onset: a position exact in the narrow format up
    to 2^p, an unreduced polynomial exact below pi) grows with position; every other mistake is
    in the formula or in the format of an angle, frequency or table, and the exact reach, tight at
    small positions, sees it from the first positions tried."""
    return "grows-with-position" if m.sharp_onset and m.onset.get(dtype, 0) > 1 else "everywhere"


@pytest.mark.parametrize("m,dtype", STATELESS, ids=ident)
def test_a_mutant_fails_the_default_check_for_its_stated_reason(m, dtype):
    r = check_rope(m.make(dtype), dtype=dtype, raise_on_failure=False, **m.ropecheck_kwargs())
    assert not r.passed, f"{m.name} ({m.reason}) passed in {dtype}"
    assert m.input_class in r.failures, f"{m.name}: failed in {sorted(r.failures)}, not {m.input_class}"
    f = r.failures[m.input_class]
    assert f.rule == "float32 formulation"
    assert f.kind == expected_kind(m, dtype), f"{m.name} {dtype}: {f.kind}, scan {f.passes_up_to} -> {f.fails_from}\n{m.reason}"
    if f.kind == "grows-with-position":  # below the onset the mutant is a correct RoPE: the scan passes there
        assert f.fails_from >= m.onset[dtype] and f.passes_up_to is not None, (f.passes_up_to, f.fails_from, m.onset[dtype])


@pytest.mark.parametrize("m,dtype", STATEFUL_MUTANTS, ids=ident)
def test_a_stale_implementation_fails_the_call_sequence(m, dtype):
    r = check_rope(m.make(dtype), dtype=dtype, mode="calls", raise_on_failure=False, model=m.model, layer_type=m.layer_type)
    assert not r.passed, f"{m.name} ({m.reason}) passed the call sequence in {dtype}"
    f = r.failures[m.input_class]
    assert f.call is not None and f.call.startswith("call ")


def test_every_indistinguishable_pair_has_a_stated_verdict():
    assert {(m.name, d) for m, d in INDISTINGUISHABLE} == set(SEEN_BY_THE_DEFAULT)


@pytest.mark.parametrize("m,dtype", INDISTINGUISHABLE, ids=ident)
def test_where_a_one_ulp_tolerance_cannot_tell_the_default_verdict_is_the_stated_one(m, dtype):
    r = check_rope(m.make(dtype), dtype=dtype, raise_on_failure=False, **m.ropecheck_kwargs())
    if SEEN_BY_THE_DEFAULT[(m.name, dtype)]:
        assert not r.passed and r.failures["finite"].kind == "everywhere"
    else:
        assert r.passed


@pytest.mark.parametrize("dtype", rs.DTYPES)
def test_a_declared_permutation_is_accepted_and_an_undeclared_one_named(dtype):
    m = rm.PERMUTED
    fn = m.make(dtype)
    assert check_rope(fn, dtype=dtype, permutation=m.perm, **m.ropecheck_kwargs()).passed
    r = check_rope(fn, dtype=dtype, raise_on_failure=False, **m.ropecheck_kwargs())
    assert not r.passed and r.failures["finite"].permutation == m.perm
    assert "channel permutation" in r.message() and "permutation=[" in r.message()


def p_rope(fraction, dtype, angle_in_bfloat16=False):
    """p-RoPE (the paper's proposal; Gemma's rope_type "proportional") in the standard float32
    formulation: the frequencies theta^(-2i/d) of the floor(fraction d/2) fastest pairs, the others
    0 (their pairs are copied: cos 0 = 1, sin 0 = 0 exactly), half layout, d = 128, theta = 10000;
    with angle_in_bfloat16 the angle rounded to bfloat16 (a mistake)."""
    import numpy as np
    d = 128
    kept = int(fraction * d / 2)
    g = (np.float32(1) / np.power(np.float32(10000), np.arange(0, d, 2, dtype=np.float32) / np.float32(d))).astype(np.float32)
    g[kept:] = 0

    def fn(x, positions):
        xf = rs.to_f32(x, dtype)
        t = (positions.astype(np.float32)[:, None] * g[None, :]).astype(np.float32)
        if angle_in_bfloat16:
            t = rs.round_bf16(t)
        c, s_ = np.cos(t)[:, None, :], np.sin(t)[:, None, :]
        a, b = xf[..., :d // 2], xf[..., d // 2:]
        with np.errstate(all="ignore"):
            y = np.concatenate([a * c - b * s_, a * s_ + b * c], axis=-1).astype(np.float32)
        return rs.from_f32(y, dtype)
    return fn


@pytest.mark.parametrize("dtype", rs.DTYPES)
@pytest.mark.parametrize("fraction", [0.25, 0.75])
def test_p_rope_in_the_standard_formulation_passes_and_a_bfloat16_angle_fails(fraction, dtype):
    spec = dict(dim=128, theta=10000, p_rope=fraction, layout="half", context=8192)
    assert check_rope(p_rope(fraction, dtype), dtype=dtype, **spec).passed
    r = check_rope(p_rope(fraction, dtype, angle_in_bfloat16=True), dtype=dtype, raise_on_failure=False, **spec)
    assert not r.passed and r.failures["finite"].kind == "everywhere"


def table():
    """The Markdown table of the docs: per implementation and dtype, the default check's verdict,
    the largest error on finite inputs it saw (sampled: a lower bound) and a failure's kind."""
    rows = ["| implementation | dtype | default check | max ulp seen (finite) | kind |", "|---|---|---|---:|---|"]
    for case, dtype in rs.cases():
        r = check_rope(case.make(dtype), dtype=dtype, raise_on_failure=False, **case.ropecheck_kwargs())
        rows.append(f"| {case.name} | {dtype} | {'passes' if r.passed else 'FAILS'} | {r.classes['finite'].max_ulps:.3g} | |")
    for case in rs.STATEFUL:
        for dtype in rs.DTYPES:
            r = check_rope(case.make(dtype), dtype=dtype, mode="calls", raise_on_failure=False, model=case.model,
                           layer_type=case.layer_type)
            rows.append(f"| {case.name} (calls mode) | {dtype} | {'passes' if r.passed else 'FAILS'} | "
                        f"{r.classes['finite'].max_ulps:.3g} | |")
    for fraction in (0.25, 0.75):
        spec = dict(dim=128, theta=10000, p_rope=fraction, layout="half", context=8192)
        for dtype in rs.DTYPES:
            r = check_rope(p_rope(fraction, dtype), dtype=dtype, raise_on_failure=False, **spec)
            rows.append(f"| standard:p-rope-{fraction} | {dtype} | {'passes' if r.passed else 'FAILS'} | "
                        f"{r.classes['finite'].max_ulps:.3g} | |")
    for m, dtype in [*rm.mutants(), *INDISTINGUISHABLE]:
        if m.stateful:
            r = check_rope(m.make(dtype), dtype=dtype, mode="calls", raise_on_failure=False, model=m.model, layer_type=m.layer_type)
        else:
            r = check_rope(m.make(dtype), dtype=dtype, raise_on_failure=False, **m.ropecheck_kwargs())
        f = r.failures.get("finite")
        kind = ""
        if f is not None:
            kind = f.kind or ""
            if f.kind == "grows-with-position":
                kind += f" (passes to {f.passes_up_to}, fails from {f.fails_from})"
            if f.call:
                kind = f.call.split(" (")[0] + " of the sequence"
            if f.permutation:
                kind += ": a channel permutation, named"
        rows.append(f"| mutant {m.name}{' (calls mode)' if m.stateful else ''} | {dtype} | {'passes' if r.passed else 'FAILS'} | "
                    f"{r.classes['finite'].max_ulps:.3g} | {kind} |")
    for dtype in rs.DTYPES:
        r = check_rope(rm.PERMUTED.make(dtype), dtype=dtype, raise_on_failure=False, permutation=rm.PERMUTED.perm,
                       **rm.PERMUTED.ropecheck_kwargs())
        rows.append(f"| {rm.PERMUTED.name}, permutation declared | {dtype} | {'passes' if r.passed else 'FAILS'} | "
                    f"{r.classes['finite'].max_ulps:.3g} | |")
    for fraction in (0.25, 0.75):
        spec = dict(dim=128, theta=10000, p_rope=fraction, layout="half", context=8192)
        for dtype in rs.DTYPES:
            r = check_rope(p_rope(fraction, dtype, angle_in_bfloat16=True), dtype=dtype, raise_on_failure=False, **spec)
            f = r.failures.get("finite")
            rows.append(f"| mutant p-rope-{fraction} angle in bf16 | {dtype} | {'passes' if r.passed else 'FAILS'} | "
                        f"{r.classes['finite'].max_ulps:.3g} | {f.kind if f else ''} |")
    return "\n".join(rows)


def decades(seed=0):
    """What the correct implementations reach per dtype and position decade: ropecheck.testing's
    profile of each (ordinary inputs, 32 positions per decade x 2 heads, up to the model's context),
    the largest error over all of them and the smallest share correctly rounded (measured: lower
    bounds of their errors)."""
    from ropecheck.testing import profile
    import ropecheck
    worst: dict = {}
    for case, dtype in rs.cases():
        top = ropecheck.plan(model=case.model, layer_type=case.layer_type).context - 1
        p = profile(case.make(dtype), dtype=dtype, seed=seed, tokens=32, heads=2, max_position=top, **case.ropecheck_kwargs())
        for r in p.rows:
            w = worst.setdefault((dtype, r.positions), [0.0, 1.0, 0, 0])
            w[0] = max(w[0], r.max_ulp)
            w[1] = min(w[1], r.correctly_rounded)
            w[2] += r.elements
            w[3] += 1
    rows = ["| dtype | positions | implementations | elements | max ulp | min share correctly rounded |", "|---|---|---:|---:|---:|---:|"]
    order = sorted(worst, key=lambda key: (rs.DTYPES.index(key[0]), float(key[1][1:].split(",")[0])))
    for dtype, positions in order:
        mx, cr, n, k = worst[(dtype, positions)]
        rows.append(f"| {dtype} | {positions} | {k} | {n} | {mx:.3g} | {cr:.3f} |")
    return "\n".join(rows)


if __name__ == "__main__":
    sys.path.insert(0, __file__.rsplit("/", 1)[0])
    print(decades() if sys.argv[1:] == ["decades"] else table())
