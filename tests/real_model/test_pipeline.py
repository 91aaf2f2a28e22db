"""scripts/real-model end to end on a short text (CI's size), and its bad-input contract.

Runs under the model environment's python (run_test.sh); the pipeline through the script itself,
as a newcomer runs it, on the build's CLI and module (--no-build).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "scripts", "real-model")
sys.path.insert(0, os.path.join(ROOT, "examples", "real_model"))

import lm  # noqa: E402
from ropecheck import InputError  # noqa: E402


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([SCRIPT, "--no-build", *args], capture_output=True, text=True, timeout=840)


@pytest.fixture(scope="module")
def smoke(tmp_path_factory: pytest.TempPathFactory) -> str:
    out = str(tmp_path_factory.mktemp("rm") / "out")
    r = run("--smoke", "--out", out)
    assert r.returncode == 0, r.stderr[-4000:]
    return out


def test_capture_equals_the_models_attention(smoke: str) -> None:
    doc = json.load(open(os.path.join(smoke, "real-model.json")))
    assert doc["schema"] == "ropecheck-real-model/2"
    # every layer and head of one sequence per domain, each element within the float32 bound
    check = doc["check"]
    assert check["heads_checked"] == 4 * 30 * 9
    assert check["passed"] and 0 < check["max_ratio"] <= 1
    # the file's rows under ggml's pairing are transformers' weights; a permuted capture fails
    assert doc["weights_pairing"]["all_equal"] and not doc["weights_pairing"]["any_equal_without_pairing"]
    assert doc["control"]["failed"] == doc["control"]["heads"] == 18
    assert doc["control"]["min_ratio"] > 100


def test_section_and_measurements(smoke: str) -> None:
    doc = json.load(open(os.path.join(smoke, "real-model.json")))
    assert doc["model"]["theta"] == 100000.0 and doc["model"]["context"] == 8192  # from the GGUF metadata
    assert set(doc["domains"]) == {"english", "python", "arithmetic", "italian"}
    assert all(d["sequences"] == 2 and d["tokens"] == 256 for d in doc["domains"].values())
    usage = json.load(open(os.path.join(smoke, "usage.json")))
    assert len(usage["layers"]) == 30 and all(len(L["heads"]) == 9 for L in usage["layers"])
    assert len(doc["values"]["v_norm"]) == 30
    # the library's head kinds against chance, with the rule's false-positive rate on its Gaussian null
    assert usage["kind_rule"]["scores_tested"] == 270 * 19  # offsets 0..16, first token, induction (token ids)
    assert usage["null"]["heads"] == 270 and usage["null"]["flagged"] <= usage["null"]["heads"]
    assert usage["within_layers"]["statement"] and usage["break_distribution"] is not None
    kinds = {h["kind"] for L in usage["layers"] for h in L["heads"]}
    assert kinds <= {"diagonal", "previous-token", "offset", "first-token", "induction", "other"}
    assert kinds & {"diagonal", "previous-token", "offset"}  # a real LM has positional heads even at 256 tokens
    for d in doc["per_domain"].values():  # each domain's usage against the first's (compare_usage)
        assert 0.5 < d["similarity_to_first"]["correlation"] <= 1 + 1e-12
    abl = doc["ablation"][0]
    assert abl["length"] == 256 and abl["sequences"] == 2 and abl["tokens"] == [256, 256]
    # --smoke runs one ablation per band, both modes among them (ropecheck.torch.ablation_losses)
    assert abl["ablations"] == ["fast-removed", "middle-removed", "slow-still"]
    rows = {(x["band"], x["mode"]): x for x in abl["rows"]}
    assert len(rows["fast", "removed"]["pairs"]) == len(rows["slow", "still"]["pairs"]) == 8
    assert len(rows["middle", "removed"]["channels"]) == 32
    for x in rows.values():  # paired: the difference's sample is the sequences, its mean the losses' difference
        assert x["difference"]["n"] == 2 and x["difference"]["half_width"] > 0
        assert abs(x["difference"]["mean"] - (x["loss"]["mean"] - abl["as_trained"]["mean"])) < 1e-9
    # the fastest quarter carries positional heads: removing it costs loss (a measurement, but by far)
    assert rows["fast", "removed"]["loss"]["mean"] > abl["as_trained"]["mean"] + 0.5
    # the blocked attention used beyond the trained context is transformers' arithmetic in other
    # blocks: float32 reassociation moves a loss by ~1e-6 relative; 1e-4 nats is far below the
    # 4 decimals reported and far above that
    cc = doc["chunked_vs_eager"]
    assert cc["tokens"] == 256 and abs(cc["difference"]) <= 1e-4
    md = open(os.path.join(smoke, "real-model.md")).read()
    for heading in ("### The capture, checked against the model itself", "### Where the norm sits", "### Head kinds against chance",
                    "### Section 5", "### Content heads and Theorem 6.1", "### The same pattern across domains",
                    "### What p-RoPE would change, as loss"):
        assert heading in md
    for stem in ("real-q-layers", "real-k-layers", "real-v-layers", "real-heads-first", "real-heads-last", "real-domains",
                 "real-ablation-loss"):
        for ext in ("csv", "gp", "svg", "png"):
            assert os.path.getsize(os.path.join(smoke, "figures", f"{stem}.{ext}")) > 0


def test_truncated_and_foreign_files_are_refused(tmp_path: object) -> None:
    path = lm.find_gguf()
    cut = os.path.join(str(tmp_path), "cut.gguf")
    with open(path, "rb") as f, open(cut, "wb") as g:
        g.write(f.read(40_000_000))
    with pytest.raises(InputError) as e:
        lm.read_metadata(cut)
    assert e.value.parameter == "model" and "readable GGUF" in str(e.value)
    with open(path, "rb") as f, open(cut, "wb") as g:  # every tensor header intact, the last tensor's data cut
        g.write(f.read(os.path.getsize(path) - 1000))
    with pytest.raises(InputError) as e:
        lm.read_metadata(cut)
    assert e.value.parameter == "model" and "GGUF" in str(e.value)
    foreign = os.path.join(str(tmp_path), "x.gguf")
    shutil.copy(os.path.join(ROOT, "README.md"), foreign)
    with pytest.raises(InputError) as e:
        lm.read_metadata(foreign)
    assert "magic" in str(e.value)
    with pytest.raises(InputError):
        lm.read_metadata(os.path.join(str(tmp_path), "absent.gguf"))


@pytest.mark.parametrize("args, names", [
    (["--sequences", "1"], "--sequences"),
    (["--domains", "klingon"], "--domains"),
    (["--ablation-lengths", "10"], "--ablation-lengths"),
    (["--ablations", "fast-gone"], "--ablations"),
    (["--ablation-lengths", "256", "512", "--ablation-sequences", "2", "--ablations", "all", "all", "all"], "--ablations"),
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
