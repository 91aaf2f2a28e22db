"""Gemma 3 (transformers' Gemma3ForCausalLM, the text model): q and k after per-head RMS norms
(q_norm, k_norm over head_dim), RoPE in the half-split pairing; sliding-window layers (theta
``rope_local_base_freq``, 10000 for Gemma 3) and global layers (``rope_theta``, 1e6) in a pattern
(transformers' ``layer_types``); the attention scale is query_pre_attn_scalar^-1/2.

The GGUF conventions: no q/k row permutation (ggml's NeoX rope pairs (i, i + d/2) as transformers
does); every RMSNorm weight stored as 1 + w, since ggml multiplies by the stored weight while Gemma
computes x * (1 + w) (llama.cpp's converter adds 1; transformers subtracts it on load). The file
holds neither the local theta nor the layer pattern: transformers' Gemma3TextConfig supplies both.
The attention control swaps the two thetas, which must fail on both kinds of layer.
"""

from __future__ import annotations

import copy
from typing import Any

from .._family import AttentionControl, Family, WeightPair, rope_theta
from .llama import _unpermute


def _same(w: Any) -> Any:
    return w


def _minus_one(w: Any) -> Any:
    return w - 1


def weights(model: Any, config: Any) -> list[WeightPair]:
    d = int(config.head_dim)
    pairs = []
    for i in range(config.num_hidden_layers):
        for name, module, heads in (("attn_q", "q_proj", config.num_attention_heads), ("attn_k", "k_proj", config.num_key_value_heads)):
            pairs.append(WeightPair(f"blk.{i}.{name}.weight", f"model.layers.{i}.self_attn.{module}.weight",
                                    "as stored (half-split pairing in the file too)", _same, _unpermute(heads, d)))
        for name, module in (("attn_q_norm", "self_attn.q_norm"), ("attn_k_norm", "self_attn.k_norm"), ("attn_norm", "input_layernorm")):
            pairs.append(WeightPair(f"blk.{i}.{name}.weight", f"model.layers.{i}.{module}.weight",
                                    "stored as 1 + w (Gemma's RMSNorm multiplies by 1 + w)", _minus_one, _same))
    pairs.append(WeightPair("output_norm.weight", "model.norm.weight", "stored as 1 + w", _minus_one, _same))
    return pairs


def control(q: Any, k: Any, config: dict[str, Any]) -> AttentionControl:
    swapped = copy.deepcopy(config)
    params = swapped["rope_parameters"]
    params["sliding_attention"]["rope_theta"], params["full_attention"]["rope_theta"] = (
        params["full_attention"]["rope_theta"], params["sliding_attention"]["rope_theta"])
    types = config["layer_types"]
    layers = (types.index("sliding_attention"), types.index("full_attention"))
    return AttentionControl("the sliding layers' and the global layers' thetas swapped", q, k, swapped, layers)


FAMILY = Family(
    name="gemma3", architecture="gemma3", model_types=("gemma3_text", "gemma3"),
    description="Gemma 3 (transformers' Gemma3ForCausalLM): q/k after RMS norms over head_dim, half-split RoPE, "
                "sliding-window and global layers with their own thetas",
    metadata=(("block_count", lambda c: c.num_hidden_layers, "layers"),
              ("attention.head_count", lambda c: c.num_attention_heads, "query heads"),
              ("attention.head_count_kv", lambda c: c.num_key_value_heads, "kv heads"),
              ("attention.key_length", lambda c: c.head_dim, "head_dim"),
              ("embedding_length", lambda c: c.hidden_size, "hidden size"),
              ("rope.freq_base", lambda c: rope_theta(c, "full_attention"), "the global layers' RoPE theta"),
              ("attention.sliding_window", lambda c: c.sliding_window, "sliding window"),
              ("context_length", lambda c: c.max_position_embeddings, "trained context")),
    weights=weights,
    qk_norm="Gemma3RMSNorm over head_dim: x / rms(x) * (1 + w), computed in float32, w from the file minus 1",
    control=control)
