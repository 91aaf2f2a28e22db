"""The fast path for loss measurements: transformers' attention computed in blocks of query rows,
each block only against the keys it can see (the causal prefix, cut to the sliding window on
sliding layers), through torch's fused scaled_dot_product_attention; and the next-token loss with
the output layer applied in blocks of positions (Gemma 3's 262,144-word vocabulary would need 34 GB
of logits at 32,768 tokens).

The same arithmetic as transformers' attention without padding: q, k, v as its attention module
makes them (projections, q/k norms, the rotation with its cos/sin), the scale and window it passes,
a softmax over the visible keys (global layers: one causal call, which torch's kernel tiles
itself; sliding layers: blocks of query rows against their window's keys only); only the blocking
and the fused kernel's summation order differ
from the eager reference, which every attention check uses (``ropecheck.lm.check``). The pipeline
measures the loss both ways at a length where eager fits (``loss_agreement``) before it trusts this
path with longer sequences.

``blocked_attention(model)`` registers the implementation with transformers' AttentionInterface
(as ``ropecheck_blocked``) and switches the model to it inside a with block; transformers builds no
mask for a registered implementation it has no mask function for, and this one needs none.

``first_token_mass()`` records, inside its with block, each attention call's mean softmax weight on
the first key (over heads and the query rows after the first, whose only key it is): the sinks'
share under an ablation. It costs a second fused pass per call, whose values are the first key's
indicator, so the output itself is computed exactly as without it.
"""

from __future__ import annotations

import contextlib
import math
from typing import Any, Iterator, Optional

from .._errors import InputError
from ._optional import module

NAME = "ropecheck_blocked"
#: Query rows per block: a block's scores are [heads, BLOCK, keys] floats.
BLOCK = 1024
#: The value width of the first-token pass: the indicator in channel 0, zeros beside it (a width
#: torch's fused CPU and CUDA kernels take).
_INDICATOR_WIDTH = 8


class FirstTokenMass:
    """What ``first_token_mass()`` recorded: per attention call, in call order (one per layer of a
    forward pass), the mean over heads and over query rows 1..T-1 of the softmax weight on key 0."""

    def __init__(self) -> None:
        self.per_call: list[float] = []

    @property
    def mean(self) -> Optional[float]:
        """The mean over the calls (over layers, for one forward pass); None when none ran."""
        return math.fsum(self.per_call) / len(self.per_call) if self.per_call else None


_RECORDERS: list[FirstTokenMass] = []


@contextlib.contextmanager
def first_token_mass() -> Iterator[FirstTokenMass]:
    """Inside the block, every ``blocked_attention_forward`` call also records its first-token mass
    (``FirstTokenMass``); blocks nest, each recording the calls made inside it."""
    r = FirstTokenMass()
    _RECORDERS.append(r)
    try:
        yield r
    finally:
        _RECORDERS.remove(r)


def _record_first_token_mass(sdpa: Any, query: Any, key: Any, scale: float, sliding_window: Optional[int]) -> None:
    """The mean softmax weight on key 0 over heads and query rows >= 1 (float64 mean of float32
    weights), appended to every active recorder. Key 0 is visible to row i only when i < window."""
    import torch
    b, heads, tokens, _ = query.shape
    if tokens < 2:
        return
    e = query.new_zeros(b, heads, tokens, _INDICATOR_WIDTH)  # key: already one per query head
    e[:, :, 0, 0] = 1
    if not sliding_window:
        mass = sdpa(query, key, e, is_causal=True, scale=scale)[..., 0]
    else:
        stop = min(tokens, sliding_window)  # rows >= window cannot see key 0: their weight is 0
        i = torch.arange(0, stop)[:, None]
        j = torch.arange(0, stop)[None, :]
        head = sdpa(query[:, :, :stop], key[:, :, :stop], e[:, :, :stop], attn_mask=(j <= i).to(query.device), scale=scale)[..., 0]
        mass = torch.cat([head, query.new_zeros(b, heads, tokens - stop)], dim=2) if stop < tokens else head
    value = float(mass[:, :, 1:].double().mean())
    for r in _RECORDERS:
        r.per_call.append(value)


