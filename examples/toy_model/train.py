"""Train the toy Llama on the induction task with one of the paper's Table 2 encodings.

The RoPE frequencies come from ropecheck's own spectra (``ropecheck.spectrum(...).frequencies``,
float64, converted once to the model's float32 ``inv_freq``), not from a reimplementation.

    PYTHONPATH=<dir with the ropecheck package> /usr/bin/python3 examples/toy_model/train.py \
        --encoding rope --seed 0 --out OUT [--steps N] [--capture] [--save-weights] [--smoke]

Determinism (notes Section 5): one intra-op and one inter-op thread, torch.manual_seed,
use_deterministic_algorithms(True), data from a seeded torch.Generator, fp32, int64 positions.
"""

import argparse
import hashlib
import json
import math
import os
import sys
import time

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import capture  # noqa: E402
import model as toy  # noqa: E402
import task  # noqa: E402

# The paper's Table 2 encodings (Barbero et al. 2024, arXiv 2410.06205, Section 6, Table 2: NoPE,
# RoPE 10k, RoPE 500k, 0.75-RoPE reversed, 0.75-RoPE partial, 0.25-RoPE, 0.75-RoPE) as ropecheck
# spectrum options, at theta 10000 unless named.
ENCODINGS = {
    "nope": dict(theta=10000, nope=True),
    "rope": dict(theta=10000),
    "rope-500k": dict(theta=500000),
    "p-rope-0.25": dict(theta=10000, p_rope=0.25),
    "p-rope-0.75": dict(theta=10000, p_rope=0.75),
    "reversed-0.75": dict(theta=10000, reversed=0.75),
    "partial-0.75": dict(theta=10000, partial=0.75),  # GPT-NeoX partial rotary: 12 pairs at theta^(-j/12), 4 unrotated
}
# The theta-matched set: at theta 10000 and T = 64 the quarter that p-RoPE 0.75 removes turns at most
# 0.064 rad over the training context, so p-rope-0.75 and rope are the same model. THETA_MATCHED is
# the integer nearest the theta at which the toy's removed quarter (pairs 12-15 of 16) turns over
# T = 64 tokens by the same geometric mean as Gemma's removed quarter (pairs 96-127 of 128, theta
# 10000) over its 8192 tokens; table2.py derives it from ropecheck's spectra, prints both sets of
# turns and refuses to run if this constant disagrees.
THETA_MATCHED = 43
for _name, _options in (("rope", {}), ("p-rope-0.25", dict(p_rope=0.25)), ("p-rope-0.75", dict(p_rope=0.75)),
                        ("partial-0.75", dict(partial=0.75)), ("reversed-0.75", dict(reversed=0.75))):
    ENCODINGS[f"{_name}-t{THETA_MATCHED}"] = dict(theta=THETA_MATCHED, **_options)


def config_rope(encoding):
    """How config.json states the encoding to ropecheck: (rope_parameters dict or None, note).

    p-RoPE as rope_type "proportional" (Gemma's p-RoPE over the whole head, which ropecheck's HF reader
    maps to its p-rope variant); partial as rope_type "default" with partial_rotary_factor (the reader
    rotates the first 24 of 32 dims at theta^(-j/12): the same frequencies; the toy rotates pair j =
    dims (j, j + 16) with pairs 12-15 at frequency 0 instead of pairs (j, j + 12) over dims 0-23, a fixed
    permutation of q_proj's and k_proj's output dims, so the same function class); RoPE by rope_theta
    alone. NoPE and reversed have no Llama config form: their config.json describes plain RoPE at that
    theta and only "_ropecheck_example"."spectrum" states the frequencies actually used."""
    o = ENCODINGS[encoding]
    theta = float(o["theta"])
    if "p_rope" in o:
        return ({"rope_type": "proportional", "rope_theta": theta, "partial_rotary_factor": o["p_rope"]},
                "exact: rope_parameters (proportional) reads back as this p-rope spectrum")
    if "partial" in o:
        return ({"rope_type": "default", "rope_theta": theta, "partial_rotary_factor": o["partial"]},
                "frequencies exact (rope_parameters.partial_rotary_factor); the reader's pair layout is dims (j, j+12) "
                "over the first 24 dims, the toy's is (j, j+16) with pairs 12-15 unrotated: a fixed permutation of dims")
    if "nope" in o or "reversed" in o:
        return None, "not representable: rope_theta only; the frequencies used are in _ropecheck_example.spectrum"
    return None, "exact: rope_theta"


