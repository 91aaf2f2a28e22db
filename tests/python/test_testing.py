"""ropecheck.testing.check_rope: finds a planted 1-ulp fault, a fault only beyond position 2^24, a
lost -0, a rotated identity pair, a bfloat16 fault; shrinks to one token and head; replays from its
seed; passes on ropecheck's own kernel."""

import re

import numpy as np
import pytest

import ropecheck
from ropecheck.testing import check_rope, fuzz_inputs


def kernel_for(**spec):
    def rope(x, positions):
        return ropecheck.apply(x, positions, **spec)
    return rope


def failure(fn, **kwargs):
    """check_rope's message for fn, under the strict bound unless told: these planted 1-ulp faults
    are within what a float32 formulation can produce at some positions (test_check_bounds.py
    holds the default bound to correct and mutated implementations)."""
    kwargs.setdefault("bound", "strict")
    with pytest.raises(AssertionError) as info:
        check_rope(fn, **kwargs)
    return str(info.value)


def bump(y, where):
    """Adds one ulp to the finite nonzero float32 elements selected by `where` (a boolean mask)."""
    bits = y.view(np.uint32)
    ok = where & np.isfinite(y) & (y != 0)
    bits[ok] += 1
    return y


def test_passes_on_ropecheck_kernel():
    for spec in ({"model": "llama-3.1-8b"}, {"model": "gpt-oss-20b"}, {"model": "deepseek-v3"}, {"model": "gpt-neox-20b"}):
        r = check_rope(kernel_for(**spec), budget=4, **spec)
        assert r.checked > 0 and r.max_ulps <= 0.5
    r = check_rope(kernel_for(model="llama-3.1-8b"), model="llama-3.1-8b", dtype="bfloat16", budget=4)
    assert r.max_ulps <= 0.5
    r = check_rope(kernel_for(model="llama-3.1-8b"), model="llama-3.1-8b", dtype="float16", budget=4)
    assert r.checked > 0 and r.max_ulps <= 0.5
    r = check_rope(kernel_for(dim=64, p_rope=0.5, layout="interleaved"), dim=64, p_rope=0.5, layout="interleaved", budget=4)
    assert r.checked > 0


def test_finds_a_planted_one_ulp_fault_and_shrinks_it():
    def faulty(x, positions):
        y = ropecheck.apply(x, positions, model="llama-3.1-8b")
        mask = np.zeros(y.shape, dtype=bool)
        mask[..., 70] = True  # pair 6, component y_b (half layout: elements 6 and 70)
        return bump(y, mask)

    message = failure(faulty, model="llama-3.1-8b")
    assert "pair 6 (element 70)" in message and "y_b" in message
    assert "x of shape [1, 1, 128]" in message
    assert re.search(r"expected \S+ \(0x[0-9a-f]{8}\), got \S+ \(0x[0-9a-f]{8}\)", message)
    assert "seed=0" in message


def test_finds_a_fault_only_beyond_position_2_24():
    def faulty(x, positions):
        y = ropecheck.apply(x, positions, model="llama-3.1-8b")
        far = (np.abs(positions) > 2 ** 24)[:, None, None] & np.ones(y.shape, dtype=bool)
        return bump(y, far)

    # Below 2^24 it passes; up to 2^40 it fails at a position beyond 2^24 (past Llama's context: asked for).
    check_rope(faulty, model="llama-3.1-8b", max_position=2 ** 24, budget=4, bound="strict", beyond_context=True)
    message = failure(faulty, model="llama-3.1-8b", max_position=2 ** 40, beyond_context=True)
    position = int(re.search(r"position (\d+)", message).group(1))
    assert position > 2 ** 24


def test_finds_a_lost_negative_zero():
    def loses_sign(x, positions):
        return ropecheck.apply(x, positions, model="llama-3.1-8b") + np.float32(0)  # -0 + 0 = +0

    message = failure(loses_sign, model="llama-3.1-8b")
    assert "expected -0x0p+0 (0x80000000), got 0x0p+0 (0x00000000)" in message
    assert "rule: IEEE result" in message


