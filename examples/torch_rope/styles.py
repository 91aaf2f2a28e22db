"""Three common ways RoPE is written in torch, each written here from its published formula, as the
implementations ropecheck.torch checks in the examples (test_my_rope.py, findings.py) and docs/torch.md.

None of them is ropecheck's. The formulas, and which engine uses which, are those summarized in
the project's notes on peer implementations (../shared/notes/peer-rope-implementations.md):

- hf_rotate_half: Hugging Face transformers' default RoPE (LlamaRotaryEmbedding with the llama3
  rope_type, apply_rotary_pos_emb): float32 inv_freq, float32 angle p * inv_freq, float32 cos and
  sin cast to the activation dtype, q * cos + rotate_half(q) * sin in that dtype.
- gptj_interleaved: the GPT-J / Meta reference style: pairs (2i, 2i + 1) of the first rotary_dim
  channels viewed as complex numbers, multiplied by polar(1, p * inv_freq) in complex64 (x upcast to
  float32), cast back; the other channels passed through.
- CachedRope: the serving engines' cos/sin cache (vLLM's RotaryEmbedding, neox style): a
  [max_position, rotary_dim] table of float32 cos | sin cast to the model dtype (bfloat16), indexed
  by position; the rotation upcasts to float32 and rounds once to x's dtype.

Model constants: Llama 3.1 8B's config.json (meta-llama/Llama-3.1-8B: head_dim 128, rope_theta
500000, rope_scaling llama3 with factor 8, low_freq_factor 1, high_freq_factor 4,
original_max_position_embeddings 8192, max_position_embeddings 131072); GLM-4 9B's
(THUDM/glm-4-9b: head_dim 128, rotary over its first 64 channels, interleaved, theta 10000).
"""

import math

import torch

LLAMA = "llama-3.1-8b"   # ropecheck's zoo name of the first and third styles' model
GLM = "glm-4-9b"         # the GPT-J-style model: interleaved pairs over channels 0..63 of 128
LLAMA_CONTEXT = 131072   # max_position_embeddings: the cache's length


def llama3_inv_freq(dim=128, base=500000.0, factor=8.0, low=1.0, high=4.0, original=8192):
    """Llama 3's frequencies as transformers computes them, in float32: the default
    1 / base^(2i / dim), then divided by `factor` for wavelengths above original / low, kept below
    original / high, and interpolated smoothly between."""
    inv = 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.int64).float() / dim))
    wavelen = 2 * math.pi / inv
    scaled = torch.where(wavelen > original / low, inv / factor, inv)
    smooth = (original / wavelen - low) / (high - low)
    smoothed = (1 - smooth) * scaled / factor + smooth * scaled
    medium = (wavelen >= original / high) & (wavelen <= original / low)
    return torch.where(medium, smoothed, scaled)


def rotate_half(x):
    h = x.shape[-1] // 2
    return torch.cat((-x[..., h:], x[..., :h]), dim=-1)


def hf_rotate_half(x, positions):
    """transformers-style RoPE of x [tokens, heads, 128] (any float dtype) at int64 positions [tokens]."""
    inv = llama3_inv_freq().to(x.device)
    freqs = positions.float()[:, None] * inv[None, :]          # the float32 angle
    emb = torch.cat((freqs, freqs), dim=-1)
    cos = emb.cos().to(x.dtype)[:, None, :]                    # float32 cos, then the activation dtype
    sin = emb.sin().to(x.dtype)[:, None, :]
    return x * cos + rotate_half(x) * sin                      # every product and the sum in x's dtype


def gptj_interleaved(x, positions, rotary_dim=64, base=10000.0):
    """GPT-J-style RoPE of x [tokens, heads, head_dim]: complex64 pairs (2i, 2i + 1) of the first
    rotary_dim channels, the rest passed through."""
    inv = 1.0 / (base ** (torch.arange(0, rotary_dim, 2, device=x.device).float() / rotary_dim))
    freqs = positions.float()[:, None] * inv[None, :]
    turn = torch.polar(torch.ones_like(freqs), freqs)[:, None, :]           # complex64 cos + i sin
    pairs = torch.view_as_complex(x[..., :rotary_dim].float().reshape(*x.shape[:-1], rotary_dim // 2, 2).contiguous())
    rotated = torch.view_as_real(pairs * turn).flatten(-2).to(x.dtype)
    return torch.cat((rotated, x[..., rotary_dim:]), dim=-1)


class CachedRope:
    """A serving engine's RoPE: a cos | sin table in `dtype` for positions [0, max_position)."""

    def __init__(self, max_position=LLAMA_CONTEXT, dtype=torch.bfloat16):
        t = torch.arange(max_position, dtype=torch.float32)
        freqs = torch.outer(t, llama3_inv_freq())                          # float32 angle table
        self.cache = torch.cat((freqs.cos(), freqs.sin()), dim=-1).to(dtype)  # cast to the model dtype
        self.__qualname__ = f"CachedRope({dtype})"

    def __call__(self, x, positions):
        cos, sin = self.cache.to(x.device)[positions].float().chunk(2, dim=-1)  # an index past the table raises
        cos, sin = cos[:, None, :], sin[:, None, :]
        x1, x2 = x.float().chunk(2, dim=-1)
        return torch.cat((x1 * cos - x2 * sin, x2 * cos + x1 * sin), dim=-1).to(x.dtype)
