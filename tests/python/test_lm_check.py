"""ropecheck.lm.check's attention bound and the families' conventions, on synthetic models: an
independent float32 simulation of transformers' arithmetic (float32 inv_freq, angles, cos/sin,
rotate_half, dot products, the scale, the causal and sliding-window masks, softmax) stays within the
bound against ropecheck.attention, element by element; the same data with a wrong pairing, a wrong
theta or a missing window does not. Runs on both NumPy stacks (no torch, no transformers)."""

import json

import numpy as np
import pytest

import ropecheck
from ropecheck.lm import check
from ropecheck.lm.families import FAMILIES, by_architecture, by_model_type, gemma3, llama

HEADS, KV, D, TOKENS, WINDOW = 4, 2, 64, 96, 40


def config(tmp_path, theta=10000.0, window=None, scalar=None):
    c = {"model_type": "gemma3_text" if window or scalar else "llama", "hidden_size": HEADS * D, "head_dim": D,
         "num_attention_heads": HEADS, "num_key_value_heads": KV, "num_hidden_layers": 1, "max_position_embeddings": 4096,
         "rope_theta": theta}
    if window or scalar:
        c |= {"layer_types": ["sliding_attention" if window else "full_attention"], "sliding_window": window or 4096,
              "rope_local_base_freq": theta, "query_pre_attn_scalar": scalar or D}
    path = tmp_path / f"config-{theta}-{window}-{scalar}.json"
    path.write_text(json.dumps(c))
    return str(path)


def simulate(q, k, positions, theta, scale, window):
    """transformers' float32 eager attention, written independently in NumPy float32."""
    f32 = np.float32
    inv = (f32(1.0) / (f32(theta) ** (np.arange(0, D, 2, dtype=np.int64).astype(f32) / f32(D)))).astype(f32)
    ang = (inv[None, :] * positions.astype(f32)[:, None]).astype(f32)
    emb = np.concatenate([ang, ang], axis=1)
    cos, sin = np.cos(emb).astype(f32), np.sin(emb).astype(f32)

    def rot(x):
        half = np.concatenate([-x[..., D // 2:], x[..., :D // 2]], axis=-1)
        return (x * cos + half * sin).astype(f32)
    qr, kr = rot(q), rot(k)
    out = np.empty((HEADS, TOKENS, TOKENS), f32)
    keep = check.allowed(TOKENS, window)
    for h in range(HEADS):
        s = (qr[h] @ kr[h // (HEADS // KV)].T).astype(f32) * f32(scale)
        s = np.where(keep, s, np.finfo(f32).min).astype(f32)
        e = np.exp((s - s.max(axis=1, keepdims=True)).astype(f32)).astype(f32)
        out[h] = (e / e.sum(axis=1, keepdims=True, dtype=f32)).astype(f32)
    return out, inv


def bound_ratio(q, k, positions, hf, inv_model, path, theta, scale, window):
    ours = np.asarray(ropecheck.attention_layer(q[None, None], k[None, None], positions, model=path, layer=0))
    w_exact = theta ** (-np.arange(0, D, 2) / D)
    worst = 0.0
    keep = check.allowed(TOKENS, window)
    for h in range(HEADS):
        rel = check.relative_bound(check.pair_norms(q[h]), check.pair_norms(k[h // (HEADS // KV)]), positions, w_exact, inv_model,
                                   ours[h], scale, window)
        bound = ours[h] * rel + 2.0 ** -125
        worst = max(worst, float(np.where(keep, np.abs(hf[h] - ours[h]) / bound, 0).max()))
        assert (hf[h][~keep] == 0).all() and (ours[h][~keep] == 0).all()
    return worst


@pytest.mark.parametrize("window,scalar", [(None, None), (WINDOW, None), (WINDOW, 24)], ids=["global", "window", "scale-not-power-of-2"])
def test_a_float32_simulation_is_within_the_bound(tmp_path, window, scalar):
    rng = np.random.default_rng(7)  # seed 7
    q = rng.standard_normal((HEADS, TOKENS, D)).astype(np.float32) * 2
    k = rng.standard_normal((KV, TOKENS, D)).astype(np.float32) * 2
    positions = np.arange(TOKENS) + 1000
    scale = (scalar or D) ** -0.5
    hf, inv = simulate(q, k, positions, 10000.0, scale, window)
    ratio = bound_ratio(q, k, positions, hf, inv, config(tmp_path, window=window, scalar=scalar), 10000.0, scale, window)
    assert 0 < ratio <= 1, ratio


def test_the_controls_are_outside_the_bound(tmp_path):
    rng = np.random.default_rng(8)  # seed 8
    q = rng.standard_normal((HEADS, TOKENS, D)).astype(np.float32) * 2
    k = rng.standard_normal((KV, TOKENS, D)).astype(np.float32) * 2
    positions = np.arange(TOKENS)
    scale = D ** -0.5
    hf, inv = simulate(q, k, positions, 10000.0, scale, WINDOW)
    perm = llama.ggml_permutation(D)  # the llama control: the file's channel order
    assert bound_ratio(q[..., perm], k[..., perm], positions, hf, inv, config(tmp_path, window=WINDOW), 10000.0, scale, WINDOW) > 100
    # the gemma control: ropecheck told another theta (the global one); the bound stays the model's own
    assert bound_ratio(q, k, positions, hf, inv, config(tmp_path, theta=1e6, window=WINDOW), 10000.0, scale, WINDOW) > 100
    # a window forgotten: keys transformers masks get probability from ropecheck
    with pytest.raises(AssertionError):
        bound_ratio(q, k, positions, hf, inv, config(tmp_path), 10000.0, scale, WINDOW)


def test_the_window_is_transformers_sliding_window_overlay():
    keep = check.allowed(10, 3)  # masking_utils.sliding_window_overlay: kv_idx > q_idx - window, and causal
    for i in range(10):
        for j in range(10):
            assert keep[i, j] == (j <= i and j > i - 3)


def test_llama_rows_round_trip_through_the_ggml_permutation():
    heads, d = 3, 8
    w = np.arange(heads * d * 5, dtype=np.float32).reshape(heads * d, 5)
    perm = llama.ggml_permutation(d)
    as_file = w.reshape(heads, d, 5)[:, perm].reshape(w.shape)  # what llama.cpp's converter writes
    pair = llama.weights(None, type("C", (), {"head_dim": d, "hidden_size": heads * d, "num_attention_heads": heads,
                                            "num_key_value_heads": heads, "num_hidden_layers": 1})())[0]
    assert np.array_equal(pair.to_module(as_file), w) and not np.array_equal(pair.wrong(as_file), w)
    assert sorted(perm) == list(range(d)) and perm[1] == d // 2  # channel 1 of a file head is transformers' d/2


def test_gemma_control_swaps_the_two_thetas():
    cfg = {"layer_types": ["sliding_attention", "full_attention"],
           "rope_parameters": {"sliding_attention": {"rope_theta": 10000.0}, "full_attention": {"rope_theta": 1e6}}}
    c = gemma3.control(np.zeros(1), np.zeros(1), cfg)
    assert c.config["rope_parameters"]["sliding_attention"]["rope_theta"] == 1e6
    assert cfg["rope_parameters"]["sliding_attention"]["rope_theta"] == 10000.0  # the model's own untouched
    assert c.layers == (0, 1)


def test_every_family_is_found_by_its_names():
    for f in FAMILIES.values():
        assert by_architecture(f.architecture) is f
        for t in f.model_types:
            assert by_model_type(t) is f
    with pytest.raises(KeyError):
        by_architecture("mamba")
