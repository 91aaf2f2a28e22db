"""The paper's Table 2 comparison on the toy induction task (an offline experiment, not a CI step).

Trains every encoding of train.ENCODINGS with the same data, model size and steps for each seed
(one train.py process per run, at most --jobs at once, one thread each; the runs in CAPTURED also
write their capture and weights with train.py --capture --save-weights), then writes OUT/table2.md
(per encoding: mean and 95% t-interval over seeds; per encoding against RoPE of the same theta:
paired differences with t-intervals, counts and significance marks; convergence of every run),
OUT/table2.json and OUT/table2.csv (raw per-run numbers), OUT/table2_curves.{tsv,svg} (training
loss against step, mean over seeds, drawn by gnuplot) and OUT/runs/ (each run's result.json). With
--captures DIR it also copies the CAPTURED runs' capture, config.json and weights there and writes
rope seed 0's captures at 1x, 2x and 4x the training length with recapture.py: one command makes
everything committed under examples/toy_model/results and captures.

    PYTHONPATH=<ropecheck package dir> OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 nice -n 10 \\
        /usr/bin/python3 examples/toy_model/table2.py --seeds 0 1 2 3 4 --steps 800 --steps-matched 1600 --work /tmp/toy_t2 \\
        --out examples/toy_model/results --captures examples/toy_model/captures

--work is resumable: runs whose result.json exists are not rerun (every run's recorded sha256s and
steps must match the current sources and --steps, else the command stops).
"""

import argparse
import csv
import hashlib
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import task  # noqa: E402
import train  # noqa: E402

TM = train.THETA_MATCHED
# Two-sided 95% Student t quantiles t_{0.975, df} (standard table values, e.g. NIST/SEMATECH
# e-Handbook of Statistical Methods, Section 1.3.6.7.2): the check of t_quantile below.
T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262}
# The two sets: (title, the reference every other encoding is compared with on the same seed, members).
SET_10K = ("nope", "rope", "rope-500k", "p-rope-0.25", "p-rope-0.75", "reversed-0.75", "partial-0.75")
SET_TM = tuple(f"{e}-t{TM}" for e in ("rope", "p-rope-0.25", "p-rope-0.75", "partial-0.75", "reversed-0.75"))
SETS = (("theta 10000", "rope", SET_10K), (f"theta {TM} (matched to Gemma's turns)", f"rope-t{TM}", SET_TM))
ORDER = SET_10K + SET_TM
# Runs that also write a capture (4 'repeats' sequences at 4x) and their weights.
CAPTURED = (("rope", 0), ("p-rope-0.75", 0), (f"rope-t{TM}", 0), (f"p-rope-0.75-t{TM}", 0))
RECAPTURES = ((1, 16), (2, 16), (4, 8))  # rope seed 0: (length multiplier, sequences), each file under 2 MiB
MAX_FILE_BYTES = 2 * 1024 * 1024
# Columns: the training length (1x: both families' 1x sets pooled; they are the same distribution,
# one segment of T/2 tokens and one copy), then each family beyond it.
BEYOND = tuple((fam, m) for fam in task.FAMILIES for m in task.LENGTH_MULTIPLIERS if m > 1)
COLUMNS = ("1x",) + tuple(f"{fam} {m}x" for fam, m in BEYOND)
# Convergence: the mean training loss of the last tenth of the steps against the tenth before it.
CONVERGED_NATS = 0.02  # |change| below this: plateaued
LEARNED_NATS = 1.0  # last tenth's mean below this: the run learned the task (chance ln 128 = 4.85 nats)
# The paper's Table 2 (Barbero et al. 2024, arXiv 2410.06205: Gemma 2B trained from scratch, theta
# 10000, 8k context; validation perplexity Wiki / FlanV2), as src/report/usage_section.cpp quotes it.
PAPER = {"nope": (4.8594, 6.6429), "rope": (4.4627, 6.4429), "rope-500k": (4.4485, 6.4593),
         "reversed-0.75": (4.4592, 6.4683), "partial-0.75": (4.4537, 6.4562), "p-rope-0.25": (4.5302, 6.5111),
         "p-rope-0.75": (4.4414, 6.4422)}


# ---------------------------------------------------------------------------- statistics