def blocked_attention_forward(attention: Any, query: Any, key: Any, value: Any, attention_mask: Any, dropout: float = 0.0,
                              scaling: Optional[float] = None, sliding_window: Optional[int] = None, softcap: Optional[float] = None,
                              **kwargs: Any) -> tuple[Any, None]:
    """transformers' attention interface: query [b, H, T, d], key and value [b, Hkv, T, d] -> ([b, T, H, d], None)."""
    import torch
    sdpa: Any = getattr(torch.nn.functional, "scaled_dot_product_attention")  # torch >= 2.0 (Debian's 1.13 stubs lack it)
    if attention_mask is not None:
        raise InputError("model", "a forward pass without a padding mask (ropecheck_blocked attention)", "an attention mask")
    if softcap is not None:
        raise InputError("model", "attention without a logit softcap (ropecheck_blocked attention)", f"softcap {softcap}")
    if dropout:
        raise InputError("model", "a model in eval mode (no attention dropout)", f"dropout {dropout}")
    b, heads, tokens, d = query.shape
    groups = heads // key.shape[1]
    if groups > 1:
        key = key[:, :, None].expand(b, key.shape[1], groups, tokens, d).reshape(b, heads, tokens, d)
        value = value[:, :, None].expand(b, value.shape[1], groups, tokens, value.shape[-1]).reshape(b, heads, tokens, value.shape[-1])
    scale = scaling if scaling is not None else 1 / math.sqrt(d)
    if _RECORDERS:
        _record_first_token_mass(sdpa, query, key, scale, sliding_window)
    if not sliding_window:  # the whole causal prefix: torch's fused kernel tiles it and skips the masked half itself
        out = sdpa(query, key, value, is_causal=True, scale=scale)
        return out.transpose(1, 2).contiguous(), None
    out = query.new_empty(b, heads, tokens, value.shape[-1])
    for start in range(0, tokens, BLOCK):
        stop = min(tokens, start + BLOCK)
        lo = max(0, start - sliding_window + 1)
        i = torch.arange(start, stop)[:, None]
        j = torch.arange(lo, stop)[None, :]
        visible = (j <= i) & (j > i - sliding_window)
        out[:, :, start:stop] = sdpa(query[:, :, start:stop], key[:, :, lo:stop], value[:, :, lo:stop], attn_mask=visible.to(query.device),
                                     scale=scale)
    return out.transpose(1, 2).contiguous(), None


def _register() -> None:
    mu = module("transformers.modeling_utils")
    mu.AttentionInterface.register(NAME, blocked_attention_forward)


def _configs(model: Any) -> list[Any]:
    out: list[Any] = []
    for c in (getattr(model, "config", None), getattr(getattr(model, "config", None), "text_config", None)):
        if c is not None and all(c is not o for o in out):
            out.append(c)
    for _, m in model.named_modules():
        c = getattr(m, "config", None)
        if c is not None and all(c is not o for o in out):
            out.append(c)
    return out


@contextlib.contextmanager
def blocked_attention(model: Any) -> Iterator[None]:
    """Inside the block, every attention module of `model` (a transformers model) runs
    ``blocked_attention_forward``; its implementation is restored on exit."""
    _register()
    configs = _configs(model)
    saved = [c._attn_implementation for c in configs]
    try:
        for c in configs:
            c._attn_implementation = NAME
        yield
    finally:
        for c, s in zip(configs, saved):
            c._attn_implementation = s


def next_token_losses(model: Any, input_ids: Any, chunk: int = 2048) -> Any:
    """Per-target next-token cross entropy (nats, float32 then float64) of a transformers causal LM:
    the decoder's last hidden states once, the output layer (and the final logit softcap where the
    config has one) over `chunk` positions at a time. input_ids [1, tokens]; returns [tokens - 1].
    A loss function for ``ropecheck.lm.losses.ablation_losses(loss=...)``."""
    import torch
    decoder = model.get_decoder() if hasattr(model, "get_decoder") else model.model
    head = model.get_output_embeddings()
    config = getattr(model.config, "text_config", None) or model.config
    cap = getattr(config, "final_logit_softcapping", None)
    with torch.no_grad():
        hidden = decoder(input_ids=input_ids, use_cache=False).last_hidden_state
        targets = input_ids[0, 1:]
        out: list[Any] = []
        for start in range(0, targets.numel(), chunk):
            stop = min(targets.numel(), start + chunk)
            logits = head(hidden[:, start:stop])
            if cap is not None:
                logits = torch.tanh(logits / cap) * cap
            out.append(torch.nn.functional.cross_entropy(logits[0].float(), targets[start:stop], reduction="none"))
    return torch.cat(out)
