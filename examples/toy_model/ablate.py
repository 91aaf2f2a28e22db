"""Band ablations of a committed toy model as next-token loss (ropecheck.torch.ablation_losses) on
task.py's held-out sets at 1x, 2x, 4x and 8x the training length; writes OUT/ablation.md and
OUT/ablation.json.

For each model (captures/NAME.weights.pt with its NAME.config.json, the frequencies of its encoding
from ropecheck's spectrum as train.py computes them, as recapture.py loads them), each held-out
family and length: the mean next-token loss per sequence over the targets task.py counts (after the
first copy), for the model as trained and with each band (fast, middle, slow quarter of its own
inv_freq) made position-free ("still": inv_freq entries 0) or removed from every query ("removed":
the band's query channels zeroed after q_proj); paired differences, two-sided 95% Student
t-intervals over the sequences (independent draws of task.py's fixed evaluation seed), and the same
per position bucket [0, T), [T, 2T), [2T, 4T), [4T, 8T) (T the training length).

    PYTHONPATH=build/python OPENBLAS_NUM_THREADS=1 /usr/bin/python3 examples/toy_model/ablate.py
    ... --name rope_seed0 --name p-rope-0.75_seed0 --sequences 64 --out examples/toy_model/results
"""

import argparse
import hashlib
import inspect
import json
import os
import platform
import sys
import tempfile
import time

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import model as toy  # noqa: E402
import task  # noqa: E402
import train  # noqa: E402

SCHEMA = "ropecheck-toy-ablation/1"
ROWS = [(b, m) for b in ("fast", "middle", "slow") for m in ("still", "removed")]
MODE_TEXT = {"still": "position-free", "removed": "removed"}


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def load(name):
    """The committed model NAME (eval mode) and its config.json document."""
    captures = os.path.join(HERE, "captures")
    config_path, weights_path = (os.path.join(captures, f"{name}.{x}") for x in ("config.json", "weights.pt"))
    for path in (config_path, weights_path):
        if not os.path.exists(path):
            raise SystemExit(f"ablate.py: --name {name}: {os.path.relpath(path)} does not exist")
    with open(config_path) as f:
        doc = json.load(f)
    accepted = inspect.signature(toy.make_config).parameters
    config = toy.make_config(**{k: v for k, v in doc.items() if k in accepted})
    inv_freq, _ = train.frequencies(doc["_ropecheck_example"]["encoding"], config.head_dim, config.max_position_embeddings)
    net = toy.ToyLlama(config, inv_freq)
    net.load_state_dict(torch.load(weights_path))
    net.eval()
    return net, doc, {"config": sha256(config_path), "weights": sha256(weights_path)}


def measure(name, sequences, families, multipliers, log):
    import ropecheck.torch as rt
    net, doc, hashes = load(name)
    cfg = net.config
    T = cfg.max_position_embeddings
    out = {"name": name, "encoding": doc["_ropecheck_example"]["encoding"], "seed": doc["_ropecheck_example"].get("seed"),
           "sha256": hashes, "train_length": T, "inv_freq": net.model.inv_freq.tolist(),
           "bands": {k: list(v) for k, v in rt.rotary_bands(net.model.inv_freq).items()}, "results": []}
    for family in families:
        for m in multipliers:
            ids, mask = task.heldout_batch(family, m, T, cfg.vocab_size, sequences)
            edges = [0] + [k * T for k in (1, 2, 4, 8, 16, 32) if k * T <= m * T]
            t0 = time.perf_counter()
            r = rt.ablation_losses(net, ids, mask=mask, ablations=ROWS, position_buckets=edges)
            row = {**r.to_dict(), "family": family, "multiplier": m, "length": m * T}
            out["results"].append(row)
            log(f"{name} {family} {m}x ({m * T} tokens, {sequences} sequences, {time.perf_counter() - t0:.1f} s): as trained "
                f"{r.as_trained.mean:.4f}; " + ", ".join(f"{x.name} {x.difference.mean:+.3f}" for x in r.rows))
    return out


def _ci(x, signed=False, digits=3):
    if x is None:
        return "-"
    m = f"{x['mean']:+.{digits}f}" if signed else f"{x['mean']:.{digits}f}"
    return m if x["half_width"] is None else f"{m} ± {x['half_width']:.{digits}f}"


def _star(x):
    """" *" when the interval x excludes 0."""
    return " *" if x and x["half_width"] is not None and abs(x["mean"]) > x["half_width"] else ""


def _table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return "\n".join(out + ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]) + "\n"


