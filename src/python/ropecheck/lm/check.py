"""The capture proved against the model: its weights against the file, and ropecheck's attention from
the captured pre-rotation q and k against transformers' own, element by element, within a bound
derived from float32 error analysis; and a control, the same capture made wrong as this family's
conversion could go wrong, which the check must reject.

Attention error analysis (u = 2^-24, float32's unit roundoff; transformers 5.24's rotary modules,
apply_rotary_pos_emb and eager_attention_forward, read from its source, the same arithmetic for
Llama and Gemma 3):

1. Angles. transformers forms pair p's angle at position m as fl(w'_p * fl(m)), one float32 product,
   with w'_p its float32 ``*inv_freq`` buffer (read from the model, so its distance to the exact
   frequency w_p is known: dw_p = |w'_p - w_p|, w_p from ropecheck.spectrum in binary64). Positions
   below 2^24 are exact in float32. So |angle - w_p m| <= alpha_p(m) = dw_p m + u w'_p m.
2. cos and sin in float32, times attention_scaling (1: the default rule; the product is exact):
   assumed within 2 ulp (<= 2u absolute, as |cos|, |sin| <= 1): torch's CPU kernels are SLEEF's
   1-ulp functions or libm's; the factor 2 is a stated margin, beta = 2u. Then |cos' - cos(w_p m)|
   <= alpha_p(m) + beta, and the same for sin.
3. Rotation q' = q * cos + rotate_half(q) * sin: per component two products and a sum, each
   rounded: |q'_c - exact_c| <= (|q_a| + |q_b|)(alpha + beta + 3u) <= sqrt(2)|q_p| e_p(m) with
   e_p(m) = alpha_p(m) + beta + 3u, so the pair's rotated 2-vector is off by at most 2|q_p| e_p(m)
   in norm (the same for k at position n). q and k are the captured float32 values themselves
   (after the family's q/k norm: the capture's hook point is the rotation's input).
4. The score of (i, j): exact s = sum_p <R q_p, R k_p>. With the rotated vectors off as in 3,
   |s(rotated in float32) - s| <= sum_p |q_p||k_p| (2e_p(m) + 2e_p(n) + 4 e_p(m) e_p(n)); the
   float32 dot product of D = head_dim terms adds gamma_D sum_c |q'_c k'_c| <= gamma_D sum_p
   |q_p||k_p| (1 + 2e_p(m))(1 + 2e_p(n)), gamma_D = D u / (1 - D u), whatever the summation order.
   Multiplying by the scale is exact when it is a power of two (1/8 for head_dim 64, 1/16 for
   Gemma's query_pre_attn_scalar 256), else adds u times the product's size. Adding the mask's 0 is
   exact; a masked key (after the row, or outside the sliding window) gets float32's lowest value,
   whose exp is exactly 0. E_ij = scale * (both sums) [+ the scale's rounding].
5. Softmax in float32 of row i over its n_i unmasked keys: exp(x - max) with x - max rounded
   (|error| <= u |s_j - s_max|, added to E_ij), exp within 1 ulp, a sum of n_i positive terms
   (relative error <= (n_i - 1) u / (1 - (n_i - 1) u)) and a division: relative error rho_i <=
   (n_i + 3) u / (1 - (n_i + 3) u) per output. Logit errors |e_j| <= E_ij change p_j by a factor in
   [exp(-E_ij - E_i), exp(E_ij + E_i)], E_i = max_j E_ij (the denominator). So
       |p_hf - p| <= p (exp(E_ij + E_i)(1 + rho_i) - 1) + 2^-125
   (the last term: float32 underflow of tiny probabilities). ropecheck's own error, below 1e-12
   relative (docs/usage.md, Arithmetic), is added as 1e-12 p. The bound is computed in binary64
   from nonnegative terms and inflated by 1 + 1e-9 against its own rounding.
"""

from __future__ import annotations

import dataclasses
import math
import os
import tempfile
from typing import TYPE_CHECKING, Any, Callable, Optional, Sequence

from .._errors import InputError

if TYPE_CHECKING:
    from ._model import LanguageModel

