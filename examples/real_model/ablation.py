"""What p-RoPE would change, measured as next-token loss on the real model (inference-time ablations),
through the package's API (ropecheck.torch.band_ablation and ablation_losses; docs/usage.md, "Band
ablations as loss").

Bands follow ropecheck's definition (docs/usage.md, Pairs), from the model's own inv_freq: of the d/2
rotating pairs sorted from fastest to slowest, ``fast`` is the first quarter, ``slow`` the last
quarter, ``middle`` the rest. Two ablations of each band, no retraining:
- ``still``: the band made position-free, as p-RoPE 0.75 does for the slow quarter: its entries of
  every ``inv_freq`` buffer set to 0 (cos 1, sin 0: those pairs keep their content match, lose their
  position);
- ``removed``: the band's contribution to every logit removed: its channels of every query head
  zeroed after q_proj (a pair's rotation mixes only its own two channels, so a zero query pair
  contributes nothing to q.k; keys and values are untouched).

The loss of a sequence is the mean next-token cross entropy over its tokens (nats). Each ablation is
compared with the unablated model on the same sequences: paired differences, a two-sided 95% Student
t-interval over sequences (exact for normal per-sequence differences, asymptotic otherwise). A
measurement on text, not a certificate.
"""

from __future__ import annotations

import contextlib
import math
from typing import Any, Callable, Iterator, Optional

BANDS = ("fast", "middle", "slow")
MODES = ("still", "removed")
#: Every (band, mode), by name: "fast-still", "fast-removed", ..., "slow-removed".
ABLATIONS = tuple(f"{b}-{m}" for b in BANDS for m in MODES)
#: The positions the loss is also reported over: [0, 512), [512, 1024), ... up to the sequence's length.
BUCKET_EDGES = (0, 512, 1024, 2048, 4096, 8192, 16384, 32768)


def parse_ablations(spec: str) -> list[str]:
    """"all" or a comma-separated list of names of ABLATIONS (each once), in ABLATIONS' order; ValueError
    naming what is wrong."""
    if spec == "all":
        return list(ABLATIONS)
    names = [x.strip() for x in spec.split(",")]
    bad = [x for x in names if x not in ABLATIONS]
    if bad or not names or len(set(names)) != len(names):
        raise ValueError(f"'all' or comma-separated names among {', '.join(ABLATIONS)}, each once (got {spec!r})")
    return [x for x in ABLATIONS if x in names]


def buckets(length: int) -> list[int]:
    """Position bucket edges for a sequence of `length` tokens: BUCKET_EDGES below it, then length."""
    return [e for e in BUCKET_EDGES if e < length] + [length]


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
    """Mean next-token cross entropy (nats) of one sequence, positions 0..len-1: the arithmetic of
    ablation_losses' default loss (float32 cross entropy per target, their sum in math.fsum), so that the
    chunked-against-eager check compares attention only."""
    import torch
    x = torch.tensor([ids], dtype=torch.int64)
    with torch.no_grad():
        logits = model(input_ids=x, use_cache=False).logits
        ce = torch.nn.functional.cross_entropy(logits[0, :-1].float(), x[0, 1:], reduction="none")
    return math.fsum(ce.double().tolist()) / ce.numel()


def losses(model: Any, seqs: list[list[int]], names: list[str], log: Optional[Callable[[str], None]] = None) -> dict[str, Any]:
    """ropecheck.torch.ablation_losses for the named ablations: the model as trained and each (band, mode)
    on the same sequences, every number with its sample size and interval (AblationLosses.to_dict(),
    plus the ablations' names and the position buckets)."""
    import ropecheck.torch as rt
    pairs = [tuple(n.split("-")) for n in names]
    length = max(len(x) for x in seqs)
    r = rt.ablation_losses(model, seqs, ablations=pairs, position_buckets=buckets(length), log=log)
    return {"ablations": names, **r.to_dict()}
