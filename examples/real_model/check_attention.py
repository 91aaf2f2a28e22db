"""The capture proved right: ropecheck's attention from the captured q and k equals the model's own.

For every layer, query head, query row i and key j <= i of a sequence, ropecheck's causal softmax
attention (``ropecheck.attention``: the captured pre-rotation q and k, the model's exact RoPE from
its config, binary64) is compared with the probabilities transformers returns
(``output_attentions=True``, eager attention, float32). They must agree within a bound derived
below from float32 error analysis of transformers' computation, element by element. A wrong
channel pairing (the GGUF q/k row permutation not undone, or undone twice) moves probabilities by
O(1) and fails it; ``permuted_control`` shows that on the same data.

Error analysis (u = 2^-24, the unit roundoff of float32; transformers 4.46 LlamaRotaryEmbedding,
apply_rotary_pos_emb and LlamaAttention's eager path, read from its source):

1. Angles. transformers forms the angle of pair p at position m as fl(w'_p * fl(m)), one float32
   product (a K = 1 matmul), with w'_p its float32 ``inv_freq`` buffer (read from the model here,
   so its distance to the exact frequency w_p is known: dw_p = |w'_p - w_p|, w_p from
   ropecheck.spectrum in binary64). Positions below 2^24 are exact in float32. So
   |angle - w_p m| <= alpha_p(m) = dw_p m + u w'_p m.
2. cos and sin in float32: assumed within 2 ulp (<= 2u absolute, as |cos|, |sin| <= 1): torch's CPU
   kernels are SLEEF's 1-ulp functions or libm's; the factor 2 is a stated margin, beta = 2u.
   Then |cos' - cos(w_p m)| <= alpha_p(m) + beta, and the same for sin.
3. Rotation q' = q * cos + rotate_half(q) * sin: per component two products and a sum, each
   rounded: |q'_c - exact_c| <= (|q_a| + |q_b|)(alpha + beta + 3u) <= sqrt(2)|q_p| e_p(m) with
   e_p(m) = alpha_p(m) + beta + 3u, so the pair's rotated 2-vector is off by at most 2|q_p| e_p(m)
   in norm (the same for k at position n).
4. The score of (i, j): exact s = sum_p <R q_p, R k_p>. With the rotated vectors off as in 3,
   |s(rotated in float32) - s| <= sum_p |q_p||k_p| (2e_p(m) + 2e_p(n) + 4 e_p(m) e_p(n)); the
   float32 dot product of D = 64 terms adds gamma_D sum_c |q'_c k'_c| <= gamma_D sum_p |q_p||k_p|
   (1 + 2e_p(m))(1 + 2e_p(n)), gamma_D = D u / (1 - D u), whatever the summation order. Dividing
   by sqrt(64) = 8 is exact, and adding the causal mask's 0 is exact. E_ij = (sum of both) / 8.
5. Softmax in float32 of row i: exp(x - max) with x - max rounded (|error| <= u |s_j - s_max|,
   added to E_ij), exp within 1 ulp, a sum of at most i+1 positive terms (relative error <= i u /
   (1 - i u)) and a division: relative error rho_i <= (i + 4) u / (1 - (i + 4) u) per output.
   Logit errors |e_j| <= E_ij change p_j by a factor in [exp(-E_ij - E_i), exp(E_ij + E_i)],
   E_i = max_j E_ij (the denominator). So
       |p_hf - p| <= p (exp(E_ij + E_i)(1 + rho_i) - 1) + 2^-125
   (the last term: float32 underflow of tiny probabilities). ropecheck's own error, below 1e-12
   relative (docs/usage.md, Arithmetic), is added as 1e-12 p. The bound is computed in binary64
   from nonnegative terms and inflated by 1 + 1e-9 against its own rounding.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

U = 2.0 ** -24
BETA = 2 * U


def pair_norms(x: np.ndarray) -> np.ndarray:
    """[..., tokens, d] -> [..., tokens, d/2]: norms of the half-split pairs (c, c + d/2)."""
    h = x.shape[-1] // 2
    a = x[..., :h].astype(np.float64)
    b = x[..., h:].astype(np.float64)
    return np.sqrt(a * a + b * b)


def bound_matrix(qn: np.ndarray, kn: np.ndarray, positions: np.ndarray, w_exact: np.ndarray, w_model: np.ndarray,
                 p: np.ndarray, scale: float) -> np.ndarray:
    """The bound of the module docstring on |p_hf - p| divided by p (the relative part), [tokens, tokens].

    qn, kn: pair norms [tokens, pairs] of one query head and its kv head; p: ropecheck's attention
    (binary64), whose logs give s_j - s_max = log(p_j / p_max) for the exp argument's rounding
    (clamped at 1e-300: where p_j underflows the term's size does not matter, p_j times it is 0).
    """
    d = 2 * qn.shape[1]
    gamma = d * U / (1 - d * U)
    pos = positions.astype(np.float64)
    dw = np.abs(w_model.astype(np.float64) - w_exact)
    alpha = pos[:, None] * (dw[None, :] + U * w_model.astype(np.float64)[None, :])
    e = alpha + BETA + 3 * U                                   # [tokens, pairs]
    a, b = qn * e, kn * e
    rot = 2 * (a @ kn.T) + 2 * (qn @ b.T) + 4 * (a @ b.T)      # step 4, rotation part
    dot = gamma * (qn @ kn.T + 2 * (a @ kn.T) + 2 * (qn @ b.T) + 4 * (a @ b.T))
    E = scale * (rot + dot)
    t = E.shape[0]
    causal = np.tril(np.ones((t, t), dtype=bool))
    logp = np.log(np.maximum(p, 1e-300))
    gap = logp.max(axis=1, keepdims=True) - logp                # s_max - s_j
    E = E + U * np.where(causal, gap, 0.0)
    Ei = np.where(causal, E, 0.0).max(axis=1, keepdims=True)
    n = np.arange(t, dtype=np.float64)[:, None] + 4
    rho = n * U / (1 - n * U)
    rel = np.exp(E + Ei) * (1 + rho) - 1 + 1e-12
    return rel * (1 + 1e-9)


def check_sequence(q: np.ndarray, k: np.ndarray, positions: np.ndarray, hf_attentions: list[np.ndarray],
                   reference: Any, w_exact: np.ndarray, w_model: np.ndarray) -> list[dict[str, Any]]:
    """One row per (layer, head): the largest |p_hf - p|, the largest ratio of it to the bound.

    q [layers, heads, tokens, d], k [layers, kv_heads, tokens, d] of one sequence (float32 as
    captured); hf_attentions[layer] [heads, tokens, tokens] (transformers' float32);
    reference(layer) -> [heads, tokens, tokens] binary64 (ropecheck.attention).
    """
    layers, heads, tokens, d = q.shape
    group = heads // k.shape[1]
    scale = 1.0 / math.sqrt(d)
    causal = np.tril(np.ones((tokens, tokens), dtype=bool))
    rows = []
    for layer in range(layers):
        ours = reference(layer)
        for h in range(heads):
            kv = h // group
            p = ours[h]
            hf = hf_attentions[layer][h].astype(np.float64)
            rel = bound_matrix(pair_norms(q[layer, h]), pair_norms(k[layer, kv]), positions, w_exact, w_model, p, scale)
            bound = p * rel + 2.0 ** -125
            diff = np.abs(hf - p)
            above = np.abs(hf[~causal]).max() if tokens > 1 else 0.0  # transformers' masked entries: exactly 0
            ratio = np.where(causal, diff / bound, 0.0)
            worst = np.unravel_index(np.argmax(ratio), ratio.shape)
            rows.append({"layer": layer, "head": h, "max_abs_diff": float(diff[causal].max()),
                         "max_ratio": float(ratio.max()), "worst_row": int(worst[0]), "worst_key": int(worst[1]),
                         "max_bound": float(bound[causal].max()), "masked_max": float(above),
                         "passed": bool(ratio.max() <= 1.0 and above == 0.0)})
    return rows


def ggml_permutation(d: int) -> np.ndarray:
    """The per-head channel order llama.cpp's converter writes (rows (i, i + d/2) made adjacent).

    Channel c of a GGUF head holds HF channel perm[c]: reading a GGUF head as if it were HF's
    pairs channels that the model never rotates together.
    """
    h = d // 2
    return np.array([i // 2 + (i % 2) * h for i in range(d)])