def test_finds_a_rotated_identity_pair():
    spec = {"dim": 64, "p_rope": 0.5, "layout": "interleaved"}

    def rotates_everything(x, positions):
        # The full RoPE where p-RoPE keeps the low half of the pairs unrotated.
        return ropecheck.apply(x, positions, dim=64, layout="interleaved")

    message = failure(rotates_everything, **spec)
    # The rotated pairs that p-RoPE keeps have the full RoPE's frequencies: only the copies fail.
    assert "rule: copy (identity pair)" in message
    pair = int(re.search(r"pair (\d+)", message).group(1))
    assert pair in ropecheck.plan(**spec).identity_pairs


def test_finds_a_bfloat16_fault_through_torch_style_layouts():
    def faulty(x, positions):  # x: [1, heads, tokens, d] uint16 (axes bhsd)
        y = ropecheck.apply(x, positions, model="llama-3.1-8b", axes="bhsd")
        y[..., 3] ^= 1  # flips the last mantissa bit of element 3
        return y

    message = failure(faulty, model="llama-3.1-8b", dtype="bfloat16", axes="bhsd")
    assert "(element 3)" in message and re.search(r"\(0x[0-9a-f]{4}\)", message)


def test_finds_a_float16_fault():
    def faulty(x, positions):  # x: [tokens, heads, d] float16
        y = ropecheck.apply(x, positions, model="llama-3.1-8b")
        y.view(np.uint16)[..., 5] ^= 1  # flips the last mantissa bit of element 5
        return y

    message = failure(faulty, model="llama-3.1-8b", dtype="float16")
    assert "(element 5)" in message and re.search(r"\(0x[0-9a-f]{4}\)", message)


def test_in_place_functions_and_replay():
    def in_place(x, positions):
        ropecheck.apply_(x, positions, model="llama-3.1-8b")

    assert check_rope(in_place, model="llama-3.1-8b", budget=2).checked > 0

    def faulty(x, positions):
        y = ropecheck.apply(x, positions, model="llama-3.1-8b")
        return bump(y, np.random.default_rng(5).random(y.shape) < 0.01)

    first = failure(faulty, model="llama-3.1-8b", seed=7)
    assert first == failure(faulty, model="llama-3.1-8b", seed=7)  # same seed, same report
    p1, x1 = fuzz_inputs(seed=7, round=0, model="llama-3.1-8b")
    p2, x2 = fuzz_inputs(seed=7, round=0, model="llama-3.1-8b")
    assert p1.tobytes() == p2.tobytes() and x1.tobytes() == x2.tobytes()
    p3, _ = fuzz_inputs(seed=8, round=0, model="llama-3.1-8b")
    assert p3.tobytes() != p1.tobytes()


def test_generated_inputs_are_adversarial():
    positions, x = fuzz_inputs(seed=1, tokens=256, heads=2, model="llama-3.1-8b")
    assert positions.min() >= 0 and positions.max() <= 2 ** 40
    assert (positions > 2 ** 24).any() and (positions < 2 ** 24).any()
    assert np.isnan(x).any() and np.isinf(x).any()
    assert (np.signbit(x) & (x == 0)).any()  # negative zeros
    assert (np.abs(x[np.isfinite(x) & (x != 0)]) < 2.0 ** -126).any()  # subnormals


def float32_llama(x, positions):
    """A float32 formulation of Llama 3.1's RoPE (ropecheck's own f32-angle baseline): what the
    default bound accepts."""
    return ropecheck.apply(x, positions, model="llama-3.1-8b", impl="f32-angle")


def test_the_default_passes_a_float32_formulation_and_strict_fails_it():
    r = check_rope(float32_llama, model="llama-3.1-8b", dtype="bfloat16", budget=4)
    assert r.passed and r.bound == "standard" and r.mode == "rounds" and not r.failures
    with pytest.raises(ropecheck.RopeCheckError) as e:
        check_rope(float32_llama, model="llama-3.1-8b", dtype="bfloat16", budget=4, bound="strict")
    assert isinstance(e.value, AssertionError) and not e.value.result.passed and e.value.result.bound == "strict"
    assert "is not correctly rounded" in str(e.value)


