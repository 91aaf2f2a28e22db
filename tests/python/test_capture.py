"""ropecheck.capture: from_module returns, bit for bit, the q and k each family's attention hands to
its rotation (stand-ins in capture_standins.py), with the positions it was given; save writes only
what the reader accepts, and all at once; import ropecheck does not need torch."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from conftest import assert_typed, cli_path
import ropecheck
from ropecheck import capture

try:  # save and load need no torch; from_module's tests skip without it (scripts/setup installs python3-torch)
    import torch
    import capture_standins as standins
except ImportError:
    torch = standins = None
needs_torch = pytest.mark.skipif(torch is None, reason="torch is not installed (Debian: python3-torch)")
FAMILIES = sorted(standins.FAMILIES) if standins else ["(no torch)"]


def run(model, ids, **kwargs):
    for attention in model.attentions():
        attention.recorded.clear()
        attention.positions.clear()
    return capture.from_module(model, ids, **kwargs)


def assert_bits_equal(got, want):
    assert got.dtype == want.dtype and got.shape == want.shape
    assert np.array_equal(got.view(np.uint8), np.ascontiguousarray(want).view(np.uint8))


def hooks_left(model):
    return sum(len(m._forward_hooks) for m in model.modules())


@needs_torch
@pytest.mark.parametrize("family", FAMILIES)
def test_q_and_k_are_what_the_attention_rotates(family):
    """Tokens == heads == 4, so the axis order can only come from the family (Gemma 3 vs Qwen3)."""
    model = standins.build(family, seed=31)
    ids = torch.randint(0, 50, (2, 4), generator=torch.Generator().manual_seed(7))
    c = run(model, ids)
    attentions = model.attentions()
    assert c["q"].shape[:2] == (2, len(attentions)) and c["q"].dtype == np.float32
    for layer, attention in enumerate(attentions):
        (q, k), = attention.recorded
        assert_bits_equal(c["q"][:, layer], q.numpy())
        assert_bits_equal(c["k"][:, layer], k.numpy())
    assert c["positions"].dtype == np.int64 and c["token_ids"].dtype == np.int64
    assert np.array_equal(c["positions"], np.tile(np.arange(4), (2, 1)))
    assert np.array_equal(attentions[0].positions[0].numpy(), c["positions"])
    assert np.array_equal(c["token_ids"], ids.numpy())
    assert hooks_left(model) == 0
    assert isinstance(c, capture.Capture) and c.q is c["q"] and c.k is c["k"] and c.token_ids is c["token_ids"]
    assert c.source is None and sorted(c) == ["k", "positions", "q", "token_ids"]
    assert_typed(c)


@needs_torch
def test_geometry_of_the_arrays():
    c = run(standins.build("llama"), torch.randint(0, 50, (3, 6)))
    assert c["q"].shape == (3, 3, 4, 6, 8) and c["k"].shape == (3, 3, 2, 6, 8)  # GQA: 2 kv heads
    c = run(standins.build("deepseek_v3"), torch.randint(0, 50, (1, 6)))
    assert c["q"].shape == c["k"].shape == (1, 3, 4, 6, 12)  # nope 8 + rope 4, k for every head
    assert np.array_equal(c["k"][:, :, 0, :, 8:], c["k"][:, :, 3, :, 8:])  # the shared rope key


@needs_torch
def test_positions_are_passed_to_the_model_and_stored():
    model = standins.build("qwen3")
    ids = np.array([[1, 2, 3], [4, 5, 6]])
    positions = np.array([[100, 101, 102], [7, 9, 11]])
    c = run(model, ids, positions=positions)
    assert np.array_equal(c["positions"], positions)
    assert np.array_equal(model.attentions()[2].positions[0].numpy(), positions)
    c = run(model, ids[0], positions=[5, 6, 7])  # one sequence, [tokens] each
    assert c["token_ids"].shape == c["positions"].shape == (1, 3) and c["positions"].tolist() == [[5, 6, 7]]
    c = run(model, ids, positions=[5, 6, 7])  # [tokens] positions for every sequence
    assert c["positions"].tolist() == [[5, 6, 7]] * 2


@needs_torch
def test_bfloat16_model_gives_its_values_exactly_in_float32():
    model = standins.build("llama").to(torch.bfloat16)
    c = run(model, torch.randint(0, 50, (1, 5)))
    assert c["q"].dtype == np.float32
    (q, k), = model.attentions()[1].recorded
    assert_bits_equal(c["q"][:, 1], q.float().numpy())
    assert_bits_equal(c["k"][:, 1], k.float().numpy())


@needs_torch
def test_float16_q_and_k_stay_float16():
    """CPU torch 1.13 has no float16 matmul: the projections cast their float32 output, which is
    what the capture sees when a model runs in float16."""
    class HalfLinear(torch.nn.Linear):
        def forward(self, x):
            return super().forward(x).half()
    model = standins.build("llama")
    for attention in model.attentions():
        for name in ("q_proj", "k_proj"):
            old = getattr(attention, name)
            setattr(attention, name, HalfLinear(old.in_features, old.out_features, bias=False))
    c = run(model, torch.randint(0, 50, (2, 5)))
    assert c["q"].dtype == c["k"].dtype == np.float16
    (q, k), = model.attentions()[2].recorded
    assert_bits_equal(c["q"][:, 2], q.numpy())
    assert_bits_equal(c["k"][:, 2], k.numpy())


@needs_torch
def test_geometry_arguments_override_the_config():
    model = standins.build("llama")
    model.config.num_attention_heads, model.config.head_dim = 2, 16  # wrong: the arguments put it right
    c = run(model, torch.randint(0, 50, (1, 5)), heads=4, kv_heads=2, head_dim=8)
    assert_bits_equal(c["q"][:, 0], model.attentions()[0].recorded[0][0].numpy())


@needs_torch
@pytest.mark.parametrize("kwargs,parameter", [
    (dict(head_dim=6), "head_dim"), (dict(kv_heads=4), "kv_heads"), (dict(kv_heads=3), "kv_heads"),
    (dict(heads=0), "heads"), (dict(positions=[0.0, 1.0, 2.0]), "positions"), (dict(positions=[0, 1]), "positions"),
    (dict(positions=np.zeros((3, 3), np.int64)), "positions"),
])
def test_wrong_geometry_or_positions_name_the_parameter(kwargs, parameter):
    model = standins.build("llama")
    with pytest.raises(ropecheck.InputError) as info:
        run(model, torch.randint(0, 50, (2, 3)), **kwargs)
    assert info.value.parameter == parameter
    assert hooks_left(model) == 0


@needs_torch
def test_mla_rope_width_is_checked():
    model = standins.build("deepseek_v3")
    model.config.kv_lora_rank = 15  # the shared rope key would lose a channel
    with pytest.raises(ropecheck.InputError) as info:
        run(model, torch.randint(0, 50, (1, 3)))
    assert info.value.parameter == "model" and "kv_lora_rank" in str(info.value)


@needs_torch
def test_bad_input_ids_name_the_parameter():
    with pytest.raises(ropecheck.InputError) as info:
        run(standins.build("llama"), torch.zeros(2, 3))
    assert info.value.parameter == "input_ids"


@needs_torch
def test_hooks_are_removed_when_the_forward_pass_fails():
    model = standins.build("phi3")
    with pytest.raises(IndexError):
        run(model, torch.tensor([[1, 2, 999]]))  # beyond the vocabulary
    assert hooks_left(model) == 0


@needs_torch
def test_modules_that_do_not_match_are_refused():
    with pytest.raises(ropecheck.InputError) as info:
        capture.from_module(torch.nn.Linear(2, 2), torch.zeros(1, 2, dtype=torch.long))
    assert info.value.parameter == "model"
    with pytest.raises(ropecheck.InputError) as info:
        capture.from_module(object(), [[1]])
    assert info.value.parameter == "model"
    model = standins.build("qwen3")
    model.config.model_type = "mystery"  # q_norm: where it sits is the family's, not guessable
    with pytest.raises(ropecheck.InputError) as info:
        run(model, torch.randint(0, 50, (1, 3)))
    assert info.value.parameter == "model" and "mystery" in str(info.value)
    model = standins.build("qwen3")
    model.config.num_hidden_layers = 4
    with pytest.raises(ropecheck.InputError) as info:
        run(model, torch.randint(0, 50, (1, 3)))
    assert info.value.parameter == "model"


@needs_torch
def test_unknown_family_falls_back_to_module_names():
    for family in ("llama", "phi3", "gpt_neox", "deepseek_v3"):
        model = standins.build(family)
        model.config.model_type = "mystery"
        c = run(model, torch.randint(0, 50, (1, 3)))
        assert_bits_equal(c["k"][:, 2], model.attentions()[2].recorded[0][1].numpy())


@needs_torch
def test_attention_without_the_family_hook_points_is_skipped():
    """A multimodal Gemma 3: the vision tower's layers.N.self_attn has no q_norm and is not a layer."""
    model = standins.build("gemma3")
    model.config = standins.config("gemma3", text_config=model.config)
    del model.config.num_attention_heads
    model.vision_tower = torch.nn.Module()
    siglip = standins.config("siglip")
    model.vision_tower.layers = torch.nn.ModuleList([standins.Decoder(siglip, standins.Attention(siglip), "self_attn")])
    assert "vision_tower.layers.0.self_attn" in dict(model.named_modules())
    c = run(model, torch.randint(0, 50, (1, 3)))
    assert c["q"].shape == (1, 3, 4, 3, 16)


