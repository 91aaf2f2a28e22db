"""rope_styles' correct RoPEs agree with ropecheck.apply (the correctly rounded map) within the error
a float32 RoPE can have, and every rope_mutants mutant differs from it by clearly more, on its
stated dtypes and positions; without check_rope, so that these sets can be used to test it.

Errors are in ulp of the output dtype at the pair's output norm (rope_styles.norm_ulp_error), the
bound is rope_styles.tolerance (derived there): 1 ulp (+ <= 0.07) for bfloat16 and float16 at
positions <= 64, 529 for float32 (the float32 angle's own error). A mutant must exceed 4 times it.
"""

import zlib

import numpy as np
import pytest

import rope_mutants as rm
import rope_styles as rs

ropecheck = pytest.importorskip("ropecheck")

HEADS = 4
SMALL = (0, 65)  # positions 0..64: the float32 angle is within ~2^-17 rad of p g
MARGIN = 4.0  # a mutant must be off by more than MARGIN x the correct styles' bound


def seed_of(*parts):
    return zlib.crc32("/".join(map(str, parts)).encode())


def measure(subject, fn, dtype, start, stop, seed, heads=HEADS):
    """fn's and ropecheck's outputs at positions [start, stop): (positions, the error per position in
    norm ulps, the input, fn's output, ropecheck's)."""
    cfg = rs.read_config(subject.model, subject.layer_type)
    positions = np.arange(start, stop, dtype=np.int64)
    x = rs.standard_normal(len(positions), heads, cfg.head_dim, dtype, seed)
    given = x.copy()
    y = fn(given, positions.copy())
    assert np.array_equal(given.view(np.uint8), x.view(np.uint8)), "fn changed its input"
    assert y.shape == x.shape and y.dtype == x.dtype
    ref = ropecheck.apply(x, positions, **subject.ropecheck_kwargs(positions))
    err = rs.norm_ulp_error(y, ref, x, cfg, dtype)
    return positions, err.reshape(len(positions), -1).max(axis=1), x, y, ref


# ---------------------------------------------------------------------------------------------
# Formats and the config reader


def test_bfloat16_conversion():
    bits = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
    f = rs.bf16_to_f32(bits)
    back = rs.f32_to_bf16(f)
    nan = np.isnan(f)
    assert np.array_equal(back[~nan], bits[~nan])
    assert np.isnan(rs.bf16_to_f32(back[nan])).all() and np.array_equal(back[nan] >> 15, bits[nan] >> 15)
    # ties to even, overflow to infinity, the largest finite value kept
    v = np.array([1 + 2.0 ** -8, 1 + 3 * 2.0 ** -8, 3.4e38, -3.4e38, np.inf, 1 + 2.0 ** -8 + 2.0 ** -20], dtype=np.float32)
    assert rs.f32_to_bf16(v).tolist() == [0x3F80, 0x3F82, 0x7F80, 0xFF80, 0x7F80, 0x3F81]
    assert rs.f32_to_bf16(np.array([3.3895e38], dtype=np.float32)).tolist() == [0x7F7F]


@pytest.mark.parametrize("case", rs.CORRECT[: len(rs.MODELS)], ids=lambda c: c.name.split(":", 1)[1])
def test_config_reader_agrees_with_ropecheck(case):
    """The module's own config reader and ropecheck read the same RoPE from the same file."""
    cfg = rs.read_config(case.model, case.layer_type)
    plan = ropecheck.plan(**case.ropecheck_kwargs())
    assert (plan.head_dim, plan.rotary_offset, plan.rotary_dims, plan.layout) == (cfg.head_dim, cfg.offset, cfg.rotary_dims, cfg.layout)
    assert float(plan.attention_factor) == pytest.approx(rs.attention_factor(cfg), rel=1e-15)


@pytest.mark.parametrize("name", ["dynamic-ntk-d128.json", "dynamic-ntk-d64.json"])
def test_dynamic_configs_are_read_as_dynamic_ntk(name):
    path = rs.data(name)
    cfg = rs.read_config(path)
    assert cfg.rope_type == "dynamic" and cfg.max_position == 512 and cfg.head_dim in (64, 128)
    plan = ropecheck.plan(model=path, sequence_length=2048)
    assert "scaling dynamic" in plan.description and "sequence length 2048" in plan.description


# ---------------------------------------------------------------------------------------------
# Correct implementations


@pytest.mark.parametrize("case,dtype", rs.cases(), ids=lambda v: v.name if isinstance(v, rs.Case) else v)
def test_correct_within_rounding_of_the_exact_map(case, dtype):
    positions, err, x, y, _ = measure(case, case.make(dtype), dtype, *SMALL, seed_of(case.name, dtype))
    cfg = rs.read_config(case.model, case.layer_type)
    keep = rs.passthrough(cfg)
    assert np.array_equal(y[..., keep], x[..., keep]), "pass-through channels must be copied bit for bit"
    tol = rs.tolerance(dtype, int(positions.max()))
    assert err.max() <= tol, f"{case.name} {dtype}: {err.max():.3f} ulp at position {positions[err.argmax()]} (bound {tol:.3f})"


@pytest.mark.parametrize("case,dtype", [(c, d) for c in rs.STATEFUL for d in rs.DTYPES],
                         ids=lambda v: v.name if isinstance(v, rs.StatefulCase) else v)
