"""Correct RoPE implementations in the styles real projects ship, in NumPy, for testing check_rope.

Every implementation is ``fn(x, positions)``: x a NumPy array [tokens, heads, head_dim] of float32,
float16, or uint16 holding bfloat16 bit patterns; positions int64 [tokens]. It returns a new array
of x's shape and dtype (bfloat16: uint16 bits). Each is written from the formulas, with the model's
parameters read from its config.json by this module's own small reader (read_config), with
transformers' meaning of every field; nothing is taken from ropecheck.

Two styles, both float32 arithmetic with ONE rounding to the output dtype at the end:

"standard" (transformers, vLLM's reference path, most engines):
    inv_freq = 1 / theta^(2i/d)           float32 (float32 exponent 2i/d, float32 pow, float32 divide)
    inv_freq = scaling rule(inv_freq)     evaluated in float32 (linear, llama3, yarn, longrope, dynamic)
    angle    = float32(p) * inv_freq      float32 product
    cos, sin = np.cos(angle), np.sin(angle) in float32, each times the attention factor (float32)
    y_a = x_a cos - x_b sin, y_b = x_a sin + x_b cos   in float32, then rounded once to x's dtype.

"ggml" (llama.cpp's ggml_rope): the angle of pair k by the geometric recurrence
    theta_0 = float32(p), theta_k = theta_{k-1} * powf(base, -2/d)  (float32)
and the scaling rule applied to the angle (linear: times freq_scale = 1/factor; llama3 and
longrope: divided by per-pair frequency factors; yarn: ggml's blend of theta and theta/factor by the
ramp); then cos/sin and the rotation as above.

Pass-through channels (partial rotary, DeepSeek's nope part) are copied bit for bit. Layouts:
"half" pairs (k, k + R/2) of the rotary part (rotate_half), "interleaved" pairs (2k, 2k + 1).

Registries: CORRECT (stateless cases, each with the ropecheck keywords that name the same RoPE),
STATEFUL (call-sequence implementations: a cached table regrown on demand, dynamic NTK and longrope
chosen per call). cases() enumerates (case, dtype).
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
from typing import Any, Callable, Optional

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ZOO = os.path.normpath(os.path.join(HERE, "..", "..", "src", "spectrum", "zoo"))
DATA = os.path.join(HERE, "data")
DTYPES = ("float32", "bfloat16", "float16")

RopeFn = Callable[[np.ndarray, np.ndarray], np.ndarray]
F32 = np.float32


# ---------------------------------------------------------------------------------------------
# Formats


def storage(dtype: str) -> type:
    """The NumPy dtype holding `dtype` (bfloat16: its uint16 bits)."""
    return {"float32": np.float32, "float16": np.float16, "bfloat16": np.uint16}[dtype]


def bf16_to_f32(bits: np.ndarray) -> np.ndarray:
    """bfloat16 bit patterns (uint16) as float32: exact (the bits are float32's top half)."""
    return (np.asarray(bits, dtype=np.uint16).astype(np.uint32) << np.uint32(16)).view(np.float32)


def f32_to_bf16(x: np.ndarray) -> np.ndarray:
    """float32 rounded to bfloat16 (to nearest, ties to even), as uint16 bits. Infinities and
    overflow give infinities; a NaN stays a NaN of its sign (quiet bit set)."""
    u = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32)
    rounded = ((u + np.uint32(0x7FFF) + ((u >> np.uint32(16)) & np.uint32(1))) >> np.uint32(16)).astype(np.uint16)
    quiet_nan = ((u >> np.uint32(16)) | np.uint32(0x0040)).astype(np.uint16)
    return np.where(np.isnan(x), quiet_nan, rounded)


def round_bf16(x: np.ndarray) -> np.ndarray:
    """float32 values rounded to bfloat16 and back (the value a bfloat16 tensor would hold)."""
    return bf16_to_f32(f32_to_bf16(x))