def example(dtype=np.float32, seed=3):
    rng = np.random.default_rng(seed)
    return dict(q=rng.standard_normal((2, 3, 4, 5, 8)).astype(dtype), k=rng.standard_normal((2, 3, 2, 5, 8)).astype(dtype),
                positions=np.arange(10, dtype=np.int64).reshape(2, 5), token_ids=rng.integers(0, 99, (2, 5)))


@pytest.mark.parametrize("compressed", [True, False])
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_save_load_round_trip(tmp_path, compressed, dtype):
    arrays = example(dtype)
    path = tmp_path / "capture.npz"
    capture.save(path, **arrays, source="stand-in, seed 3", compressed=compressed)
    got = capture.load(path)
    assert sorted(got) == ["k", "positions", "q", "source", "token_ids"]
    for name, want in arrays.items():
        assert_bits_equal(got[name], want)
    assert got["source"].ndim == 0 and str(got["source"]) == "stand-in, seed 3"
    assert isinstance(got, capture.Capture) and got.source == "stand-in, seed 3" and len(got) == 5
    assert_typed(got)
    for name, want in arrays.items():
        assert_bits_equal(getattr(got, name), want)
    capture.save(tmp_path / "copy", **got)  # load's mapping saves again, under the exact name given
    assert sorted(capture.load(tmp_path / "copy")) == sorted(got)
    with pytest.raises(TypeError):
        got["q"] = got.k  # read-only
    bare = tmp_path / "bare.npz"
    capture.save(bare, got.q, got.k, got.positions)
    loaded = capture.load(bare)
    assert loaded.token_ids is None and loaded.source is None and sorted(loaded) == ["k", "positions", "q"]
    with pytest.raises(KeyError):
        loaded["source"]
    assert_typed(loaded)
    assert sorted(os.listdir(tmp_path)) == ["bare.npz", "capture.npz", "copy"]


