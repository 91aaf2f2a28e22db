"""real-model.md and its figures (gnuplot, in the report's own figure style) from the pipeline's results.

Every figure is figures/<name>.csv (the data), .gp (the script: `gnuplot <name>.gp` inside figures/
redraws it), .svg and .png; `ropecheck usage --out`'s attention maps (Fig. 5, 6) are copied in.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from typing import Any

import numpy as np

import heads

PAPER_TABLE2 = ("Gemma 2B, 8k context, validation perplexity (Wiki / FlanV2): RoPE theta 10k 4.4627 / 6.4429, "
                "0.75-RoPE (p-RoPE) 4.4414 / 6.4422, 0.75-RoPE reversed 4.4592 / 6.4683")


def _figure(fig_dir: str, name: str, title: str, header: str, rows: list[list[Any]], xlabel: str, ylabel: str,
            plot: str, settings: str = "") -> None:
    csv = os.path.join(fig_dir, name + ".csv")
    with open(csv, "w") as f:
        f.write(header + "\n")
        for r in rows:
            f.write(",".join(f"{x:.9g}" if isinstance(x, float) else str(x) for x in r) + "\n")

    def script(terminal: str, ext: str) -> str:
        return "\n".join([
            f"# {name}: {title}",
            f"# Written by examples/real_model/section.py; run `gnuplot {name}.gp` in this directory to redraw {name}.svg.",
            "reset session", terminal, f"set output '{name}.{ext}'", "set datafile separator ','",
            "set datafile columnheaders", "set key noautotitle", f"set title '{title}' noenhanced",
            f"set xlabel '{xlabel}' noenhanced", f"set ylabel '{ylabel}' noenhanced", "set grid", settings,
            "plot " + plot.replace("DATA", f"'{name}.csv'"), "unset output", ""])
    with open(os.path.join(fig_dir, name + ".gp"), "w") as f:
        f.write(script("set terminal svg size 900,560 dynamic enhanced font 'Helvetica,13' background rgb 'white'", "svg"))
    png = script("set terminal pngcairo size 900,560 enhanced font 'Helvetica,12' background rgb 'white'", "png")
    for text in (None, png):
        subprocess.run(["gnuplot"] + ([f"{name}.gp"] if text is None else ["-"]), input=text, text=True, cwd=fig_dir,
                       check=True, capture_output=True, timeout=60)


HEAT = ("set view map\nset palette defined (0 '#ffffff', 1 '#fdd49e', 2 '#fc8d59', 3 '#b30000')\n"
        "set cblabel 'mean chunk norm'\n")


def _heat(fig_dir: str, name: str, title: str, matrix: list[list[float]], ylabel: str) -> None:
    rows = [[p, y, float(v)] for y, line in enumerate(matrix) for p, v in enumerate(line)]
    ny, nx = len(matrix), len(matrix[0])
    _figure(fig_dir, name, title, "pair,row,norm", rows, "pair (fastest first)", ylabel, "DATA using 1:2:3 with image notitle",
            HEAT + f"set xrange [-0.5:{nx - 0.5}]\nset yrange [-0.5:{ny - 0.5}]")


def _fmt(x: float | None, digits: int = 3) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


def _table(header: list[str], rows: list[list[Any]]) -> str:
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out) + "\n"


def write(out: str, doc: dict[str, Any], usage: dict[str, Any]) -> None:
    fig = os.path.join(out, "figures")
    os.makedirs(fig, exist_ok=True)
    meta, layers = doc["model"], usage["layers"]
    pairs = usage["pairs"]
    n_pairs = len(pairs)
    # Fig. 3 / 10: q, k, v per layer and pair
    _heat(fig, "real-q-layers", "SmolLM2-135M: mean norm of queries per layer and pair (Fig. 3, 10a)", [L["q_norm"] for L in layers], "layer")
    _heat(fig, "real-k-layers", "SmolLM2-135M: mean norm of keys per layer and pair (Fig. 3, 10b)", [L["k_norm"] for L in layers], "layer")
    _heat(fig, "real-v-layers", "SmolLM2-135M: mean norm of values per layer and channel pair (c, c+32), never rotated (Fig. 10c)",
          doc["values"]["v_norm"], "layer")
    # Fig. 4 / 11: heads of the first and last layers
    for which, L in (("first", layers[0]), ("last", layers[-1])):
        _heat(fig, f"real-heads-{which}", f"SmolLM2-135M layer {L['layer']}: query usage per head and pair (Fig. 4, 11)",
              [h["q_norm"] for h in L["heads"]], "query head")
    # Fig. 5 / 6: the CLI's attention maps of the strongest diagonal and previous-token heads
    copied = []
    usage_fig = os.path.join(out, "usage", "figures")
    for stem in ("usage-attention-diagonal", "usage-attention-previous-token", "usage-attention-diagonal-pairs",
                 "usage-attention-previous-token-pairs"):
        if os.path.exists(os.path.join(usage_fig, stem + ".svg")):
            copied.append(stem)
    # Fig. 7: the semantic head with the strongest content match
    best = None
    for L in layers:
        for h in L["heads"]:
            b = h.get("breaking")
            if b and (best is None or b["weight"] > best[2]["weight"]):
                best = (L["layer"], h, b)
    if best:
        layer, h, b = best
        _figure(fig, "real-semantic-head", f"SmolLM2-135M layer {layer} head {h['head']}: usage per pair of its strongest content match (Fig. 7)",
                "pair,q,k", [[i, float(h["q_norm"][i]), float(h["k_norm"][i])] for i in range(n_pairs)], "pair (fastest first)",
                "mean chunk norm", "DATA using 1:2 with linespoints title 'query', DATA using 1:3 with linespoints title 'key'",
                "set key top left")
    # Fig. 19: domains side by side
    doms = list(doc["per_domain"])
    rows = [[i] + [float(doc["per_domain"][d]["q_norm_by_pair"][i]) for d in doms] for i in range(n_pairs)]
    _figure(fig, "real-domains", "SmolLM2-135M: query usage per pair, mean over layers and heads, per domain (Fig. 19)",
            "pair," + ",".join(doms), rows, "pair (fastest first)", "mean chunk norm",
            ", ".join(f"DATA using 1:{j + 2} with linespoints title '{d}'" for j, d in enumerate(doms)), "set key top left")
    # ablation losses: the model as trained and every (band, mode) measured, per length (NaN where not run)
    abl = doc["ablation"]
    if abl:
        names = [n for n in ABLATION_ORDER if any(n in r["ablations"] for r in abl)]
        rows = []
        for r in abl:
            by_name = {f"{x['band']}-{x['mode']}": x for x in r["rows"]}
            cells: list[Any] = [r["length"], r["as_trained"]["mean"], r["as_trained"]["half_width"] or 0.0]
            for n in names:
                x = by_name.get(n)
                cells += [x["loss"]["mean"], x["loss"]["half_width"] or 0.0] if x else [float("nan"), float("nan")]
            rows.append(cells)
        plots = ["DATA using 1:2:3 with yerrorlines title 'model as trained'"]
        plots += [f"DATA using 1:{4 + 2 * i}:{5 + 2 * i} with yerrorlines title '{_ablation_text(n)}'" for i, n in enumerate(names)]
        _figure(fig, "real-ablation-loss", "SmolLM2-135M: next-token loss with a band ablated, mean and 95% t-interval over sequences",
                "tokens,as_trained,as_trained_hw," + ",".join(f"{n},{n}_hw" for n in names), rows, "tokens", "loss (nats/token)",
                ", ".join(plots), "set logscale x 2\nset offsets graph 0.04, graph 0.04, 0, 0\nset key top left")
    for stem in copied:
        for ext in ("csv", "gp", "svg", "png"):
            src = os.path.join(usage_fig, f"{stem}.{ext}")
            if os.path.exists(src):
                shutil.copy(src, os.path.join(fig, f"real-{stem}.{ext}"))

    md: list[str] = []
    w = md.append
    chk, ctl, pair = doc["check"], doc["control"], doc["weights_pairing"]
    t = doc["timings"]
    w("## A real language model: SmolLM2-135M (measured)\n")
    w(f"The paper's Sections 4-5 on a trained language model: **{meta['name']}** ({meta['package']}, file `{meta['file']}`, "
      f"sha256 `{meta['sha256'][:16]}...`, {meta['license']}; **Q4_1 weights**, dequantized to float32 by transformers), "
      f"{meta['layers']} layers, {meta['heads']} query heads on {meta['kv_heads']} kv heads, head_dim {meta['head_dim']}, "
      f"RoPE theta {meta['theta']:g} and trained context {meta['context']} (both read from the GGUF metadata). "
      f"Every number below is a **measurement on the captured text**, not a certificate, except the breaking distances "
      f"(certified for the captured vectors).\n")
    v = doc["versions"]
    w(f"Command: `{doc['command']}`; torch {v['torch']} (Debian), transformers {v['transformers']}, gguf {v['gguf']}, "
      f"tokenizers {v['tokenizers']}, numpy {v['numpy']}, BLAS `{v['blas']}`, {doc['threads']} threads. Wall time "
      f"{t['total_seconds'] / 60:.1f} min: model load {t['load_seconds']:.0f} s, capture {t['capture_seconds']:.0f} s (the model's forward passes), "
      f"check {t['check_seconds']:.0f} s, `ropecheck usage` {t['usage_seconds']:.0f} s"
      + (f" (peak RSS {doc['usage_run']['peak_rss_mib']:.0f} MiB)" if doc["usage_run"].get("peak_rss_mib") else "")
      + f", per-domain usage {t['usage_per_domain_seconds']:.0f} s, loss ablations {t['ablation_seconds']:.0f} s."
      + (f" `ropecheck usage` alone on the same capture, measured again on a quiet machine ({doc['usage_benchmark']['command']}): "
         f"{doc['usage_benchmark']['seconds']:.0f} s, peak RSS {doc['usage_benchmark']['peak_rss_mib']:.0f} MiB."
         if doc.get("usage_benchmark") else "") + "\n")
    w("### Text\n")
    rows = []
    for d, x in doc["domains"].items():
        p = x["provenance"]
        rows.append([d, f"{x['sequences']} x {x['tokens']}", p.get("source", ""), p.get("licence", p.get("license", ""))])
    w(_table(["domain", "sequences x tokens", "source", "licence"], rows))
    w("\n### The capture, checked against the model itself\n")
    w(f"- **Pairing from the file.** The GGUF file stores q and k rows in ggml's order (pairs of adjacent channels). "
      f"Mapped pair to pair onto transformers' half-split order, the file's dequantized `attn_q`/`attn_k` rows equal transformers' "
      f"`q_proj`/`k_proj` weights bit for bit in {sum(r['paired_equal'] for r in pair['per_tensor'])} of {pair['rows']} tensors "
      f"(without the mapping: {sum(r['unpaired_equal'] for r in pair['per_tensor'])}).\n")
    w(f"- **Attention.** ropecheck's attention computed from the captured pre-rotation q and k with the model's exact RoPE "
      f"(`ropecheck.attention`, binary64) against transformers' own (`output_attentions=True`, eager, float32), every element of "
      f"every row: {chk['heads_checked']} (sequence, layer, head) maps on {len(chk['sequences'])} sequences, "
      f"**{'all within' if chk['passed'] else 'NOT all within'}** the bound derived from float32 error analysis "
      f"(`examples/real_model/check_attention.py`: transformers' float32 angles, cos/sin, rotation, dot product and softmax); "
      + (f"largest |difference| {chk['max_abs_diff']:.3g}, largest difference / bound {chk['max_ratio']:.3g}.\n"
         if chk["heads_checked"] else "nothing checked (--check-sequences 0).\n"))
    if ctl:
        w(f"- **Control.** The same check on {ctl['what']}: {ctl['failed']} of {ctl['heads']} heads fail it (largest |difference| "
          f"{ctl['max_abs_diff']:.3g}, smallest worst ratio {ctl['min_ratio']:.3g}): a wrong pairing cannot pass.\n")
    # Fig. 3
    w("\n### Where the norm sits (Fig. 3, 10)\n")
    shares = [heads.band_shares(L, pairs) for L in layers]
    vshares = [heads.norm_shares(np.array(row), pairs) for row in doc["values"]["v_norm"]]
    rows = [[L["layer"], _fmt(s["fast"]), _fmt(s["middle"]), _fmt(s["slow"]), _fmt(vs["slow"])] for L, s, vs in zip(layers, shares, vshares)]
    w("Share of the layer's query + key pair norm on each band (fast: the 8 fastest pairs, slow: the 8 slowest; "
      "an even spread gives 0.25 / 0.5 / 0.25), and the values' share on the same channel pairs (never rotated: the control).\n\n")
    w(_table(["layer", "fast", "middle", "slow", "values: slow"], rows))
    slow_mean = float(np.mean([s["slow"] for s in shares]))
    w(f"\nMean over layers: slow quarter {slow_mean:.3f}, fast quarter {float(np.mean([s['fast'] for s in shares])):.3f}; "
      f"values' slow-quarter share {float(np.mean([s['slow'] for s in vshares])):.3f}. "
      f"Layers where the slow quarter holds more than a quarter: {sum(s['slow'] > 0.25 for s in shares)} of {len(shares)}.\n")
    w("\n![queries](figures/real-q-layers.svg)\n![keys](figures/real-k-layers.svg)\n![values](figures/real-v-layers.svg)\n")
    w("![first layer](figures/real-heads-first.svg)\n![last layer](figures/real-heads-last.svg)\n")
    # positional heads
    w("\n### Head kinds against chance (Fig. 4-6)\n")
    rule = usage["kind_rule"]
    kinds: dict[str, int] = {}
    for L in layers:
        for h in L["heads"]:
            kinds[h["kind"]] = kinds.get(h["kind"], 0) + 1
    null = usage.get("null")
    null_text = (f"{null['flagged']} of {null['heads']} heads given a kind (rate {null['rate']:.3g}, one-sided 95% upper bound "
                 f"{null['upper95']:.3g}, Clopper-Pearson; {null['repeats']} Gaussian capture(s) of the same shapes and per-head RMS, "
                 f"seed {null['seed']})") if null else "not run"
    w(f"`ropecheck usage` scores every head's attention mass at offsets 0-{rule['max_offset']}, on the first token and on "
      "induction targets (the tokens that followed earlier occurrences of the current token) against uniform causal attention "
      f"on the same keys, over all {usage['capture']['sequences']} x {usage['capture']['tokens'] - 1} rows. A score is significant "
      f"when its mean mass is at least {rule['min_mass']:g} and exceeds {rule['lift']:g} x uniform by a one-sided z-test at "
      f"{rule['alpha']:g} family-wise (Bonferroni over {rule['scores_tested']} scores, z > {rule['z_critical']:.2f}); a head's "
      "kind is its largest significant offset or induction score, else `first-token` if that one is significant (the attention "
      "sink names a head only alone), else `other` (docs/usage.md, Head kinds). Kinds: "
      + ", ".join(f"{k} {n}" for k, n in sorted(kinds.items())) + f" of {sum(kinds.values())} heads. "
      f"The same rule on the Gaussian null: {null_text}.\n\n")
    positional = []
    for L in layers:
        for h in L["heads"]:
            if h["kind"] in ("diagonal", "previous-token", "offset", "induction"):
                sc = h["scores"]["induction"] if h["kind"] == "induction" else h["scores"]["offsets"][h["kind_offset"]]
                positional.append([L["layer"], h["head"], h["kind"] + (f" {h['kind_offset']}" if h["kind"] == "offset" else ""),
                                   f"{sc['mass']:.3f} [{sc['interval95'][0]:.3f}, {sc['interval95'][1]:.3f}]", f"{sc['baseline']:.4f}",
                                   f"{h['scores']['first_token']['mass']:.3f}"])
    if positional:
        w(_table(["layer", "head", "kind", "mass there [95% over rows]", "uniform there", "first-token mass"], positional))
    for stem in copied:
        if not stem.endswith("pairs"):
            w(f"\n![{stem}](figures/real-{stem}.svg)\n")
            if f"{stem}-pairs" in copied:
                w(f"![{stem} pairs](figures/real-{stem}-pairs.svg)\n")
    # Section 5
    s5 = usage["within_layers"]
    w("\n### Section 5: do positional heads use the fastest pairs most, within their layer?\n")
    w(f"Across all heads (layers pooled): {usage['positional_ranking']['statement']}.\n\n")
    w(f"Within layers (`ropecheck usage`, positional = diagonal, previous-token, offset; layer as a stratum): {s5['statement']}.\n\n")
    if s5["layers"]:
        w(_table(["layer", "positional heads", "other heads", "AUC", "p (one-sided)"],
                 [[r["layer"], ", ".join(map(str, r["positional"])), len(r["others"]), _fmt(r["auc"]), f"{r['p_value']:.3g} ({r['p_method']})"]
                  for r in s5["layers"]]))
    # Fig. 7 and Theorem 6.1
    w("\n### Content heads and Theorem 6.1, beside where the model degrades\n")
    bd = usage.get("break_distribution")
    if bd:
        q = ", ".join(f"{100 * x['level']:g}% " + (str(x["distance"]) if x["distance"] is not None else "none") for x in bd["quantiles"])
        w(f"For every strong content match (winning key at least {usage['attention']['content_distance']} tokens back holding at least "
          f"{usage['attention']['strong_match']:g} of its row; the {usage['attention']['break_rows']} strongest per head) of every "
          "content head (`induction`, `other`), the certified shortest distance at which moving that key lets the row's runner-up "
          f"win (`ropecheck usage`, Theorem 6.1): {bd['rows']} rows of {bd['heads']} heads; {bd['found']} break "
          f"({bd['found_within_span']} within the trained context {meta['context']}), {bd['none']} certified not to break up to "
          f"{bd['limit']}, {bd['undecided']} undecided. Breaking distances over rows: {q}.\n\n")
    if abl and abl[-1].get("buckets"):
        last = abl[-1]
        pts = [f"[{b['start']}, {b['stop']}) {b['loss']['mean']:.3f}" for b in last["buckets"] if b["loss"] is not None]
        w(f"Beside them, where the model's measured loss degrades: the as-trained next-token loss by position at {last['length']} "
          f"tokens ({last['length'] / meta['context']:g}x the trained context, {last['sequences']} sequences; the position-bucket "
          "table below): " + "; ".join(pts) + ". " + _trend(last["buckets"]) + " A certified break moves one key of one row with "
          "every other vector fixed, while the loss aggregates every head and row: the breaks say which single content matches "
          "RoPE's rotation would turn away, the loss whether the model as a whole suffers at that distance.\n\n")
    if best:
        layer, h, b = best
        w(f"\nThe strongest content match: layer {layer} head {h['head']} (weight {b['weight']:.3f} on a key {b['key_distance']} back); "
          f"its certified breaking distance: {b['distance'] if b['outcome'] == 'found' else b['outcome']}.\n\n"
          "![semantic head](figures/real-semantic-head.svg)\n")
    # Fig. 19
    w("\n### The same pattern across domains (Fig. 19)\n")
    rows = []
    for d in doms:
        x = doc["per_domain"][d]
        sl = float(np.mean([s["slow"] for s in x["band_shares"]]))
        sim = x["similarity_to_first"]
        rows.append([d, _fmt(sl), f"{sim['correlation']:.4f}", f"{sim['kinds_agree']:.2f}" if sim["kinds_agree"] is not None else "-",
                     ", ".join(f"{k} {n}" for k, n in sorted(x["kinds"].items()))])
    w(_table(["domain", "slow-quarter share (mean over layers)",
              f"per-pair usage vs {doms[0]}: r (ropecheck.compare_usage)", f"heads of the same kind as in {doms[0]}", "head kinds"], rows))
    w("\n![domains](figures/real-domains.svg)\n")
    # ablations
    w("\n### What p-RoPE would change, as loss (inference-time ablations)\n")
    if abl:
        sizes = {b: len(x["pairs"]) for r in abl for x in r["rows"] for b in [x["band"]]}
        w(f"Next-token loss (nats/token) on {abl[0]['domain']} text, mean ± half-width of the 95% Student t-interval over sequences "
          f"(exact for normal per-sequence values, asymptotic otherwise); the differences are paired (the same sequences), ablated "
          f"minus as trained (`ropecheck.torch.ablation_losses`). Bands from the model's own `inv_freq`: "
          + ", ".join(f"{b} {k} pairs" for b, k in sizes.items())
          + ". `position-free`: the band's `inv_freq` entries 0, as p-RoPE 0.75 does for the slow quarter; `removed`: the band's "
          f"channels of every query zeroed, so it adds nothing to any logit. No retraining: the paper's Table 2 trains each "
          f"encoding ({PAPER_TABLE2}); these rows measure what this model, trained with RoPE, loses.\n\n")
        rows = []
        for r in abl:
            first = [r["length"], f"{r['of_context']:g}x", r["sequences"], _ci(r["as_trained"])]
            for i, x in enumerate(r["rows"]):
                rows.append((first if i == 0 else ["", "", "", ""]) + [_ablation_text(f"{x['band']}-{x['mode']}"), _ci(x["loss"]),
                            _ci(x["difference"], signed=True) + (" *" if x.get("significant") else "")])
        w(_table(["tokens", "of context", "sequences", "as trained", "ablation", "loss", "difference"], rows))
        w("\n`*`: the interval of the paired difference excludes 0.")
        cc = doc.get("chunked_vs_eager")
        if any(r.get("attention") == "query-chunked" for r in abl):
            w(" Beyond the trained context the attention is computed in blocks of query rows (transformers' eager "
              "attention would hold about 10 GB per layer at 16384 tokens): the same float32 operations, checked against eager "
              + (f"at {cc['tokens']} tokens (loss difference {cc['difference']:.2g} nats)." if cc else "(not checked in this run)."))
        elif cc:
            w(f" (Blocked attention, used beyond the trained context, checked against eager at {cc['tokens']} tokens: "
              f"loss difference {cc['difference']:.2g} nats.)")
        last = abl[-1]
        used = [i for i, bk in enumerate(last["buckets"]) if bk["loss"] is not None]
        if len(used) > 1:
            w(f"\n\nWhere along the sequence, at {last['length']} tokens: the paired difference over the targets at positions "
              "in [start, stop), per sequence then over sequences.\n\n")
            header = ["", *[f"[{last['buckets'][i]['start']}, {last['buckets'][i]['stop']})" for i in used]]
            brows = [["as trained: loss", *[_ci(last["buckets"][i]["loss"]) for i in used]]]
            for x in last["rows"]:
                brows.append([_ablation_text(f"{x['band']}-{x['mode']}"),
                              *[_ci(x["buckets"][i]["difference"], signed=True) + _star(x["buckets"][i]["difference"]) for i in used]])
            w(_table(header, brows))
        w("\n\n![ablation](figures/real-ablation-loss.svg)\n")
    with open(os.path.join(out, "real-model.md"), "w") as f:
        f.write("\n".join(md))


def _trend(buckets: list[dict[str, Any]]) -> str:
    """The first and last position buckets' as-trained losses compared: do their 95% intervals separate?"""
    used = [b for b in buckets if b["loss"] is not None]
    if len(used) < 2:
        return ""
    a, b = used[0]["loss"], used[-1]["loss"]
    lo_a, hi_a = a["mean"] - (a["half_width"] or 0), a["mean"] + (a["half_width"] or 0)
    lo_b, hi_b = b["mean"] - (b["half_width"] or 0), b["mean"] + (b["half_width"] or 0)
    verdict = ("higher" if lo_b > hi_a else "lower" if hi_b < lo_a else "not separable from")
    return (f"The last bucket's loss ({_ci(b)}) is {verdict} the first's ({_ci(a)}) by their 95% intervals "
            "(unpaired, over sequences).")


def _ci(x: dict[str, Any] | None, signed: bool = False) -> str:
    if x is None:
        return "-"
    m = f"{x['mean']:+.4f}" if signed else f"{x['mean']:.4f}"
    return m if x["half_width"] is None else f"{m} ± {x['half_width']:.4f}"


def _star(x: dict[str, Any] | None) -> str:
    """" *" when the interval x excludes 0."""
    return " *" if x and x["half_width"] is not None and abs(x["mean"]) > x["half_width"] else ""


ABLATION_ORDER = tuple(f"{b}-{m}" for b in ("fast", "middle", "slow") for m in ("still", "removed"))


def _ablation_text(name: str) -> str:
    """"slow-still" -> "slow quarter position-free", "middle-removed" -> "middle half removed"."""
    band, mode = name.split("-")
    return f"{band} {'half' if band == 'middle' else 'quarter'} {'position-free' if mode == 'still' else 'removed'}"
