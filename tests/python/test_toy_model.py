"""Smoke test of examples/toy_model: a few training steps of a tiny model through train.py's
functions, a capture written and read back (members, shapes, dtypes), and determinism (the same
seed twice gives identical q bytes). Skipped when torch is absent (it comes from Debian's
python3-torch, not from the package's dependencies)."""

import json
import os
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")

EXAMPLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "toy_model")
sys.path.insert(0, os.path.abspath(EXAMPLE))
import train  # noqa: E402


def _capture(tmp_path, seed, encoding="rope"):
    model, result = train.train(encoding, seed, train.SMOKE, log=lambda *_: None)
    name = train.save(model, result, str(tmp_path / f"run{seed}_{encoding}"), write_capture=True)
    path = tmp_path / f"run{seed}_{encoding}" / f"{name}.capture.npz"
    with np.load(path) as z:
        return model, result, {k: z[k] for k in z.files}


def test_capture_members_shapes_dtypes(tmp_path):
    model, result, z = _capture(tmp_path, 0)
    cfg = model.config
    assert set(z) == {"q", "k", "positions", "token_ids", "source"}
    s, t = z["token_ids"].shape
    assert z["q"].shape == (s, cfg.num_hidden_layers, cfg.num_attention_heads, t, cfg.head_dim)
    assert z["k"].shape == (s, cfg.num_hidden_layers, cfg.num_key_value_heads, t, cfg.head_dim)
    assert z["q"].dtype == np.float32 and z["k"].dtype == np.float32
    assert z["positions"].dtype == np.int64 and z["token_ids"].dtype == np.int64
    assert (z["positions"] == np.arange(t)).all()
    source = json.loads(str(z["source"]))
    assert source["encoding"] == "rope" and source["seed"] == 0 and source["steps"] == train.SMOKE["steps"]
    assert source["environment"]["torch"] == torch.__version__
    assert set(source["sha256"]) == set(train.FILES)
    # The hooked q is the q_proj output: recompute it for layer 0 from the embeddings.
    ids = torch.from_numpy(z["token_ids"])
    with torch.no_grad():
        h = model.model.layers[0].input_layernorm(model.model.embed_tokens(ids))
        q0 = model.model.layers[0].self_attn.q_proj(h).view(s, t, cfg.num_attention_heads, cfg.head_dim)
    assert np.array_equal(z["q"][:, 0], q0.transpose(1, 2).numpy())


def test_inv_freq_from_ropecheck_spectrum():
    inv, info = train.frequencies("p-rope-0.75", 8, 16)
    assert inv.dtype == torch.float32 and inv.tolist() == [1.0, np.float32(0.1), np.float32(0.01), 0.0]
    assert info["variant"] == "p-rope" and info["rotated_pairs"] == 3


def test_same_seed_same_bytes(tmp_path):
    _, r0, a = _capture(tmp_path, 0)
    _, r1, b = _capture(tmp_path, 0)
    assert a["q"].tobytes() == b["q"].tobytes() and a["k"].tobytes() == b["k"].tobytes()
    assert r0["curve"] == r1["curve"]


def test_agrees_with_ropecheck_capture(tmp_path):
    """The example's hooks give the same bytes as ropecheck.capture.from_module, which reads the
    example's .npz (skipped where the package predates ropecheck.capture)."""
    rc_capture = pytest.importorskip("ropecheck.capture")
    model, _, z = _capture(tmp_path, 1)
    theirs = rc_capture.from_module(model, torch.from_numpy(z["token_ids"]))
    assert theirs["q"].tobytes() == z["q"].tobytes() and theirs["k"].tobytes() == z["k"].tobytes()
    assert (theirs["positions"] == z["positions"]).all()
    loaded = rc_capture.load(next(tmp_path.glob("run1_rope/*.capture.npz")))
    assert loaded["q"].shape == z["q"].shape and str(loaded["source"]) == str(z["source"])


def test_block_means_cover_every_step():
    _, result = train.train("rope", 0, dict(train.SMOKE, steps=23), log=lambda *_: None)
    blocks = result["block_mean_loss"]
    assert blocks["block"] == train.BLOCK and len(blocks["mean_loss"]) == -(-23 // train.BLOCK)
    assert all(np.isfinite(blocks["mean_loss"]))


@pytest.mark.parametrize("encoding", ["p-rope-0.75-t43", "partial-0.75", "partial-0.75-t43", "rope-t43"])
def test_config_json_reads_back_as_the_frequencies_used(tmp_path, encoding):
    """ropecheck's HF reader gives back the nonzero frequencies the model trained with (partial:
    over the first 24 of 32 dims, the toy's pairs 0-11)."""
    ropecheck = pytest.importorskip("ropecheck")
    import model as toy  # noqa: E402
    inv, _ = train.frequencies(encoding, 32, 64)
    o = train.ENCODINGS[encoding]
    path = tmp_path / "config.json"
    toy.write_config_json(toy.make_config(rope_theta=float(o["theta"])), str(path), None, train.config_rope(encoding)[0])
    read = ropecheck.spectrum(model=str(path)).layer_types[0].spectrum
    mine = inv.numpy()
    theirs = np.asarray(read.frequencies, dtype=np.float32)
    assert np.array_equal(theirs[theirs > 0], mine[mine > 0])


def test_theta_matched_rule_and_statistics():
    pytest.importorskip("ropecheck")
    import table2  # noqa: E402
    rule = table2.theta_rule()  # stops when THETA_MATCHED disagrees with the rule
    assert round(rule["toy"]["derived_theta"]) == train.THETA_MATCHED
    turns = rule["toy"]["turns"][str(train.THETA_MATCHED)]["1"]
    assert 1 <= min(turns) and max(turns) <= 8
    assert rule["gemma"]["turns_min"] == pytest.approx(0.880, abs=1e-3) and rule["gemma"]["turns_max"] == pytest.approx(8.192)
    # paired differences: mean, t-interval, p, count lower
    d = table2.paired([1.0, 2.0, 3.0, 4.0, 5.5], [1.5, 2.4, 3.6, 4.3, 5.9])
    diffs = [-0.5, -0.4, -0.6, -0.3, -0.4]
    sd = np.std(diffs, ddof=1)
    assert d["mean"] == pytest.approx(np.mean(diffs)) and d["lower"] == 5 and d["n"] == 5
    assert d["half_width"] == pytest.approx(2.776 * sd / 5 ** 0.5, rel=1e-3)
    assert table2.t_two_sided_p(2.776, 4) == pytest.approx(0.05, abs=1e-4)
    assert table2.t_two_sided_p(0.0, 4) == pytest.approx(1.0)