@needs_torch
def test_from_module_output_saves_as_it_is(tmp_path):
    c = run(standins.build("olmo2"), torch.randint(0, 50, (2, 4)))
    capture.save(tmp_path / "c.npz", **c)
    assert_bits_equal(capture.load(tmp_path / "c.npz")["q"], c["q"])


def bad(name, value):
    arrays = example()
    arrays[name] = value
    return arrays


@pytest.mark.parametrize("arrays,parameter", [
    (bad("q", example()["q"].astype(np.float64)), "q"), (bad("q", example()["q"][0]), "q"),
    (dict(example(), q=example()["q"][..., :7], k=example()["k"][..., :7]), "q"), (bad("k", example()["k"].astype(np.float16)), "k"),
    (bad("k", np.zeros((2, 3, 3, 5, 8), np.float32)), "k"), (bad("k", np.zeros((2, 3, 2, 4, 8), np.float32)), "k"),
    (bad("positions", np.arange(5, dtype=np.int32)), "positions"), (bad("positions", np.arange(6)), "positions"),
    (bad("positions", np.zeros((3, 5), np.int64)), "positions"), (bad("token_ids", [[1.5] * 5] * 2), "token_ids"),
    (dict(example(), source=7), "source"), (dict(example(), q=np.zeros((2, 3, 4, 0, 8), np.float32), k=np.zeros((2, 3, 2, 0, 8), np.float32)), "q"),
    (bad("q", example()["q"][..., :7]), "k"),  # k disagrees with q (the reader names k too)
])
def test_save_refuses_what_the_reader_would_and_writes_nothing(tmp_path, arrays, parameter):
    with pytest.raises(ropecheck.InputError) as info:
        capture.save(tmp_path / "c.npz", **arrays)
    assert info.value.parameter == parameter
    assert os.listdir(tmp_path) == []


