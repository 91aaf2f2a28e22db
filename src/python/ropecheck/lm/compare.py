"""Models side by side on a common axis: where each layer type's high-norm band sits, as an absolute
frequency (radians per token) and as the rotation it makes over the span the layer attends over (its
sliding window, or the trained context), with intervals across sequences; beside them the paper's own
numbers (Gemma 7B, Appendix E.1; Llama 3.1 8B, Appendix C), which are statements of the paper, not
measurements here.

The question it puts to the data: do trained models place their band at a fixed absolute frequency,
or at a fixed rotation over their span? If the first, the peaks' frequencies agree across layer types
whose spans differ; if the second, their rotations do. With a handful of (model, layer type) points
this is a measurement, not a law: the table gives each point's interval and the spread of both.
"""

from __future__ import annotations

import math
import os
from typing import Any, Sequence

from ._figures import figure
from .section import ci, geo, table

#: The paper's statements on the common axis, each with where it says so; computed from the paper's
#: own formula g_k = theta^(-2(k-1)/d) (proofs/ledger.json checks the paper's arithmetic).
PAPER = (
    {"model": "Gemma 7B (paper)", "layer_type": "all", "span": 8192,
     "frequency": 10000 ** (-236 / 256), "rotation": 10000 ** (-236 / 256) * 8192,
     "what": "the apostrophe head's semantic channel, pair 119 of 128 (Appendix E.1: g_119 = 10000^(-2*118/256) ~ 0.0002, "
             "'1.64 rad' over 8000 tokens); Fig. 3: most q and k norm on the lowest frequencies at every layer"},
    {"model": "Llama 3.1 8B (paper)", "layer_type": "all", "span": 131072,
     "frequency": 500000 ** (-40 / 64), "rotation": 500000 ** (-40 / 64) * 131072,
     "what": "the start of the high-norm bands as Appendix C writes it, 500000^(-40/64) (= 2.74e-4, which the paper rounds to "
             "'0.0001': ledger appC-llama-band-start; with llama3 scaling that pair turns 8x slower)"},
)


def points(runs: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """One point per (model, layer type) of the runs (run.json documents)."""
    out = []
    for doc in runs:
        for t in doc["layer_types"]:
            loc = t["location"]
            out.append({"model": doc["facts"]["name"], "layer_type": t["name"], "span": t["span"], "theta": t["theta"],
                        "peak_pairs": loc["peak_pairs"], "pairs": t["pairs"], "frequency": loc["peak_frequency"],
                        "rotation": loc["peak_rotation"], "slow_share": loc["slow_share"], "fast_share": loc["fast_share"],
                        "profile": loc["profile"]})
    return out


def spread(values: Sequence[float]) -> float:
    """Orders of magnitude between the largest and the smallest of positive values."""
    return math.log10(max(values) / min(values)) if values else 0.0


def write(out: str, runs: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """comparison.md, comparison.json's content (returned) and figures/comparison-*.{csv,gp,svg,png} under `out`."""
    fig = os.path.join(out, "figures")
    os.makedirs(fig, exist_ok=True)
    pts = points(runs)
    f_spread = spread([p["frequency"]["value"] for p in pts])
    r_spread = spread([p["rotation"]["value"] for p in pts])
    md = ["## Across models: where the high-norm band sits (measured)\n",
          "Each layer type's peak (the pair with the largest q + k norm, median over the type's layers, per sequence; geometric "
          "mean and 95% interval over sequences) as a frequency and as its rotation over the type's span (the sliding window, or "
          "the trained context), with the slow quarter's share of q + k norm. The paper's rows are its statements, not "
          "measurements here.\n\n"]
    rows = []
    for p in pts:
        rows.append([f"`{p['model']}`", p["layer_type"], f"{p['theta']:g}", p["span"],
                     f"{min(p['peak_pairs'])}-{max(p['peak_pairs'])} of {p['pairs']}", geo(p["frequency"]), geo(p["rotation"]),
                     ci(p["slow_share"], digits=3), ci(p["fast_share"], digits=3)])
    for p in PAPER:
        rows.append([p["model"], p["layer_type"], "", p["span"], "", f"{p['frequency']:.3g}", f"{p['rotation']:.3g}", "", ""])
    md.append(table(["model", "layer type", "theta", "span", "peak pairs (layers)", "peak rad/token", "peak rad over span",
                     "slow-quarter share", "fast-quarter share"], rows))
    md.append("\n" + "\n".join(f"- {p['model']}: {p['what']}." for p in PAPER) + "\n")
    if len(pts) > 1:
        closer = "rotation over the span" if r_spread < f_spread else "absolute frequency"
        md.append(f"\nOver the {len(pts)} measured (model, layer type) points, the peaks' frequencies span {f_spread:.2f} orders of "
                  f"magnitude and their rotations over the span {r_spread:.2f}: by this count the band sits nearer a fixed {closer}. "
                  f"{len(pts)} points from {len(runs)} model(s) are a measurement of these models, not a law.")
        if len(pts) > 2:
            md.append(" Each point left out in turn (frequency / rotation spread, decades): " + "; ".join(
                f"without `{p['model']}` {p['layer_type']} {spread([o['frequency']['value'] for o in pts if o is not p]):.2f} / "
                f"{spread([o['rotation']['value'] for o in pts if o is not p]):.2f}" for p in pts) + ".")
        md.append("\n")
    data, plots, col = [], [], 2
    longest = max(len(p["profile"]) for p in pts)
    for i in range(longest):
        row: list[Any] = [i]
        for p in pts:
            prof = p["profile"]
            row += [prof[i][2], prof[i][3] * len(prof)] if i < len(prof) else [float("nan"), float("nan")]
        data.append(row)
    for p in pts:
        plots.append(f"DATA using {col}:{col + 1} with lines lw 2 title '{p['model']} {p['layer_type'].replace('_', ' ')}'")
        col += 2
    g7 = PAPER[0]["rotation"]
    figure(fig, "comparison-rotation", "each pair's q + k norm against its rotation over the layer type's span",
           "pair," + ",".join(f"{p['model']}-{p['layer_type']}-rotation,{p['model']}-{p['layer_type']}-share" for p in pts), data,
           "rotation over the span (rad, log scale; dashed: Gemma 7B's semantic channel in the paper)",
           "q + k norm per pair over an even spread (1: even; mean over layers)", ", ".join(plots),
           f"set logscale x\nset arrow from {g7:.6g}, graph 0 to {g7:.6g}, graph 1 nohead dt 2 lc rgb 'black'\nset key top left")
    md.append("\n![rotation over the span](figures/comparison-rotation.svg)\n")
    with open(os.path.join(out, "comparison.md"), "w") as fh:
        fh.write("\n".join(md))
    return {"points": [{k: v for k, v in p.items() if k != "profile"} for p in pts], "paper": list(PAPER),
            "frequency_spread_decades": f_spread, "rotation_spread_decades": r_spread}