def to_f32(x: np.ndarray, dtype: str) -> np.ndarray:
    """x's values in float32 (exact for all three formats)."""
    return bf16_to_f32(x) if dtype == "bfloat16" else np.asarray(x).astype(np.float32)


def from_f32(y: np.ndarray, dtype: str) -> np.ndarray:
    """float32 values rounded once (to nearest even) to dtype's storage."""
    if dtype == "bfloat16":
        return f32_to_bf16(y)
    with np.errstate(over="ignore"):  # beyond float16's range: infinity, as the cast should give
        return np.asarray(y, dtype=np.float32).astype(storage(dtype))


def round_to(x: np.ndarray, dtype: str) -> np.ndarray:
    """float32 values rounded to dtype and back to float32 (a cast to the model dtype and back)."""
    return to_f32(from_f32(x, dtype), dtype)


def dtype_of(x: np.ndarray) -> str:
    return {np.dtype(np.float32): "float32", np.dtype(np.float16): "float16", np.dtype(np.uint16): "bfloat16"}[np.dtype(x.dtype)]


# ---------------------------------------------------------------------------------------------
# config.json, with transformers' semantics


INTERLEAVED_MODEL_TYPES = ("cohere", "glm4", "glm", "deepseek_v3")  # GLM and Cohere rotate (2k, 2k+1); DeepSeek-V3 rope_interleave


@dataclasses.dataclass(frozen=True)
class RopeConfig:
    """One layer type's RoPE as transformers reads config.json."""

    path: str
    model_type: str
    head_dim: int
    rotary_dims: int  # R: rotated channels
    offset: int  # first rotated channel (DeepSeek: after the nope part)
    layout: str
    theta: float
    max_position: int  # max_position_embeddings
    top_original: Optional[int]  # Phi-3's top-level original_max_position_embeddings
    scaling: dict[str, Any]  # rope_scaling with "rope_type" normalised ("default": none)

    @property
    def rope_type(self) -> str:
        return str(self.scaling.get("rope_type", "default"))


def config_path(model: str) -> str:
    if model.endswith(".json") or os.sep in model:
        return model if os.path.isabs(model) else os.path.join(DATA, model)
    return os.path.join(ZOO, model + ".json")