def test_save_needs_an_existing_directory(tmp_path):
    with pytest.raises(ropecheck.InputError) as info:
        capture.save(tmp_path / "missing" / "c.npz", **example())
    assert info.value.parameter == "path"


def test_save_is_all_or_nothing(tmp_path, monkeypatch):
    """A write that fails half way leaves the old file and no temporary behind."""
    path = tmp_path / "c.npz"
    capture.save(path, **example(seed=1))
    before = path.read_bytes()

    def half_then_fail(f, **arrays):
        f.write(b"PK\x03\x04 half a zip")
        raise OSError("disk full")
    monkeypatch.setattr(np, "savez_compressed", half_then_fail)
    with pytest.raises(OSError, match="disk full"):
        capture.save(path, **example(seed=2))
    assert path.read_bytes() == before and os.listdir(tmp_path) == ["c.npz"]


def test_saved_file_has_the_umask_permissions(tmp_path):
    old = os.umask(0o027)
    try:
        capture.save(tmp_path / "c.npz", **example())
    finally:
        os.umask(old)
    assert (tmp_path / "c.npz").stat().st_mode & 0o777 == 0o640


def test_load_refuses_a_file_that_is_not_a_capture(tmp_path):
    np.savez(tmp_path / "other.npz", x=np.zeros(3))
    with pytest.raises(ropecheck.InputError) as info:
        capture.load(tmp_path / "other.npz")
    assert info.value.parameter == "path"
    arrays = example()
    np.savez(tmp_path / "odd.npz", **dict(arrays, k=arrays["k"][:, :, :, :4]))
    with pytest.raises(ropecheck.InputError) as info:
        capture.load(tmp_path / "odd.npz")
    assert info.value.parameter == "k"


