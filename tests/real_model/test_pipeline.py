"""scripts/real-model end to end on CI's short text, both registered models, and its bad-input
contract.

Runs under the PyPI environment's python (run_test.sh); the pipeline through the script itself, as
a newcomer runs it, on the build's CLI and module (--no-build). The checks asserted are the run's
own (tokenization against the independent encoder, weights against the file, attention against
transformers' within the float32 bound, the control rejected, the fast path against eager); the
measurements are asserted for their shape and their sample sizes, and for the few effects so large
that the short text shows them anyway.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest

from ropecheck import InputError, lm
from ropecheck.lm import _gguf, _models, _sources
from ropecheck.lm._sources import PackagedFile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "scripts", "real-model")
WINDOW = 512  # Gemma 3's sliding window (the check must reach rows past it)


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([SCRIPT, "--no-build", *args], capture_output=True, text=True, timeout=1500)


@pytest.fixture(scope="module")
def smoke(tmp_path_factory: pytest.TempPathFactory) -> str:
    out = str(tmp_path_factory.mktemp("rm") / "out")
    r = run("--smoke", "--out", out)
    assert r.returncode == 0, r.stderr[-4000:]
    return out


def test_index_and_comparison(smoke: str) -> None:
    index = json.load(open(os.path.join(smoke, "index.json")))
    assert index["models"] == list(lm.MODELS) == ["smollm2-135m", "gemma3-270m"] and index["passed"]
    comparison = json.load(open(os.path.join(smoke, "comparison.json")))
    assert {(p["model"], p["layer_type"]) for p in comparison["points"]} == {
        ("smollm2-135m", "all"), ("gemma3-270m", "sliding_attention"), ("gemma3-270m", "full_attention")}
    assert "Across models" in open(os.path.join(smoke, "comparison.md")).read()
    assert os.path.getsize(os.path.join(smoke, "figures", "comparison-rotation.svg")) > 0


@pytest.mark.parametrize("name", ["smollm2-135m", "gemma3-270m"])
def test_every_check_of_the_run(smoke: str, name: str) -> None:
    r = lm.read_run(os.path.join(smoke, name))
    f = r.facts
    assert r.checks.passed and r.checks.tokenization and r.checks.weights and r.checks.control_rejected
    assert r.checks.attention and r.checks.attention_heads == f.layers * f.heads
    assert 0 < (r.checks.attention_max_ratio or 0) <= 1
    assert r.checks.loss_agreement is not None and abs(r.checks.loss_agreement) <= 1e-4
    d = r.data
    assert d["tokenization"]["check"]["agree"] and d["tokenization"]["check"]["passages"] == 4
    assert d["weights"]["passed"] and not any(x["wrong_equal"] for x in d["weights"]["rows"])
    assert len(d["weights"]["rows"]) == 3 * f.layers + 1 + (2 * f.layers if name == "gemma3-270m" else 0)
    control = d["check"]["control"]
    assert control["rejected"] and control["min_ratio"] > 100
    if name == "gemma3-270m":
        assert (f.family, f.heads, f.kv_heads, f.head_dim, f.layers, f.context, f.add_bos, f.bos_id) == ("gemma3", 4, 1, 256, 18, 32768, True, 2)
        assert [(t.name, t.theta, t.window) for t in f.layer_types] == [("sliding_attention", 10000.0, 512), ("full_attention", 1e6, None)]
        assert f.scale == 1 / 16 and "1 + w" in (f.qk_norm or "")
        assert d["check"]["rows_beyond_window"] == d["check"]["sequences"][0]["tokens"] - WINDOW > 0
        assert "thetas swapped" in control["what"]
    else:
        assert (f.family, f.heads, f.kv_heads, f.head_dim, f.layers, f.context, f.add_bos) == ("llama", 9, 3, 64, 30, 8192, False)
        assert f.layer_types[0].theta == 100000.0  # from the GGUF metadata, not a web page
        assert "GGUF file's order" in control["what"]


@pytest.mark.parametrize("name", ["smollm2-135m", "gemma3-270m"])
def test_the_measurements_have_their_shape(smoke: str, name: str) -> None:
    r = lm.read_run(os.path.join(smoke, name))
    d = r.data
    assert set(d["domains"]) == {"english", "python", "arithmetic", "italian"}
    assert all(x["sequences"] == 2 and x["tokens"] == 256 for x in d["domains"].values())
    usage = json.load(open(os.path.join(smoke, name, "usage.json")))
    assert len(usage["layers"]) == r.facts.layers
    for t in r.layer_types:
        assert len(t.norms) == len(t.layers) and all(len(n.v_norm) == t.pairs for n in t.norms)
        loc = t.location
        assert loc.slow_share.n == 8 and loc.peak_rotation.n == 8  # 4 domains x 2 sequences
        assert loc.peak_rotation.low <= loc.peak_rotation.value <= loc.peak_rotation.high
        assert abs(sum(p[3] for p in loc.profile) - 1) < 1e-9
        assert sum(t.kinds.values()) == len(t.layers) * r.facts.heads
    assert {t.name for t in r.layer_types} == {x.name for x in r.facts.layer_types}
    a = r.ablations[0]
    # each band removal beside its norm-matched random-pair control
    assert a.length == 256 and a.sequences == 2 and [(x.band, x.mode) for x in a.rows] == [
        ("fast", "removed"), ("random", "removed"), ("middle", "removed"), ("random", "removed"), ("slow", "still")]
    controls = d["ablations"]["controls"]
    assert [c["band"] for c in controls] == ["fast", "middle"]
    rows = d["ablations"]["lengths"][0]["rows"]
    for c, row, band_row in zip(controls, (rows[1], rows[3]), (rows[0], rows[2])):
        assert sorted(row["pairs"]) == c["pairs"] and not set(c["pairs"]) & set(band_row["pairs"])
        assert len(c["pairs"]) == len(band_row["pairs"]) and c["matched"] < 0.5
    for x in a.rows:  # paired: the difference's mean is the losses' difference
        assert x.difference.n == 2 and abs(x.difference.mean - (x.loss.mean - a.as_trained.mean)) < 1e-9
        # simultaneous over the run's 3 rows x (1 + 1 bucket) comparisons: wider, never decided alone
        assert x.simultaneous is not None and x.simultaneous.half_width > x.difference.half_width
        assert x.significant_simultaneous is not None and (x.significant or not x.significant_simultaneous)
    length = d["ablations"]["lengths"][0]
    assert length["comparisons"] == 10 and abs(length["simultaneous_level"] - (1 - 0.05 / 10)) < 1e-15
    # the first-token mass as trained and under each ablation: a weight in [0, 1], paired
    sink = length["as_trained_first_token_mass"]
    assert sink["n"] == 2 and 0 <= sink["mean"] <= 1
    for x in length["rows"]:
        assert 0 <= x["first_token_mass"]["mean"] <= 1
        assert abs(x["first_token_difference"]["mean"] - (x["first_token_mass"]["mean"] - sink["mean"])) < 1e-9
    # the fastest quarter carries positional heads: removing it costs loss, by far (a measurement)
    fast = next(x for x in a.rows if x.band == "fast")
    assert fast.loss.mean > a.as_trained.mean + 0.5
    # head ablations per domain on the captured sequences: each set paired against the model as trained
    h = d["head_ablations"]
    names = [x["name"] for x in h["sets"]]
    assert set(names) <= {"positional", "random like positional", "first-token", "random like first-token"}
    assert h["notes"] or names, "neither sets nor the reason there are none"
    if names:
        assert set(h["domains"]) == set(d["domains"])
        for res in h["domains"].values():
            assert res["sequences"] == 2 and [x["name"] for x in res["rows"]] == names
            assert res["comparisons"] == len(names) * len(d["domains"])
            for x in res["rows"]:
                assert abs(x["difference"]["mean"] - (x["loss"]["mean"] - res["as_trained"]["mean"])) < 1e-9
        by = {x["name"]: x["heads"] for x in h["sets"]}
        pooled = any(n.startswith("positional heads: the random control is pooled") for n in h["notes"])
        if "random like positional" in by:  # disjoint, as many (per layer unless pooled), from the same layers
            own, control = by["positional"], by["random like positional"]
            assert not {tuple(x) for x in own} & {tuple(x) for x in control} and len(own) == len(control)
            if pooled:
                assert {L for L, _ in control} <= {L for L, _ in own}
            else:
                assert sorted(L for L, _ in own) == sorted(L for L, _ in control)
    # random-token input: the draw recorded, its own component test, the cross consistent with both captures
    rt = d["random_tokens"]
    assert (rt["sequences"], rt["tokens"], rt["seed"]) == (2, 256, 3) and rt["ids"] > 1000
    rc, tc = rt["positional_component"], usage["positional_component"]
    assert rc["sequences"] == 2 and rc["heads"] == tc["heads"]
    cross = rt["cross"]
    assert cross["with_component"] == tc["with_component"] == len(cross["heads"])
    assert cross["kept"] == sum(h["kept"] for h in cross["heads"]) <= cross["with_component"]
    for x in cross["heads"]:
        assert x["kept"] == (x["random_interval"] is not None and x["random_interval"][0] >= cross["cut"])
    md = open(os.path.join(smoke, name, "section.md")).read()
    assert "### Positional heads: the component on random tokens" in md
    for heading in ("### The tokens, the weights and the capture, checked against the model itself", "#### Where the norm sits",
                    "#### Section 5", "#### Content heads and Theorem 6.1", "### The same pattern across domains",
                    "### What p-RoPE would change, as loss"):
        assert heading in md
    for t in r.layer_types:
        for what in ("queries", "keys", "values"):
            assert os.path.getsize(os.path.join(smoke, name, "figures", f"{name}-{t.name}-{what}.svg")) > 0


def test_the_report_includes_the_run(smoke: str, tmp_path: object) -> None:
    cli = os.environ["ROPECHECK_CLI"]
    out = os.path.join(str(tmp_path), "report")
    r = subprocess.run([cli, "report", "--smoke", "--out", out, "--real-model", smoke], capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stderr[-3000:]
    md = open(os.path.join(out, "report.md")).read()
    assert "### Gemma 3 270m (`gemma3-270m`, measured)" in md and "### Across models" in md
    assert os.path.exists(os.path.join(out, "figures", "gemma3-270m-full_attention-queries.svg"))


def test_truncated_and_foreign_files_are_refused(tmp_path: object) -> None:
    path = _sources.locate(_models.FILES["smollm2-135m"])
    cut = os.path.join(str(tmp_path), "cut.gguf")
    with open(path, "rb") as f, open(cut, "wb") as g:
        g.write(f.read(40_000_000))
    for damaged in (cut,):
        with pytest.raises(InputError) as e:
            _gguf.GGUFFile(damaged)
        assert e.value.parameter == "model" and "GGUF" in str(e.value)
    with open(path, "rb") as f, open(cut, "wb") as g:  # every tensor header intact, the last tensor's data cut
        g.write(f.read(os.path.getsize(path) - 1000))
    with pytest.raises(InputError) as e:
        lm.load(cut)
    assert e.value.parameter == "model" and "truncated" in str(e.value)
    foreign = os.path.join(str(tmp_path), "x.gguf")
    shutil.copy(os.path.join(ROOT, "README.md"), foreign)
    with pytest.raises(InputError) as e:
        lm.load(foreign)
    assert "magic" in str(e.value)
    for bad in ("no-such-model", os.path.join(str(tmp_path), "absent.gguf")):
        with pytest.raises(InputError) as e:
            lm.load(bad)
        assert e.value.parameter == "model"


def test_a_wrong_checksum_and_a_missing_package_are_refused(tmp_path: object) -> None:
    gemma = _models.FILES["gemma3-270m"]
    wrong = PackagedFile(gemma.package, gemma.version, "wrong.gguf", gemma.chunks, "0" * 64)
    os.environ["ROPECHECK_MODEL_CACHE"] = str(tmp_path)
    try:
        with pytest.raises(InputError) as e:
            _sources.locate(wrong)
        assert "sha256" in str(e.value) and not os.listdir(str(tmp_path))  # nothing left behind
        with pytest.raises(InputError) as e:
            _sources.locate(PackagedFile("no-such-package", "1.0", "x.gguf"))
        assert "no-such-package==1.0" in str(e.value)
    finally:
        del os.environ["ROPECHECK_MODEL_CACHE"]


def test_a_model_of_another_architecture_is_refused(tmp_path: object) -> None:
    gguf = pytest.importorskip("gguf")
    path = os.path.join(str(tmp_path), "mamba.gguf")
    w = gguf.GGUFWriter(path, "mamba")
    w.add_block_count(1)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    with pytest.raises(InputError) as e:
        lm.load(path)
    assert e.value.parameter == "model" and "'mamba'" in str(e.value) and "gemma3" in str(e.value)


@pytest.mark.parametrize("args, names", [
    (["--sequences", "1"], "--sequences"),
    (["--domains", "klingon"], "--domains"),
    (["--ablation-lengths", "10"], "--ablation-lengths"),
    (["--ablations", "fast-gone"], "--ablations"),
    (["--ablation-lengths", "256", "512", "--ablation-sequences", "2", "--ablations", "all", "all", "all"], "--ablations"),
    (["--model", "no-such-model"], "model"),
])
def test_bad_flags_exit_2_with_one_line(tmp_path: object, args: list[str], names: str) -> None:
    out = os.path.join(str(tmp_path), "never")
    r = run("--out", out, *args)
    assert r.returncode == 2, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and names in r.stderr
    assert not os.path.exists(out)


def test_existing_out_is_refused(tmp_path: object) -> None:
    r = run("--out", str(tmp_path))
    assert r.returncode == 2 and "--out" in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_a_transformers_folder_and_a_model_in_memory_are_the_same_model(tmp_path: object) -> None:
    """The two other ways in: the GGUF model saved as a transformers folder, loaded by path and held
    in memory, gives the same facts, and its capture passes the attention check; a folder has no
    file to check weights and tokens against, and the run says so."""
    import torch
    from ropecheck.lm import check, measure
    from ropecheck.lm._tokenizers import transformers_tokenizer
    gguf_model = lm.load("smollm2-135m")
    folder = os.path.join(str(tmp_path), "smollm2")
    # A plain float32 folder of the dequantized weights: transformers refuses to save a model it
    # holds as GGUF-quantized, so its quantizer is set aside for the save and its config entry dropped.
    quantizer, gguf_model.module.hf_quantizer = gguf_model.module.hf_quantizer, None
    try:
        gguf_model.module.save_pretrained(folder)
    finally:
        gguf_model.module.hf_quantizer = quantizer
    config_path = os.path.join(folder, "config.json")
    config = json.load(open(config_path))
    config.pop("quantization_config", None)
    json.dump(config, open(config_path, "w"))
    transformers_tokenizer(gguf_model.gguf.path)._tokenizer.save_pretrained(folder)  # type: ignore[attr-defined]
    for m in (lm.load(folder), lm.from_transformers(gguf_model.module, gguf_model.tokenizer, name="held")):
        for field in ("family", "layers", "heads", "kv_heads", "head_dim", "scale", "context", "layer_types"):
            assert getattr(m.facts, field) == getattr(gguf_model.facts, field), field
        assert m.gguf is None and m.facts.provenance.kind in ("folder", "module")
        with pytest.raises(InputError):
            check.check_weights(m)
        ids = [int(x) for x in torch.randint(100, 40000, (200,), generator=torch.Generator().manual_seed(3))]  # seed 3
        c = measure.capture_sequences(m, [ids])
        r = check.check_attention(m, c["q"][0], c["k"][0], c["positions"][0], check.eager_attentions(m, ids))
        assert r.passed and len(r.heads) == m.facts.layers * m.facts.heads