def _betacf(a, b, x):
    """Continued fraction of the regularized incomplete beta function (modified Lentz)."""
    tiny, c, d = 1e-300, 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 400):
        for num in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                    -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1.0 + num * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + num / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-15:
            break
    return h


def _betai(a, b, x):
    """Regularized incomplete beta I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1.0 - x) / b


def t_two_sided_p(t, df):
    """P(|T| >= |t|) for Student's t with df degrees of freedom."""
    return _betai(df / 2.0, 0.5, df / (df + t * t))


def t_quantile(p, df):
    """t with P(T <= t) = p (p > 0.5), by bisection on the two-sided tail."""
    lo, hi = 0.0, 1e6
    for _ in range(200):
        mid = (lo + hi) / 2
        if t_two_sided_p(mid, df) > 2 * (1 - p):
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


for _df, _t in T975.items():  # the quantile function against the printed table
    assert abs(t_quantile(0.975, _df) - _t) < 1e-3, (_df, t_quantile(0.975, _df))


def interval(values):
    """(mean, half-width of the 95% t-interval) of a list of at least two values."""
    mean = statistics.fmean(values)
    return mean, t_quantile(0.975, len(values) - 1) * statistics.stdev(values) / len(values) ** 0.5


def paired(a, b):
    """Paired differences a - b (same seeds): mean, 95% half-width, two-sided p, count lower, n."""
    d = [x - y for x, y in zip(a, b)]
    n = len(d)
    mean, sd = statistics.fmean(d), statistics.stdev(d)
    if sd == 0:
        p = 1.0 if mean == 0 else 0.0
    else:
        p = t_two_sided_p(mean / (sd / n ** 0.5), n - 1)
    return {"mean": mean, "half_width": t_quantile(0.975, n - 1) * sd / n ** 0.5, "p": p,
            "lower": sum(x < 0 for x in d), "n": n, "differences": d}


# ---------------------------------------------------------------------------- theta rule

def theta_rule():
    """The theta-matched set's theta, from ropecheck's spectra.

    Gemma (ropecheck's configuration gemma-7b: head_dim 256, theta 10000, context 8192; Gemma 2B, the
    paper's Table 2 model, has the same head_dim, theta and context): the pairs p-RoPE 0.75 removes
    and their turns (radians) over 8192 tokens. The toy (head_dim 32, T = 64): the theta at which its
    removed quarter's turns over T have the same geometric mean; THETA_MATCHED is its nearest integer.
    """
    import ropecheck
    g = ropecheck.spectrum(config="gemma-7b")
    gp = ropecheck.spectrum(config="gemma-7b", p_rope=0.75)
    removed = np.asarray(gp.frequencies) == 0
    gemma = np.asarray(g.frequencies)[removed] * g.context
    gm = math.exp(float(np.mean(np.log(gemma))))
    d, T = 32, 64
    k = np.flatnonzero(np.asarray(ropecheck.spectrum(dim=d, theta=10000, context=T, p_rope=0.75).frequencies) == 0)
    # turns of pair k: T * theta^(-2k/d); geometric mean T * theta^(-2 mean(k)/d) = gm
    derived = (T / gm) ** (d / (2 * float(np.mean(k))))
    toy = {}
    for theta in (10000, TM):
        f = np.asarray(ropecheck.spectrum(dim=d, theta=theta, context=T).frequencies)[k]
        toy[theta] = {str(m): (f * T * m).tolist() for m in task.LENGTH_MULTIPLIERS}
    out = {"gemma": {"config": "gemma-7b", "head_dim": g.dim, "theta": g.theta, "context": g.context,
                     "removed_pairs": int(removed.sum()), "turns_min": float(gemma.min()),
                     "turns_max": float(gemma.max()), "turns_geometric_mean": gm},
           "toy": {"head_dim": d, "train_length": T, "removed_pairs": [int(i) for i in k],
                   "derived_theta": derived, "theta": TM, "turns": {str(t): v for t, v in toy.items()}},
           "rule": "geometric mean of the removed quarter's turns over the training context equal to Gemma's over 8192 tokens; "
                   "theta rounded to the nearest integer"}
    if round(derived) != TM:
        raise SystemExit(f"train.THETA_MATCHED is {TM} but the rule gives {derived:.4f}")
    turns = toy[TM]["1"]
    if not (1 <= min(turns) and max(turns) <= 8):
        raise SystemExit(f"theta {TM}: the removed pairs' turns {turns} leave [1, 8] rad")
    return out


