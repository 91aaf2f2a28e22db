"""ropecheck.lm.summaries on synthetic captures where the answer is known: the norms are usage's own
definition (checked against ropecheck.usage on the same capture), the peak pair and its rotation
over the span, intervals over sequences, the stratified rank-sum tests against the library's, and
the typed results read back from their JSON. No torch, no transformers (both NumPy stacks)."""

import json
import math

import numpy as np
import pytest

import ropecheck
from ropecheck import _core
from ropecheck.lm import summaries
from ropecheck.lm._model import LayerTypeFacts
from ropecheck.lm.results import from_dict

S, L, H, KV, T, D = 3, 2, 4, 2, 48, 16
THETA = 10000.0


@pytest.fixture(scope="module")
def config(tmp_path_factory):
    path = tmp_path_factory.mktemp("summaries") / "config.json"
    path.write_text(json.dumps({"model_type": "llama", "hidden_size": H * D, "head_dim": D, "num_attention_heads": H,
                                "num_key_value_heads": KV, "num_hidden_layers": L, "max_position_embeddings": 4096,
                                "rope_theta": THETA}))
    return str(path)


def capture(peak=5, seed=21):
    """q, k, v with pair `peak` (channels peak, peak + D/2) ten times the others' scale."""
    rng = np.random.default_rng(seed)  # seed 21
    scale = np.ones(D, np.float32)
    scale[[peak, peak + D // 2]] = 10
    q = (rng.standard_normal((S, L, H, T, D)) * scale).astype(np.float32)
    k = (rng.standard_normal((S, L, KV, T, D)) * scale).astype(np.float32)
    v = rng.standard_normal((S, L, KV, T, D)).astype(np.float32)
    return q, k, v, np.tile(np.arange(T), (S, 1))


def layer_type(config):
    s = ropecheck.spectrum(model=config)
    t = s.layer_types[0]
    return LayerTypeFacts(t.layer_type, tuple(t.layers), THETA, None, int(t.span), int(t.rotary_dims), t.layout,
                          tuple(float(w) for w in t.spectrum.frequencies))


def test_the_norms_are_usages_own(config):
    q, k, v, pos = capture()
    u = ropecheck.usage(q, k, pos, model=config, certify_breaks=False, null_sequences=0).to_dict()
    for layer in range(L):
        np.testing.assert_allclose(summaries.pair_norm_means(q[:, layer], (0, 1, 2)), u["layers"][layer]["q_norm"], rtol=1e-12)
        np.testing.assert_allclose(summaries.pair_norm_means(k[:, layer], (0, 1, 2)), u["layers"][layer]["k_norm"], rtol=1e-12)


def test_peak_rotation_and_intervals(config):
    q, k, v, pos = capture(peak=5)
    u = ropecheck.usage(q, k, pos, model=config, certify_breaks=False, null_sequences=0).to_dict()
    t = layer_type(config)
    s = summaries.summarise_layer_type(t, u, q, k, v)
    w5 = THETA ** (-2 * 5 / D)
    assert [n.peak_pair for n in s.norms] == [5, 5]
    assert math.isclose(s.norms[0].peak_frequency, w5, rel_tol=1e-12)
    assert math.isclose(s.norms[0].peak_rotation, w5 * 4096, rel_tol=1e-12)  # the span: the trained context
    loc = s.location
    assert loc.peak_rotation.n == S and loc.peak_rotation.minimum == loc.peak_rotation.maximum  # every sequence the same pair
    assert math.isclose(loc.peak_rotation.value, w5 * 4096, rel_tol=1e-9)
    assert math.isclose(loc.peak_frequency.value, w5, rel_tol=1e-9)
    assert abs(sum(p[3] for p in loc.profile) - 1) < 1e-12 and max(loc.profile, key=lambda p: p[3])[0] == 5
    # pair 5 of 8 is in the slow quarter's neighbour (8 pairs: fast 0-1, middle 2-5, slow 6-7)
    assert s.norms[0].shares.middle > 0.5 and loc.slow_share.n == S and loc.slow_share.half_width > 0
    assert abs(s.norms[0].value_shares.slow - 0.25) < 0.05  # values: no structure put in


def test_rank_tests_are_the_librarys():
    strata = {0: ([0.9, 0.8], [0.1, 0.85]), 1: ([0.7], [0.2, 0.3]), 2: ([], [0.4])}
    r = summaries.rank_test(strata, "share", "layers")
    auc, _, p, method = _core.rank_sum([strata[0], strata[1]])
    assert (r.auc, r.p_value, r.method) == (auc, p, method)
    assert (r.positional, r.others, r.strata_used, r.pairs) == (3, 4, 2, 2 * 2 + 1 * 2)
    assert r.auc == pytest.approx((3 + 2) / 6)  # within stratum 0: 0.9 beats both, 0.8 beats 0.1 only; stratum 1: 2 of 2
    assert summaries.rank_test({0: ([], [1.0])}, "share", "layers") is None
    with pytest.raises(ropecheck.InputError):
        _core.rank_sum([([math.nan], [1.0])])


def test_typed_results_round_trip_through_json(config):
    q, k, v, pos = capture()
    u = ropecheck.usage(q, k, pos, model=config, certify_breaks=False, null_sequences=0).to_dict()
    s = summaries.summarise_layer_type(layer_type(config), u, q, k, v)
    back = from_dict(summaries.LayerTypeSummary, json.loads(json.dumps(s.to_dict())))
    assert back.location.peak_rotation == s.location.peak_rotation
    assert back.norms == s.norms and back.kinds == s.kinds and back.breaks == s.breaks
    assert back.location.slow_share.mean == s.location.slow_share.mean


def test_band_shares_and_geometric_means():
    sh = summaries.band_shares([1, 1, 2, 4], ["fast", "middle", "middle", "slow"])
    assert (sh.fast, sh.middle, sh.slow) == (0.125, 0.375, 0.5)
    g = summaries.Geometric.of([1.0, 100.0])
    assert g.value == pytest.approx(10.0) and g.low < 10 < g.high and (g.minimum, g.maximum) == (1.0, 100.0)
    assert g.scaled(0.5).value == pytest.approx(5.0)
