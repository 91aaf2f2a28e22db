"""The real model's head kinds against chance, Section 5 within layers and the breaking-distance
distribution, as Markdown, from a `ropecheck usage --json` document of the reference capture.

The reference section (reports/real-model/real-model.md) was written by an earlier pipeline whose
head kinds used a fixed 0.5 threshold; this summary is `ropecheck usage` (the library's rule against
chance, issue 42) rerun on the same capture (the capture is deterministic: same model file, texts and
seeds). pipeline.py's section.py writes the same parts into real-model.md on its next full run.

    python3 examples/real_model/chance_summary.py USAGE_JSON "COMMAND" > reports/real-model/against-chance.md
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from typing import Any


def summary(u: dict[str, Any], command: str) -> str:
    rule, null, w, pr, bd = u["kind_rule"], u["null"], u["within_layers"], u["positional_ranking"], u["break_distribution"]
    kinds = Counter(h["kind"] for L in u["layers"] for h in L["heads"])
    out = ["### Head kinds against chance, Section 5 within layers, Theorem 6.1 as a distribution", "",
           f"`{command}` on the reference capture ({u['capture']['sequences']} sequences x {u['capture']['tokens']} tokens, "
           "all four domains, with token ids). Measurements on the captured text, except the breaking distances (certified "
           "for the captured vectors).", "",
           f"**Head kinds** (docs/usage.md, Head kinds): a score (mass at offsets 0-{rule['max_offset']}, on the first token, on "
           f"induction targets) is significant when its mean mass is at least {rule['min_mass']:g} and exceeds {rule['lift']:g} x "
           f"uniform by a one-sided z-test at {rule['alpha']:g} family-wise (Bonferroni over {rule['scores_tested']} scores, "
           f"z > {rule['z_critical']:.2f}); the kind is the largest significant offset or induction score, else `first-token` "
           "when that one is significant, else `other`. Kinds: " + ", ".join(f"{k} {n}" for k, n in sorted(kinds.items()))
           + f" of {sum(kinds.values())} heads. The same rule on a Gaussian capture of the same shapes and per-head RMS (seed "
           f"{null['seed']}): {null['flagged']} of {null['heads']} heads given a kind (one-sided 95% upper bound "
           f"{null['upper95']:.3g}, Clopper-Pearson).", "",
           "| layer | head | kind | mass there [95% over rows] | uniform there | first-token mass |", "|---|---|---|---|---|---|"]
    for L in u["layers"]:
        for h in L["heads"]:
            if h["kind"] in ("diagonal", "previous-token", "offset", "induction"):
                sc = h["scores"]["induction"] if h["kind"] == "induction" else h["scores"]["offsets"][h["kind_offset"]]
                name = h["kind"] + (f" {h['kind_offset']}" if h["kind"] == "offset" else "")
                out.append(f"| {L['layer']} | {h['head']} | {name} | {sc['mass']:.3f} [{sc['interval95'][0]:.3f}, "
                           f"{sc['interval95'][1]:.3f}] | {sc['baseline']:.4f} | {h['scores']['first_token']['mass']:.3f} |")
    out += ["", f"**Section 5.** Across heads, layers pooled: {pr['statement']}. Within layers (layer as a stratum): "
                f"{w['statement']}.", "",
            "| layer | positional heads | other heads | AUC | p (one-sided) |", "|---|---|---|---|---|"]
    for r in w["layers"]:
        out.append(f"| {r['layer']} | {', '.join(map(str, r['positional']))} | {len(r['others'])} | {r['auc']:.3f} | "
                   f"{r['p_value']:.3g} ({r['p_method']}) |")
    q = ", ".join(f"{100 * x['level']:g}% " + (str(x["distance"]) if x["distance"] is not None else "none") for x in bd["quantiles"])
    out += ["", f"**Theorem 6.1 on strong content matches** (a key at least {u['attention']['content_distance']} tokens back "
                f"holding at least {u['attention']['strong_match']:g} of its row, the {u['attention']['break_rows']} strongest per "
                f"content head): {bd['rows']} rows of {bd['heads']} heads; {bd['found']} break at a certified distance "
                f"({bd['found_within_span']} within the trained context), {bd['none']} certified not to break up to {bd['limit']}, "
                f"{bd['undecided']} undecided. Breaking distances over rows: {q}.", ""]
    return "\n".join(out)


if __name__ == "__main__":
    sys.stdout.write(summary(json.load(open(sys.argv[1])), sys.argv[2]))
