"""A small Llama-style decoder in plain torch (>= 1.13) with any RoPE spectrum plugged in.

Module names and the order of operations follow Hugging Face's Llama family as described in
/work/shared/notes/measuring-trained-models.md, Sections 1-2 (written from those formulas, no code
copied from transformers):

  model.model.embed_tokens -> for each layer i, model.model.layers[i]:
      h = h + self_attn(input_layernorm(h));  h = h + mlp(post_attention_layernorm(h))
  -> model.model.norm -> model.lm_head

Attention: q_proj/k_proj/v_proj outputs viewed (b, s, H, d) and transposed to (b, H, s, d); the
half-split (rotate_half) rotation is applied to q and k with angles position * inv_freq (float32
product of the int64 positions converted to float32 and the per-model buffer ``inv_freq``); the
kv heads are repeated so that query head h reads kv head h // (H // Hkv); logits are scaled by
1/sqrt(head_dim), causally masked and softmaxed in float32. A 0 in ``inv_freq`` is a position-free
(NoPE) pair, so NoPE, RoPE, p-RoPE and reversed p-RoPE are all the same model with another buffer.
torch 1.13 has no nn.RMSNorm or scaled_dot_product_attention (notes, Section 5): both are written here.
"""

import json
import math
from types import SimpleNamespace

import torch
from torch import nn
import torch.nn.functional as F


def make_config(vocab_size=128, hidden_size=128, num_hidden_layers=2, num_attention_heads=4,
                num_key_value_heads=2, head_dim=32, intermediate_size=256,
                max_position_embeddings=64, rope_theta=10000.0, rms_norm_eps=1e-5):
    """The model's configuration, with transformers' LlamaConfig attribute names."""
    return SimpleNamespace(model_type="llama", vocab_size=vocab_size, hidden_size=hidden_size,
                           num_hidden_layers=num_hidden_layers, num_attention_heads=num_attention_heads,
                           num_key_value_heads=num_key_value_heads, head_dim=head_dim,
                           intermediate_size=intermediate_size, rms_norm_eps=rms_norm_eps,
                           max_position_embeddings=max_position_embeddings, rope_theta=rope_theta,
                           hidden_act="silu", attention_bias=False, tie_word_embeddings=False)


def write_config_json(config, path, provenance=None, rope_parameters=None):
    """Writes a Hugging Face-style config.json that ``ropecheck spectrum --model`` reads.

    ``provenance`` (a dict: encoding, frequencies' source, ...) is stored as "_ropecheck_example";
    ``rope_parameters`` (a transformers v5-style dict, e.g. rope_type "proportional") is written when given.
    """
    keys = ("model_type", "vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads",
            "num_key_value_heads", "head_dim", "intermediate_size", "rms_norm_eps",
            "max_position_embeddings", "rope_theta", "hidden_act", "attention_bias", "tie_word_embeddings")
    document = {k: getattr(config, k) for k in keys}
    document["architectures"] = ["LlamaForCausalLM"]
    if rope_parameters is not None:
        document["rope_parameters"] = rope_parameters
    if provenance is not None:
        document["_ropecheck_example"] = provenance
    with open(path, "w") as f:
        json.dump(document, f, indent=2)
        f.write("\n")


class RMSNorm(nn.Module):
    """y = weight * x / sqrt(mean(x^2) + eps), computed in float32."""

    def __init__(self, dim, eps):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))
        self.eps = eps

    def forward(self, x):
        x32 = x.float()
        x32 = x32 * torch.rsqrt(x32.pow(2).mean(-1, keepdim=True) + self.eps)
        return self.weight * x32.to(x.dtype)


def rotate_half(x):
    """(x1, x2) -> (-x2, x1) on the two halves of the last axis: pair j is channels (j, j + d/2)."""
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def rope_cos_sin(inv_freq, position_ids):
    """cos and sin of shape (b, s, d): angle of pair j at position p is float32(p) * inv_freq[j]."""
    angles = position_ids.to(torch.float32)[:, :, None] * inv_freq[None, None, :]
    emb = torch.cat((angles, angles), dim=-1)
    return emb.cos(), emb.sin()


