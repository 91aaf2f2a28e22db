"""The paper's Table 2 comparison on the toy induction task (an offline experiment, not a CI step).

Trains every encoding of train.ENCODINGS with the same data, model size and steps for each seed
(one train.py process per run, at most --jobs at once, one thread each; the runs in CAPTURED also
write their capture and weights with train.py --capture --save-weights), then writes
OUT/table2.md (mean and 95% t-interval across seeds, per-seed numbers), OUT/table2.json and
OUT/table2.csv (raw per-run numbers) with the command, environment, wall times and sha256s.

    PYTHONPATH=<ropecheck package dir> OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 \
        /usr/bin/python3 examples/toy_model/table2.py --seeds 0 1 2 --work /tmp/table2 --out examples/toy_model/results
"""

import argparse
import csv
import hashlib
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import task  # noqa: E402
import train  # noqa: E402

# Two-sided 95% Student t quantiles t_{0.975, df} (standard table values, e.g. NIST/SEMATECH
# e-Handbook of Statistical Methods, Section 1.3.6.7.2).
T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262}
ORDER = ("nope", "rope", "rope-500k", "p-rope-0.25", "p-rope-0.75", "reversed-0.75")


CAPTURED = (("rope", 0), ("p-rope-0.75", 0))  # runs that also write a capture and their weights


def run_all(seeds, steps, work, jobs):
    """Runs the missing (encoding, seed) trainings; returns {(encoding, seed): wall seconds or None}."""
    os.makedirs(work, exist_ok=True)
    pending = [(e, s) for s in seeds for e in ORDER
               if not os.path.exists(os.path.join(work, f"{e}_seed{s}.result.json"))]
    running, walls = [], {}
    while pending or running:
        while pending and len(running) < jobs:
            e, s = pending.pop(0)
            log = open(os.path.join(work, f"{e}_seed{s}.log"), "w")
            cmd = [sys.executable, os.path.join(HERE, "train.py"), "--encoding", e, "--seed", str(s),
                   "--steps", str(steps), "--out", work] + (["--capture", "--save-weights"] if (e, s) in CAPTURED else [])
            running.append((e, s, subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT), time.time(), log))
        time.sleep(1)
        for item in list(running):
            e, s, proc, start, log = item
            if proc.poll() is not None:
                log.close()
                running.remove(item)
                if proc.returncode != 0:
                    raise SystemExit(f"{e} seed {s} failed; see {log.name}")
                walls[(e, s)] = time.time() - start
                with open(os.path.join(work, f"{e}_seed{s}.wall.json"), "w") as f:
                    json.dump({"wall_seconds": walls[(e, s)], "concurrent_jobs": jobs}, f)
                print(f"done {e} seed {s} in {walls[(e, s)]:.0f} s", flush=True)
    return walls


def interval(values):
    """(mean, half-width of the 95% t-interval) of a list of at least two values."""
    mean = statistics.fmean(values)
    return mean, T975[len(values) - 1] * statistics.stdev(values) / len(values) ** 0.5


def wall_of(work, e, s):
    """A run's wall seconds from its sidecar (written when it finished), or None."""
    path = os.path.join(work, f"{e}_seed{s}.wall.json")
    return json.load(open(path))["wall_seconds"] if os.path.exists(path) else None


def collect(seeds, work):
    """The per-run raw rows, read back from WORK/*.result.json and *.wall.json."""
    rows = []
    for e in ORDER:
        for s in seeds:
            r = json.load(open(os.path.join(work, f"{e}_seed{s}.result.json")))
            row = {"encoding": e, "seed": s, "steps": r["steps"], "final_train_loss": r["final_train_loss"],
                   "train_seconds": r["train_seconds"], "wall_seconds": wall_of(work, e, s),
                   "previous_token_layer0_max": max(r["previous_token"][0])}
            for fam in task.FAMILIES:
                for m in task.LENGTH_MULTIPLIERS:
                    row[f"{fam}_{m}x_loss"] = r["heldout"][fam][str(m)]["loss"]
                    row[f"{fam}_{m}x_acc"] = r["heldout"][fam][str(m)]["accuracy"]
            rows.append(row)
    return rows, r["environment"], r["train_length"]


