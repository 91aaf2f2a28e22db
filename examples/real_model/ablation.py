"""What p-RoPE would change, measured as next-token loss on the real model (inference-time ablations).

Bands follow ropecheck's definition (docs/usage.md, Pairs): of the d/2 rotating pairs sorted from
fastest to slowest, ``fast`` is the first quarter and ``slow`` the last quarter. Two ablations, no
retraining:
- ``slow-still``: the slow quarter made position-free, as p-RoPE 0.75 does: their entries of the
  rotary module's ``inv_freq`` set to 0 (cos 1, sin 0: those pairs keep their content match, lose
  their position);
- ``fast-removed``: the fast quarter's contribution to every logit removed: the fast pairs' channels
  of every query head zeroed after q_proj (a pair's rotation mixes only its own two channels, so a
  zero query pair contributes nothing to q.k; keys and values are untouched).

The loss of a sequence is transformers' mean next-token cross entropy over its tokens (nats).
Each ablation is compared with the unablated model on the same sequences: paired differences, a
two-sided 95% Student t-interval over sequences. A measurement on text, not a certificate.
"""

from __future__ import annotations

import contextlib
import math
from typing import Any, Iterator

import numpy as np

# Two-sided 95% Student t quantiles t_{0.975, df} (standard table values, NIST/SEMATECH e-Handbook of
# Statistical Methods, Section 1.3.6.7.2).
T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262, 10: 2.228,
        11: 2.201, 12: 2.179, 13: 2.160, 14: 2.145, 15: 2.131, 16: 2.120, 17: 2.110, 18: 2.101, 19: 2.093, 20: 2.086,
        24: 2.064, 29: 2.045, 31: 2.040}
ABLATIONS = ("none", "slow-still", "fast-removed")


def bands(pairs: int) -> dict[str, list[int]]:
    """Pair indices (fastest first) of the fast and slow quarters."""
    q = pairs // 4
    return {"fast": list(range(q)), "slow": list(range(pairs - q, pairs))}


@contextlib.contextmanager
def ablated(model: Any, which: str) -> Iterator[None]:
    """The model with one ablation in force; restored on exit."""
    import torch
    if which not in ABLATIONS:
        raise ValueError(f"ablation must be one of {ABLATIONS} (got {which!r})")
    cfg = model.config
    d = cfg.head_dim if getattr(cfg, "head_dim", None) else cfg.hidden_size // cfg.num_attention_heads
    b = bands(d // 2)
    rotary = model.model.rotary_emb
    saved = rotary.inv_freq.clone()
    handles = []
    try:
        if which == "slow-still":
            rotary.inv_freq[b["slow"]] = 0.0
        elif which == "fast-removed":
            channels = torch.tensor(b["fast"] + [c + d // 2 for c in b["fast"]])

            def hook(module: Any, inputs: Any, output: Any) -> Any:
                out = output.view(*output.shape[:-1], -1, d).clone()
                out[..., channels] = 0.0
                return out.view(output.shape)
            for layer in model.model.layers:
                handles.append(layer.self_attn.q_proj.register_forward_hook(hook))
        yield
    finally:
        for h in handles:
            h.remove()
        rotary.inv_freq.copy_(saved)


@contextlib.contextmanager
def query_chunked(model: Any, chunk: int = 1024) -> Iterator[None]:
    """Every layer's attention computed in blocks of `chunk` query rows (beyond the trained context,
    where transformers' eager attention would hold a [heads, tokens, tokens] float32 matrix per layer,
    about 10 GB at 16384 tokens, twice over in its softmax).

    The same operations as transformers 4.46's eager LlamaAttention without a padding mask: q, k, v
    projections, apply_rotary_pos_emb with the model's cos/sin, repeat_kv, q.k^T / sqrt(d), keys
    after the row masked (transformers adds float32's lowest value, here -inf: both give exp = 0),
    softmax in float32, times v, o_proj. Only the summation blocks differ; the pipeline measures the
    loss both ways at a length where both fit (`chunked_vs_eager`)."""
    import torch
    from transformers.models.llama import modeling_llama as ml

    def forward(self: Any, hidden_states: Any, attention_mask: Any = None, position_ids: Any = None, past_key_value: Any = None,
                output_attentions: bool = False, use_cache: bool = False, cache_position: Any = None,
                position_embeddings: Any = None, **kwargs: Any) -> Any:
        if output_attentions or past_key_value is not None or position_embeddings is None:
            raise ValueError("query_chunked: only a forward pass without attentions, cache or padding")
        b, t, _ = hidden_states.size()
        d = self.head_dim
        q = self.q_proj(hidden_states).view(b, t, -1, d).transpose(1, 2)
        k = self.k_proj(hidden_states).view(b, t, -1, d).transpose(1, 2)
        v = self.v_proj(hidden_states).view(b, t, -1, d).transpose(1, 2)
        cos, sin = position_embeddings
        q, k = ml.apply_rotary_pos_emb(q, k, cos, sin)
        k = ml.repeat_kv(k, self.num_key_value_groups)
        v = ml.repeat_kv(v, self.num_key_value_groups)
        out = torch.empty_like(q)
        for start in range(0, t, chunk):
            stop = min(t, start + chunk)
            w = torch.matmul(q[:, :, start:stop], k[:, :, :stop].transpose(2, 3)) / math.sqrt(d)
            rows = torch.arange(start, stop)[:, None]
            w = w.masked_fill(torch.arange(stop)[None, :] > rows, float("-inf"))
            w = torch.nn.functional.softmax(w, dim=-1, dtype=torch.float32).to(q.dtype)
            out[:, :, start:stop] = torch.matmul(w, v[:, :, :stop])
        out = out.transpose(1, 2).reshape(b, t, -1)
        return self.o_proj(out), None, None

    saved = []
    try:
        for layer in model.model.layers:
            saved.append(layer.self_attn.forward)
            layer.self_attn.forward = forward.__get__(layer.self_attn)
        yield
    finally:
        for layer, f in zip(model.model.layers, saved):
            layer.self_attn.forward = f


def sequence_loss(model: Any, ids: list[int]) -> float:
    """Mean next-token cross entropy (nats) of one sequence, positions 0..len-1."""
    import torch
    x = torch.tensor([ids], dtype=torch.int64)
    with torch.no_grad():
        out = model(input_ids=x, position_ids=torch.arange(len(ids))[None], labels=x, use_cache=False)
    return float(out.loss)


def interval(values: list[float]) -> dict[str, Any]:
    """Mean and the half-width of the two-sided 95% Student t-interval (None for fewer than 2)."""
    n = len(values)
    mean = float(np.mean(values))
    if n < 2:
        return {"n": n, "mean": mean, "half_width": None}
    sd = float(np.std(values, ddof=1))
    t = T975.get(n - 1) or T975[max(k for k in T975 if k <= n - 1)]  # a larger df's quantile is smaller: conservative
    return {"n": n, "mean": mean, "half_width": t * sd / math.sqrt(n), "sd": sd}


def summarise(losses: dict[str, list[float]]) -> dict[str, Any]:
    """Per ablation: the losses' interval and, paired with `none`, the differences' interval."""
    out: dict[str, Any] = {}
    for which, vals in losses.items():
        row = {"loss": interval(vals), "per_sequence": vals}
        if which != "none":
            diff = [a - b for a, b in zip(vals, losses["none"])]
            row["paired_difference"] = interval(diff)
            hw = row["paired_difference"]["half_width"]
            row["significant"] = None if hw is None else bool(abs(row["paired_difference"]["mean"]) > hw)
        out[which] = row
    return out