def test_import_ropecheck_needs_neither_torch_nor_numpy():
    code = ("import sys, ropecheck, ropecheck.capture; "
            "print(sorted(m for m in ('torch', 'numpy') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=os.environ)
    assert out.stdout.strip() == "[]"


# What the library's check adds to the dtype checks: the values and every rule of the reader.
def with_value(name, index, value):
    arrays = example()
    arrays[name] = arrays[name].copy()
    arrays[name][index] = value
    return arrays


@pytest.mark.parametrize("arrays,parameter,element", [
    (with_value("q", (1, 2, 3, 4, 5), np.nan), "q", "q[1, 2, 3, 4, 5] = nan"),
    (with_value("k", (0, 1, 1, 2, 7), np.inf), "k", "k[0, 1, 1, 2, 7] = inf"),
    (with_value("k", (1, 0, 0, 0, 0), -np.inf), "k", "k[1, 0, 0, 0, 0] = -inf"),
    (with_value("positions", (1, 3), 2**40), "positions", "positions[1, 3] = 1099511627776"),
    (with_value("positions", (0, 0), -1), "positions", "positions[0, 0] = -1"),
    (dict(example(), positions=np.array([0, 1, 2, 3, 2**40 - 1 + 1])), "positions", "positions[4] = 1099511627776"),
    (dict(example(), token_ids=np.zeros((5, 2), np.int64)), "token_ids", "(2, 5)"),
    (dict(example(), source="\ud800"), "source", "no surrogates"),
])
def test_save_refuses_values_the_reader_would_and_writes_nothing(tmp_path, arrays, parameter, element):
    with pytest.raises(ropecheck.InputError) as info:
        capture.save(tmp_path / "c.npz", **arrays)
    assert info.value.parameter == parameter and element in str(info.value)
    assert os.listdir(tmp_path) == []


def test_load_refuses_values_the_reader_would(tmp_path):
    np.savez(tmp_path / "nan.npz", **with_value("q", (0, 0, 0, 0, 0), np.nan))
    with pytest.raises(ropecheck.InputError, match=r"q\[0, 0, 0, 0, 0\] = nan") as info:
        capture.load(tmp_path / "nan.npz")
    assert info.value.parameter == "q"


def reader_config(tmp_path, arrays):
    s, layers, h, t, d = arrays["q"].shape
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"model_type": "llama", "hidden_size": h * d, "head_dim": d, "num_attention_heads": h,
                                  "num_key_value_heads": arrays["k"].shape[2], "num_hidden_layers": layers,
                                  "max_position_embeddings": 4096, "rope_theta": 10000.0}))
    return config


@pytest.mark.parametrize("variant", ["plain", "float16", "big-endian", "fortran-order", "strided", "edge-positions",
                                     "shared-positions", "no-token-ids"])
def test_what_save_writes_the_reader_accepts(tmp_path, variant):
    """Every file save writes opens in `ropecheck usage` (the C++ reader, through the CLI), whatever the
    arrays' memory order and byte order; the values read back are the ones given."""
    arrays = example(np.float16 if variant == "float16" else np.float32)
    if variant == "big-endian":
        arrays = {n: a.astype(a.dtype.newbyteorder(">")) for n, a in arrays.items()}
    elif variant == "fortran-order":
        arrays = {n: np.asfortranarray(a) for n, a in arrays.items()}
    elif variant == "strided":
        arrays["q"] = np.repeat(arrays["q"], 2, axis=4)[..., ::2]
    elif variant == "edge-positions":
        arrays["positions"] = np.array([[0, 2**40 - 1, 5, 4, 3], [7, 0, 1, 2**39, 9]], np.int64)
    elif variant == "shared-positions":
        arrays["positions"] = np.array([3, 1, 4, 1, 5], np.int64)
    elif variant == "no-token-ids":
        del arrays["token_ids"]
    path = tmp_path / "c.npz"
    capture.save(path, **arrays, source="ünïcode ☃ 𝄞")
    got = capture.load(path)
    for name, want in arrays.items():
        assert np.array_equal(got[name], want) and got[name].dtype.byteorder in "<=|"
    out = tmp_path / "usage.json"
    subprocess.run([cli_path(), "usage", "--model", str(reader_config(tmp_path, arrays)), "--capture", str(path),
                    "--no-breaks", "--json", str(out)], check=True, capture_output=True)
    assert json.loads(out.read_text())["capture"]["tokens"] == 5