# ---------------------------------------------------------------------------- runs

def run_all(seeds, steps, work, jobs, smoke=False):
    """Runs the missing (encoding, seed) trainings (steps: {encoding: steps}); returns {(encoding, seed): wall seconds}."""
    os.makedirs(work, exist_ok=True)
    pending = [(e, s) for s in seeds for e in ORDER
               if not os.path.exists(os.path.join(work, f"{e}_seed{s}.result.json"))]
    running, walls = [], {}
    while pending or running:
        while pending and len(running) < jobs:
            e, s = pending.pop(0)
            log = open(os.path.join(work, f"{e}_seed{s}.log"), "w")
            cmd = [sys.executable, os.path.join(HERE, "train.py"), "--encoding", e, "--seed", str(s),
                   "--steps", str(steps[e]), "--out", work] + (["--smoke"] if smoke else []) + (["--capture", "--save-weights"] if (e, s) in CAPTURED else [])
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


def log_invocation(work, start, trained, command):
    """Appends this invocation (wall seconds, runs trained) to WORK/invocations.json; returns the list."""
    path = os.path.join(work, "invocations.json")
    done = json.load(open(path)) if os.path.exists(path) else []
    done.append({"started": time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(start)),
                 "wall_seconds": time.time() - start, "runs_trained": trained, "command": command})
    json.dump(done, open(path, "w"), indent=1)
    return done


def wall_of(work, e, s):
    """A run's wall seconds from its sidecar (written when it finished), or None."""
    path = os.path.join(work, f"{e}_seed{s}.wall.json")
    return json.load(open(path))["wall_seconds"] if os.path.exists(path) else None


def convergence(result):
    """The run's last tenth of training against the tenth before (block means of train.BLOCK steps)."""
    blocks = result["block_mean_loss"]
    b, losses, steps = blocks["block"], blocks["mean_loss"], result["steps"]
    if steps % (10 * b) != 0:
        raise SystemExit(f"--steps must be a multiple of {10 * b} for the convergence windows")
    w = steps // 10 // b
    last, before = statistics.fmean(losses[-w:]), statistics.fmean(losses[-2 * w:-w])
    return {"window_steps": steps // 10, "last_tenth": last, "tenth_before": before, "change": last - before,
            "plateaued": abs(last - before) < CONVERGED_NATS, "learned": last < LEARNED_NATS}


def collect(seeds, steps, work, sha):
    """Per-run rows and results, read back from WORK; every run must match --steps and the sources."""
    rows, results = [], {}
    for e in ORDER:
        for s in seeds:
            r = json.load(open(os.path.join(work, f"{e}_seed{s}.result.json")))
            if r["steps"] != steps[e] or r["sha256"] != {f: sha[f] for f in train.FILES}:
                raise SystemExit(f"{work}/{e}_seed{s}.result.json is from other steps or sources: use a fresh --work")
            results[(e, s)] = r
            c = convergence(r)
            row = {"encoding": e, "seed": s, "theta": r["spectrum"]["theta"], "steps": r["steps"],
                   "final_train_loss": r["final_train_loss"], "last_tenth_train_loss": c["last_tenth"],
                   "tenth_before_train_loss": c["tenth_before"], "plateaued": c["plateaued"], "learned": c["learned"],
                   "train_seconds": r["train_seconds"], "wall_seconds": wall_of(work, e, s),
                   "previous_token_layer0_max": max(r["previous_token"][0])}
            h = r["heldout"]
            row["1x_loss"] = statistics.fmean(h[fam]["1"]["loss"] for fam in task.FAMILIES)
            for fam in task.FAMILIES:
                for m in task.LENGTH_MULTIPLIERS:
                    row[f"{fam}_{m}x_loss"] = h[fam][str(m)]["loss"]
                    row[f"{fam}_{m}x_acc"] = h[fam][str(m)]["accuracy"]
            rows.append(row)
    return rows, results


def column_key(col):
    return "1x_loss" if col == "1x" else "{}_{}_loss".format(*col.split(" "))


