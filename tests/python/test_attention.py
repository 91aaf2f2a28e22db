"""ropecheck.attention and ropecheck.attention_layer: the causal softmax attention ropecheck usage
measures, against an independent NumPy computation (half-split pairs (j, j + d/2), theta, positions,
scale 1/sqrt(head_dim), GQA head h on kv head h // (heads // kv_heads)), rows that sum to 1 with zeros
above the diagonal, every head of a layer at once equal to one call per head bit for bit, and bad
arguments named by parameter."""

import json

import numpy as np
import pytest

import ropecheck

SEQUENCES, LAYERS, HEADS, KV_HEADS, TOKENS, HEAD_DIM, THETA = 2, 3, 6, 2, 40, 16, 10000.0


@pytest.fixture(scope="module")
def config(tmp_path_factory):
    path = tmp_path_factory.mktemp("attention") / "config.json"
    path.write_text(json.dumps({
        "model_type": "llama", "hidden_size": HEADS * HEAD_DIM, "head_dim": HEAD_DIM, "num_attention_heads": HEADS,
        "num_key_value_heads": KV_HEADS, "num_hidden_layers": LAYERS, "max_position_embeddings": 8192,
        "rope_theta": THETA}))
    return str(path)


def capture(seed=5, dtype=np.float32):
    rng = np.random.default_rng(seed)
    q = rng.standard_normal((SEQUENCES, LAYERS, HEADS, TOKENS, HEAD_DIM)).astype(dtype)
    k = rng.standard_normal((SEQUENCES, LAYERS, KV_HEADS, TOKENS, HEAD_DIM)).astype(dtype)
    positions = rng.integers(0, 5000, (SEQUENCES, TOKENS))  # any order, not from 0
    return q, k, positions