U = 2.0 ** -24
BETA = 2 * U
#: transformers forms each frequency as 1 / base^(2i/d) in float32: one pow (within a few ulp in
#: torch's kernels) and one division (half an ulp); 16 ulp (2^-20 relative) is a wide margin, and
#: far below the 1.9x ratio between the frequencies of neighbouring pairs of any theta here.
FREQUENCY_TOLERANCE = 2.0 ** -20


@dataclasses.dataclass(frozen=True)
class WeightRow:
    """One tensor of the file against transformers': equal bit for bit under the family's stated
    convention (``equal``), and under the wrong one (``wrong_equal``: must be False)."""

    gguf_name: str
    module_name: str
    convention: str
    equal: bool
    wrong_equal: bool
    max_abs_difference: float


@dataclasses.dataclass(frozen=True)
class WeightCheck:
    """Every q/k projection and norm of the file against transformers' tensors.

    Attributes
    ----------
    rows : tuple of WeightRow
    conventions : tuple of str
        The distinct conventions, in words.
    passed : bool
        Every row equal, and no row equal under the wrong convention.
    """

    rows: tuple[WeightRow, ...]
    conventions: tuple[str, ...]
    passed: bool

    @property
    def statement(self) -> str:
        eq = sum(r.equal for r in self.rows)
        wrong = sum(r.wrong_equal for r in self.rows)
        return (f"{eq} of {len(self.rows)} tensors of the file equal transformers' bit for bit under the stated conventions "
                f"({'; '.join(self.conventions)}); under the wrong reading {wrong} do")

    def to_dict(self) -> dict[str, Any]:
        return {"passed": self.passed, "statement": self.statement, "conventions": list(self.conventions),
                "rows": [dataclasses.asdict(r) for r in self.rows]}


def check_weights(model: LanguageModel) -> WeightCheck:
    """The family's weight pairs (every layer's q/k projections and norms) of the GGUF file against
    transformers' loaded parameters. InputError naming ``model`` for a model not loaded from GGUF."""
    if model.gguf is None:
        raise InputError("model", "a model loaded from a GGUF file (the weights check compares the file with transformers)",
                         model.facts.provenance.kind)
    import numpy as np
    params = dict(model.module.named_parameters())
    rows = []
    for pair in model.family.weights(model.module, getattr(model.module.config, "text_config", None) or model.module.config):
        if pair.module_name not in params:
            raise InputError("model", f"a model with the parameter {pair.module_name}", f"{type(model.module).__name__} without it")
        ours = params[pair.module_name].detach().cpu().numpy()
        f = model.gguf.dequantize(pair.gguf_name)
        mapped, wrong = pair.to_module(f), pair.wrong(f)
        same_shape = mapped.shape == ours.shape
        rows.append(WeightRow(pair.gguf_name, pair.module_name, pair.convention, bool(same_shape and np.array_equal(mapped, ours)),
                              bool(wrong.shape == ours.shape and np.array_equal(wrong, ours)),
                              float(np.abs(mapped - ours).max()) if same_shape else math.inf))
    conventions = tuple(dict.fromkeys(r.convention for r in rows))
    return WeightCheck(tuple(rows), conventions, all(r.equal for r in rows) and not any(r.wrong_equal for r in rows))


def pair_norms(x: Any, layout: str = "half") -> Any:
    """[..., d] -> [..., d/2]: the norms of the pairs (c, c + d/2) (half) or (2c, 2c + 1)."""
    import numpy as np
    h = x.shape[-1] // 2
    if layout == "half":
        a, b = x[..., :h].astype(np.float64), x[..., h:].astype(np.float64)
    else:
        a, b = x[..., 0::2].astype(np.float64), x[..., 1::2].astype(np.float64)
    return np.sqrt(a * a + b * b)


def allowed(tokens: int, window: Optional[int]) -> Any:
    """[tokens, tokens] bool: key j visible from query i (j <= i, and i - window < j with a window)."""
    import numpy as np
    i = np.arange(tokens)[:, None]
    j = np.arange(tokens)[None, :]
    keep = j <= i
    return keep & (j > i - window) if window else keep