def markdown(doc):
    lines = ["# Toy model: RoPE band ablations as next-token loss\n",
             f"Written by `examples/toy_model/ablate.py`. Command: `{doc['command']}`; {doc['seconds']:.0f} s wall time on "
             f"{doc['environment']['cpus']} CPUs ({doc['environment']['platform']}), torch {doc['environment']['torch']}, "
             f"{doc['environment']['num_threads']} thread; {doc['date']}.\n",
             "Every number is a **measurement** on task.py's held-out sets (fixed evaluation seed), not a certificate. "
             "A sequence's loss is the mean next-token cross entropy (nats) over the targets task.py counts (after the "
             "first copy of the segment); every interval is over the "
             f"{doc['sequences']} sequences of its set, a {100 * doc['level']:g}% {doc['method']}. The differences are paired: the same sequences "
             "through the model as trained and through the ablated one, ablated minus as trained; `*` marks a difference "
             "whose interval excludes 0.\n",
             "Bands are ropecheck's, from the model's own `inv_freq` (docs/usage.md, Pairs): the rotating pairs sorted "
             "fastest first, `fast` the first quarter, `slow` the last quarter, `middle` the rest. `still`: the band's "
             "`inv_freq` entries set to 0 (position-free, as p-RoPE does for the slow quarter); `removed`: the band's "
             "channels of every query zeroed after `q_proj`, so the band adds nothing to any logit "
             "(`ropecheck.torch.band_ablation`).\n"]
    for mdl in doc["models"]:
        T = mdl["train_length"]
        lines.append(f"## {mdl['name']} (encoding {mdl['encoding']})\n")
        b = mdl["bands"]
        lines.append(f"Weights sha256 `{mdl['sha256']['weights'][:16]}...`, config `{mdl['sha256']['config'][:16]}...`; "
                     f"training length T = {T}; pairs fast {b['fast']}, middle {b['middle']}, slow {b['slow']}"
                     + (f", still {b['still']}" if b["still"] else "") + ".\n")
        for family in dict.fromkeys(r["family"] for r in mdl["results"]):
            res = [r for r in mdl["results"] if r["family"] == family]
            lines.append(f"### Held-out family `{family}`\n")
            header = ["", *[f"{r['multiplier']}x ({r['length']} tokens)" for r in res]]
            rows = [["as trained: loss", *[_ci(r["as_trained"]) for r in res]]]
            for band, mode in ROWS:
                cells = []
                for r in res:
                    x = next(x for x in r["rows"] if (x["band"], x["mode"]) == (band, mode))
                    cells.append(f"{_ci(x['loss'])}; Δ {_ci(x['difference'], signed=True)}{_star(x['difference'])}")
                rows.append([f"{band} {MODE_TEXT[mode]}: loss; Δ", *cells])
            lines.append(_table(header, rows))
            last = res[-1]
            used = [i for i, bk in enumerate(last["buckets"]) if bk["loss"] is not None]  # buckets holding counted targets
            if len(used) > 1:
                lines.append(f"\nWhere along the sequence, at {last['multiplier']}x: Δ per position bucket (the targets at "
                             f"positions in [start, stop); T = {T}).\n")
                header = ["", *[f"[{last['buckets'][i]['start']}, {last['buckets'][i]['stop']})" for i in used]]
                rows = [["as trained: loss", *[_ci(last["buckets"][i]["loss"]) for i in used]]]
                for x in last["rows"]:
                    rows.append([f"{x['band']} {MODE_TEXT[x['mode']]}: Δ",
                                 *[_ci(x["buckets"][i]["difference"], signed=True) + _star(x["buckets"][i]["difference"])
                                   for i in used]])
                lines.append(_table(header, rows))
            lines.append("")
    return "\n".join(lines)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--name", action="append", help="a committed model, captures/NAME.{config.json,weights.pt} "
                   "(repeat for several; default rope_seed0)")
    p.add_argument("--sequences", type=int, default=64, help="held-out sequences per family and length (default 64)")
    p.add_argument("--families", nargs="+", default=list(task.FAMILIES), choices=list(task.FAMILIES))
    p.add_argument("--multipliers", type=int, nargs="+", default=list(task.LENGTH_MULTIPLIERS),
                   help="lengths as multiples of the training length (default 1 2 4 8)")
    p.add_argument("--out", default=os.path.join(HERE, "results"), help="directory of ablation.md and ablation.json")
    p.add_argument("--command", help="the command line to record (default: this one)")
    a = p.parse_args(argv)
    names = a.name or ["rope_seed0"]
    if not 2 <= a.sequences <= 4096:
        p.error("--sequences must be in [2, 4096]")
    if any(m < 1 or m > 32 for m in a.multipliers):
        p.error("--multipliers must be in [1, 32]")
    if not os.path.isdir(a.out):
        p.error(f"--out {a.out} is not a directory")
    train.set_determinism(1)
    command = a.command or "PYTHONPATH=build/python OPENBLAS_NUM_THREADS=1 /usr/bin/python3 examples/toy_model/ablate.py " + \
        " ".join(argv if argv is not None else sys.argv[1:])
    started = time.time()

    def log(line):
        print("ablate:", line, file=sys.stderr, flush=True)
    models = [measure(n, a.sequences, a.families, a.multipliers, log) for n in names]
    import ropecheck
    env = train.environment()
    env.update({"cpus": os.cpu_count(), "platform": platform.platform(), "python": platform.python_version(),
                "ropecheck": ropecheck.__version__})
    doc = {"schema": SCHEMA, "command": command.strip(), "date": time.strftime("%Y-%m-%d", time.gmtime(started)),
           "seconds": time.time() - started, "environment": env, "sequences": a.sequences,
           "level": models[0]["results"][0]["level"], "method": models[0]["results"][0]["method"], "models": models}
    for name, text in (("ablation.json", json.dumps(doc, indent=1) + "\n"), ("ablation.md", markdown(doc))):
        fd, tmp = tempfile.mkstemp(prefix=f".{name}.", dir=a.out)
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.chmod(tmp, 0o644)  # mkstemp creates 0600
        os.replace(tmp, os.path.join(a.out, name))
    log(f"wrote {os.path.join(a.out, 'ablation.md')} and ablation.json in {doc['seconds']:.0f} s")


if __name__ == "__main__":
    main()