def comparisons():
    """(encoding, against, set title): each against RoPE of its set's theta, then p-RoPE 0.75 against
    partial and reversed (the paper's claim that p-RoPE beats both)."""
    out = []
    for title, ref, members in SETS:
        sfx = "" if ref == "rope" else f"-t{TM}"
        out += [(e, ref, title) for e in members if e != ref]
        out += [(f"p-rope-0.75{sfx}", f"partial-0.75{sfx}", title), (f"p-rope-0.75{sfx}", f"reversed-0.75{sfx}", title)]
    return out


def analyse(rows, seeds):
    """Per-encoding intervals and the paired comparisons, with Bonferroni over all of them."""
    by = {(r["encoding"], r["seed"]): r for r in rows}
    cells = {e: {c: interval([by[(e, s)][column_key(c)] for s in seeds]) for c in COLUMNS} for e in ORDER}
    comps = []
    for e, ref, title in comparisons():
        for c in COLUMNS:
            k = column_key(c)
            d = paired([by[(e, s)][k] for s in seeds], [by[(ref, s)][k] for s in seeds])
            d.update(encoding=e, against=ref, set=title, column=c)
            comps.append(d)
    m = len(comps)
    for d in comps:
        d["significant"] = abs(d["mean"]) > d["half_width"]  # the 95% interval excludes 0 (uncorrected)
        d["bonferroni"] = d["p"] < 0.05 / m
    return cells, comps


# ---------------------------------------------------------------------------- curves

