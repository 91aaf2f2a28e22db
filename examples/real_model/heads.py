"""Summaries of the real model's pairs beyond `ropecheck usage`'s own output: band shares of the
layers' query + key norm, per-domain pair usage (Fig. 19; the similarity itself is
ropecheck.compare_usage's) and the values' pair norms (Fig. 10c's control). Head kinds, Section 5
within layers and the breaking distances are the library's (`ropecheck usage`). Every number is a
measurement on the captured text.
"""

from __future__ import annotations

from typing import Any

import numpy as np


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