def relative_bound(qn: Any, kn: Any, positions: Any, w_exact: Any, w_model: Any, p: Any, scale: float,
                   window: Optional[int]) -> Any:
    """The module docstring's bound on |p_hf - p| / p, [tokens, tokens].

    qn, kn: pair norms [tokens, pairs] of one query head and its kv head; p: ropecheck's attention
    (binary64), whose logs give s_j - s_max = log(p_j / p_max) for the exp argument's rounding
    (clamped at 1e-300: where p_j underflows the term's size does not matter, p_j times it is 0).
    """
    import numpy as np
    d = 2 * qn.shape[1]
    gamma = d * U / (1 - d * U)
    pos = positions.astype(np.float64)
    dw = np.abs(w_model.astype(np.float64) - w_exact)
    alpha = pos[:, None] * (dw[None, :] + U * w_model.astype(np.float64)[None, :])
    e = alpha + BETA + 3 * U                                    # [tokens, pairs]
    a, b = qn * e, kn * e
    rot = 2 * (a @ kn.T) + 2 * (qn @ b.T) + 4 * (a @ b.T)       # step 4, rotation part
    size = qn @ kn.T + 2 * (a @ kn.T) + 2 * (qn @ b.T) + 4 * (a @ b.T)  # sum |q'_c k'_c|, bounded
    exact_scale = math.frexp(scale)[0] == 0.5
    E = scale * (rot + gamma * size) + (0.0 if exact_scale else U * scale * size * (1 + gamma))
    t = E.shape[0]
    keep = allowed(t, window)
    logp = np.log(np.maximum(p, 1e-300))
    gap = np.where(keep, logp, -np.inf).max(axis=1, keepdims=True) - logp  # s_max - s_j
    E = E + U * np.where(keep, gap, 0.0)
    Ei = np.where(keep, E, 0.0).max(axis=1, keepdims=True)
    n = keep.sum(axis=1).astype(np.float64)[:, None] + 3
    rho = n * U / (1 - n * U)
    rel = np.exp(E + Ei) * (1 + rho) - 1 + 1e-12
    return rel * (1 + 1e-9)


@dataclasses.dataclass(frozen=True)
class HeadCheck:
    """One (sequence, layer, head): the largest |p_hf - p| over visible keys, its largest ratio to
    the bound (<= 1: within), where that is, and the largest probability transformers gives a masked
    key (must be exactly 0)."""

    sequence: int
    layer: int
    head: int
    max_abs_difference: float
    max_ratio: float
    worst_row: int
    worst_key: int
    max_bound: float
    masked_max: float
    passed: bool


@dataclasses.dataclass(frozen=True)
class AttentionCheck:
    """ropecheck's attention from the capture against transformers' eager attention.

    Attributes
    ----------
    heads : tuple of HeadCheck
    passed : bool
        Every head within the bound with masked keys exactly 0.
    max_ratio, max_abs_difference : float
    rows_beyond_window : int
        Query rows checked whose position reaches past a sliding window (0 without windows).
    frequency_error : float
        The largest relative distance between transformers' float32 frequency buffers and the exact
        frequencies of the model's config as ropecheck reads it; the check requires it below
        FREQUENCY_TOLERANCE, so that the bound's dw term is float32 rounding, not a mismatch.
    bound : str
        Where the bound comes from.
    """

    heads: tuple[HeadCheck, ...]
    passed: bool
    max_ratio: float
    max_abs_difference: float
    rows_beyond_window: int
    frequency_error: float
    bound: str = "ropecheck.lm.check's float32 error analysis of transformers' eager attention"

    def to_dict(self) -> dict[str, Any]:
        return {"passed": self.passed, "max_ratio": self.max_ratio, "max_abs_difference": self.max_abs_difference,
                "frequency_error": self.frequency_error, "frequency_tolerance": FREQUENCY_TOLERANCE,
                "heads_checked": len(self.heads), "rows_beyond_window": self.rows_beyond_window, "bound": self.bound,
                "heads": [dataclasses.asdict(h) for h in self.heads]}


def eager_attentions(model: LanguageModel, ids: Sequence[int]) -> list[Any]:
    """transformers' eager attention probabilities of one sequence at positions 0..n-1: per layer
    [heads, tokens, tokens] float32 (NumPy)."""
    import torch
    with torch.no_grad():
        out = model.module(input_ids=torch.tensor([list(ids)]), position_ids=torch.arange(len(ids))[None],
                           output_attentions=True, use_cache=False)
    if out.attentions is None or len(out.attentions) != model.facts.layers:
        raise InputError("model", "a model that returns its attention probabilities (attn_implementation='eager')",
                         f"{type(model.module).__name__} with {model.module.config._attn_implementation!r}")
    return [a[0].numpy() for a in out.attentions]


