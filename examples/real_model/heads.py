"""Summaries of the real model's heads and pairs beyond `ropecheck usage`'s own table.

- slash profiles (Cheng et al. 2026's slash score; Fig. 5's heads): per head, the mean attention on
  the key `delta` tokens back, delta = 0..MAX_OFFSET, over rows i >= max(delta, 1), beside the same
  mean under uniform causal attention (1/(i+1)); a head is positional at offset delta when that mean
  is at least usage's threshold 0.5 (docs/usage.md: the rule `ropecheck usage` applies at delta 0, 1);
- Section 5 within layers: does a positional head have a larger fast-quarter share than the other
  heads of its own layer? Per layer the Mann-Whitney U with its exact permutation p-value (every
  split of the layer's heads), and pooled with layer as a stratum (the sum of the layers' U, its
  exact null distribution by convolution of the layers' own);
- per-domain pair usage (Fig. 19) and the values' pair norms (Fig. 10c's control).
Every number is a measurement on the captured text.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

MAX_OFFSET = 16
THRESHOLD = 0.5  # usage.h's kKindThreshold


def slash_profiles(maps: dict[int, np.ndarray]) -> list[dict[str, Any]]:
    """maps: layer -> [heads, tokens, tokens] attention of one sequence. One row per (layer, head)."""
    rows = []
    for layer in sorted(maps):
        a = maps[layer]
        t = a.shape[-1]
        for h in range(a.shape[0]):
            profile, uniform = [], []
            for delta in range(MAX_OFFSET + 1):
                i = np.arange(max(delta, 1), t)
                profile.append(float(a[h, i, i - delta].mean()))
                uniform.append(float((1.0 / (i + 1)).mean()))
            i = np.arange(1, t)
            rows.append({"layer": layer, "head": h, "offsets": profile, "uniform": uniform,
                         "first_token": float(a[h, i, 0].mean())})
    return rows


def mean_profiles(per_domain: dict[str, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """The slash profiles averaged over domains (one sequence each), with the positional offset found."""
    domains = list(per_domain)
    out = []
    for idx, row in enumerate(per_domain[domains[0]]):
        prof = np.mean([per_domain[d][idx]["offsets"] for d in domains], axis=0)
        first = float(np.mean([per_domain[d][idx]["first_token"] for d in domains]))
        best = int(np.argmax(prof))
        out.append({"layer": row["layer"], "head": row["head"], "offsets": prof.tolist(), "uniform": row["uniform"],
                    "first_token": first, "top_offset": best, "top_mass": float(prof[best]),
                    "positional_offset": best if prof[best] >= THRESHOLD else None,
                    "per_domain_top_mass": {d: float(per_domain[d][idx]["offsets"][best]) for d in domains}})
    return out


def _u_statistic(pos: list[float], other: list[float]) -> float:
    return sum(1.0 if p > o else 0.5 if p == o else 0.0 for p in pos for o in other)


def _null_2u(shares: list[float], n_pos: int) -> dict[int, int]:
    """Exact null distribution of 2U: every way of choosing n_pos of the layer's heads as positional."""
    dist: dict[int, int] = {}
    idx = range(len(shares))
    for chosen in itertools.combinations(idx, n_pos):
        s = set(chosen)
        u = _u_statistic([shares[i] for i in chosen], [shares[i] for i in idx if i not in s])
        dist[int(round(2 * u))] = dist.get(int(round(2 * u)), 0) + 1
    return dist