def curves(results, seeds, out):
    """OUT/table2_curves.tsv (mean block loss over seeds per encoding) and its gnuplot SVG."""
    steps = max(results[(e, seeds[0])]["steps"] for e in ORDER)
    b = results[(ORDER[0], seeds[0])]["block_mean_loss"]["block"]
    mean = {e: np.mean([results[(e, s)]["block_mean_loss"]["mean_loss"] for s in seeds], axis=0) for e in ORDER}
    mean = {e: np.concatenate([v, np.full(steps // b - len(v), np.nan)]) for e, v in mean.items()}  # NaN: a shorter set
    tsv = os.path.join(out, "table2_curves.tsv")
    with open(tsv, "w") as f:
        f.write(f"# mean over seeds {seeds} of the mean training loss (nats) of each block of {b} steps; step = block centre; "
                "NaN: past that encoding's steps\n")
        f.write("step\t" + "\t".join(ORDER) + "\n")
        for i in range(steps // b):
            f.write(f"{i * b + (b - 1) / 2:g}\t" + "\t".join("NaN" if np.isnan(mean[e][i]) else f"{mean[e][i]:.5f}"
                                                          for e in ORDER) + "\n")
    plots = []
    for title, _, members in SETS:
        lines = ", ".join(f'"{tsv}" using 1:{ORDER.index(e) + 2} with lines lw 1.5 title "{e}"' for e in members)
        plots.append(f'set title "training loss, {title} (mean of {len(seeds)} seeds, {b}-step blocks)"\nplot {lines}\n')
    script = ("set terminal svg size 1100,460 font 'sans,11' background '#ffffff'\n"
              f"set output '{os.path.join(out, 'table2_curves.svg')}'\n"
              "set datafile missing 'NaN'\nset multiplot layout 1,2\nset logscale y\nset yrange [0.005:6]\nset xlabel 'step'\n"
              "set ylabel 'loss (nats)'\nset key top right\nset grid\n" + "".join(plots) + "unset multiplot\n")
    subprocess.run(["gnuplot"], input=script, text=True, check=True)


# ---------------------------------------------------------------------------- markdown

def fmt(v, hw):
    return f"{v:.3f} ± {hw:.3f}"


def signed(v):
    return f"{v:+.4f}"


def mark(d):
    return " **" if d["bonferroni"] else " *" if d["significant"] else ""


def significance_words(comps, columns):
    """One sentence per column group: the significant differences, signed, with their marks."""
    out = []
    for col in columns:
        sig = [d for d in comps if d["column"] == col and d["significant"]]
        if not sig:
            out.append(f"{col}: none.")
            continue
        out.append(f"{col}: " + "; ".join(f"{d['encoding']} − {d['against']} {signed(d['mean'])} "
                                          f"({d['lower']}/{d['n']} lower{', Bonferroni' if d['bonferroni'] else ''})"
                                          for d in sig) + ".")
    return out


def claim_verdict(d, paper_sign):
    """A paper's direction (-1: lower loss than the reference) against the paired interval."""
    where = f"{signed(d['mean'])} ± {d['half_width']:.4f} nats, {d['lower']}/{d['n']} seeds lower"
    if not d["significant"]:
        return f"not resolved: the interval includes 0 ({where})"
    agrees = (d["mean"] < 0) == (paper_sign < 0)
    return (f"{'as the paper' if agrees else 'the opposite of the paper'} (significant at 95%"
            f"{', and after Bonferroni' if d['bonferroni'] else ', not after Bonferroni'}; {where})")


def markdown(rows, seeds, cells, comps, meta, conv_fail):
    rule = meta["theta_rule"]
    g, toy = rule["gemma"], rule["toy"]
    n, m = len(seeds), len(comps)
    t_b = t_quantile(1 - 0.05 / (2 * m), n - 1)
    out = ["# Table 2 on the toy induction task", "",
           "Measurements on a toy task (a 2-layer decoder on a synthetic induction task), not a certificate and not the "
           "paper's data or scale.", "",
           f"Command: `{meta['command']}`  ",
           f"torch {meta['environment']['torch']}, BLAS `{meta['environment']['blas']}`, 1 thread per run, "
           f"{meta['jobs']} runs at a time; seeds {seeds} (each seed fixes the initialisation and the batches, the same "
           f"for every encoding); steps per run: " + ", ".join(f"{n} ({t})" for t, n in meta["steps"].items())
           + f" (batch 16, training length {meta['train_length']}); "
           f"{len(rows)} runs, {sum(r['wall_seconds'] or 0 for r in rows):.0f} run-seconds. Wall time of each invocation "
           "over this work directory (a later one only retrains missing runs): " + "; ".join(
               f"{v['started']}: {v['wall_seconds'] / 60:.1f} min, {v['runs_trained']} runs trained"
               + (f" ({v['note']})" if v.get("note") else "") for v in meta["invocations"])
           + ".", "",
           "## The theta-matched set", "",
           f"The quarter of the pairs p-RoPE 0.75 removes, turns over the training context: Gemma (ropecheck `{g['config']}`: "
           f"head_dim {g['head_dim']}, theta {g['theta']}, {g['context']} tokens; Gemma 2B, the paper's Table 2 model, has the "
           f"same) has {g['removed_pairs']} removed pairs turning {g['turns_min']:.2f} to {g['turns_max']:.2f} rad "
           f"(geometric mean {g['turns_geometric_mean']:.3f}). The toy (head_dim 32, T = {toy['train_length']}) removes pairs "
           f"{toy['removed_pairs'][0]}-{toy['removed_pairs'][-1]} of 16: at theta 10000 they turn "
           + ", ".join(f"{x:.3f}" for x in toy["turns"]["10000"]["1"]) + " rad over T (0.064 at most: p-rope-0.75 and rope "
           f"are nearly the same model). Rule: {rule['rule']}: theta = {toy['derived_theta']:.3f}, used {toy['theta']}; its "
           "removed pairs turn " + ", ".join(f"{x:.2f}" for x in toy["turns"][str(toy["theta"])]["1"])
           + f" rad over T (within [1, 8]; " + ", ".join(
               f"{x:.1f}" for x in toy["turns"][str(toy["theta"])]["8"]) + " rad at 8x). Every other pair turns faster.", "",
           "## Convergence", "",
           "Criterion: the mean training loss of the last tenth of the steps (" + ", ".join(
               f"{n // 10} steps at {t}" for t, n in meta["steps"].items()) + ") differs from the "
           f"tenth before by less than {CONVERGED_NATS} nats (plateaued); a run learned the task when that last tenth is "
           f"below {LEARNED_NATS} nats (chance: ln 128 = 4.85). "
           f"{sum(r['plateaued'] for r in rows)}/{len(rows)} runs plateaued; "
           f"{sum(r['learned'] for r in rows)}/{len(rows)} learned; "
           + ("every run that learned plateaued. " if not conv_fail else
              "runs that learned but did not plateau: " + ", ".join(conv_fail) + ". ")
           + "Not learned: " + (", ".join(f"{r['encoding']} seed {r['seed']} ({r['last_tenth_train_loss']:.2f})"
                                           for r in rows if not r["learned"]) or "none") + ". "
           "Per run: the last table below. Training loss against step, mean over seeds: "
           "[table2_curves.svg](table2_curves.svg) (data: [table2_curves.tsv](table2_curves.tsv)).", "",
           "## Held-out loss per encoding", "",
           f"Next-token loss in nats on held-out sequences (masked to the targets after the first copy; task.py), mean ± "
           f"half-width of the 95% Student t-interval over {n} seeds (t with {n - 1} df). 1x is the training length "
           "(16 sequences: both families' 1x sets, the same distribution); beyond it, 8 sequences per cell: **repeats** (a "
           "segment of T/2 tokens repeated: copy distance as in training, only positions grow) and **long** (one segment of "
           "L/2 tokens and one copy: copy distances beyond training). prev L0: the largest, over layer 0's heads, mean "
           "attention from token i to i-1 at 1x.", ""]
    for title, ref, members in SETS:
        out += [f"**{title}**", "", "| encoding | " + " | ".join(COLUMNS) + " | prev L0 |", "|---" * (len(COLUMNS) + 2) + "|"]
        for e in members:
            pt = interval([r["previous_token_layer0_max"] for r in rows if r["encoding"] == e])
            out.append(f"| {e} | " + " | ".join(fmt(*cells[e][c]) for c in COLUMNS) + f" | {pt[0]:.2f} ± {pt[1]:.2f} |")
        out.append("")
    out += ["## Paired differences", "",
            f"Each cell: encoding minus the reference on the same seed, mean ± t_0.975,{n - 1} sd/sqrt({n}) (nats; negative: "
            f"lower loss than the reference), then the number of seeds where it is lower. `*`: the 95% interval excludes 0 "
            f"(significant at 95%, uncorrected); `**`: also significant after Bonferroni over all {m} comparisons in this "
            f"file (two-sided p < 0.05/{m}, |mean| > {t_b:.2f} sd/sqrt({n})).", ""]
    for title, ref, members in SETS:
        mine = [d for d in comps if d["set"] == title]
        out += [f"**{title}**", "", "| encoding − reference | " + " | ".join(COLUMNS) + " |", "|---" * (len(COLUMNS) + 1) + "|"]
        pairs = list(dict.fromkeys((d["encoding"], d["against"]) for d in mine))
        for e, a in pairs:
            ds = {d["column"]: d for d in mine if d["encoding"] == e and d["against"] == a}
            out.append(f"| {e} − {a} | " + " | ".join(
                f"{signed(ds[c]['mean'])} ± {ds[c]['half_width']:.4f} ({ds[c]['lower']}/{n}){mark(ds[c])}" for c in COLUMNS) + " |")
        out.append("")
    n_sig, n_bon = sum(d["significant"] for d in comps), sum(d["bonferroni"] for d in comps)
    out += ["## What is significant", "",
            f"{n_sig} of the {m} paired comparisons are significant at 95% uncorrected ({0.05 * m:.1f} would be expected by "
            f"chance if no encoding differed), {n_bon} after Bonferroni.", ""]
    for title, ref, members in SETS:
        mine = [d for d in comps if d["set"] == title]
        out += [f"**{title}**, at the training length: " + " ".join(significance_words(mine, COLUMNS[:1])), "",
                f"**{title}**, beyond it: " + " ".join(significance_words(mine, COLUMNS[1:])), ""]
    out += ["## Against the paper's Table 2", "",
            "The paper (Gemma 2B trained from scratch, theta 10000, trained and evaluated at 8k tokens; validation "
            "perplexity, Wiki / FlanV2): " + ", ".join(f"{e} {w:.4f} / {f:.4f}" for e, (w, f) in PAPER.items())
            + ". Its Table 2 is at the training length; it makes no claim beyond it. Each claim, here at 1x:", ""]
    for title, ref, members in SETS:
        sfx = "" if ref == "rope" else f"-t{TM}"
        at1 = {(d["encoding"], d["against"]): d for d in comps if d["set"] == title and d["column"] == "1x"}
        best = min((e for e in members if e != "nope"), key=lambda e: cells[e]["1x"][0])
        out += [f"**{title}**", "",
                f"- 0.75-RoPE has the lowest loss (paper: 4.4414 against RoPE's 4.4627 on Wiki): here the lowest 1x mean is "
                f"{best}'s ({cells[best]['1x'][0]:.3f}); p-rope-0.75{sfx} − {ref}: "
                + claim_verdict(at1[(f"p-rope-0.75{sfx}", ref)], -1) + ".",
                f"- 0.25-RoPE is worse than RoPE (paper: 4.5302 against 4.4627): p-rope-0.25{sfx} − {ref}: "
                + claim_verdict(at1[(f"p-rope-0.25{sfx}", ref)], +1) + ".",
                f"- p-RoPE 0.75 beats 0.75 partial (paper: 4.4414 against 4.4537): p-rope-0.75{sfx} − partial-0.75{sfx}: "
                + claim_verdict(at1[(f"p-rope-0.75{sfx}", f"partial-0.75{sfx}")], -1) + ".",
                f"- p-RoPE 0.75 beats 0.75 reversed (paper: 4.4414 against 4.4592): p-rope-0.75{sfx} − reversed-0.75{sfx}: "
                + claim_verdict(at1[(f"p-rope-0.75{sfx}", f"reversed-0.75{sfx}")], -1) + ".", ""]
    keys = (["final_train_loss", "last_tenth_train_loss", "previous_token_layer0_max", "1x_loss"]
            + [f"{f}_{m}x_loss" for f, m in BEYOND] + ["train_seconds", "wall_seconds"])
    out += ["## Per-seed raw numbers", "", "| encoding | seed | " + " | ".join(keys) + " |", "|---" * (len(keys) + 2) + "|"]
    for r in rows:
        out.append(f"| {r['encoding']} | {r['seed']} | " + " | ".join(cell(r[k], k) for k in keys) + " |")
    out += ["", "## Convergence per run", "",
            f"Mean training loss (nats) of the last tenth of the steps and of the tenth before it; plateaued: |change| < "
            f"{CONVERGED_NATS}; learned: last tenth < {LEARNED_NATS}. The relative change is shown too (not the criterion): "
            "near 0 nats a loss still falling by a steady fraction passes an absolute threshold.", "",
            "| encoding | seed | tenth before | last tenth | change | relative | plateaued | learned |", "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        out.append(f"| {r['encoding']} | {r['seed']} | {r['tenth_before_train_loss']:.4f} | {r['last_tenth_train_loss']:.4f} | "
                   f"{r['last_tenth_train_loss'] - r['tenth_before_train_loss']:+.4f} | "
                   f"{r['last_tenth_train_loss'] / r['tenth_before_train_loss'] - 1:+.1%} | {'yes' if r['plateaued'] else 'NO'} | "
                   f"{'yes' if r['learned'] else 'no'} |")
    out += ["", "sha256: " + ", ".join(f"`{k}` {v}" for k, v in meta["sha256"].items()), ""]
    return "\n".join(out)


def cell(value, key):
    """A raw-table cell: losses to 4 decimals, seconds to whole seconds, missing as '-'."""
    if value is None:
        return "-"
    return f"{value:.0f}" if key.endswith("seconds") else f"{value:.4f}"


# ---------------------------------------------------------------------------- captures

def write_captures(work, captures):
    """Copies the CAPTURED runs' files and writes rope seed 0's recaptures; every file under 2 MiB."""
    os.makedirs(captures, exist_ok=True)
    written = []
    for e, s in CAPTURED:
        for x in ("capture.npz", "config.json", "weights.pt"):
            shutil.copyfile(os.path.join(work, f"{e}_seed{s}.{x}"), os.path.join(captures, f"{e}_seed{s}.{x}"))
            written.append(os.path.join(captures, f"{e}_seed{s}.{x}"))
    for mult, seqs in RECAPTURES:
        path = os.path.join(captures, f"rope_seed0.{mult}x.capture.npz")
        subprocess.run([sys.executable, os.path.join(HERE, "recapture.py"), "--dir", captures, "--name", "rope_seed0",
                        "--multiplier", str(mult), "--sequences", str(seqs), "--out", path], check=True)
        written.append(path)
    return written


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    p.add_argument("--steps", type=int, default=train.FULL["steps"], help="steps of the theta 10000 set")
    p.add_argument("--steps-matched", type=int, default=None, help=f"steps of the theta {TM} set (default: --steps)")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--work", required=True, help="directory of the per-run outputs (resumable)")
    p.add_argument("--out", required=True, help="where table2.{md,json,csv}, the curves and runs/ go")
    p.add_argument("--captures", help="where the captures, configs and weights go (examples/toy_model/captures)")
    p.add_argument("--smoke", action="store_true", help="train.py --smoke runs (tiny model): a test of this script only")
    a = p.parse_args()
    if len(a.seeds) < 2:
        raise SystemExit("need at least 2 seeds for an interval")
    start = time.time()
    rule = theta_rule()
    print(json.dumps(rule, indent=1), flush=True)
    files = train.FILES + ("table2.py", "recapture.py")
    sha = {f: hashlib.sha256(open(os.path.join(HERE, f), "rb").read()).hexdigest() for f in files}
    if a.smoke and a.captures:
        raise SystemExit("--smoke writes no captures (recapture.py loads the full-size model)")
    steps = {e: a.steps for e in SET_10K}
    steps.update({e: a.steps_matched or a.steps for e in SET_TM})
    walls = run_all(a.seeds, steps, a.work, a.jobs, a.smoke)
    rows, results = collect(a.seeds, steps, a.work, sha)
    cells, comps = analyse(rows, a.seeds)
    conv_fail = [f"{r['encoding']} seed {r['seed']}" for r in rows if r["learned"] and not r["plateaued"]]
    os.makedirs(os.path.join(a.out, "runs"), exist_ok=True)
    written = []
    for e in ORDER:
        for s in a.seeds:
            for x in ("result.json", "wall.json"):
                src = os.path.join(a.work, f"{e}_seed{s}.{x}")
                if os.path.exists(src):
                    shutil.copyfile(src, os.path.join(a.out, "runs", f"{e}_seed{s}.{x}"))
                    written.append(os.path.join(a.out, "runs", f"{e}_seed{s}.{x}"))
    if a.captures:
        written += write_captures(a.work, a.captures)
    curves(results, a.seeds, a.out)
    niceness = os.nice(0)
    meta = {"command": " ".join(([f"nice -n {niceness}"] if niceness else []) + [sys.executable] + sys.argv), "environment": results[(ORDER[0], a.seeds[0])]["environment"],
            "seeds": a.seeds, "steps": {title.split(" (")[0]: steps[members[0]] for title, _, members in SETS}, "train_length": results[(ORDER[0], a.seeds[0])]["train_length"],
            "total_wall_seconds_this_invocation": time.time() - start, "jobs": a.jobs, "theta_rule": rule,
            "interval": "95% two-sided Student t-interval over seeds: mean ± t_{0.975,n-1} * sd / sqrt(n)",
            "paired": "encoding minus reference on the same seed; significant: the 95% interval excludes 0; "
                      "bonferroni: two-sided p < 0.05 / number of comparisons",
            "convergence": {"converged_nats": CONVERGED_NATS, "learned_nats": LEARNED_NATS,
                            "window": "last tenth of the steps against the tenth before, block means"},
            "sha256": sha}
    for d in comps:
        d["differences"] = [round(x, 6) for x in d["differences"]]
    meta["total_wall_seconds_this_invocation"] = time.time() - start
    meta["invocations"] = log_invocation(a.work, start, len(walls), meta["command"])
    json.dump({"meta": meta, "runs": rows, "cells": {e: {c: list(v) for c, v in cs.items()} for e, cs in cells.items()},
               "paired": comps}, open(os.path.join(a.out, "table2.json"), "w"), indent=1)
    with open(os.path.join(a.out, "table2.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    open(os.path.join(a.out, "table2.md"), "w").write(markdown(rows, a.seeds, cells, comps, meta, conv_fail))
    written += [os.path.join(a.out, f) for f in ("table2.md", "table2.json", "table2.csv", "table2_curves.tsv", "table2_curves.svg")]
    big = [f"{f} ({os.path.getsize(f)} bytes)" for f in written if os.path.getsize(f) > MAX_FILE_BYTES]
    print(open(os.path.join(a.out, "table2.md")).read())
    print(f"total wall {meta['total_wall_seconds_this_invocation']:.0f} s", flush=True)
    if big:
        raise SystemExit("files over 2 MiB: " + ", ".join(big))


if __name__ == "__main__":
    main()