CONFIG_ROPE = {e: config_rope(e)[0] for e in ENCODINGS if config_rope(e)[0] is not None}
BLOCK = 10  # the result's block means: mean training loss of each BLOCK consecutive steps
FULL = dict(model=dict(), batch=16, steps=800, lr=3e-3, warmup=50, min_segment=8)  # the committed runs' settings (table2.py --steps)
SMOKE = dict(model=dict(vocab_size=16, hidden_size=32, num_attention_heads=4, num_key_value_heads=2,
                        head_dim=8, intermediate_size=32, max_position_embeddings=16),
             batch=4, steps=5, lr=3e-3, warmup=2, min_segment=2)
FILES = ("model.py", "task.py", "capture.py", "train.py")


def set_determinism(threads=1):
    """One thread and deterministic kernels; call before any torch work."""
    torch.set_num_threads(threads)
    if torch.get_num_interop_threads() != threads:  # settable once, before inter-op work (else abort)
        torch.set_num_interop_threads(threads)
    torch.use_deterministic_algorithms(True)


def frequencies(encoding, head_dim, context):
    """(inv_freq float32 tensor, spectrum description dict) from ropecheck's spectrum."""
    import ropecheck  # see README: PYTHONPATH to the build's (or a symlinked) package
    s = ropecheck.spectrum(dim=head_dim, context=context, **ENCODINGS[encoding])
    freqs = np.asarray(s.frequencies, dtype=np.float64)
    info = {"spectrum": s.description, "variant": s.variant, "theta": s.theta, "fraction": s.fraction,
            "rotated_pairs": s.rotated_pairs, "frequencies_exact": s.frequencies_exact,
            "ropecheck_version": getattr(ropecheck, "__version__", None)}
    return torch.from_numpy(freqs.astype(np.float32)), info


def environment():
    """torch version, the libblas.so.3 mapped into this process, thread settings."""
    blas = None
    with open("/proc/self/maps") as f:
        for line in f:
            if "libblas.so.3" in line:
                blas = line.split()[-1]
                break
    return {"torch": torch.__version__, "blas": blas, "num_threads": torch.get_num_threads(),
            "OPENBLAS_NUM_THREADS": os.environ.get("OPENBLAS_NUM_THREADS"),
            "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS"),
            "OPENBLAS_CORETYPE": os.environ.get("OPENBLAS_CORETYPE")}


def sha256s():
    """sha256 of each of this example's source files."""
    return {name: hashlib.sha256(open(os.path.join(HERE, name), "rb").read()).hexdigest() for name in FILES}


