"""Small randomly initialised stand-ins for Hugging Face attention families, for test_capture.py.

Each keeps the module names and the order of operations of its family's HF attention
(/work/shared/notes/measuring-trained-models.md, Section 1): decoder layers call the attention by
keyword (so, on torch 1.13, only its positionally called submodules are hookable), and every attention
records in `recorded` the (q, k) it hands to its rotation, shape (b, H, s, d) and (b, Hkv, s, d)
(DeepSeek-V3: k already expanded to every head, [nope | rope] per head), and in `positions` the
position_ids it rotated by. RMSNorm, RoPE and attention are written out: torch 1.13 has neither
nn.RMSNorm nor scaled_dot_product_attention.
"""

import types

import torch
from torch import nn


class RMSNorm(nn.Module):
    def __init__(self, width, one_plus=False):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(width) * 0.1 + (0.0 if one_plus else 1.0))
        self.one_plus = one_plus  # Gemma: x * (1 + weight)

    def forward(self, x):
        y = x.float() * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + 1e-6)
        return (y * ((1.0 + self.weight.float()) if self.one_plus else self.weight.float())).to(x.dtype)


def rotate(x, position_ids, width, theta=10000.0):
    """Half-split RoPE on the first `width` channels of x (b, H, s, d); the rest passes through."""
    inv_freq = 1.0 / theta ** (torch.arange(0, width, 2, dtype=torch.float32) / width)
    freqs = position_ids[:, :, None].float() * inv_freq
    emb = torch.cat([freqs, freqs], dim=-1)[:, None]
    cos, sin = emb.cos().to(x.dtype), emb.sin().to(x.dtype)
    r, rest = x[..., :width], x[..., width:]
    half = torch.cat([-r[..., width // 2:], r[..., :width // 2]], dim=-1)
    return torch.cat([r * cos + half * sin, rest], dim=-1)


def attend(q, k, v):
    """Causal softmax attention with repeat_kv, in float32 (CPU torch 1.13 has no float16 matmul);
    (b, H, s, d) -> (b, s, H * dv) in v's dtype."""
    dtype, q, k, v = v.dtype, q.float(), k.float(), v.float()
    n_rep = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(n_rep, dim=1), v.repeat_interleave(n_rep, dim=1)
    scores = q @ k.transpose(-1, -2) * q.shape[-1] ** -0.5
    s = q.shape[2]
    scores = scores.masked_fill(torch.ones(s, s, dtype=torch.bool).triu(1), float("-inf"))
    out = torch.softmax(scores, dim=-1) @ v
    return out.transpose(1, 2).reshape(q.shape[0], s, -1).to(dtype)


class Attention(nn.Module):
    """Llama, Mistral, Qwen2 (bias), Qwen3 (norm="bshd"), Gemma 3 (norm="bhsd"), OLMo 2 (norm="flat")."""

    def __init__(self, c, norm=None, bias=False):
        super().__init__()
        self.h, self.kv, self.d, self.norm = c.num_attention_heads, c.num_key_value_heads, c.head_dim, norm
        self.q_proj = nn.Linear(c.hidden_size, self.h * self.d, bias=bias)
        self.k_proj = nn.Linear(c.hidden_size, self.kv * self.d, bias=bias)
        self.v_proj = nn.Linear(c.hidden_size, self.kv * self.d, bias=bias)
        self.o_proj = nn.Linear(self.h * self.d, c.hidden_size, bias=False)
        if norm is not None:
            flat = norm == "flat"
            self.q_norm = RMSNorm(self.h * self.d if flat else self.d, one_plus=norm == "bhsd")
            self.k_norm = RMSNorm(self.kv * self.d if flat else self.d, one_plus=norm == "bhsd")
        self.recorded, self.positions = [], []

    def forward(self, hidden_states=None, position_ids=None):
        b, s, _ = hidden_states.shape
        q, k = self.q_proj(hidden_states), self.k_proj(hidden_states)
        v = self.v_proj(hidden_states).view(b, s, self.kv, self.d).transpose(1, 2)
        if self.norm == "flat":
            q, k = self.q_norm(q), self.k_norm(k)
        q, k = q.view(b, s, self.h, self.d), k.view(b, s, self.kv, self.d)
        if self.norm == "bshd":
            q, k = self.q_norm(q), self.k_norm(k)
        q, k = q.transpose(1, 2), k.transpose(1, 2)
        if self.norm == "bhsd":
            q, k = self.q_norm(q), self.k_norm(k)
        self.recorded.append((q.clone(), k.clone()))
        self.positions.append(position_ids.clone())
        q, k = rotate(q, position_ids, self.d), rotate(k, position_ids, self.d)
        return self.o_proj(attend(q, k, v))


class Phi3Attention(nn.Module):
    """Fused qkv_proj [Q | K | V], partial rotary."""

    def __init__(self, c):
        super().__init__()
        self.h, self.kv, self.d = c.num_attention_heads, c.num_key_value_heads, c.head_dim
        self.qkv_proj = nn.Linear(c.hidden_size, (self.h + 2 * self.kv) * self.d, bias=False)
        self.o_proj = nn.Linear(self.h * self.d, c.hidden_size, bias=False)
        self.recorded, self.positions = [], []

    def forward(self, hidden_states=None, position_ids=None):
        b, s, _ = hidden_states.shape
        qkv = self.qkv_proj(hidden_states)
        nq, nk = self.h * self.d, self.kv * self.d
        q = qkv[..., :nq].view(b, s, self.h, self.d).transpose(1, 2)
        k = qkv[..., nq:nq + nk].view(b, s, self.kv, self.d).transpose(1, 2)
        v = qkv[..., nq + nk:].view(b, s, self.kv, self.d).transpose(1, 2)
        self.recorded.append((q.clone(), k.clone()))
        self.positions.append(position_ids.clone())
        q, k = rotate(q, position_ids, self.d // 2), rotate(k, position_ids, self.d // 2)
        return self.o_proj(attend(q, k, v))


class NeoXAttention(nn.Module):
    """Fused query_key_value viewed (b, s, H, 3d): per head [q | k | v]; rotary_pct 0.25."""

    def __init__(self, c):
        super().__init__()
        self.h, self.d = c.num_attention_heads, c.hidden_size // c.num_attention_heads
        self.query_key_value = nn.Linear(c.hidden_size, 3 * c.hidden_size, bias=True)
        self.dense = nn.Linear(c.hidden_size, c.hidden_size, bias=True)
        self.recorded, self.positions = [], []

    def forward(self, hidden_states=None, position_ids=None):
        b, s, _ = hidden_states.shape
        qkv = self.query_key_value(hidden_states).view(b, s, self.h, 3 * self.d).transpose(1, 2)
        q, k, v = qkv[..., :self.d], qkv[..., self.d:2 * self.d], qkv[..., 2 * self.d:]
        self.recorded.append((q.clone(), k.clone()))
        self.positions.append(position_ids.clone())
        q, k = rotate(q, position_ids, self.d // 4), rotate(k, position_ids, self.d // 4)
        return self.dense(attend(q, k, v))


class MLAAttention(nn.Module):
    """DeepSeek-V3 multi-head latent attention: q LoRA, shared rope key, per-head [nope | rope]."""

    def __init__(self, c):
        super().__init__()
        self.h, self.nope, self.rope, self.v = c.num_attention_heads, c.qk_nope_head_dim, c.qk_rope_head_dim, c.v_head_dim
        self.lora = c.kv_lora_rank
        if c.q_lora_rank is None:  # DeepSeek-V2-Lite: q_proj instead of the q LoRA
            self.q_proj = nn.Linear(c.hidden_size, self.h * (self.nope + self.rope), bias=False)
        else:
            self.q_a_proj = nn.Linear(c.hidden_size, c.q_lora_rank, bias=False)
            self.q_a_layernorm = RMSNorm(c.q_lora_rank)
            self.q_b_proj = nn.Linear(c.q_lora_rank, self.h * (self.nope + self.rope), bias=False)
        self.kv_a_proj_with_mqa = nn.Linear(c.hidden_size, self.lora + self.rope, bias=False)
        self.kv_a_layernorm = RMSNorm(self.lora)
        self.kv_b_proj = nn.Linear(self.lora, self.h * (self.nope + self.v), bias=False)
        self.o_proj = nn.Linear(self.h * self.v, c.hidden_size, bias=False)
        self.recorded, self.positions = [], []

    def forward(self, hidden_states=None, position_ids=None):
        b, s, _ = hidden_states.shape
        if hasattr(self, "q_proj"):
            q = self.q_proj(hidden_states)
        else:
            q = self.q_b_proj(self.q_a_layernorm(self.q_a_proj(hidden_states)))
        q = q.view(b, s, self.h, self.nope + self.rope).transpose(1, 2)
        q_pass, q_rot = torch.split(q, [self.nope, self.rope], dim=-1)
        k_pass, k_rot = torch.split(self.kv_a_proj_with_mqa(hidden_states), [self.lora, self.rope], dim=-1)
        kv = self.kv_b_proj(self.kv_a_layernorm(k_pass)).view(b, s, self.h, self.nope + self.v).transpose(1, 2)
        k_pass, v = torch.split(kv, [self.nope, self.v], dim=-1)
        k_rot = k_rot.view(b, 1, s, self.rope)
        self.recorded.append((torch.cat([q_pass, q_rot], -1).clone(),
                              torch.cat([k_pass, k_rot.expand(*k_pass.shape[:-1], -1)], -1).clone()))
        self.positions.append(position_ids.clone())
        q_rot, k_rot = rotate(q_rot, position_ids, self.rope), rotate(k_rot, position_ids, self.rope)
        q = torch.cat([q_pass, q_rot], dim=-1)
        k = torch.cat([k_pass, k_rot.expand(*k_pass.shape[:-1], -1)], dim=-1)
        return self.o_proj(attend(q, k, v))


class Decoder(nn.Module):
    def __init__(self, c, attention, name):
        super().__init__()
        self.input_layernorm = RMSNorm(c.hidden_size)
        self.attn_name = name
        setattr(self, name, attention)

    def forward(self, hidden_states, position_ids):
        attention = getattr(self, self.attn_name)
        return hidden_states + attention(hidden_states=self.input_layernorm(hidden_states), position_ids=position_ids)


class Body(nn.Module):
    def __init__(self, c, make_attention, name):
        super().__init__()
        self.embed_tokens = nn.Embedding(c.vocab_size, c.hidden_size)
        self.layers = nn.ModuleList(Decoder(c, make_attention(c), name) for _ in range(c.num_hidden_layers))
        self.norm = RMSNorm(c.hidden_size)

    def forward(self, input_ids, position_ids):
        h = self.embed_tokens(input_ids)
        for layer in self.layers:
            h = layer(h, position_ids)
        return self.norm(h)


class CausalLM(nn.Module):
    """`model` (or `gpt_neox`) holding `layers.N.self_attn` (or `.attention`), then `lm_head`."""

    def __init__(self, c, make_attention, body="model", attention="self_attn"):
        super().__init__()
        self.config, self.body = c, body
        setattr(self, body, Body(c, make_attention, attention))
        self.lm_head = nn.Linear(c.hidden_size, c.vocab_size, bias=False)

    def forward(self, input_ids=None, position_ids=None):
        if position_ids is None:
            position_ids = torch.arange(input_ids.shape[1])[None]
        return self.lm_head(getattr(self, self.body)(input_ids, position_ids))

    def attentions(self):
        return [getattr(layer, layer.attn_name) for layer in getattr(self, self.body).layers]


def config(model_type, **extra):
    base = dict(model_type=model_type, vocab_size=50, hidden_size=32, num_attention_heads=4, num_key_value_heads=2,
                head_dim=8, num_hidden_layers=3)
    base.update(extra)
    return types.SimpleNamespace(**{k: v for k, v in base.items() if v is not None or k == "q_lora_rank"})


# family -> (model_type, builder). Geometry: 4 heads, 2 kv heads (GQA) where the family has them.
FAMILIES = {
    "llama": lambda: CausalLM(config("llama"), Attention),
    "qwen2": lambda: CausalLM(config("qwen2"), lambda c: Attention(c, bias=True)),
    "qwen3": lambda: CausalLM(config("qwen3", head_dim=12), lambda c: Attention(c, norm="bshd")),
    "gemma3": lambda: CausalLM(config("gemma3_text", head_dim=16), lambda c: Attention(c, norm="bhsd")),
    "olmo2": lambda: CausalLM(config("olmo2"), lambda c: Attention(c, norm="flat")),
    "phi3": lambda: CausalLM(config("phi3"), Phi3Attention),
    # GPTNeoXConfig has neither num_key_value_heads nor head_dim (None drops a field).
    "gpt_neox": lambda: CausalLM(config("gpt_neox", num_key_value_heads=None, head_dim=None), NeoXAttention,
                                 body="gpt_neox", attention="attention"),
    "deepseek_v3": lambda: CausalLM(config("deepseek_v3", num_key_value_heads=4, head_dim=None, q_lora_rank=24,
                                           kv_lora_rank=16, qk_nope_head_dim=8, qk_rope_head_dim=4, v_head_dim=6),
                                    MLAAttention),
    "deepseek_v2_lite": lambda: CausalLM(config("deepseek_v2", num_key_value_heads=4, head_dim=None, q_lora_rank=None,
                                                kv_lora_rank=16, qk_nope_head_dim=8, qk_rope_head_dim=4, v_head_dim=6),
                                         MLAAttention),
}


def build(family, seed=0):
    torch.manual_seed(seed)
    return FAMILIES[family]().eval()