def test_stateful_correct_over_a_call_sequence(case, dtype):
    """Short, long (beyond max_position_embeddings / the table), short again, offset: every call right."""
    fn = case.make(dtype)
    for i, (start, stop) in enumerate([(0, 65), (0, 2048), (0, 65), (100, 165), (4000, 4200)]):
        positions, err, *_ = measure(case, fn, dtype, start, stop, seed_of(case.name, dtype, i), heads=2)
        tol = rs.tolerance(dtype, int(positions.max()))
        assert err.max() <= tol, f"call {i} [{start}, {stop}): {err.max():.3f} ulp (bound {tol:.3f})"


def test_cached_table_regrows_only_when_needed():
    fn = rs.STATEFUL[0].make("float32")
    x = np.zeros((1, 1, 128), dtype=np.float32)
    grown = []
    for p in (10, 12, 50, 20, 5000, 1 << 20):
        fn(x, np.array([p]))
        grown.append(fn.grown)
    assert grown == [1, 1, 2, 2, 3, 3]  # 16 rows, then 64, then 8192; 2^20 is computed directly


# ---------------------------------------------------------------------------------------------
# Mutants


def test_mutant_registry():
    kinds = {m.kind for m in rm.MUTANTS}
    assert len(kinds) == 14 + 1  # every kind of the brief, and the valid-but-permuted one
    for m in rm.MUTANTS:
        assert m.reason and m.input_class == "finite" and m.dtypes
        assert set(m.dtypes) | set(m.indistinguishable) == set(rs.DTYPES) and not set(m.dtypes) & set(m.indistinguishable)
        assert set(m.onset) == set(m.dtypes)
        assert m.layout == rs.read_config(m.model, m.layer_type).layout
    assert sorted(rm.PERMUTED.perm) == list(range(rs.read_config("deepseek-v3").head_dim))


def mutant_error(m, dtype):
    """The mutant's largest error on its window (stateful: on its failing call, the calls before it
    checked to be right), and the tolerance there."""
    fn = m.make(dtype)
    if m.stateful:
        for i, (start, stop) in enumerate(m.calls[: m.fails_on_call + 1]):
            positions, err, x, y, ref = measure(m, fn, dtype, start, stop, seed_of(m.name, dtype, i), heads=2)
            if i < m.fails_on_call:
                assert err.max() <= rs.tolerance(dtype, int(positions.max())), f"call {i} should still be right"
    else:
        positions, err, x, y, ref = measure(m, fn, dtype, *m.window, seed_of(m.name, dtype))
    return positions, err, x, y, ref


@pytest.mark.parametrize("m,dtype", rm.mutants(), ids=lambda v: v.name if isinstance(v, rm.Mutant) else v)
def test_mutant_differs_clearly(m, dtype):
    positions, err, *_ = mutant_error(m, dtype)
    tol = rs.tolerance(dtype, int(positions.max()))
    assert err.max() > MARGIN * tol, f"{m.name} {dtype}: only {err.max():.3f} ulp (bound {tol:.3f})"
    # it shows from its onset on: some position at most onset + 8 already fails
    failing = positions[err > np.array([rs.tolerance(dtype, int(p)) for p in positions])]
    assert failing.size and (failing.min() <= m.onset[dtype] + 8 or positions.min() > m.onset[dtype]), failing[:4]
    if m.sharp_onset:  # right before its onset it is right (positions exact in the dtype, the table's rows, angles < pi)
        before = max(m.onset[dtype] - 64, 0), m.onset[dtype]
        fn = m.make(dtype)
        if m.stateful:
            for i, (start, stop) in enumerate(m.calls[: m.fails_on_call]):
                measure(m, fn, dtype, start, stop, 0, heads=1)
        p, e, *_ = measure(m, fn, dtype, *before, seed_of(m.name, dtype, "before"), heads=2)
        assert e.max() <= rs.tolerance(dtype, int(p.max())), f"fails before its onset: {e.max():.3f} at {p[e.argmax()]}"


@pytest.mark.parametrize("m,dtype", [(m, d) for m in rm.MUTANTS for d in m.indistinguishable],
                         ids=lambda v: v.name if isinstance(v, rm.Mutant) else v)
def test_mutant_indistinguishable_where_said(m, dtype):
    """Where a mutant is said to be indistinguishable it is indeed within a correct RoPE's bound."""
    positions, err, *_ = mutant_error(m, dtype)
    assert err.max() <= rs.tolerance(dtype, int(positions.max()))


@pytest.mark.parametrize("dtype", rs.DTYPES)
def test_permuted_is_the_exact_map_in_permuted_channels(dtype):
    m = rm.PERMUTED
    positions, err, x, y, ref = measure(m, m.make(dtype), dtype, *m.window, seed_of(m.name, dtype, "perm"))
    cfg = rs.read_config(m.model)
    perm = np.array(m.perm)
    fixed = np.empty_like(y)
    fixed[..., perm] = y  # output channel j holds exact channel perm[j]
    e = rs.norm_ulp_error(fixed, ref, x, cfg, dtype)
    assert e.max() <= rs.tolerance(dtype, int(positions.max()))
    assert np.array_equal(y[..., : cfg.offset], x[..., : cfg.offset])  # the nope part untouched
