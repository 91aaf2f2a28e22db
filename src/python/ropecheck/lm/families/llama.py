"""Llama (transformers' LlamaForCausalLM; SmolLM2 is one): q and k straight from q_proj and k_proj,
no q/k norm, RoPE on the whole head in the half-split pairing (i, i + d/2).

The GGUF trap: llama.cpp's converter permutes each head's rows of attn_q and attn_k so that ggml's
default rope, which pairs adjacent channels (2i, 2i + 1), reproduces the half-split pairing
(convert_hf_to_gguf.py, LlamaModel.permute); transformers undoes it on load. The weights check
proves that on the file (the permuted rows equal transformers' bit for bit, the unpermuted ones do
not), and the attention control reads the capture in the file's channel order, which must fail.
"""

from __future__ import annotations

from typing import Any

from .._family import AttentionControl, Family, WeightPair, rope_theta


def ggml_permutation(d: int) -> Any:
    """Channel c of a GGUF head holds transformers' channel perm[c] (pairs (i, i + d/2) made adjacent)."""
    import numpy as np
    h = d // 2
    return np.array([i // 2 + (i % 2) * h for i in range(d)])


def _unpermute(heads: int, d: int) -> Any:
    import numpy as np
    inverse = np.argsort(ggml_permutation(d))

    def to_module(w: Any) -> Any:
        return w.reshape(heads, d, -1)[:, inverse].reshape(w.shape)
    return to_module


def _same(w: Any) -> Any:
    return w


def weights(model: Any, config: Any) -> list[WeightPair]:
    d = int(getattr(config, "head_dim", None) or config.hidden_size // config.num_attention_heads)
    pairs = []
    for i in range(config.num_hidden_layers):
        for name, module, heads in (("attn_q", "q_proj", config.num_attention_heads), ("attn_k", "k_proj", config.num_key_value_heads)):
            pairs.append(WeightPair(f"blk.{i}.{name}.weight", f"model.layers.{i}.self_attn.{module}.weight",
                                    "rows permuted per head (llama.cpp pairs channels 2i, 2i + 1; transformers i, i + d/2)",
                                    _unpermute(heads, d), _same))
        pairs.append(WeightPair(f"blk.{i}.attn_norm.weight", f"model.layers.{i}.input_layernorm.weight", "as stored",
                                _same, lambda w: w + 1))
    pairs.append(WeightPair("output_norm.weight", "model.norm.weight", "as stored", _same, lambda w: w + 1))
    return pairs


def control(q: Any, k: Any, config: dict[str, Any]) -> AttentionControl:
    import numpy as np
    d = q.shape[-1]
    perm = ggml_permutation(d)
    return AttentionControl("q and k channels in the GGUF file's order (the per-head row permutation not undone)",
                            np.ascontiguousarray(q[..., perm]), np.ascontiguousarray(k[..., perm]), config, (0, 1))


FAMILY = Family(
    name="llama", architecture="llama", model_types=("llama",),
    description="Llama (transformers' LlamaForCausalLM): q_proj/k_proj outputs, no q/k norm, half-split RoPE on the whole head",
    metadata=(("block_count", lambda c: c.num_hidden_layers, "layers"),
              ("attention.head_count", lambda c: c.num_attention_heads, "query heads"),
              ("attention.head_count_kv", lambda c: c.num_key_value_heads, "kv heads"),
              ("embedding_length", lambda c: c.hidden_size, "hidden size"),
              ("rope.freq_base", lambda c: rope_theta(c), "RoPE theta"),
              ("context_length", lambda c: c.max_position_embeddings, "trained context")),
    weights=weights, qk_norm=None, control=control)