def train(encoding, seed, settings=FULL, steps=None, log_every=50, log=print):
    """Trains one model; returns (model, result dict with the loss curve, held-out losses, timings)."""
    set_determinism(1)
    steps = settings["steps"] if steps is None else steps
    config = toy.make_config(**settings["model"], rope_theta=float(ENCODINGS[encoding]["theta"]))
    T = config.max_position_embeddings
    inv_freq, spectrum = frequencies(encoding, config.head_dim, T)
    torch.manual_seed(seed)
    model = toy.ToyLlama(config, inv_freq)
    data = torch.Generator().manual_seed(seed)
    opt = torch.optim.AdamW(model.parameters(), lr=settings["lr"], betas=(0.9, 0.98), weight_decay=0.01)
    warm = settings["warmup"]

    def lr_at(step):  # linear warm-up, then cosine decay to 10%
        if step < warm:
            return (step + 1) / warm
        return 0.1 + 0.45 * (1 + math.cos(math.pi * (step - warm) / max(1, steps - warm)))

    sched = torch.optim.lr_scheduler.LambdaLR(opt, lr_at)
    curve, blocks, block_sum, start = [], [], 0.0, time.perf_counter()
    for step in range(steps):
        ids, mask = task.make_train_batch(data, settings["batch"], T, config.vocab_size, settings["min_segment"])
        loss, acc = task.masked_loss(model(ids), ids, mask)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
        block_sum += float(loss)
        if (step + 1) % BLOCK == 0 or step == steps - 1:
            blocks.append(block_sum / ((step % BLOCK) + 1))
            block_sum = 0.0
        if step % log_every == 0 or step == steps - 1:
            curve.append({"step": step, "loss": float(loss), "accuracy": float(acc)})
            log(f"[{encoding} seed {seed}] step {step:5d} loss {float(loss):.4f} acc {float(acc):.3f}")
    train_seconds = time.perf_counter() - start
    heldout = task.evaluate(model, T, config.vocab_size, sequences=4 if settings is SMOKE else 8)
    result = {"encoding": encoding, "seed": seed, "steps": steps, "batch": settings["batch"],
              "lr": settings["lr"], "warmup": warm, "train_length": T, "spectrum": spectrum,
              "curve": curve, "block_mean_loss": {"block": BLOCK, "mean_loss": blocks}, "final_train_loss": curve[-1]["loss"], "heldout": heldout,
              "previous_token": task.previous_token_scores(model, T, config.vocab_size),
              "train_seconds": train_seconds, "environment": environment(), "sha256": sha256s()}
    return model, result


def capture_inputs(config, sequences=4, multiplier=4):
    """The capture's held-out sequences: the 'repeats' family at multiplier x the training length."""
    ids, _ = task.heldout_batch("repeats", multiplier, config.max_position_embeddings, config.vocab_size, sequences)
    return ids


def provenance(result):
    """The capture's and config's provenance dict (no loss curve)."""
    keep = ("encoding", "seed", "steps", "batch", "lr", "train_length", "final_train_loss", "heldout",
            "previous_token", "environment", "sha256", "spectrum")
    out = {k: result[k] for k in keep}
    out["script"] = "examples/toy_model/train.py"
    out["task"] = "induction over a repeated random segment (examples/toy_model/task.py)"
    return out


def save(model, result, out, write_capture=False, save_weights=False, sequences=4):
    """Writes OUT/result.json, OUT/config.json and optionally the capture and the weights."""
    os.makedirs(out, exist_ok=True)
    name = f"{result['encoding']}_seed{result['seed']}"
    with open(os.path.join(out, f"{name}.result.json"), "w") as f:
        json.dump(result, f, indent=1)
    prov = provenance(result)
    rope_parameters, prov["config_states_encoding"] = config_rope(result["encoding"])
    toy.write_config_json(model.config, os.path.join(out, f"{name}.config.json"), prov, rope_parameters)
    if write_capture:
        capture.write_capture(os.path.join(out, f"{name}.capture.npz"), model,
                              capture_inputs(model.config, sequences), prov)
    if save_weights:
        torch.save(model.state_dict(), os.path.join(out, f"{name}.weights.pt"))
    return name


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--encoding", choices=sorted(ENCODINGS), default="rope")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--steps", type=int, default=None, help="default: 800 (5 with --smoke)")
    p.add_argument("--out", required=True, help="output directory")
    p.add_argument("--smoke", action="store_true", help="tiny model, a few steps")
    p.add_argument("--capture", action="store_true", help="write NAME.capture.npz of held-out sequences")
    p.add_argument("--save-weights", action="store_true")
    a = p.parse_args(argv)
    model, result = train(a.encoding, a.seed, SMOKE if a.smoke else FULL, a.steps)
    name = save(model, result, a.out, a.capture, a.save_weights)
    print(json.dumps({"name": name, "train_seconds": round(result["train_seconds"], 1),
                      "heldout_repeats": {m: round(v["loss"], 4) for m, v in result["heldout"]["repeats"].items()},
                      "previous_token_layer0": [round(x, 3) for x in result["previous_token"][0]]}))


if __name__ == "__main__":
    main()