def check_attention(model: LanguageModel, q: Any, k: Any, positions: Any, hf: Sequence[Any], *, sequence: int = 0,
                    layers: Optional[Sequence[int]] = None, config: Optional[dict[str, Any]] = None) -> AttentionCheck:
    """Every head of every layer (or of `layers`) of one captured sequence against transformers'.

    q [layers, heads, tokens, d], k [layers, kv_heads, tokens, d]: one sequence's capture (float32);
    positions [tokens]; hf[layer]: [heads, tokens, tokens] (``eager_attentions``); config: the
    config ropecheck computes its attention from (default the model's; a control passes another).
    """
    import numpy as np

    import ropecheck
    f = model.facts
    group = f.heads // f.kv_heads
    chosen = list(range(f.layers)) if layers is None else list(layers)
    rows: list[HeadCheck] = []
    beyond = 0
    freq_error = 0.0
    with tempfile.TemporaryDirectory(prefix="ropecheck-check-") as d:
        path = os.path.join(d, "config.json")
        if config is None:
            model.write_config(path)
        else:
            import json
            with open(path, "w") as fh:
                json.dump(config, fh)
        for layer in chosen:
            t = f.layer_type_of(layer)
            ours = np.asarray(ropecheck.attention_layer(q[None], k[None], positions, model=path, layer=layer))
            w_exact = np.asarray(t.frequencies, dtype=np.float64)  # the model's own, whatever config ropecheck is given
            w_model = model.inv_freq(layer)
            freq_error = max(freq_error, float(np.max(np.abs(w_model.astype(np.float64) - w_exact) / w_exact)))
            tokens = ours.shape[-1]
            keep = allowed(tokens, t.window)
            if t.window:
                beyond = max(beyond, int(max(0, tokens - t.window)))
            for h in range(f.heads):
                p = ours[h]
                got = np.asarray(hf[layer][h], dtype=np.float64)
                rel = relative_bound(pair_norms(q[layer, h], t.layout), pair_norms(k[layer, h // group], t.layout), positions,
                                     w_exact, w_model, p, f.scale, t.window)
                bound = p * rel + 2.0 ** -125
                diff = np.abs(got - p)
                masked = float(np.abs(got[~keep]).max()) if (~keep).any() else 0.0
                ratio = np.where(keep, diff / bound, 0.0)
                worst = np.unravel_index(np.argmax(ratio), ratio.shape)
                rows.append(HeadCheck(sequence, layer, h, float(diff[keep].max()), float(ratio.max()), int(worst[0]), int(worst[1]),
                                      float(bound[keep].max()), masked, bool(ratio.max() <= 1.0 and masked == 0.0)))
    return AttentionCheck(tuple(rows), all(r.passed for r in rows) and freq_error <= FREQUENCY_TOLERANCE, max(r.max_ratio for r in rows),
                          max(r.max_abs_difference for r in rows), beyond, freq_error)


@dataclasses.dataclass(frozen=True)
class ControlCheck:
    """The control: the attention check on a capture made wrong on purpose (``what``); it passes as
    a control when every checked head fails."""

    what: str
    heads: int
    failed: int
    min_ratio: float
    max_abs_difference: float

    @property
    def rejected(self) -> bool:
        return self.heads > 0 and self.failed == self.heads

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self) | {"rejected": self.rejected}


def check_control(model: LanguageModel, q: Any, k: Any, positions: Any, hf: Sequence[Any],
                  log: Optional[Callable[[str], None]] = None) -> ControlCheck:
    """The family's control (ropecheck.lm.Family.control) through ``check_attention``."""
    c = model.family.control(q, k, model.config)
    r = check_attention(model, c.q, c.k, positions, hf, layers=c.layers, config=c.config)
    out = ControlCheck(c.what, len(r.heads), sum(not h.passed for h in r.heads), min(h.max_ratio for h in r.heads),
                       r.max_abs_difference)
    if log is not None:
        log(f"control ({c.what}): {out.failed}/{out.heads} heads fail, smallest worst ratio {out.min_ratio:.3g}")
    return out