def cell(value, key):
    """A raw-table cell: losses to 4 decimals, seconds to whole seconds, missing as '-'."""
    if value is None:
        return "-"
    return f"{value:.0f}" if key.endswith("seconds") else f"{value:.4f}"


def markdown(rows, seeds, meta):
    """The Markdown report: one table per family (mean ± 95% half-width), then the raw numbers."""
    out = ["# Table 2 on the toy induction task", "",
           f"Command: `{meta['command']}`  ", f"torch {meta['environment']['torch']}, BLAS `{meta['environment']['blas']}`, "
           f"1 thread per run; seeds {seeds}; {meta['steps']} steps per run (batch 16, training length {meta['train_length']}); "
           f"{meta['jobs']} runs at a time, this invocation's wall {meta['total_wall_seconds_this_invocation']:.0f} s.  ",
           "Held-out next-token loss (nats, masked to targets after the first copy; task.py) at 1x-8x the training "
           f"length; mean ± half-width of the 95% Student t-interval over {len(seeds)} seeds (t with {len(seeds) - 1} df).", ""]
    for fam, what in (("repeats", "segment of T/2 tokens repeated (copy distance as in training)"),
                      ("long", "one segment of L/2 tokens and one copy (copy distance up to L/2)")):
        out += [f"## {fam}: {what}", "", "| encoding | " + " | ".join(f"{m}x loss" for m in task.LENGTH_MULTIPLIERS)
                + " | prev-token L0 (max head) |", "|---" * (len(task.LENGTH_MULTIPLIERS) + 2) + "|"]
        for e in ORDER:
            mine = [r for r in rows if r["encoding"] == e]
            cells = [interval([r[f"{fam}_{m}x_loss"] for r in mine]) for m in task.LENGTH_MULTIPLIERS]
            pt = interval([r["previous_token_layer0_max"] for r in mine])
            out.append(f"| {e} | " + " | ".join(f"{a:.3f} ± {h:.3f}" for a, h in cells) + f" | {pt[0]:.2f} ± {pt[1]:.2f} |")
        out.append("")
    keys = (["final_train_loss", "previous_token_layer0_max"] + [f"{f}_{m}x_loss" for f in task.FAMILIES for m in task.LENGTH_MULTIPLIERS]
            + ["train_seconds", "wall_seconds"])
    out += ["## Per-seed raw numbers", "", "| encoding | seed | " + " | ".join(keys) + " |", "|---" * (len(keys) + 2) + "|"]
    for r in rows:
        out.append(f"| {r['encoding']} | {r['seed']} | " + " | ".join(cell(r[k], k) for k in keys) + " |")
    out += ["", "sha256: " + ", ".join(f"`{k}` {v}" for k, v in meta["sha256"].items()), ""]
    return "\n".join(out)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    p.add_argument("--steps", type=int, default=train.FULL["steps"])
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--work", required=True, help="directory of the per-run outputs (resumable)")
    p.add_argument("--out", required=True, help="where table2.{md,json,csv} go")
    a = p.parse_args()
    if len(a.seeds) < 2:
        raise SystemExit("need at least 2 seeds for an interval")
    start = time.time()
    run_all(a.seeds, a.steps, a.work, a.jobs)
    rows, env, T = collect(a.seeds, a.work)
    files = train.FILES + ("table2.py",)
    meta = {"command": " ".join([sys.executable] + sys.argv), "environment": env,
            "seeds": a.seeds, "steps": a.steps, "train_length": T, "total_wall_seconds_this_invocation": time.time() - start,
            "jobs": a.jobs,
            "interval": "95% two-sided Student t-interval over seeds: mean ± t_{0.975,n-1} * sd / sqrt(n)",
            "sha256": {f: hashlib.sha256(open(os.path.join(HERE, f), "rb").read()).hexdigest() for f in files}}
    os.makedirs(a.out, exist_ok=True)
    json.dump({"meta": meta, "runs": rows}, open(os.path.join(a.out, "table2.json"), "w"), indent=1)
    with open(os.path.join(a.out, "table2.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    open(os.path.join(a.out, "table2.md"), "w").write(markdown(rows, a.seeds, meta))
    print(open(os.path.join(a.out, "table2.md")).read())


if __name__ == "__main__":
    main()
