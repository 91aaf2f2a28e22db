"""RoPE implementations with the mistakes real projects shipped and later fixed, one per kind, each a
small change of a correct style of rope_styles (a subclass overriding one step), for testing that
check_rope rejects them.

Every mutant is ``fn(x, positions)`` with rope_styles' calling convention. MUTANTS lists them with
the RoPE they are meant for (model, layer_type, layout: what check_rope must be told), the dtypes
where each is a mistake, the input class where it must show ("finite": ordinary finite inputs),
from which position on (onset, per dtype: 0 means even at small positions), a window of positions
where test_rope_styles measures it, and, for the stateful ones, the call sequence that exposes them.
Where a mutant cannot be told from a correct RoPE in some dtype, `indistinguishable` says why.

PERMUTED is the one valid-but-permuted implementation: the correct result with the channels of the
rotary part in another order (the same for q and k, so q.k is unchanged); output channel j holds
the exact output's channel perm[j].
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, Optional

import numpy as np

import rope_styles as rs
from rope_styles import F32, CachedTableRope, GgmlRope, RopeFn, StandardRope, data, per_call_options, round_bf16, round_to


# ---------------------------------------------------------------------------------------------
# The mistakes


class AngleBf16(StandardRope):
    """The angle p * g rounded to bfloat16 (an autocast matmul of positions and frequencies)."""

    def angles(self, positions, seq_len):
        return round_bf16(super().angles(positions, seq_len))


class OperandsBf16(StandardRope):
    """Position and frequency each held in bfloat16, their product taken in float32."""

    def angles(self, positions, seq_len):
        p = round_bf16(self.positions_f32(positions))
        g = round_bf16(self.inv_freq(seq_len))
        return (p[:, None] * g[None, :]).astype(np.float32)


class InvFreqModelDtype(StandardRope):
    """inv_freq cast to the model dtype (a registered buffer moved by model.to(dtype))."""

    def inv_freq(self, seq_len):
        return round_to(super().inv_freq(seq_len), self.dtype)


class PositionsModelDtype(StandardRope):
    """Positions converted to the model dtype before the product (bf16 exact to 256, f16 to 2048)."""

    def positions_f32(self, positions):
        return round_to(positions.astype(np.float32), self.dtype)


class Fp16Tables(StandardRope):
    """cos/sin cached as float16 tables (attention factor included), used in float32 arithmetic."""

    def cos_sin(self, angles):
        c, s = super().cos_sin(angles)
        return round_to(c, "float16"), round_to(s, "float16")


class ScalingDropped(StandardRope):
    """The config's frequency rule omitted: plain theta^(-2i/d) (the attention factor kept)."""

    def inv_freq(self, seq_len):
        return (F32(1) / rs.theta_powers(self.base(seq_len), self.cfg.rotary_dims)).astype(np.float32)


class Llama3Swapped(StandardRope):
    """llama3 with low_freq_factor and high_freq_factor swapped."""

    def inv_freq(self, seq_len):
        g = (F32(1) / rs.theta_powers(self.cfg.theta, self.cfg.rotary_dims)).astype(np.float32)
        return rs.llama3_inv_freq(self.cfg, g, swap=True)


class YarnOriginalFromMax(StandardRope):
    """yarn's correction range computed over max_position_embeddings instead of the original
    context (transformers v4.4x did this)."""

    def yarn_inv_freq(self, powers, **kw):
        return super().yarn_inv_freq(powers, original=self.cfg.max_position)


class YarnBetasSwapped(StandardRope):
    """yarn with beta_fast and beta_slow swapped (the ramp runs the wrong way)."""

    def yarn_inv_freq(self, powers, **kw):
        return super().yarn_inv_freq(powers, swap_betas=True)


class AttentionFactorIgnored(StandardRope):
    """yarn/longrope's attention factor (mscale) left out of cos and sin."""

    def scale(self):
        return F32(1)