class Attention(nn.Module):
    """Grouped-query causal self-attention with RoPE on q and k after q_proj/k_proj."""

    def __init__(self, config):
        super().__init__()
        self.num_heads, self.num_kv = config.num_attention_heads, config.num_key_value_heads
        self.head_dim = config.head_dim
        self.q_proj = nn.Linear(config.hidden_size, self.num_heads * self.head_dim, bias=False)
        self.k_proj = nn.Linear(config.hidden_size, self.num_kv * self.head_dim, bias=False)
        self.v_proj = nn.Linear(config.hidden_size, self.num_kv * self.head_dim, bias=False)
        self.o_proj = nn.Linear(self.num_heads * self.head_dim, config.hidden_size, bias=False)
        self.last_weights = None  # set to the attention probabilities when keep_weights is True
        self.keep_weights = False

    def forward(self, x, cos, sin):
        b, s, _ = x.shape
        q = self.q_proj(x).view(b, s, self.num_heads, self.head_dim).transpose(1, 2)
        k = self.k_proj(x).view(b, s, self.num_kv, self.head_dim).transpose(1, 2)
        v = self.v_proj(x).view(b, s, self.num_kv, self.head_dim).transpose(1, 2)
        cos, sin = cos[:, None], sin[:, None]
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        n_rep = self.num_heads // self.num_kv  # query head h reads kv head h // n_rep
        k = k.repeat_interleave(n_rep, dim=1)
        v = v.repeat_interleave(n_rep, dim=1)
        logits = (q @ k.transpose(2, 3)) / math.sqrt(self.head_dim)
        mask = torch.ones(s, s, dtype=torch.bool, device=x.device).triu(1)
        logits = logits.masked_fill(mask, float("-inf"))
        weights = F.softmax(logits.float(), dim=-1).to(q.dtype)
        if self.keep_weights:
            self.last_weights = weights.detach()
        out = (weights @ v).transpose(1, 2).reshape(b, s, self.num_heads * self.head_dim)
        return self.o_proj(out)


class MLP(nn.Module):
    """SwiGLU: down_proj(silu(gate_proj(x)) * up_proj(x))."""

    def __init__(self, config):
        super().__init__()
        self.gate_proj = nn.Linear(config.hidden_size, config.intermediate_size, bias=False)
        self.up_proj = nn.Linear(config.hidden_size, config.intermediate_size, bias=False)
        self.down_proj = nn.Linear(config.intermediate_size, config.hidden_size, bias=False)

    def forward(self, x):
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class DecoderLayer(nn.Module):
    """Pre-norm block: attention then MLP, each with a residual connection."""

    def __init__(self, config):
        super().__init__()
        self.input_layernorm = RMSNorm(config.hidden_size, config.rms_norm_eps)
        self.self_attn = Attention(config)
        self.post_attention_layernorm = RMSNorm(config.hidden_size, config.rms_norm_eps)
        self.mlp = MLP(config)

    def forward(self, h, cos, sin):
        h = h + self.self_attn(self.input_layernorm(h), cos, sin)
        return h + self.mlp(self.post_attention_layernorm(h))


class Backbone(nn.Module):
    """``model.model``: embeddings, layers, final norm, and the ``inv_freq`` buffer."""

    def __init__(self, config, inv_freq):
        super().__init__()
        self.embed_tokens = nn.Embedding(config.vocab_size, config.hidden_size)
        self.layers = nn.ModuleList(DecoderLayer(config) for _ in range(config.num_hidden_layers))
        self.norm = RMSNorm(config.hidden_size, config.rms_norm_eps)
        self.register_buffer("inv_freq", inv_freq)

    def forward(self, input_ids, position_ids):
        cos, sin = rope_cos_sin(self.inv_freq, position_ids)
        h = self.embed_tokens(input_ids)
        for layer in self.layers:
            h = layer(h, cos, sin)
        return self.norm(h)


class ToyLlama(nn.Module):
    """``model``: a causal LM; forward(input_ids, position_ids=None) returns logits (b, s, vocab).

    ``inv_freq`` holds head_dim/2 float32 frequencies (radians per token); 0 = position-free pair.
    """

    def __init__(self, config, inv_freq):
        super().__init__()
        inv_freq = torch.as_tensor(inv_freq, dtype=torch.float32)
        if inv_freq.shape != (config.head_dim // 2,):
            raise ValueError(f"inv_freq has shape {tuple(inv_freq.shape)}, expected ({config.head_dim // 2},)")
        self.config = config
        self.model = Backbone(config, inv_freq.clone())
        self.lm_head = nn.Linear(config.hidden_size, config.vocab_size, bias=False)

    def forward(self, input_ids, position_ids=None):
        if position_ids is None:
            position_ids = torch.arange(input_ids.shape[1], dtype=torch.int64)[None].expand(input_ids.shape[0], -1)
        return self.lm_head(self.model(input_ids, position_ids.to(torch.int64)))