def test_a_failure_carries_the_full_result_and_the_non_raising_form_returns_it():
    import json

    def faulty(x, positions):
        y = ropecheck.apply(x, positions, model="llama-3.1-8b")
        y[..., 70] *= np.float32(1.001)  # pair 6, y_b: 0.1% off, far outside the formulation at every position
        return y

    with pytest.raises(ropecheck.RopeCheckError) as e:
        check_rope(faulty, model="llama-3.1-8b", budget=3)
    r = check_rope(faulty, model="llama-3.1-8b", budget=3, raise_on_failure=False)
    assert r == e.value.result and str(e.value) == r.message()
    f = r.failures["finite"]
    assert f.element == 70 and f.pair == 6 and f.component == 1 and f.kind == "everywhere" and f.fails_from == 1
    assert f.rule == "float32 formulation" and f.reach is not None and f.shape == (1, 1, 128)
    # Full precision: the class maximum is the float check_elements computed, not a rounded print.
    assert r.classes["finite"].max_ulps == max(x.ulps for x in r.failures.values() if x.input_class == "finite")
    d = json.loads(json.dumps(r.to_dict()))
    assert d["passed"] is False and d["failures"]["finite"]["element"] == 70 and d["classes"]["finite"]["failed"] > 0
    assert d["replay"].startswith("ropecheck.testing.check_rope(fn, model='llama-3.1-8b'")
    assert "kind: everywhere" in r.message() and "float32 formulation reaches [" in r.message()


def test_a_loss_growing_with_position_is_told_apart():
    def positions_in_bfloat16(x, positions):  # positions rounded to bfloat16: exact to 256, then off
        p = positions.astype(np.float32).view(np.uint32)
        p = (((p + 0x7FFF + ((p >> 16) & 1)) >> 16) << 16).astype(np.uint32).view(np.float32)
        return ropecheck.apply(x, p.astype(np.int64), model="llama-3.1-8b")

    r = check_rope(positions_in_bfloat16, model="llama-3.1-8b", dtype="bfloat16", raise_on_failure=False)
    f = r.failures["finite"]
    assert f.kind == "grows-with-position" and f.passes_up_to >= 255 and f.fails_from > 256
    assert f"passes at positions up to {f.passes_up_to}, fails from {f.fails_from}" in r.message()


@pytest.mark.parametrize("kwargs,parameter", [
    ({"max_ulp": 0}, "max_ulp"), ({"max_ulp": -1.0}, "max_ulp"), ({"max_ulp": "1"}, "max_ulp"), ({"rtol": 0}, "rtol"),
    ({"bound": "loose"}, "bound"), ({"bound": "strict", "max_ulp": 2}, "max_ulp"), ({"mode": "stream"}, "mode"),
    ({"permutation": [0, 0] + list(range(2, 128))}, "permutation"), ({"permutation": [0, 1]}, "permutation"),
    ({"max_position": 131072}, "max_position"), ({"min_position": -1}, "min_position"), ({"beyond_context": 1}, "beyond_context"),
    ({"raise_on_failure": "no"}, "raise_on_failure")])
def test_bad_settings_name_the_parameter_and_its_range(kwargs, parameter):
    with pytest.raises(ropecheck.InputError) as e:
        check_rope(kernel_for(model="llama-3.1-8b"), model="llama-3.1-8b", **kwargs)
    assert e.value.parameter == parameter
    if parameter == "max_position":
        assert "131071" in str(e.value) and "beyond_context=True" in str(e.value)


def test_beyond_the_context_on_request():
    r = check_rope(kernel_for(model="llama-3.1-8b"), model="llama-3.1-8b", budget=2, max_position=2 ** 40, beyond_context=True,
                   bound="strict")
    assert r.passed
