"""section.md and figures/ of one model's run (ropecheck.lm.measure writes them; the report includes
them as committed): the checks first, then the paper's Sections 4-5 per layer type, the domains and
the loss ablations. Every number is read from run.json and usage.json, nothing is recomputed here."""

from __future__ import annotations

import os
import shutil
from typing import Any, Optional, Sequence

from .._results import number
from ._figures import figure, heat

PAPER_TABLE2 = ("Gemma 2B, 8k context, validation perplexity (Wiki / FlanV2): RoPE theta 10k 4.4627 / 6.4429, "
                "0.75-RoPE (p-RoPE) 4.4414 / 6.4422, 0.75-RoPE reversed 4.4592 / 6.4683")
ORDER = tuple(f"{b}-{m}" for b in ("fast", "middle", "slow") for m in ("still", "removed"))
#: The stages of a run, in the order they run (run.json keeps them sorted by name).
STAGES = ("load", "tokenization", "weights", "capture", "check", "usage", "usage_per_domain", "random_tokens", "summaries",
          "ablations", "head_ablations")


def domains_of(doc: dict[str, Any]) -> list[str]:
    """The run's domains in the order it measured them (the first is the one the others are compared with)."""
    return [d for d in doc["settings"]["domains"] if d in doc["domains"]]


def table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out) + "\n"


def ci(x: Optional[dict[str, Any]], signed: bool = False, digits: int = 4) -> str:
    if x is None:
        return "-"
    m = f"{x['mean']:+.{digits}f}" if signed else f"{x['mean']:.{digits}f}"
    return m if x.get("half_width") is None else f"{m} ± {x['half_width']:.{digits}f}"


def excludes_zero(x: Optional[dict[str, Any]]) -> bool:
    return bool(x and x.get("half_width") is not None and abs(x["mean"]) > x["half_width"])


def star(x: Optional[dict[str, Any]], joint: Optional[dict[str, Any]] = None) -> str:
    """`` **`` when the simultaneous interval excludes 0, `` *`` when only this comparison's does."""
    return " **" if excludes_zero(joint) else " *" if excludes_zero(x) else ""


def geo(g: dict[str, Any], digits: int = 3) -> str:
    """A geometric mean with its interval, and the per-sequence range when the interval is a point."""
    text = f"{g['value']:.{digits}g} [{g['low']:.{digits}g}, {g['high']:.{digits}g}]"
    if g["minimum"] == g["maximum"]:
        return text + f" (every one of {g['n']} sequences)"
    return text + f" (sequences {g['minimum']:.{digits}g}-{g['maximum']:.{digits}g})"


def ablation_text(name: str) -> str:
    """"slow-still" -> "slow quarter position-free", "middle-removed" -> "middle half removed"."""
    band, mode = name.split("-")
    return f"{band} {'half' if band == 'middle' else 'quarter'} {'position-free' if mode == 'still' else 'removed'}"


def _control_of(x: dict[str, Any], controls: Sequence[dict[str, Any]]) -> Optional[dict[str, Any]]:
    """The control (run.json ablations.controls) a random-pair row measures, by its pairs."""
    return next((c for c in controls if c["pairs"] == sorted(x["pairs"])), None)


def row_text(x: dict[str, Any], controls: Sequence[dict[str, Any]]) -> str:
    """An ablation row's label; a control's names the band it is matched to."""
    if x["band"] != "random":
        return ablation_text(f"{x['band']}-{x['mode']}")
    c = _control_of(x, controls)
    of = f"the {c['band']} {'half' if c['band'] == 'middle' else 'quarter'}'s" if c else "no band's"
    return f"control: random pairs {ranges(sorted(x['pairs']))} matched to {of} norm, removed"