def reference(q, k, positions, layer, head, sequence):
    """Independent of the library: NumPy's cos and sin in binary64, then a causal softmax."""
    half = HEAD_DIM // 2
    inv_freq = THETA ** (-np.arange(half, dtype=np.float64) * 2 / HEAD_DIM)
    angle = positions[sequence].astype(np.float64)[:, None] * inv_freq[None, :]
    cos, sin = np.cos(angle), np.sin(angle)

    def rotate(x):
        x = x.astype(np.float64)
        a, b = x[:, :half], x[:, half:]
        return np.concatenate([a * cos - b * sin, a * sin + b * cos], axis=1)
    qr = rotate(q[sequence, layer, head])
    kr = rotate(k[sequence, layer, head // (HEADS // KV_HEADS)])
    scores = qr @ kr.T / np.sqrt(HEAD_DIM)
    scores[np.triu_indices(TOKENS, 1)] = -np.inf
    w = np.exp(scores - scores.max(axis=1, keepdims=True))
    return w / w.sum(axis=1, keepdims=True)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_attention_equals_an_independent_numpy_computation(config, dtype):
    q, k, positions = capture(dtype=dtype)
    for layer, head, sequence in [(0, 0, 0), (1, 3, 1), (2, 5, 0), (2, 2, 1)]:
        got = ropecheck.attention(q, k, positions, model=config, layer=layer, head=head, sequence=sequence)
        assert got.dtype == np.float64 and got.shape == (TOKENS, TOKENS)
        np.testing.assert_allclose(got, reference(q, k, positions, layer, head, sequence), rtol=0, atol=1e-12)


def test_rows_sum_to_one_with_zeros_above_the_diagonal(config):
    q, k, positions = capture()
    maps = ropecheck.attention_layer(q, k, positions, model=config, layer=1, sequence=1)
    assert maps.shape == (HEADS, TOKENS, TOKENS)
    np.testing.assert_allclose(maps.sum(axis=2), 1.0, rtol=0, atol=1e-12)
    assert np.all(maps[:, np.triu_indices(TOKENS, 1)[0], np.triu_indices(TOKENS, 1)[1]] == 0)
    assert np.all(maps >= 0) and np.all(maps[:, 0, 0] == 1)


@pytest.mark.parametrize("tokens", [None, 1, 7, TOKENS])
def test_every_head_at_once_equals_one_call_per_head_bit_for_bit(config, tokens):
    q, k, positions = capture(seed=9)
    for layer, sequence in [(0, 1), (2, 0)]:
        maps = ropecheck.attention_layer(q, k, positions, model=config, layer=layer, sequence=sequence, tokens=tokens)
        n = TOKENS if tokens is None else tokens
        assert maps.shape == (HEADS, n, n)
        for head in range(HEADS):
            one = ropecheck.attention(q, k, positions, model=config, layer=layer, head=head, sequence=sequence, tokens=tokens)
            assert one.tobytes() == maps[head].tobytes()
    full = ropecheck.attention(q, k, positions, model=config, layer=2, head=4, sequence=1)
    part = ropecheck.attention(q, k, positions, model=config, layer=2, head=4, sequence=1, tokens=11)
    np.testing.assert_allclose(part, reference(q, k, positions, 2, 4, 1)[:11, :11], rtol=0, atol=1e-12)
    assert np.array_equal(np.tril(part), part) and full.shape == (TOKENS, TOKENS)


def test_a_zoo_model_and_shared_positions():
    """llama-3.2-1b's llama3 frequencies: the properties (the exact values are the library's tests')."""
    rng = np.random.default_rng(1)
    q = rng.standard_normal((1, 16, 32, 6, 64)).astype(np.float32)
    k = rng.standard_normal((1, 16, 8, 6, 64)).astype(np.float32)
    maps = ropecheck.attention_layer(q, k, np.arange(6), model="llama-3.2-1b", layer=15)
    assert maps.shape == (32, 6, 6)
    np.testing.assert_allclose(maps.sum(axis=2), 1.0, rtol=0, atol=1e-12)
    assert ropecheck.attention(q, k, [0, 1, 2, 3, 4, 5], model="llama-3.2-1b", layer=15, head=31).tobytes() == maps[31].tobytes()


@pytest.mark.parametrize("kwargs,parameter", [
    (dict(layer=LAYERS), "layer"), (dict(layer=-1), "layer"), (dict(head=HEADS), "head"), (dict(head=-1), "head"),
    (dict(sequence=SEQUENCES), "sequence"), (dict(sequence=-1), "sequence"), (dict(tokens=0), "tokens"),
    (dict(tokens=TOKENS + 1), "tokens"), (dict(tokens=2.0), "tokens"), (dict(layer="0"), "layer"),
    (dict(model="no-such-model"), "model"),
])
def test_bad_arguments_name_the_parameter(config, kwargs, parameter):
    q, k, positions = capture()
    arguments = {"model": config, "layer": 0, "head": 0, **kwargs}
    with pytest.raises(ropecheck.InputError) as info:
        ropecheck.attention(q, k, positions, **arguments)
    assert info.value.parameter == parameter
    if parameter != "head":
        del arguments["head"]
        with pytest.raises(ropecheck.InputError) as info:
            ropecheck.attention_layer(q, k, positions, **arguments)
        assert info.value.parameter == parameter


@pytest.mark.parametrize("change,parameter", [
    (lambda q, k, p: (q.astype(np.float64), k, p), "q"),
    (lambda q, k, p: (q[:, :2], k[:, :2], p), "q"),  # 2 layers for a 3-layer model
    (lambda q, k, p: (q, k[:, :, :1].repeat(3, axis=2), p), "k"),  # 3 kv heads
    (lambda q, k, p: (q, k, p[:, :5]), "positions"),
    (lambda q, k, p: (q, k, np.where(p == p[0, 0], -1, p)), "positions"),
    (lambda q, k, p: (np.where(np.arange(HEAD_DIM) == 3, np.nan, q).astype(np.float32), k, p), "q"),
])
def test_bad_captures_name_the_parameter(config, change, parameter):
    q, k, positions = change(*capture())
    with pytest.raises(ropecheck.InputError) as info:
        ropecheck.attention_layer(q, k, positions, model=config, layer=0)
    assert info.value.parameter == parameter