def read_config(model: str, layer_type: Optional[str] = None) -> RopeConfig:
    path = config_path(model)
    with open(path) as f:
        top = json.load(f)
    c = top.get("text_config", top)  # Gemma 3, Llama 4: the text model's fields
    model_type = str(c.get("model_type", top.get("model_type", "")))
    if "qk_rope_head_dim" in c:  # DeepSeek MLA: [nope | rope] per head, only the rope part rotates
        offset, rotary = int(c["qk_nope_head_dim"]), int(c["qk_rope_head_dim"])
        head_dim = offset + rotary
    else:
        head_dim = int(c.get("head_dim") or c["hidden_size"] // c["num_attention_heads"])
        fraction = c.get("partial_rotary_factor", c.get("rotary_pct", 1.0))  # GPT-NeoX spells it rotary_pct
        offset, rotary = 0, int(head_dim * fraction)
    theta = float(c.get("rope_theta", c.get("rotary_emb_base", 10000.0)))
    scaling = dict(c.get("rope_scaling") or {})
    if scaling:
        kind = scaling.pop("type", None)
        scaling.setdefault("rope_type", kind)
        if scaling["rope_type"] == "su":  # Phi-3's first name for longrope
            scaling["rope_type"] = "longrope"
    if model_type == "gemma3_text" and layer_type == "sliding_attention":  # local layers: their own base, unscaled
        theta, scaling = float(c.get("rope_local_base_freq", 10000.0)), {}
    layout = "interleaved" if model_type in INTERLEAVED_MODEL_TYPES and c.get("rope_interleave", True) else "half"
    top_original = c.get("original_max_position_embeddings")
    return RopeConfig(path=path, model_type=model_type, head_dim=head_dim, rotary_dims=rotary, offset=offset, layout=layout,
                      theta=theta, max_position=int(c["max_position_embeddings"]),
                      top_original=int(top_original) if top_original is not None else None, scaling=scaling)


# ---------------------------------------------------------------------------------------------
# Scaling rules in float32 (transformers' modeling_rope_utils, from the formulas)


def exponents(d: int) -> np.ndarray:
    """2i/d for i < d/2, in float32 (an int arange made float32, divided by d in float32)."""
    return np.arange(0, d, 2, dtype=np.int64).astype(np.float32) / F32(d)


def theta_powers(theta: float, d: int) -> np.ndarray:
    """theta^(2i/d) in float32 (float32 pow)."""
    return np.power(F32(theta), exponents(d)).astype(np.float32)


def yarn_mscale(scale: float, m: float = 1.0) -> float:
    return 1.0 if scale <= 1 else 0.1 * m * math.log(scale) + 1.0


def yarn_range(cfg: RopeConfig, d: int, original: Optional[int] = None, swap_betas: bool = False) -> tuple[float, float]:
    """YaRN's correction range [low, high] of pair slots (doubles, as transformers computes it)."""
    s = cfg.scaling
    fast, slow = float(s.get("beta_fast", 32)), float(s.get("beta_slow", 1))
    if swap_betas:
        fast, slow = slow, fast
    c = original if original is not None else int(s.get("original_max_position_embeddings") or cfg.max_position)

    def corr(rotations: float) -> float:
        return d * math.log(c / (rotations * 2 * math.pi)) / (2 * math.log(cfg.theta))

    low, high = corr(fast), corr(slow)
    if s.get("truncate", True):
        low, high = math.floor(low), math.ceil(high)
    low, high = max(low, 0), min(high, d - 1)
    if low == high:
        high += 0.001
    return float(low), float(high)


def yarn_ramp(cfg: RopeConfig, d: int, **range_options: Any) -> np.ndarray:
    """clamp((i - low) / (high - low), 0, 1) over the pairs, in float32: 0 keeps g, 1 gives g/factor."""
    low, high = yarn_range(cfg, d, **range_options)
    ramp = (np.arange(d // 2, dtype=np.float32) - F32(low)) / F32(high - low)
    return np.clip(ramp, F32(0), F32(1)).astype(np.float32)


def longrope_long(cfg: RopeConfig, seq_len: int) -> bool:
    """transformers' choice: the long factors when the sequence exceeds the original context."""
    original = cfg.top_original or cfg.max_position
    return seq_len > original


def attention_factor(cfg: RopeConfig) -> float:
    """The factor multiplied into cos and sin (transformers' attention_scaling), as a double."""
    s, kind = cfg.scaling, cfg.rope_type
    if s.get("attention_factor") is not None:
        return float(s["attention_factor"])
    if kind == "yarn":
        factor = float(s["factor"])
        if s.get("mscale") and s.get("mscale_all_dim"):  # DeepSeek's form
            return yarn_mscale(factor, float(s["mscale"])) / yarn_mscale(factor, float(s["mscale_all_dim"]))
        return yarn_mscale(factor)
    if kind == "longrope":
        if cfg.top_original is not None:  # Phi-3: the factor is max_position_embeddings / original
            factor, original = cfg.max_position / cfg.top_original, cfg.top_original
        else:
            factor, original = float(s.get("factor", 1.0)), cfg.max_position
        return 1.0 if factor <= 1 else math.sqrt(1 + math.log(factor) / math.log(original))
    return 1.0


def dynamic_base(cfg: RopeConfig, seq_len: int) -> float:
    """Dynamic NTK: base * ((factor * S / M) - (factor - 1))^(d/(d-2)) for S > M, else the base."""
    d = cfg.rotary_dims
    if seq_len <= cfg.max_position:
        return cfg.theta
    f = float(cfg.scaling["factor"])
    return cfg.theta * ((f * seq_len / cfg.max_position) - (f - 1)) ** (d / (d - 2))


def llama3_inv_freq(cfg: RopeConfig, inv_freq: np.ndarray, swap: bool = False) -> np.ndarray:
    """Llama 3.1's band rule in float32: wavelengths below C/high kept, above C/low divided by
    factor, smoothly blended between."""
    s = cfg.scaling
    factor, low, high = F32(s["factor"]), float(s["low_freq_factor"]), float(s["high_freq_factor"])
    if swap:
        low, high = high, low
    context = float(s["original_max_position_embeddings"])
    low_wavelen, high_wavelen = F32(context / low), F32(context / high)
    wavelen = F32(2 * math.pi) / inv_freq
    scaled = np.where(wavelen > low_wavelen, inv_freq / factor, inv_freq).astype(np.float32)
    smooth = ((F32(context) / wavelen - F32(low)) / F32(high - low)).astype(np.float32)
    smoothed = ((F32(1) - smooth) * scaled / factor + smooth * scaled).astype(np.float32)
    medium = ~(wavelen < high_wavelen) & ~(wavelen > low_wavelen)
    return np.where(medium, smoothed, scaled).astype(np.float32)


def llama3_divisors(cfg: RopeConfig, d: int) -> np.ndarray:
    """llama3 as per-pair frequency divisors (llama.cpp's rope_freqs tensor): g / rule(g) computed
    in double, stored float32."""
    s = cfg.scaling
    factor, low, high = float(s["factor"]), float(s["low_freq_factor"]), float(s["high_freq_factor"])
    context = float(s["original_max_position_embeddings"])
    out = []
    for i in range(d // 2):
        g = 1.0 / cfg.theta ** (2 * i / d)
        wavelen = 2 * math.pi / g
        if wavelen < context / high:
            out.append(1.0)
        elif wavelen > context / low:
            out.append(factor)
        else:
            smooth = (context / wavelen - low) / (high - low)
            out.append(1.0 / ((1 - smooth) / factor + smooth))
    return np.array(out, dtype=np.float32)


def longrope_factors(cfg: RopeConfig, seq_len: int) -> np.ndarray:
    key = "long_factor" if longrope_long(cfg, seq_len) else "short_factor"
    return np.array(cfg.scaling[key], dtype=np.float32)


# ---------------------------------------------------------------------------------------------
# The two styles


class StandardRope:
    """The standard float32 formulation. Subclasses (rope_mutants) override one step each.

    seq_len: the sequence length dynamic NTK and longrope are evaluated at (None: the config's
    max_position_embeddings, ropecheck's default; per_call=True: max(positions) + 1 of each call,
    as transformers' dynamic rotary embedding does)."""

    style = "standard"

    def __init__(self, model: str, layer_type: Optional[str], dtype: str, seq_len: Optional[int] = None, per_call: bool = False):
        self.cfg = read_config(model, layer_type)
        self.dtype = dtype
        self.seq_len = seq_len if seq_len is not None else self.cfg.max_position
        self.per_call = per_call
        R, off = self.cfg.rotary_dims, self.cfg.offset
        k = np.arange(R // 2)
        if self.cfg.layout == "half":
            self.idx_a, self.idx_b = off + k, off + R // 2 + k
        else:
            self.idx_a, self.idx_b = off + 2 * k, off + 2 * k + 1

    # -- the steps
    def call_seq_len(self, positions: np.ndarray) -> int:
        return int(positions.max()) + 1 if self.per_call and positions.size else self.seq_len

    def base(self, seq_len: int) -> float:
        return dynamic_base(self.cfg, seq_len) if self.cfg.rope_type == "dynamic" else self.cfg.theta

    def inv_freq(self, seq_len: int) -> np.ndarray:
        cfg, d = self.cfg, self.cfg.rotary_dims
        kind, s = cfg.rope_type, cfg.scaling
        powers = theta_powers(self.base(seq_len), d)
        g = (F32(1) / powers).astype(np.float32)
        if kind == "linear":
            return (g / F32(s["factor"])).astype(np.float32)
        if kind == "llama3":
            return llama3_inv_freq(cfg, g)
        if kind == "yarn":
            return self.yarn_inv_freq(powers)
        if kind == "longrope":
            return (F32(1) / (longrope_factors(cfg, seq_len) * powers)).astype(np.float32)
        return g  # default, dynamic (its base changed)

    def yarn_inv_freq(self, powers: np.ndarray, **range_options: Any) -> np.ndarray:
        factor = F32(self.cfg.scaling["factor"])
        extrapolation = F32(1) / powers
        interpolation = F32(1) / (factor * powers)
        keep = F32(1) - yarn_ramp(self.cfg, self.cfg.rotary_dims, **range_options)  # transformers' extrapolation factor
        return (interpolation * (F32(1) - keep) + extrapolation * keep).astype(np.float32)

    def scale(self) -> np.float32:
        return F32(attention_factor(self.cfg))

    def positions_f32(self, positions: np.ndarray) -> np.ndarray:
        return positions.astype(np.float32)

    def angles(self, positions: np.ndarray, seq_len: int) -> np.ndarray:
        return (self.positions_f32(positions)[:, None] * self.inv_freq(seq_len)[None, :]).astype(np.float32)

    def cos_sin(self, angles: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        a = self.scale()
        return (np.cos(angles) * a).astype(np.float32), (np.sin(angles) * a).astype(np.float32)

    def tables(self, positions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """cos and sin [tokens, R/2] (the attention factor in them)."""
        return self.cos_sin(self.angles(positions, self.call_seq_len(positions)))

    def rotate(self, x: np.ndarray, cos: np.ndarray, sin: np.ndarray) -> np.ndarray:
        xf = to_f32(x, self.dtype)
        xa, xb = xf[..., self.idx_a], xf[..., self.idx_b]
        c, s = cos[:, None, :], sin[:, None, :]
        out = np.array(x, copy=True)
        out[..., self.idx_a] = from_f32(xa * c - xb * s, self.dtype)
        out[..., self.idx_b] = from_f32(xa * s + xb * c, self.dtype)
        return out

    def __call__(self, x: np.ndarray, positions: np.ndarray) -> np.ndarray:
        positions = np.asarray(positions, dtype=np.int64)
        with np.errstate(all="ignore"):  # infinities and NaNs in x give IEEE results, not warnings
            cos, sin = self.tables(positions)
            return self.rotate(x, cos, sin)


class GgmlRope(StandardRope):
    """ggml's angle recurrence theta_k = theta_{k-1} * powf(base, -2/d) from theta_0 = float(p),
    then the scaling rule on the angle, in float32."""

    style = "ggml"

    def angles(self, positions: np.ndarray, seq_len: int) -> np.ndarray:
        cfg, d = self.cfg, self.cfg.rotary_dims
        kind, s = cfg.rope_type, cfg.scaling
        step = np.power(F32(self.base(seq_len)), F32(-2.0 / d)).astype(np.float32)
        theta = self.positions_f32(positions)
        out = np.empty((positions.shape[0], d // 2), dtype=np.float32)
        for k in range(d // 2):
            out[:, k] = theta
            theta = (theta * step).astype(np.float32)
        if kind == "linear":
            return (out * F32(1.0 / float(s["factor"]))).astype(np.float32)  # ggml's freq_scale
        if kind == "llama3":
            return (out / llama3_divisors(cfg, d)).astype(np.float32)
        if kind == "longrope":
            return (out / longrope_factors(cfg, seq_len)).astype(np.float32)
        if kind == "yarn":
            ramp = yarn_ramp(cfg, d)  # 1: interpolated (theta * freq_scale), 0: extrapolated (theta)
            interpolated = (out * F32(1.0 / float(s["factor"]))).astype(np.float32)
            return (interpolated * ramp + out * (F32(1) - ramp)).astype(np.float32)
        return out


STYLES: dict[str, type[StandardRope]] = {"standard": StandardRope, "ggml": GgmlRope}


# ---------------------------------------------------------------------------------------------
# Stateful implementations (call sequences)


class CachedTableRope(StandardRope):
    """cos/sin tables for positions [0, n) built once and regrown (to the next power of two) when a
    call needs a position beyond them, as HF's early rotary embeddings and most engines cache them;
    positions outside [0, CAP) are computed directly (the same float32 formula, the same bits)."""

    CAP = 1 << 16

    def __init__(self, *a: Any, **k: Any) -> None:
        super().__init__(*a, **k)
        self.table: Optional[tuple[np.ndarray, np.ndarray]] = None
        self.grown = 0  # how many times the table was (re)built

    def build(self, n: int) -> None:
        self.table = self.cos_sin(self.angles(np.arange(n, dtype=np.int64), self.seq_len))
        self.grown += 1

    def tables(self, positions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        inside = (positions >= 0) & (positions < self.CAP)
        need = int(positions[inside].max()) + 1 if inside.any() else 0
        if need and (self.table is None or self.table[0].shape[0] < need):
            self.build(1 << max(need - 1, 1).bit_length())
        cos = np.empty((positions.shape[0], self.cfg.rotary_dims // 2), dtype=np.float32)
        sin = np.empty_like(cos)
        if inside.any():
            assert self.table is not None
            cos[inside], sin[inside] = self.table[0][positions[inside]], self.table[1][positions[inside]]
        if not inside.all():
            cos[~inside], sin[~inside] = self.cos_sin(self.angles(positions[~inside], self.seq_len))
        return cos, sin


# ---------------------------------------------------------------------------------------------
# Registries


@dataclasses.dataclass(frozen=True)
class Case:
    """A correct implementation: `make(dtype)` gives fn; ropecheck names the same RoPE by
    model, layer_type and options (the layout is the model's own, given for check_rope)."""

    name: str
    model: str  # zoo name or config.json path
    layer_type: Optional[str]
    layout: str
    style: str
    make: Callable[[str], RopeFn]
    options: dict[str, Any] = dataclasses.field(default_factory=dict)  # extra ropecheck keywords

    def ropecheck_kwargs(self, positions: Optional[np.ndarray] = None) -> dict[str, Any]:
        return dict(model=self.model, layer_type=self.layer_type, **self.options)


@dataclasses.dataclass(frozen=True)
class StatefulCase:
    """A correct implementation that keeps state between calls: `make(dtype)` gives a fresh fn;
    `options_for(positions)` the ropecheck keywords that name the RoPE of a call at those positions
    (dynamic NTK and per-call longrope: sequence_length = max(positions) + 1)."""

    name: str
    model: str
    layer_type: Optional[str]
    layout: str
    make: Callable[[str], RopeFn]
    options_for: Callable[[np.ndarray], dict[str, Any]]

    def ropecheck_kwargs(self, positions: np.ndarray) -> dict[str, Any]:
        return dict(model=self.model, layer_type=self.layer_type, **self.options_for(positions))


def data(name: str) -> str:
    return os.path.join(DATA, name)


def per_call_options(positions: np.ndarray) -> dict[str, Any]:
    return {"sequence_length": int(np.max(positions)) + 1}


# (name, model, layer_type, fixed sequence length for dynamic/longrope or None)
MODELS: list[tuple[str, str, Optional[str], Optional[int]]] = [
    ("qwen3-8b", "qwen3-8b", None, None),  # none
    ("command-r", "command-r", None, None),  # none, interleaved
    ("llama-3.1-8b", "llama-3.1-8b", None, None),  # llama3
    ("llama-3.2-1b", "llama-3.2-1b", None, None),  # llama3, d 64
    ("gemma-3-27b-full", "gemma-3-27b", "full_attention", None),  # linear 8
    ("gemma-3-27b-sliding", "gemma-3-27b", "sliding_attention", None),  # local base 1e4, unscaled
    ("qwen2.5-7b-yarn", "qwen2.5-7b-yarn", None, None),  # yarn, truncate
    ("gpt-oss-20b-full", "gpt-oss-20b", "full_attention", None),  # yarn, no truncate, attention factor
    ("deepseek-v3", "deepseek-v3", None, None),  # yarn mscale form, rope part at offset 128, interleaved
    ("phi-3.5-mini-long", "phi-3.5-mini", None, None),  # longrope long factors (S = max_position_embeddings)
    ("phi-3.5-mini-short", "phi-3.5-mini", None, 4096),  # longrope short factors (S <= original context)
    ("phi-4-mini", "phi-4-mini", None, None),  # longrope + partial rotary 96 of 128
    ("gpt-neox-20b", "gpt-neox-20b", None, None),  # partial rotary 24 of 96
    ("glm-4-9b", "glm-4-9b", None, None),  # partial rotary 64 of 128, interleaved
    ("dynamic-d128-s2048", data("dynamic-ntk-d128.json"), None, 2048),  # dynamic NTK, grown base
    ("dynamic-d128-s300", data("dynamic-ntk-d128.json"), None, 300),  # dynamic NTK at S <= M: the base itself
    ("dynamic-d64-s1500", data("dynamic-ntk-d64.json"), None, 1500),  # dynamic NTK, d 64
]


def _maker(cls: type[StandardRope], model: str, layer_type: Optional[str], **kw: Any) -> Callable[[str], RopeFn]:
    return lambda dtype: cls(model, layer_type, dtype, **kw)


def _correct() -> list[Case]:
    out = []
    for style, cls in STYLES.items():
        for name, model, layer_type, seq_len in MODELS:
            options = {"sequence_length": seq_len} if seq_len is not None else {}
            out.append(Case(name=f"{style}:{name}", model=model, layer_type=layer_type, layout=read_config(model, layer_type).layout,
                            style=style, make=_maker(cls, model, layer_type, seq_len=seq_len), options=options))
    return out


CORRECT: list[Case] = _correct()

STATEFUL: list[StatefulCase] = [
    StatefulCase("cached-table:llama-3.1-8b", "llama-3.1-8b", None, "half",
                 _maker(CachedTableRope, "llama-3.1-8b", None), lambda p: {}),
    StatefulCase("cached-table:gpt-oss-20b-full", "gpt-oss-20b", "full_attention", "half",
                 _maker(CachedTableRope, "gpt-oss-20b", "full_attention"), lambda p: {}),
    StatefulCase("dynamic-per-call:d128", data("dynamic-ntk-d128.json"), None, "half",
                 _maker(StandardRope, data("dynamic-ntk-d128.json"), None, per_call=True), per_call_options),
    StatefulCase("dynamic-per-call:d64", data("dynamic-ntk-d64.json"), None, "half",
                 _maker(StandardRope, data("dynamic-ntk-d64.json"), None, per_call=True), per_call_options),
    StatefulCase("longrope-per-call:phi-3.5-mini", "phi-3.5-mini", None, "half",
                 _maker(StandardRope, "phi-3.5-mini", None, per_call=True), per_call_options),
]


def cases(registry: Optional[list[Case]] = None) -> list[tuple[Case, str]]:
    """Every (case, dtype) pair, dtype in DTYPES."""
    return [(c, d) for c in (CORRECT if registry is None else registry) for d in DTYPES]


# ---------------------------------------------------------------------------------------------
# Measuring


def pair_indices(cfg: RopeConfig) -> tuple[np.ndarray, np.ndarray]:
    R, off, k = cfg.rotary_dims, cfg.offset, np.arange(cfg.rotary_dims // 2)
    if cfg.layout == "half":
        return off + k, off + R // 2 + k
    return off + 2 * k, off + 2 * k + 1


PRECISION = {"float32": 24, "bfloat16": 8, "float16": 11}  # significand bits
MIN_EXPONENT = {"float32": -126, "bfloat16": -126, "float16": -14}


def ulp_at(v: np.ndarray, dtype: str) -> np.ndarray:
    """dtype's ulp at magnitude v (float64): 2^(e - p + 1) for v in [2^e, 2^(e+1)), subnormal
    spacing below the normal range."""
    v = np.abs(np.asarray(v, dtype=np.float64))
    e = np.floor(np.log2(np.where(v > 0, v, 1.0)))
    e = np.maximum(np.where(v > 0, e, MIN_EXPONENT[dtype]), MIN_EXPONENT[dtype])
    return np.exp2(e - PRECISION[dtype] + 1)


def norm_ulp_error(y: np.ndarray, ref: np.ndarray, x: np.ndarray, cfg: RopeConfig, dtype: str) -> np.ndarray:
    """|y - ref| per rotary element in units of dtype's ulp at the pair's output norm
    a * ||(x_a, x_b)|| (the scale every element of the pair is computed at; an element's own ulp
    is meaningless where the pair's outputs cancel). Shape [tokens, heads, R/2, 2]."""
    ia, ib = pair_indices(cfg)
    xf, yf, rf = (to_f32(v, dtype).astype(np.float64) for v in (x, y, ref))
    norm = attention_factor(cfg) * np.hypot(xf[..., ia], xf[..., ib])
    u = ulp_at(norm, dtype)
    return np.stack([np.abs(yf[..., ia] - rf[..., ia]) / u, np.abs(yf[..., ib] - rf[..., ib]) / u], axis=-1)


def passthrough(cfg: RopeConfig) -> np.ndarray:
    ia, ib = pair_indices(cfg)
    keep = np.ones(cfg.head_dim, dtype=bool)
    keep[ia] = keep[ib] = False
    return np.flatnonzero(keep)


def standard_normal(tokens: int, heads: int, head_dim: int, dtype: str, seed: int) -> np.ndarray:
    """Standard normal inputs rounded to dtype (its storage)."""
    return from_f32(np.random.default_rng(seed).standard_normal((tokens, heads, head_dim)).astype(np.float32), dtype)


def tolerance(dtype: str, max_position: int) -> float:
    """The error bound, in ulp at the pair's norm (norm_ulp_error), of a correct float32 style at
    positions |p| <= max_position against the correctly rounded value.

    Before the final rounding the float32 result z differs from the exact value by
    E <= (8 P + 16) * 2^-24 * a||x||, where
      - the angle's error is |p| g (delta_g + 2^-24) + ulp(angle)/2 <= (|p| g (delta_g/2^-24 + 1.5)) 2^-24;
        delta_g, the relative error of the float32 frequency, is <= 5 * 2^-24 in the standard style
        (powf <= 1 ulp, the divide, the rule's few float32 operations: 6.5 P with g <= 1); along
        ggml's recurrence it grows as 2k * 2^-24 at pair k, and max_k k g_k <= d / (2 e ln theta)
        <= 2.6 for the cases here (d <= 128, theta >= 10^4), so 2 * 2.6 P + 1.5 P: 8 P covers both;
      - float32 cos and sin (NumPy's, <= ~2 ulp), the attention factor's product and the rotation's
        two products and sum add <= 16 * 2^-24 * a||x|| (a generous count).
    The output is round(z) and the reference round(exact): equal, or one ulp apart where E is below
    the ulp there; in general |y - ref| <= ulp(|y|) + E with ulp(|y|) <= ulp(a||x||). As ulp(v) >
    v 2^-p (p the significand bits), in norm ulps: 1 + (8 P + 16) 2^(p - 24). At P = 64: bfloat16
    1.008, float16 1.065 (one ulp: a rounding flip at most); float32 529 (the float32 angle's own
    error dominates: no float32-angle RoPE is within 1 float32 ulp of the exact map even at
    position 64; measured up to ~110)."""
    return 1.0 + (8.0 * max_position + 16.0) * 2.0 ** (PRECISION[dtype] - 24)