def pair_axis(frequencies: Sequence[float], span: Optional[int] = None) -> str:
    """gnuplot settings for a chart over the pairs (fastest first): the x range on the pairs, and
    the band edges (usage/layer_pairs.h's rule: of the rotating pairs, fast the first quarter, slow
    the last) as dashed lines labelled with the bands; the frequencies (rad/token) on the top axis;
    with `span`, a solid line where a pair turns 2 pi over the span (its wavelength equals the span;
    log-interpolated between the two rotating pairs around it)."""
    import math
    rotating = sum(1 for f in frequencies if f > 0)
    quarter = rotating // 4
    lines = [f"set xrange [-0.5:{len(frequencies) - 0.5}]", f"set x2range [-0.5:{len(frequencies) - 0.5}]", "set xtics nomirror"]
    step = max(1, len(frequencies) // 6)
    tics = ", ".join(f"'{frequencies[i]:.2g}' {i}" for i in range(0, len(frequencies), step) if frequencies[i] > 0)
    if tics:
        lines += [f"set x2tics out nomirror font ',8' ({tics})", "set x2label 'frequency, rad/token' font ',9'"]
    if span:
        target = 2 * math.pi / span
        for i in range(len(frequencies) - 1):
            a, b = frequencies[i], frequencies[i + 1]
            if a > 0 and b > 0 and a >= target > b:
                x = i + math.log(a / target) / math.log(a / b)
                lines += [f"set arrow from {x:.3f}, graph 0 to {x:.3f}, graph 1 nohead linewidth 2 linecolor rgb '#1f78b4' front",
                          f"set label 'wavelength = span {span}' at {x:.3f}, graph 0.9 left offset 0.5,0 front textcolor rgb '#1f78b4' "
                          "font ',8'"]
                break
    for edge in sorted({quarter, rotating - quarter}):
        if 0 < edge < len(frequencies):
            lines.append(f"set arrow from {edge - 0.5}, graph 0 to {edge - 0.5}, graph 1 nohead dashtype 2 linecolor rgb '#555555' front")
    for label, at in (("fast", quarter / 2), ("middle", rotating / 2), ("slow", rotating - quarter / 2)):
        lines.append(f"set label '{label}' at {at - 0.5}, graph 0.96 center front textcolor rgb '#555555'")
    return "\n".join(lines)


def _bos_text(f: dict[str, Any], bos: str) -> str:
    """What the measured sequences start with (measure.Settings.bos against the model's own rule)."""
    if bos == "always" and not f["add_bos"]:
        return f"BOS first (id {f['bos_id']}), **forced**: the model's tokenizer does not add it, so these sequences are not its usual input"
    if bos == "never" and f["add_bos"]:
        return "**no BOS**, although the model's tokenizer adds one (id " + str(f["bos_id"]) + "): not its usual input"
    return "BOS first (id " + str(f["bos_id"]) + ")" if f["add_bos"] and bos != "never" else "no BOS"


def ranges(values: Sequence[int]) -> str:
    """[0, 1, 2, 4, 6, 7] -> "0-2, 4, 6-7"."""
    out: list[str] = []
    for v in values:
        if out and out[-1].split("-")[-1] == str(v - 1):
            out[-1] = out[-1].split("-")[0] + f"-{v}"
        else:
            out.append(str(v))
    return ", ".join(out)


def type_title(t: dict[str, Any]) -> str:
    span = f"window {t['window']}" if t["window"] else f"global, span {t['span']}"
    return f"{t['name']} (layers {ranges(t['layers'])}; theta {t['theta']:g}, {span})"


def _intro(doc: dict[str, Any]) -> list[str]:
    f, v, t, p = doc["facts"], doc["versions"], doc["timings"], doc["facts"]["provenance"]
    types = "; ".join(f"{x['name']}: layers {ranges(x['layers'])}, theta {x['theta']:g}, "
                      + (f"sliding window {x['window']}" if x["window"] else "global attention") for x in f["layer_types"])
    lines = [f"## {f['title']} (`{f['name']}`, measured)\n",
             f"The paper's Sections 4-5 on a trained language model: **{f['title']}** ({p['package'] or p['path']}, sha256 "
             f"`{p['sha256'][:16]}...`, {f['licence']}; **{p['weights']}**), family `{f['family']}` ({f['model_type']}), "
             f"{f['layers']} layers, {f['heads']} query heads on {f['kv_heads']} kv heads, head_dim {f['head_dim']}, attention "
             f"scale {f['scale']:g}, trained context {f['context']}, vocabulary {f['vocab']}, "
             + _bos_text(f, doc["settings"].get("bos", "model")) + f". Layer types: {types}."
             + (f" q and k pass through a norm before the rotation ({f['qk_norm']}): the capture is its output." if f["qk_norm"] else "")
             + " Every number below is a **measurement on the captured text**, not a certificate, except the breaking distances "
             "(certified for the captured vectors).\n",
             f"Command: `{doc['command']}`; torch {v['torch']}, transformers {v['transformers']}, gguf {v['gguf']}, sentencepiece "
             f"{v['sentencepiece']}, tokenizers {v['tokenizers']}, numpy {v['numpy']}, {doc['settings']['threads']} threads on "
             f"{v['cpu']}. Wall time {t['total_seconds'] / 60:.1f} min: " + ", ".join(
                 f"{k.replace('_', ' ')} {t[k + '_seconds']:.0f} s" for k in STAGES if k + "_seconds" in t)
             + (f" (`ropecheck usage` peak RSS {doc['usage_run']['peak_rss_mib']:.0f} MiB)" if doc["usage_run"].get("peak_rss_mib") else "")
             + ".\n", "### Text\n"]
    rows = [[d, f"{x['sequences']} x {x['tokens']}", x["provenance"].get("source", ""), x["provenance"].get("licence", "")]
            for d, x in ((d, doc["domains"][d]) for d in domains_of(doc))]
    lines.append(table(["domain", "sequences x tokens", "source", "licence"], rows))
    return lines


def _checks(doc: dict[str, Any]) -> list[str]:
    tok, w, chk, abl = doc["tokenization"], doc["weights"], doc["check"], doc["ablations"]
    out = ["\n### The tokens, the weights and the capture, checked against the model itself\n"]
    if tok.get("check"):
        c = tok["check"]
        out.append(f"- **Tokenization.** The model's ids come from {c['tokenizer']}; against the same rule implemented a second time "
                   f"({c['reference']}) on {c['passages']} raw passages of every domain ({c['characters']} characters): "
                   + (f"the same ids, all {c['tokens']} of them." if c["agree"] else "**they differ**: " + c["statement"]))
        ctl = tok.get("transformers_control") or {}
        if "statement" in ctl:
            out[-1] += (f" Control, {ctl['tokenizer']}, on the same passages: "
                        + ("the same ids." if ctl["agree"] else f"differs on {ctl['passages'] - ctl['agreeing']} of {ctl['passages']} passages "
                           f"({sum(ctl['tokenizer_counts'])} tokens against {ctl['tokens']}); first: {_first(ctl)}."))
        out[-1] += "\n"
    else:
        out.append(f"- **Tokenization.** {tok['tokenizer']}: {tok.get('note', '')}\n")
    if w:
        out.append(f"- **Weights.** {w['statement']}.\n")
    out.append(f"- **Attention.** ropecheck's attention from the captured pre-rotation q and k with the model's exact RoPE "
               f"(`ropecheck.attention`, binary64) against transformers' own (`output_attentions=True`, eager, float32), every "
               f"element of every row: {chk['heads_checked']} (sequence, layer, head) maps on {len(chk['sequences'])} sequences of "
               f"{', '.join(str(s['tokens']) for s in chk['sequences'])} tokens"
               + (f" ({chk['rows_beyond_window']} rows per sliding layer beyond its window)" if chk["rows_beyond_window"] else "")
               + f", **{'all within' if chk['passed'] else 'NOT all within'}** the bound derived from float32 error analysis "
               f"(`ropecheck.lm.check`); largest |difference| {chk['max_abs_difference']:.3g}, largest difference / bound "
               f"{chk['max_ratio']:.3g}.\n")
    c = chk.get("control")
    if c:
        out.append(f"- **Control.** The same check with {c['what']}: {c['failed']} of {c['heads']} heads fail it (largest "
                   f"|difference| {c['max_abs_difference']:.3g}, smallest worst ratio {c['min_ratio']:.3g}).\n")
    a = abl.get("loss_agreement")
    if a:
        out.append(f"- **The fast path.** Losses are measured with attention in blocks through torch's fused kernel "
                   f"(`ropecheck.lm.attention`, {abl['lengths'][0]['attention']}) and the output layer in blocks; against eager "
                   f"on one sequence of {a['tokens']} tokens: loss difference {a['difference']:+.2g} nats (bound {a['bound']:g}).\n")
    return out


def _first(c: dict[str, Any]) -> str:
    d = c.get("first_disagreement")
    if not d:
        return ""
    return (f"passage {d['passage']}, token {d['token']}: {' '.join(repr(p) for p in d['tokenizer_pieces'])} against "
            f"{' '.join(repr(p) for p in d['reference_pieces'])}")


def _layer_type(doc: dict[str, Any], usage: dict[str, Any], t: dict[str, Any], fig: str, stem: str) -> list[str]:
    name = doc["facts"]["name"]
    out = [f"\n### Layer type {type_title(t)}\n", "#### Where the norm sits (Fig. 3, 10)\n"]
    loc = t["location"]
    rows = [[n["layer"], f"{n['shares']['fast']:.3f}", f"{n['shares']['middle']:.3f}", f"{n['shares']['slow']:.3f}",
             f"{n['value_shares']['slow']:.3f}", n["peak_pair"], f"{n['peak_frequency']:.3g}", f"{n['peak_rotation']:.3g}"]
            for n in t["norms"]]
    out.append("Share of the layer's query + key pair norm on each band (an even spread gives 0.25 / 0.5 / 0.25), the values' "
               "share on the same channel pairs (never rotated: the control), and the peak: the pair with the largest q + k norm, "
               f"its frequency (rad/token) and its rotation over the span ({t['span']} tokens: the largest angle it turns between "
               "a query and a key this layer sees).\n\n")
    out.append(table(["layer", "fast", "middle", "slow", "values: slow", "peak pair", "peak rad/token", "peak rad over span"], rows))
    out.append(f"\nOver the type's layers, per sequence then over {loc['slow_share']['n']} sequences (95% t-intervals): slow-quarter "
               f"share {ci(loc['slow_share'], digits=3)}, fast-quarter share {ci(loc['fast_share'], digits=3)}; the peak's rotation "
               f"over the span (median over layers; geometric mean [95%]) {geo(loc['peak_rotation'])} rad, i.e. "
               f"{geo(loc['peak_frequency'])} rad/token.\n")
    layers = [n["layer"] for n in t["norms"]]
    frequencies = [float(p[1]) for p in t["location"]["profile"]]
    axis = pair_axis(frequencies, t["span"])
    qk_max = max(max(max(n["q_norm"]), max(n["k_norm"])) for n in t["norms"])  # queries and keys on one colour scale
    for what, key in (("queries", "q_norm"), ("keys", "k_norm"), ("values", "v_norm")):
        heat(fig, f"{stem}-{what}", f"{name} {t['name']}: mean norm of {what} per layer and pair"
             + (" (values: channel pairs as q and k, never rotated; their own scale)" if key == "v_norm" else " (q and k: one scale)"),
             [n[key] for n in t["norms"]], "layer", layers, settings=axis, cb_max=None if key == "v_norm" else qk_max)
        out.append(f"![{what}](figures/{stem}-{what}.svg)\n")
    by_layer = {L["layer"]: L for L in usage["layers"]}
    for which, layer in (("first", layers[0]), ("last", layers[-1])):
        heads = by_layer[layer]["heads"]
        kv = [next(h for h in heads if h["kv_head"] == g) for g in sorted({h["kv_head"] for h in heads})]
        head_max = max(max(max(h["q_norm"]), max(h["k_norm"])) for h in heads)
        kinds = ", ".join(f"'H{h['head']} {h['kind']}' {h['head']}" for h in heads)
        heat(fig, f"{stem}-heads-{which}", f"{name} layer {layer}: query usage per head and pair (Fig. 4, 11)",
             [h["q_norm"] for h in heads], "query head", settings=axis + f"\nset ytics font ',8' ({kinds})\nset lmargin 18", cb_max=head_max)
        readers = ", ".join(f"'KV{g['kv_head']} (H" + ",".join(str(h["head"]) for h in heads if h["kv_head"] == g["kv_head"]) + f")' {g['kv_head']}"
                            for g in kv)
        heat(fig, f"{stem}-kv-heads-{which}", f"{name} layer {layer}: key usage per kv head and pair (Fig. 4; the queries' scale)",
             [g["k_norm"] for g in kv], "kv head", settings=axis + f"\nset ytics font ',8' ({readers})\nset lmargin 18", cb_max=head_max)
        out.append(f"![{which} layer](figures/{stem}-heads-{which}.svg)\n![{which} layer keys](figures/{stem}-kv-heads-{which}.svg)\n")
    out.append("\n#### Head kinds against chance (Fig. 4-6)\n")
    out.append("Kinds (`ropecheck usage`'s rule, the section below): " + ", ".join(f"{k} {n}" for k, n in sorted(t["kinds"].items()))
               + f" of {sum(t['kinds'].values())} heads.\n\n")
    rows = []
    for layer in layers:
        for h in by_layer[layer]["heads"]:
            if h["kind"] in ("diagonal", "previous-token", "offset", "induction"):
                sc = h["scores"]["induction"] if h["kind"] == "induction" else h["scores"]["offsets"][h["kind_offset"]]
                rows.append([layer, h["head"], h["kind"] + (f" {h['kind_offset']}" if h["kind"] == "offset" else ""),
                             f"{sc['mass']:.3f} [{sc['interval95'][0]:.3f}, {sc['interval95'][1]:.3f}]", f"{sc['baseline']:.4f}",
                             f"{h['scores']['first_token']['mass']:.3f}", f"{h['high_frequency_share']:.3f}"])
    if rows:
        out.append(table(["layer", "head", "kind", "mass there [95% over rows]", "uniform there", "first-token mass",
                          "fast-quarter share"], rows))
    s3 = next((x for x in (usage.get("section3") or {}).get("layer_types", []) if x["layer_type"] == t["name"]), None)
    if s3:
        out.append("\n#### Section 3 on these vectors: the mean logit by distance\n")
        out.append("Per sequence the mean attention logit (before any softcap) over the (row, key) terms at each distance, as "
                   "trained and with every pair held still (content alone), averaged over the type's heads; 95% t-intervals over "
                   "sequences (pointwise). The paper shows no decay on Gaussian vectors; here the difference is the part the "
                   "rotation makes on the model's own q and k.\n\n")
        rows3 = []
        for b in s3["buckets"]:
            if b["logit"]["n"]:
                lo, hi = b["distances"]
                rows3.append([f"{lo}-{hi - 1}" if hi - lo > 1 else str(lo), f"{b['logit']['mean']:.3f}", f"{b['position_free']['mean']:.3f}",
                              f"{b['difference']['mean']:+.3f} [{float(b['difference']['interval'][0]):+.3f}, "
                              f"{float(b['difference']['interval'][1]):+.3f}]"])
        out.append(table(["distance", "logit as trained", "position-free", "difference [95%]"], rows3))
    c = t.get("components")
    if c:
        out.append("\n#### Heads with a positional component, against the position-free null\n")
        out.append(f"The attention the rotation adds at an offset: per sequence, the mean attention there minus the same head's "
                   f"attention with every pair held still (the same q and k, content alone), over sequences with simultaneous "
                   f"intervals (`ropecheck usage`, docs/usage.md). {c['with_component']} of {c['heads']} heads have a positional "
                   f"component at cut {c['cut']:g} (the row rule above gives {sum(n for k, n in t['kinds'].items() if k in ('diagonal', 'previous-token', 'offset'))} "
                   "positional kinds). By cut, heads whose largest effect reaches it [simultaneous interval]:\n\n")
        out.append(table(["cut", "heads", "interval"], [[f"{cut:g}", n, f"[{lo}, {hi}]"] for cut, n, lo, hi in c["curve"]]))
    iv = t.get("interventions")
    out.append("\n#### Section 5: do positional heads use the fastest pairs most?\n")
    if iv:
        out.append("Interventions first, with the positional-component labels: the attention change when the fast quarter is "
                   "removed, then the paper's proxy (the fast quarter's share of the norm).\n\n")
        for key, what in (("across_heads", "Intervention, across heads"), ("within_layers", "Intervention, within layers"),
                          ("within_kv_groups", "Intervention, within kv groups"),
                          ("slow_removed_within_layers", "Slow quarter removed instead (the contrast), within layers"),
                          ("proxy_across_heads", "Proxy, across heads"), ("proxy_within_layers", "Proxy, within layers"),
                          ("proxy_within_kv_groups", "Proxy, within kv groups")):
            test = iv.get(key)
            out.append(f"- {what}: " + (test["statement"] if test else "no stratum with both labels") + ".\n")
        out.append("\nBy the row rule's kinds (the proxy only):\n\n")
    for key, what in (("across_heads", "Across heads"), ("within_layers", "Within layers"), ("within_kv_groups", "Within kv groups")):
        test = t.get(key)
        out.append(f"- {what}: " + (test["statement"] if test else "no stratum with both positional and other heads") + ".\n")
    out.append("\n#### Content heads and Theorem 6.1\n")
    b = t["breaks"]
    q = ", ".join(f"{100 * lv:g}% " + (str(d) if d is not None else "beyond the limit") for lv, d in b["quantiles"])
    what = (f"Every strong content match of the type's content heads (`induction`, `other`; `ropecheck usage`: the key at least "
            f"{usage['attention']['content_distance']} back holding at least {usage['attention']['strong_match']:g} of its row) "
            "and the certified shortest distance at which moving that key lets the row's runner-up win: ")
    if b["rows"]:
        out.append(what + f"{b['rows']} rows of {b['heads']} heads; {b['found']} break ({b['found_within_span']} within the span "
                   f"{t['span']}), {b['none']} certified not to break up to {b['limit']}, {b['undecided']} undecided. Quantiles "
                   f"over rows: {q}.\n")
    else:
        out.append(what + "no strong content match in this capture.\n")
    for key, what in (("breaks_slow_only", "only the slow quarter rotating (every other pair held still)"),
                      ("breaks_slow_still", "the slow quarter held still (p-RoPE 0.75's change)")):
        m = t.get(key)
        if m and m["rows"]:
            mq = ", ".join(f"{100 * lv:g}% " + (str(d) if d is not None else "beyond the limit") for lv, d in m["quantiles"])
            out.append(f"- The same certificate with {what}: {m['found']} of {m['rows']} break ({m['found_within_span']} within the "
                       f"span), {m['none']} certified not to up to {m['limit']}, {m['undecided']} undecided; quantiles {mq}.\n")
    c = t.get("breaks_channel")
    channel = usage.get("break_channel")
    if c and channel:
        eps = float(channel["epsilon"])
        cq = ", ".join(f"{100 * lv:g}% " + (str(d) if d is not None else "beyond the limit") for lv, d in c["quantiles"])
        held = (f"{c['found']} of {c['rows']} fall to {1 - eps:g} or below ({c['found_within_span']} within the span), {c['none']} "
                f"certified to stay above up to {c['limit']}, {c['undecided']} undecided; quantiles {cq}" if c["rows"] else "none does")
        out.append(f"- The theorem's own notion, a channel holding more than 1 - epsilon = {1 - eps:g} of its row (every pair rotating, "
                   f"the row's other keys fixed; their log-sum-exp is measured, with a proved bound on its binary64 error): of the rows "
                   f"whose key holds more than {1 - eps:g} where it is ({c['rows']}; {c['not_held']} do not), {held}.\n")
    s = t.get("semantic_head")
    if s:
        frequencies = [float(p[1]) for p in t["location"]["profile"]]
        figure(fig, f"{stem}-semantic-head", f"{name} layer {s['layer']} head {s['head']} (the strongest content match): "
               "mean q and k norm per pair", "pair,q,k", [[i, float(a), float(c)] for i, (a, c) in enumerate(zip(s["q_norm"], s["k_norm"]))],
               "pair (fastest first)", "mean chunk norm (the pair's two channels)",
               "DATA using 1:2 with linespoints title 'query', DATA using 1:3 with linespoints title 'key'",
               "set key outside right top\n" + pair_axis(frequencies, t["span"]))
        out.append(f"\nThe strongest content match: layer {s['layer']} head {s['head']} ({s['kind']}; weight {s['weight']:.3f} on a key "
                   f"{s['key_distance']} back); its certified breaking distance: "
                   f"{s['distance'] if s['outcome'] == 'found' else s['outcome']}.\n\n![semantic head](figures/{stem}-semantic-head.svg)\n")
    return out


def _semantic_head(usage: dict[str, Any], fig: str, stem: str) -> list[str]:
    """The semantic head by a stated criterion (usage/same_token.h), with its q and k norm per pair."""
    sh = usage.get("semantic_head")
    if not sh:
        return []
    out = ["\n### A semantic head by a stated criterion\n",
           f"The criterion (`ropecheck usage`, `semantic_head`): {sh['rule']}; {sh['family']} heads, each interval at "
           f"{100 * sh['level']:.5g}%. "]
    h = sh["head"]
    tests = [x["same_token"] for L in usage["layers"] for x in L["heads"] if x.get("same_token")]
    above = sum(1 for x in tests if number(x["interval"][0]) > 0)
    if not h:
        out.append(f"No head's interval lies above 0 ({len(tests)} heads tested): on this capture no head attends to earlier copies of "
                   "its own token more than its distance profile does.\n")
        return out
    t = h["test"]
    layer = usage["layers"][h["layer"]]
    head = layer["heads"][h["head"]]
    out.append(f"{above} of {len(tests)} heads pass; the one lying highest is **layer {h['layer']} head {h['head']}** ({head['kind']} by the "
               f"row rule): on {t['rows']} rows of {t['sequences']} sequences it puts {t['mass']:.3f} of its attention on earlier copies of "
               f"the query's token where its distance profile puts {t['expected']:.3f}, an excess of {t['excess']:+.3f} "
               f"[{float(t['interval'][0]):+.3f}, {float(t['interval'][1]):+.3f}]. A measurement on the captured text; the class is one "
               "(the query's own token), so this names a head that matches tokens by content, not the paper's semantic head by "
               "inspection.\n")
    lt = next((x for x in usage["layer_types"] if x["name"] == layer["layer_type"]), None)
    frequencies = [float(p["frequency"]) for p in (lt["pairs"] if lt else usage["pairs"])]
    span = lt.get("span") if lt else None
    name = f"{stem}-semantic-head-by-criterion"
    figure(fig, name, f"layer {h['layer']} head {h['head']} (the semantic-head criterion): mean q and k chunk norm per pair", "pair,q,k",
           [[i, float(a), float(c)] for i, (a, c) in enumerate(zip(head["q_norm"], head["k_norm"]))], "pair (fastest first)",
           "mean chunk norm (the pair's two channels)",
           "DATA using 1:2 with linespoints title 'query', DATA using 1:3 with linespoints title 'key'",
           "set key outside right top\n" + pair_axis(frequencies, span))
    out.append(f"\n![semantic head by criterion](figures/{name}.svg)\n")
    return out


def _classifier(usage: dict[str, Any]) -> list[str]:
    """Section 5's proxy and intervention as classifiers of the positional-component heads."""
    s5 = usage.get("section5")
    if not s5 or not s5.get("share_at_even_spread"):
        return []
    even, share, tv = s5["share_at_even_spread"], s5["share_at_best_cut"], s5.get("fast_removed_at_best_cut")
    n, pos = even["heads"], s5["share"]["positional"]
    text = [f"Labelling the {n} heads by a cut, against the positional-component labels ({pos} heads): the fast quarter's "
           f"share of the q + k norm at an even spread (cut {even['cut']:g}) misclassifies **{even['misclassified']}** heads; "
           f"at its best cut ({share['cut']:.3f}) {share['misclassified']}"]
    if tv:
        text.append(f"; the intervention (the attention change, total variation, when the fast quarter is removed) at its best "
                   f"cut ({tv['cut']:.3f}) {tv['misclassified']}")
    trivial = min(pos, n - pos)
    text.append(f". The baseline: labelling every head alike misclassifies {trivial}. Best cuts are " + s5["best_cut_rule"]
                + ". A measurement on this capture.\n")
    return ["\n### Section 5's proxy as a classifier\n", "".join(text)]


def _random_tokens(doc: dict[str, Any]) -> list[str]:
    """The positional-component test on random-token input, crossed with the text's."""
    r = doc.get("random_tokens")
    if not r:
        return []
    sample = " ".join(r["sample"][:80].replace("`", "'").split())
    out = ["\n### Positional heads: the component on random tokens\n",
           f"The same test on {r['sequences']} sequences of {r['tokens']} uniformly random tokens (seed {r['seed']}; {r['draw']}; "
           f"{r['ids']} ids; the first begins `{sample}`). A head that keeps its component at the same offset "
           "whatever the tokens are is a positional head in the paper's sense; one that loses it needs the text's content "
           "as well as position. Measurements on the two captures, each with its own simultaneous intervals.\n"]
    c = r.get("cross")
    comp = r.get("positional_component")
    if comp:
        out.append("On random tokens alone: " + comp["statement"] + ".\n")
    if not c:
        out.append("No cross: one of the captures has no positional-component test (fewer than 2 sequences).\n")
        return out
    out.append(c["statement"] + ".\n")
    out.append(table(("offset", "heads with a component on text", "of them, kept on random tokens"),
                     [(b["offset"], b["heads"], b["kept"]) for b in c["by_offset"]]))
    lost = [h for h in c["heads"] if not h["kept"]]
    if lost:
        worst = sorted(lost, key=lambda h: -float(h["text_effect"]))[:5]
        out.append("The strongest heads that lose it (layer.head offset: effect on text, on random tokens [interval]): "
                   + "; ".join(f"{h['layer']}.{h['head']} {h['offset']}: {h['text_effect']:.3f}, "
                               + ("no rows" if h["random_effect"] is None else
                                  f"{h['random_effect']:.3f} [{h['random_interval'][0]:.3f}, {h['random_interval'][1]:.3f}]")
                               for h in worst) + ".\n")
    return out


def _domains(doc: dict[str, Any], fig: str, stem: str) -> list[str]:
    out = ["\n### The same pattern across domains (Fig. 19)\n"]
    doms = domains_of(doc)
    rows = []
    for d in doms:
        x = doc["per_domain"][d]
        sim = x["similarity_to_first"]
        cells = [d]
        for t in x["summaries"]:
            cells += [ci(t["location"]["slow_share"], digits=3), geo(t["location"]["peak_rotation"])]
        cells += [f"{sim['correlation']:.4f}", f"{sim['kinds_agree']:.2f}" if sim["kinds_agree"] is not None else "-"]
        rows.append(cells)
    names = [t["name"] for t in doc["per_domain"][doms[0]]["summaries"]]
    header = ["domain"] + [h for n in names for h in (f"{n}: slow share", f"{n}: peak rotation over span")]
    out.append(table(header + [f"per-pair usage vs {doms[0]}: r", f"heads of the same kind as in {doms[0]}"], rows))
    first = doc["per_domain"][doms[0]]["summaries"][0]["location"]["profile"]
    data = [[i] + [float(doc["per_domain"][d]["summaries"][0]["location"]["profile"][i][3]) for d in doms] for i in range(len(first))]
    figure(fig, f"{stem}-domains", f"{doc['facts']['name']} {names[0]}: q + k norm share per pair, mean over layers, per domain",
           "pair," + ",".join(doms), data, "pair (fastest first)", "share of q + k norm",
           ", ".join(f"DATA using 1:{j + 2} with linespoints title '{d}'" for j, d in enumerate(doms)),
           "set key outside right top\n" + pair_axis([float(p[1]) for p in first], doc["per_domain"][doms[0]]["summaries"][0].get("span")))
    out.append(f"\n![domains](figures/{stem}-domains.svg)\n")
    return out


def _ablations(doc: dict[str, Any], fig: str, stem: str) -> list[str]:
    abl = doc["ablations"]["lengths"]
    if not abl:
        return []
    f = doc["facts"]
    out = ["\n### What p-RoPE would change, as loss (inference-time ablations)\n"]
    sizes = {x["band"]: len(x["pairs"]) for r in abl for x in r["rows"] if x["band"] != "random"}
    controls = doc["ablations"].get("controls") or []
    out.append(f"Next-token loss (nats/token) on {abl[0]['domain']} text, mean ± half-width of the 95% Student t-interval over "
               "sequences (exact for normal per-sequence values, asymptotic otherwise); differences paired (the same sequences), "
               "ablated minus as trained (`ropecheck.lm.losses.ablation_losses`). Bands from the model's own frequencies (every "
               "layer type's buffer): " + ", ".join(f"{b} {k} pairs" for b, k in sizes.items()) + ". `position-free`: the band's "
               "frequencies 0, as p-RoPE 0.75 does for the slow quarter; `removed`: the band's channels of every query zeroed where "
               "the rotation reads them. No retraining: the paper's Table 2 trains each encoding (" + PAPER_TABLE2 + "); these rows "
               "measure what this model, trained with RoPE, loses.\n\n")
    rows = []
    sinks = any(r.get("as_trained_first_token_mass") for r in abl)
    for r in abl:
        head = [r["length"], f"{r['of_context']:g}x", r["sequences"], ci(r["as_trained"])]
        if sinks:
            head.append(ci(r.get("as_trained_first_token_mass"), digits=3))
        for i, x in enumerate(r["rows"]):
            row = [row_text(x, controls), ci(x["loss"]),
                   ci(x["difference"], signed=True) + star(x["difference"], x.get("simultaneous"))]
            if sinks:
                row.append(ci(x.get("first_token_difference"), signed=True, digits=3) + star(x.get("first_token_difference")))
            rows.append((head if i == 0 else [""] * len(head)) + row)
    columns = ["tokens", "of context", "sequences", "as trained"] + (["first-token mass"] if sinks else [])
    columns += ["ablation", "loss", "difference"] + (["first-token mass: difference"] if sinks else [])
    out.append(table(columns, rows))
    if controls:
        out.append("\nControls: each band removal is measured beside the removal of as many other rotating pairs, drawn at "
                   "random (seeded, `ropecheck.lm.controls`) and matched to the band's share of the q + k norm (mean over layers): "
                   + "; ".join(f"{c['band']}: pairs {ranges(c['pairs'])}, share {c['share']:.3f} against the band's "
                               f"{c['band_share']:.3f} (" + ("the only set outside the band" if c["distinct"] == 1
                                                              else f"closest of {c['draws']} draws matched by swaps")
                               + ("" if c.get("reached", True) else
                                  f"; out of reach: {len(c['pairs'])} pairs outside the band hold "
                                  f"{c['reachable'][0]:.3f} to {c['reachable'][1]:.3f}") + ")" for c in controls)
                   + ". Where a band's removal costs more than its control's, its frequencies matter beyond the norm removed; "
                   "where the band's share is out of reach, the control removes less (or more) norm and says so.\n")
    if sinks:
        out.append("\nFirst-token mass: the attention weight on the sequence's first token, mean over layers, heads and query "
                   "rows after the first, per sequence, then over sequences (95% t); its difference is paired, ablated minus as "
                   "trained. An ablation whose loss moves with it acts, at least in part, through the first-token sinks.\n")
    family = abl[0].get("comparisons")
    fewest = min(r["sequences"] for r in abl)
    if family is not None:
        out.append(f"\n`*`: the 95% interval of the paired difference excludes 0, for that comparison alone; `**`: so does its "
                   f"simultaneous interval, Bonferroni over the run's {family} paired differences (every row at every length, "
                   f"whole and per position bucket below: each at {100 * abl[0]['simultaneous_level']:.4g}%), so that a `**` "
                   f"stands after the correction for the number of comparisons. The smallest sample is {fewest} sequences "
                   f"({fewest - 1} degree{'s' if fewest != 2 else ''} of freedom).\n")
    else:
        out.append("\n`*`: the interval of the paired difference excludes 0 (this run.json predates the multiplicity "
                   "correction: no simultaneous intervals).\n")
    last = abl[-1]
    used = [i for i, b in enumerate(last["buckets"]) if b["loss"] is not None]
    if len(used) > 1:
        out.append(f"\nWhere along the sequence, at {last['length']} tokens: the paired difference over the targets at positions in "
                   "[start, stop), per sequence then over sequences.\n\n")
        header = [""] + [f"[{last['buckets'][i]['start']}, {last['buckets'][i]['stop']})" for i in used]
        brows = [["as trained: loss"] + [ci(last["buckets"][i]["loss"]) for i in used]]
        for x in last["rows"]:
            brows.append([row_text(x, controls)]
                         + [ci(x["buckets"][i]["difference"], signed=True)
                            + star(x["buckets"][i]["difference"], x["buckets"][i].get("simultaneous")) for i in used])
        out.append(table(header, brows))
    names = [n for n in ORDER if any(n in r["ablations"] for r in abl)]
    data = []
    for r in abl:
        by = {f"{x['band']}-{x['mode']}": x for x in r["rows"]}
        cells: list[Any] = [r["length"]]
        for n in names:
            x = by.get(n)
            cells += [x["difference"]["mean"], x["difference"]["half_width"] or 0.0] if x else [float("nan"), float("nan")]
        data.append(cells)
    plots = [f"DATA using 1:{2 + 2 * i}:{3 + 2 * i} with yerrorlines title '{ablation_text(n)}'" for i, n in enumerate(names)]
    figure(fig, f"{stem}-ablation", f"{f['name']}: paired loss difference, ablated minus as trained (95% t-intervals)",
           "tokens," + ",".join(f"{n},{n}_hw" for n in names), data, "tokens", "loss difference (nats/token)", ", ".join(plots),
           "set logscale x 2\nset offsets graph 0.04, graph 0.04, 0, 0\nset key top left")
    out.append(f"\n![ablation](figures/{stem}-ablation.svg)\n")
    for r in abl:
        name = f"{stem}-ablation-{r['length']}"
        figure(fig, name, f"{f['name']}, {r['length']} tokens, {r['sequences']} sequences: ablated minus as trained (95% t; "
               "controls grey)", "ablation,difference,half_width,colour",
               [[_bar_label(x, controls), x["difference"]["mean"], x["difference"]["half_width"] or 0.0,
                 0x999999 if x["band"] == "random" else 0x4a7ab5] for x in r["rows"]],
               "ablation", "paired loss difference (nats/token)",
               "DATA using 0:2:3:4:xtic(1) with boxerrorbars lc rgb variable",
               "set boxwidth 0.7\nset style fill solid 0.45\nset xtics rotate by -30 noenhanced\nset xzeroaxis lw 1.5\n"
               "set offsets 0.5, 0.5, 0, 0")
        out.append(f"\n![ablation at {r['length']} tokens](figures/{name}.svg)\n")
    return out


def _bar_label(x: dict[str, Any], controls: Sequence[dict[str, Any]]) -> str:
    """A short label for an ablation row (no commas: a csv field): "slow position-free", "control (slow)"."""
    if x["band"] != "random":
        return f"{x['band']} {'position-free' if x['mode'] == 'still' else 'removed'}"
    c = _control_of(x, controls)
    return f"control ({c['band']})" if c else "control"


def _head_ablations(doc: dict[str, Any]) -> list[str]:
    """What the positional heads are for: the head sets mean-ablated, per domain, beside their controls."""
    h = doc.get("head_ablations")
    if not h or not (h.get("domains") or h.get("notes")):
        return []
    out = ["\n### What the positional heads are for (head ablations)\n"]
    sizes = ", ".join(f"{x['name']} {len(x['heads'])} heads" for x in h["sets"])
    out.append("Next-token loss (nats/token) on the captured sequences of each domain with a set of heads **mean-ablated** "
               "(each head's output replaced at every position by its mean over those sequences as trained, "
               "`ropecheck.lm.heads`), paired against the model as trained, mean ± 95% t half-width over sequences. Sets "
               "from this run's usage: the heads with a positional component (against the position-free null), the "
               "first-token heads, each beside a random control of as many other heads in each of the same layers "
               f"(seeded): {sizes or 'none'}. Where a set costs more than its control, those heads matter beyond their "
               "number.\n\n")
    rows = []
    domains = h.get("domains") or {}
    for d, r in domains.items():
        head = [d, r["sequences"], ci(r["as_trained"])]
        for i, x in enumerate(r["rows"]):
            rows.append((head if i == 0 else ["", "", ""]) + [x["name"], len(x["heads"]), ci(x["loss"]),
                                                               ci(x["difference"], signed=True) + star(x["difference"], x["simultaneous"])])
    if rows:
        out.append(table(["domain", "sequences", "as trained", "heads ablated", "heads", "loss", "difference"], rows))
        first = next(iter(domains.values()))
        out.append(f"\n`*`: the 95% interval of the difference excludes 0 for that comparison alone; `**`: so does its "
                   f"simultaneous interval (Bonferroni over the {first['comparisons']} set-domain comparisons).\n")
    for note in h.get("notes") or []:
        out.append(f"\n{note}.\n")
    return out


def write(out: str, doc: dict[str, Any], usage: dict[str, Any], usage_figures: Optional[str] = None) -> None:
    """section.md and figures/ under `out` from the run's document and its usage JSON (usage_figures:
    ``ropecheck usage --out``'s figures, whose attention maps are copied in)."""
    fig = os.path.join(out, "figures")
    os.makedirs(fig, exist_ok=True)
    stem = doc["facts"]["name"]
    md = _intro(doc) + _checks(doc)
    null = usage.get("null")
    rule = usage["kind_rule"]
    md.append("\n### How heads are given a kind\n")
    md.append(f"`ropecheck usage` scores every head's attention mass at offsets 0-{rule['max_offset']}, on the first token and on "
              "induction targets against uniform attention over the same visible keys, over all rows of the capture; a score is "
              f"significant when its mean mass is at least {rule['min_mass']:g} and exceeds {rule['lift']:g} x uniform by a "
              f"one-sided z-test at {rule['alpha']:g} family-wise (Bonferroni over {rule['scores_tested']} scores, z > "
              f"{rule['z_critical']:.2f}); a head's kind is its largest significant offset or induction score, else `first-token` "
              "if that is significant, else `other` (docs/usage.md, Head kinds). The same rule on the Gaussian null: "
              + (f"{null['flagged']} of {null['heads']} heads given a kind (one-sided 95% upper bound {null['upper95']:.3g}, "
                 f"{null['repeats']} capture(s), seed {null['seed']})" if null else "not run") + ".\n")
    comp = usage.get("positional_component")
    if comp:
        md.append("\n### Heads with a positional component, against the position-free null\n")
        md.append(comp["statement"] + ". By cut, heads whose largest effect reaches it [simultaneous interval]: "
                  + ", ".join(f"{c['cut']:g}: {c['heads']} [{c['interval'][0]}, {c['interval'][1]}]" for c in comp["curve"])
                  + ". The row rule's kinds above are kept for comparison; this test is the one that subtracts what content alone "
                  "puts at an offset.\n")
    md += _random_tokens(doc)
    md += _classifier(usage)
    e = usage.get("appendix_e")
    if e:
        md.append("\n### Which pairs carry the logit (Appendix E)\n")
        md.append(e["statement"] + ".\n")
    md += _semantic_head(usage, fig, stem)
    for t in doc["layer_types"]:
        md += _layer_type(doc, usage, t, fig, f"{stem}-{t['name']}")
    copied = []
    for s in ("usage-attention-diagonal", "usage-attention-previous-token"):
        for suffix in ("", "-pairs"):
            src = os.path.join(usage_figures or "", f"{s}{suffix}.svg")
            if usage_figures and os.path.exists(src):
                for ext in ("csv", "gp", "svg", "png"):
                    p = os.path.join(usage_figures, f"{s}{suffix}.{ext}")
                    if os.path.exists(p):
                        shutil.copy(p, os.path.join(fig, f"{stem}-{s}{suffix}.{ext}"))
            if os.path.exists(os.path.join(fig, f"{stem}-{s}{suffix}.svg")):  # copied now, or by the run being rendered again
                copied.append(f"{stem}-{s}{suffix}")
    if copied:
        md.append("\n### The strongest positional heads' attention (Fig. 5, 6)\n")
        md += [f"![{c}](figures/{c}.svg)\n" for c in copied]
    md += _domains(doc, fig, stem) + _ablations(doc, fig, stem) + _head_ablations(doc)
    with open(os.path.join(out, "section.md"), "w") as fh:
        fh.write("\n".join(md))


def render(run_dir: str) -> None:
    """Writes section.md and figures/ of a run directory again from its run.json and usage.json
    (the attention maps ``ropecheck usage`` drew are kept as they are): a change of the text or
    of a figure, without measuring again."""
    import json
    with open(os.path.join(run_dir, "run.json")) as f:
        doc = json.load(f)
    with open(os.path.join(run_dir, "usage.json")) as f:
        usage = json.load(f)
    write(run_dir, doc, usage)
