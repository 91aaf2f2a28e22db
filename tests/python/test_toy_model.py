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