def section5_within_layers(usage: dict[str, Any], positional_extra: set[tuple[int, int]] | None = None) -> dict[str, Any]:
    """Per layer and pooled: do positional heads have the larger fast-quarter share within their layer?"""
    extra = positional_extra or set()
    layers, pooled = [], {0: 1}
    observed_total = 0
    for L in usage["layers"]:
        heads = [h for h in L["heads"] if h.get("high_frequency_share") is not None]
        shares = [h["high_frequency_share"] for h in heads]
        flags = [h["kind"] in ("diagonal", "previous-token") or (L["layer"], h["head"]) in extra for h in heads]
        n_pos = sum(flags)
        if n_pos == 0 or n_pos == len(heads):
            continue
        pos = [s for s, f in zip(shares, flags) if f]
        other = [s for s, f in zip(shares, flags) if not f]
        u = _u_statistic(pos, other)
        null = _null_2u(shares, n_pos)
        total = sum(null.values())
        p = sum(c for v, c in null.items() if v >= round(2 * u)) / total
        layers.append({"layer": L["layer"], "positional": n_pos, "other": len(other), "auc": u / (n_pos * len(other)),
                       "p_value": p, "splits": total,
                       "positional_heads": [h["head"] for h, f in zip(heads, flags) if f]})
        observed_total += int(round(2 * u))
        conv: dict[int, int] = {}
        for a, ca in pooled.items():
            for b, cb in null.items():
                conv[a + b] = conv.get(a + b, 0) + ca * cb
        pooled = conv
    if not layers:
        return {"layers": [], "pooled": None, "statement": "no layer has both positional and other heads"}
    total = sum(pooled.values())
    p = sum(c for v, c in pooled.items() if v >= observed_total) / total
    n_pairs = sum(r["positional"] * r["other"] for r in layers)
    auc = observed_total / 2 / n_pairs
    return {"layers": layers, "pooled": {"auc": auc, "p_value": p, "layers": len(layers), "pairs": n_pairs,
                                         "method": "exact: the layers' permutation distributions of U convolved"},
            "statement": f"within {len(layers)} layers that have both kinds: pooled AUC {auc:.3f} over {n_pairs} "
                         f"(positional, other) pairs, one-sided exact p = {p:.3g}"}


def band_shares(usage_layer: dict[str, Any], pairs: list[dict[str, Any]]) -> dict[str, float]:
    """Share of the layer's q + k pair norm on each band."""
    return norm_shares(np.array(usage_layer["q_norm"]) + np.array(usage_layer["k_norm"]), pairs)


def norm_shares(tot: np.ndarray, pairs: list[dict[str, Any]]) -> dict[str, float]:
    """Share of a per-pair norm vector on each band (pairs: usage.json's, in the same order)."""
    out = {}
    for band in ("fast", "middle", "slow"):
        m = np.array([p["band"] == band for p in pairs])
        out[band] = float(tot[m].sum() / tot.sum()) if tot.sum() > 0 else 0.0
    return out


def domain_summary(usage: dict[str, Any]) -> dict[str, Any]:
    """Per domain: pair usage averaged over layers (Fig. 19), band shares per layer, head kinds."""
    pairs = usage["pairs"]
    q = np.mean([L["q_norm"] for L in usage["layers"]], axis=0)
    k = np.mean([L["k_norm"] for L in usage["layers"]], axis=0)
    kinds: dict[str, int] = {}
    for L in usage["layers"]:
        for h in L["heads"]:
            kinds[h["kind"]] = kinds.get(h["kind"], 0) + 1
    return {"q_norm_by_pair": q.tolist(), "k_norm_by_pair": k.tolist(),
            "band_shares": [band_shares(L, pairs) for L in usage["layers"]], "kinds": kinds,
            "heads": [[h["kind"] for h in L["heads"]] for L in usage["layers"]]}


def value_norms(v: np.ndarray) -> dict[str, Any]:
    """Values' pair norms (channels c, c + d/2, as q and k are paired), per layer: mean over sequences,
    kv heads and tokens. Values are never rotated: the control for Fig. 10."""
    h = v.shape[-1] // 2
    per_layer = []
    for layer in range(v.shape[1]):
        x = v[:, layer].astype(np.float64)
        per_layer.append(np.sqrt(x[..., :h] ** 2 + x[..., h:] ** 2).mean(axis=(0, 1, 2)).tolist())
    return {"v_norm": per_layer}