class PartialFromHeadDim(StandardRope):
    """Partial rotary whose frequencies are spaced over head_dim instead of the rotary width:
    theta^(-2i/head_dim) for the R/2 rotated pairs."""

    def inv_freq(self, seq_len):
        return (F32(1) / rs.theta_powers(self.base(seq_len), self.cfg.head_dim)[: self.cfg.rotary_dims // 2]).astype(np.float32)


class WrongPairing(StandardRope):
    """The other layout than the checkpoint's (half for an interleaved model, or the reverse)."""

    def __init__(self, *a, **k):
        super().__init__(*a, **k)
        R, off, j = self.cfg.rotary_dims, self.cfg.offset, np.arange(self.cfg.rotary_dims // 2)
        if self.cfg.layout == "interleaved":
            self.idx_a, self.idx_b = off + j, off + R // 2 + j
        else:
            self.idx_a, self.idx_b = off + 2 * j, off + 2 * j + 1


class HalfNotStored(StandardRope):
    """Only y_a stored: the second output of every pair (the second half of the rotary part in the
    half layout) left as the input."""

    def rotate(self, x, cos, sin):
        xf = rs.to_f32(x, self.dtype)
        xa, xb = xf[..., self.idx_a], xf[..., self.idx_b]
        out = np.array(x, copy=True)
        out[..., self.idx_a] = rs.from_f32(xa * cos[:, None, :] - xb * sin[:, None, :], self.dtype)
        return out


class DynamicNeverReset(StandardRope):
    """Dynamic NTK grown for a long call and kept for every shorter call after it (the base only
    grows: transformers' early DynamicNTK rotary embedding)."""

    def __init__(self, *a, **k):
        super().__init__(*a, per_call=True, **k)
        self.longest = 0

    def call_seq_len(self, positions):
        self.longest = max(self.longest, super().call_seq_len(positions))
        return self.longest


class StaleTable(CachedTableRope):
    """The cos/sin table built on the first call (its positions, its sequence length) and reused:
    never regrown (a gather clamps later positions to its last row) and, for dynamic NTK, never
    recomputed for another call's base."""

    def __init__(self, *a, **k):
        super().__init__(*a, per_call=True, **k)

    def tables(self, positions):
        if self.table is None:
            n = int(positions.max()) + 1
            self.table = self.cos_sin(self.angles(np.arange(n, dtype=np.int64), self.call_seq_len(positions)))
        rows = np.clip(positions, 0, self.table[0].shape[0] - 1)
        return self.table[0][rows], self.table[1][rows]


def _poly_sin_cos(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Float32 Taylor polynomials (Horner) of sin to x^17 and cos to x^18: within ~1 float32 ulp
    on [-pi, pi] (truncation pi^19/19! = 2.3e-8), and wrong, fast, beyond it."""
    x = x.astype(np.float32)
    x2 = (x * x).astype(np.float32)
    s = np.full_like(x, F32(1.0 / 355687428096000.0))  # 1/17!
    for n in range(15, 0, -2):  # 1/15!, -1/13!, ... coefficients, alternating
        s = (s * x2 * F32(-1) + F32(1.0 / _fact(n))).astype(np.float32)
    s = (s * x).astype(np.float32)
    c = np.full_like(x, F32(1.0 / 6402373705728000.0))  # 1/18!
    for n in range(16, -1, -2):
        c = (c * x2 * F32(-1) + F32(1.0 / _fact(n))).astype(np.float32)
    return c, s


def _fact(n: int) -> float:
    out = 1.0
    for i in range(2, n + 1):
        out *= i
    return out


class FastTrigUnreduced(StandardRope):
    """Fast approximate sin/cos (a float32 polynomial accurate on [-pi, pi]) applied to the raw
    angle with no range reduction."""

    def cos_sin(self, angles):
        c, s = _poly_sin_cos(angles)
        a = self.scale()
        return (c * a).astype(np.float32), (s * a).astype(np.float32)


class Permuted(StandardRope):
    """transformers' DeepSeek-V3 path: the rotary part of q and k de-interleaved
    ([x0, x2, ..., x1, x3, ...]) and rotated by rotate_half, the result left in that order. The
    values are the exact map's, in permuted channels (the same for q and k: q.k is unchanged)."""

    def rotate(self, x, cos, sin):
        off, R = self.cfg.offset, self.cfg.rotary_dims
        xf = rs.to_f32(x, self.dtype)
        part = xf[..., off:off + R]
        xa, xb = part[..., 0::2], part[..., 1::2]  # de-interleaved: its first half, its second half
        c, s = cos[:, None, :], sin[:, None, :]
        out = np.array(x, copy=True)
        out[..., off:off + R // 2] = rs.from_f32(xa * c - xb * s, self.dtype)
        out[..., off + R // 2:off + R] = rs.from_f32(xa * s + xb * c, self.dtype)
        return out


def permuted_perm(model: str, layer_type: Optional[str] = None) -> tuple[int, ...]:
    """Output channel j of Permuted holds the exact output's channel perm[j]."""
    cfg = rs.read_config(model, layer_type)
    off, R = cfg.offset, cfg.rotary_dims
    perm = list(range(cfg.head_dim))
    for j in range(R // 2):
        perm[off + j] = off + 2 * j
        perm[off + R // 2 + j] = off + 2 * j + 1
    return tuple(perm)


# ---------------------------------------------------------------------------------------------
# The registry


ALL = ("float32", "bfloat16", "float16")
LOW = ("bfloat16", "float16")


@dataclasses.dataclass(frozen=True)
class Mutant:
    name: str
    kind: str
    model: str
    layer_type: Optional[str]
    layout: str  # the checkpoint's layout (what check_rope is told)
    dtypes: tuple[str, ...]  # where it is a mistake (shows against the correct value)
    make: Callable[[str], RopeFn]
    reason: str
    onset: dict[str, int]  # per dtype: the position it fails from (0: even at small positions; approximate)
    window: tuple[int, int]  # [start, stop) of positions where test_rope_styles measures it
    input_class: str = "finite"
    options: dict[str, Any] = dataclasses.field(default_factory=dict)  # extra ropecheck keywords
    calls: tuple[tuple[int, int], ...] = ()  # stateful: the call sequence (each [start, stop))
    fails_on_call: int = -1  # stateful: the first call of `calls` where it shows
    per_call: bool = False  # stateful with per-call sequence_length (dynamic NTK)
    perm: Optional[tuple[int, ...]] = None
    sharp_onset: bool = False  # True: below onset it agrees with a correct RoPE by construction (else onset is measured, approximate)
    indistinguishable: dict[str, str] = dataclasses.field(default_factory=dict)  # dtype -> why

    @property
    def stateful(self) -> bool:
        return bool(self.calls)

    def ropecheck_kwargs(self, positions: Optional[np.ndarray] = None) -> dict[str, Any]:
        extra = per_call_options(positions) if self.per_call and positions is not None else self.options
        return dict(model=self.model, layer_type=self.layer_type, **extra)


def _m(cls: type[StandardRope], model: str, layer_type: Optional[str] = None, **kw: Any) -> Callable[[str], RopeFn]:
    return lambda dtype: cls(model, layer_type, dtype, **kw)


def _layout(model: str, layer_type: Optional[str] = None) -> str:
    return rs.read_config(model, layer_type).layout


def _all(n: int) -> dict[str, int]:
    return {d: n for d in ALL}


D128 = data("dynamic-ntk-d128.json")

MUTANTS: list[Mutant] = [
    Mutant("angle-bf16", "angle in bf16", "llama-3.1-8b", None, "half", ALL, _m(AngleBf16, "llama-3.1-8b"),
           "the angle p*g rounded to bfloat16 (8 bits): its absolute error |p g| 2^-9 reaches 2^-3 rad at p = 64; "
           "shows on finite inputs at small positions (from p ~ 1 in float32 and f16, ~3 in bf16) in every dtype",
           onset={"float32": 1, "bfloat16": 3, "float16": 1}, window=(0, 65)),
    Mutant("angle-operands-bf16", "angle operands in bf16", "llama-3.1-8b", None, "half", ALL, _m(OperandsBf16, "llama-3.1-8b"),
           "position and frequency held in bfloat16 before a float32 product: g's relative error 2^-9 gives p g 2^-9 rad "
           "(0.125 at p = 64; positions themselves round from 257 on); finite inputs, small positions (from p ~ 1 in float32 "
           "and f16, ~3 in bf16), every dtype",
           onset={"float32": 1, "bfloat16": 3, "float16": 1}, window=(0, 65)),
    Mutant("inv-freq-model-dtype", "inverse frequencies in the model dtype", "qwen3-8b", None, "half", LOW,
           _m(InvFreqModelDtype, "qwen3-8b"),
           "inv_freq cast to the model dtype (bf16: 2^-9, f16: 2^-12 relative) so the angle is off by p g 2^-9 / 2^-12; "
           "finite inputs at small positions (from p ~ 7 in bf16, ~5 in f16)",
           onset={"bfloat16": 7, "float16": 5}, window=(0, 65),
           indistinguishable={"float32": "the cast to float32 is the standard formulation itself (no change)"}),
    Mutant("positions-model-dtype", "positions in the model dtype", "qwen3-8b", None, "half", LOW,
           _m(PositionsModelDtype, "qwen3-8b"),
           "positions converted to the model dtype: exact up to 256 (bf16) / 2048 (f16), then rounded to multiples of "
           "2, 4, ...: the angle off by up to g * spacing/2; finite inputs only from position 257 (bf16) / 2049 (f16) on",
           onset={"bfloat16": 257, "float16": 2049}, window=(3000, 3065), sharp_onset=True,
           indistinguishable={"float32": "float32 positions are the standard formulation (exact up to 2^24)"}),
    Mutant("fp16-tables", "cos/sin tables in fp16", "llama-3.1-8b", None, "half", ("float32",), _m(Fp16Tables, "llama-3.1-8b"),
           "cos and sin stored in float16 (11 bits): each off by up to 2^-12 relative, ~2^12 float32 ulps, far beyond "
           "float32's own rounding; finite inputs at every position from 1 on (cos 0 = 1 and sin 0 = 0 are exact), "
           "float32 output",
           onset={"float32": 1}, window=(0, 65),
           indistinguishable={
               "bfloat16": "a table error <= 2^-12 relative is 1/32 of bf16's ulp: it only flips a rounding now and then "
                           "(<= 1 ulp, as any float32 implementation may; measured max 1.0 ulp): a one-ulp tolerance cannot see it, "
                           "check_rope's default sees the flips (test_check_bounds)",
               "float16": "the table is as precise as the output: z stays within ~0.7 f16 ulp of the exact value, so the "
                          "output is within 1 ulp (measured max 1.0), the same as a float32-table implementation: a one-ulp "
                          "tolerance cannot see it (check_rope's default does: the float32 formulation is exact at small "
                          "positions, so the extra rounding flips fail; test_check_bounds)"}),
    Mutant("llama3-dropped", "scaling rule dropped", "llama-3.1-8b", None, "half", ALL, _m(ScalingDropped, "llama-3.1-8b"),
           "llama3's band rule omitted: the low-frequency pairs (wavelength > 8192) keep g instead of g/8, the "
           "angle off by 7/8 p g (g < 7.7e-4): finite inputs, from p ~ 1 in float32 and f16, ~7 in bf16",
           onset={"float32": 1, "bfloat16": 7, "float16": 1}, window=(192, 257)),
    Mutant("yarn-dropped", "scaling rule dropped", "qwen2.5-7b-yarn", None, "half", ALL, _m(ScalingDropped, "qwen2.5-7b-yarn"),
           "yarn's frequency ramp omitted (the attention factor kept): pairs with wavelength > 1024 keep more of g than "
           "g/4: finite inputs, from p ~ 1 in float32, ~2 in f16, ~9 in bf16 (the ramp's pairs have g < 6e-3)",
           onset={"float32": 1, "bfloat16": 9, "float16": 2}, window=(1000, 1065)),
    Mutant("yarn-original-from-max", "scaling rule misparameterised", "qwen2.5-7b-yarn", None, "half", ALL,
           _m(YarnOriginalFromMax, "qwen2.5-7b-yarn"),
           "yarn's correction range taken over max_position_embeddings (131072) instead of original_max_position_embeddings "
           "(32768): the ramp shifted ~6 pairs; finite inputs, from p ~ 1 in float32, ~2 in f16, ~9 in bf16",
           onset={"float32": 1, "bfloat16": 9, "float16": 2}, window=(192, 257)),
    Mutant("yarn-betas-swapped", "scaling rule misparameterised", "gpt-oss-20b", "full_attention", "half", ALL,
           _m(YarnBetasSwapped, "gpt-oss-20b", "full_attention"),
           "yarn's beta_fast and beta_slow swapped: the ramp reversed (high-frequency pairs interpolated); finite inputs at "
           "small positions, every dtype",
           onset=_all(1), window=(0, 65)),
    Mutant("llama3-low-high-swapped", "scaling rule misparameterised", "llama-3.1-8b", None, "half", ALL,
           _m(Llama3Swapped, "llama-3.1-8b"),
           "llama3's low_freq_factor and high_freq_factor swapped: the middle band (wavelengths 2048..8192) kept unscaled "
           "instead of smoothed toward g/8: finite inputs, from p ~ 1 in float32 and f16, ~4 in bf16",
           onset={"float32": 1, "bfloat16": 4, "float16": 1}, window=(192, 257)),
    Mutant("yarn-attention-factor-ignored", "attention factor ignored", "gpt-oss-20b", "full_attention", "half", ALL,
           _m(AttentionFactorIgnored, "gpt-oss-20b", "full_attention"),
           "yarn's attention factor 0.1 ln 32 + 1 = 1.3466 left out of cos and sin: every rotary output 26% small, at "
           "every position including 0; finite inputs, every dtype",
           onset=_all(0), window=(0, 65)),
    Mutant("longrope-attention-factor-ignored", "attention factor ignored", "phi-3.5-mini", None, "half", ALL,
           _m(AttentionFactorIgnored, "phi-3.5-mini"),
           "longrope's attention factor sqrt(1 + ln 32 / ln 4096) = 1.1902 left out: outputs 16% small at every position "
           "including 0; finite inputs, every dtype",
           onset=_all(0), window=(0, 65)),
    Mutant("partial-width-from-head-dim", "partial rotary width from head_dim", "gpt-neox-20b", None, "half", ALL,
           _m(PartialFromHeadDim, "gpt-neox-20b"),
           "gpt-neox-20b rotates 24 of 96 channels, but the frequencies are spaced as theta^(-2i/96), not theta^(-2i/24): "
           "every pair but the first turns too fast; finite inputs from position 1, every dtype",
           onset=_all(1), window=(0, 65)),
    Mutant("wrong-pairing", "wrong pairing", "command-r", None, "interleaved", ALL, _m(WrongPairing, "command-r"),
           "command-r pairs (2k, 2k+1) (interleaved) but this rotates (k, k+64) (half): the wrong channels mixed; "
           "finite inputs from position 1 (position 0 is the identity either way), every dtype",
           onset=_all(1), window=(0, 65)),
    Mutant("half-not-stored", "half of the output never stored", "llama-3.2-1b", None, "half", ALL, _m(HalfNotStored, "llama-3.2-1b"),
           "the second half of the rotary part (x_a sin + x_b cos) never written: it is left as the input; finite inputs "
           "from position 1 (at 0 the input is the answer), every dtype",
           onset=_all(1), window=(0, 65)),
    Mutant("dynamic-never-reset", "dynamic base never reset", D128, None, "half", ALL, _m(DynamicNeverReset, D128),
           "stateful: dynamic NTK's base grown for a 2048-token call is kept for the next 65-token call (which needs the "
           "original base, S <= max_position_embeddings 512; the grown base is 7.2x): finite inputs, on the short call after "
           "the long one, from position 1, every dtype",
           onset=_all(1), window=(0, 65), calls=((0, 65), (0, 2048), (0, 65)),
           fails_on_call=2, per_call=True),
    Mutant("stale-table", "stale cached table", "llama-3.1-8b", None, "half", ALL, _m(StaleTable, "llama-3.1-8b"),
           "stateful: the cos/sin table built for the first call's 65 positions is never regrown; a later call's positions "
           "65.. read row 64; finite inputs, on the second call, from position 65",
           onset=_all(65), window=(0, 300), calls=((0, 65), (0, 300)), fails_on_call=1, sharp_onset=True),
    Mutant("stale-table-dynamic", "stale cached table", D128, None, "half", ALL, _m(StaleTable, D128),
           "stateful, dynamic NTK: the table built on a 2048-token call (its grown base) reused for a 65-token call, "
           "which needs the original base; finite inputs, on the second call, from position 1, every dtype",
           onset=_all(1), window=(0, 65), calls=((0, 2048), (0, 65)), fails_on_call=1,
           per_call=True),
    Mutant("fast-trig-unreduced", "fast intrinsics on an unreduced angle", "qwen3-8b", None, "half", ALL,
           _m(FastTrigUnreduced, "qwen3-8b"),
           "a float32 polynomial sin/cos accurate on [-pi, pi] applied with no range reduction: fine while every angle "
           "is below pi (p <= 3), then its error grows as |angle|^19/19!: finite inputs, only from position ~5 on "
           "(earlier in float32 than in bf16)",
           onset={"float32": 5, "bfloat16": 7, "float16": 6}, window=(16, 81), sharp_onset=True),
]

PERMUTED = Mutant("permuted-deepseek", "valid but permuted", "deepseek-v3", None, "interleaved", ALL, _m(Permuted, "deepseek-v3"),
                  "correct values in permuted channels: the rope part de-interleaved ([x0, x2, ..., x1, x3, ...]) and rotated "
                  "by rotate_half, as transformers' DeepSeek-V3 does to q and k alike (q.k unchanged); compared channel by "
                  "channel it differs at every position (0 included), in every dtype; undone by perm it is within rounding",
                  onset=_all(0), window=(0, 65), perm=permuted_perm("deepseek-v3"))

MUTANTS.append(PERMUTED)


def mutants(registry: Optional[list[Mutant]] = None) -> list[tuple[Mutant, str]]:
    """Every (mutant, dtype) pair with dtype among the mutant's dtypes (where it is a mistake)."""
    return [(m, d) for m in (MUTANTS if registry is None else registry) for d in m.dtypes]
