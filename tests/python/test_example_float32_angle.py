"""Example: ropecheck.testing.check_rope on a RoPE written the way Hugging Face transformers
computes it, in NumPy (a kernel engineer's reference implementation).

The implementation under test follows transformers' default RoPE (modeling_rope_utils.py,
_compute_default_rope_parameters, and LlamaRotaryEmbedding.forward / apply_rotary_pos_emb, as
summarized in the project's notes on peer implementations): a float32 inv_freq = 1 / base **
(arange(0, d, 2) / d), a float32 angle position * inv_freq, float32 cos and sin, and
q * cos + rotate_half(q) * sin in the activation dtype (float32 here; bfloat16 below, with cos and
sin cast to bfloat16 first, as transformers does under bf16).

What check_rope finds (printed with pytest -s): the float32 angle loses about |p| * 2^-24 radians,
so the error grows with the position, to millions of ulp at the positions up to 2^40; inside the
model's own context it is still far from correctly rounded (bound="strict" says so). That is what a
float32 formulation does, so the default bound passes the float32 version; the bfloat16 version,
with cos and sin cast to bfloat16, is outside it and inside the same formulation with
tables="dtype".
"""

import re

import numpy as np
import pytest

import ropecheck
from ropecheck.testing import check_rope, fuzz_inputs

MODEL = "mistral-7b-v0.1"  # default RoPE: theta 10000, head_dim 128, half layout, no scaling
THETA, DIM = 10000.0, 128


def to_bf16(a):
    """float32 -> bfloat16 bits, round to nearest even (NaN kept quiet)."""
    bits = a.astype(np.float32).view(np.uint32).astype(np.uint64)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)
    return np.where(np.isnan(a), np.uint16(0x7FC0), rounded)


def from_bf16(b):
    return (b.astype(np.uint32) << 16).view(np.float32)


def hf_cos_sin(positions):
    inv_freq = (np.float32(1.0) / (np.float32(THETA) ** (np.arange(0, DIM, 2, dtype=np.int64).astype(np.float32) / np.float32(DIM))))
    freqs = positions.astype(np.float32)[:, None] * inv_freq[None, :]  # the float32 angle
    emb = np.concatenate([freqs, freqs], axis=-1)
    return np.cos(emb).astype(np.float32), np.sin(emb).astype(np.float32)


def rotate_half(x):
    return np.concatenate([-x[..., DIM // 2:], x[..., :DIM // 2]], axis=-1)


def hf_rope_float32(x, positions):
    """x [tokens, heads, d] float32, positions [tokens]."""
    cos, sin = hf_cos_sin(positions)
    with np.errstate(all="ignore"):
        return (x * cos[:, None, :] + rotate_half(x) * sin[:, None, :]).astype(np.float32)


def hf_rope_bfloat16(x, positions):
    """x [tokens, heads, d] bfloat16 bits; every product and the sum rounded to bfloat16."""
    cos, sin = (from_bf16(to_bf16(c))[:, None, :] for c in hf_cos_sin(positions))
    q = from_bf16(x)
    with np.errstate(all="ignore"):
        return to_bf16(from_bf16(to_bf16(q * cos)) + from_bf16(to_bf16(rotate_half(q) * sin)))


def report(fn, **kwargs):
    kwargs.setdefault("bound", "strict")
    with pytest.raises(AssertionError) as info:
        check_rope(fn, model=MODEL, **kwargs)
    message = str(info.value)
    print("\n" + message)
    return message


def test_float32_angle_rope_is_found_wrong_at_large_positions():
    message = report(hf_rope_float32, max_position=2 ** 40, beyond_context=True)
    assert "is not correctly rounded" in message


def test_float32_angle_rope_is_not_correctly_rounded_inside_the_models_context():
    message = report(hf_rope_float32)
    position = int(re.search(r"\n  position (\d+)", message).group(1))
    assert 0 <= position <= 4095


def test_float32_angle_rope_is_what_the_default_accepts():
    assert check_rope(hf_rope_float32, model=MODEL).passed


def test_bfloat16_rope_is_outside_the_default_and_inside_dtype_tables():
    message = report(hf_rope_bfloat16, dtype="bfloat16", bound="standard")
    assert "is not within what the standard float32 formulation can produce" in message and "kind: everywhere" in message
    assert check_rope(hf_rope_bfloat16, model=MODEL, dtype="bfloat16", tables="dtype").passed


def test_error_grows_with_the_position():
    # The audit of the same implementation on the fuzz's inputs, finite moderate values only,
    # position range by range: the largest error (sampled: a lower bound of its error there).
    rows = []
    for top in (2 ** 8, 2 ** 12, 2 ** 16, 2 ** 24, 2 ** 32, 2 ** 40):
        positions, _ = fuzz_inputs(seed=3, tokens=64, heads=1, min_position=top // 2, max_position=top, model=MODEL)
        x = np.random.default_rng(3).uniform(-4, 4, size=(64, 4, DIM)).astype(np.float32)
        a = ropecheck.audit(x, positions, hf_rope_float32(x, positions), model=MODEL)
        rows.append((top, a.max_ulp, a.share_correctly_rounded))
    print("\nHF-style float32-angle RoPE (%s), positions in [top/2, top]:" % MODEL)
    for top, ulp, share in rows:
        print(f"  top 2^{top.bit_length() - 1:<3} max error {ulp:14.6g} ulp   correctly rounded {100 * share:7.3f}%")
    assert rows[0][1] > 0.5                  # not correctly rounded even at positions <= 256
    assert rows[-1][1] > 1000 * rows[0][1]   # and orders of magnitude worse at 2^40
