#!/usr/bin/env python3
"""Calling ropecheck's RoPE kernel from Python through its C ABI (src/kernel/c_api.h) with ctypes.

No NumPy needed: tensors are `array.array` buffers (with NumPy, pass `x.ctypes.data` of a
C-contiguous float32 or uint16 array instead). Build the library first:

    cmake -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build --target ropecheck_c
    python3 examples/rope_ctypes.py --library build/libropecheck.so

The script rotates a small float32 tensor, checks the result against a double-precision reference
within the kernel's documented bound, rotates a bfloat16 tensor, shows an error being reported,
then (ABI version 2) builds the plan of a YaRN model, gpt-oss-20b, from the zoo, applies it and
checks it against transformers' YaRN formula evaluated here in double, attention factor included.
It exits 0 when every check passes (ctest runs it as kernel.c_api_ctypes).
"""
import argparse
import array
import ctypes
import math
import os
import struct
import sys

ROPECHECK_OK = 0
ROPECHECK_BAD_ARGUMENT = 2


class RopeSpec(ctypes.Structure):
    """ropecheck_rope_spec: the spectrum, with theta and the fraction as decimal text."""
    _fields_ = [("head_dim", ctypes.c_int32), ("theta", ctypes.c_char_p), ("variant", ctypes.c_char_p),
                ("fraction", ctypes.c_char_p), ("layout", ctypes.c_char_p)]


class Stats(ctypes.Structure):
    """ropecheck_stats: outputs written, and how many took the accurate (slow) path."""
    _fields_ = [("outputs", ctypes.c_int64), ("slow", ctypes.c_int64), ("unresolved", ctypes.c_int64)]


class Tensor(ctypes.Structure):
    """ropecheck_tensor: a [tokens][heads][head_dim] view; strides in elements."""
    _fields_ = [("data", ctypes.c_void_p), ("tokens", ctypes.c_int64), ("heads", ctypes.c_int64),
                ("token_stride", ctypes.c_int64), ("head_stride", ctypes.c_int64)]


def load(path):
    lib = ctypes.CDLL(os.path.abspath(path))  # a bare name would be looked up on the loader path only
    for name in ("ropecheck_apply_rope_f32", "ropecheck_apply_rope_bf16"):
        f = getattr(lib, name)
        f.argtypes = [ctypes.POINTER(RopeSpec), ctypes.POINTER(ctypes.c_int64), ctypes.POINTER(Tensor),
                      ctypes.POINTER(Tensor), ctypes.c_int32]
        f.restype = ctypes.c_int
    # Version 2: plans from a model description (an opaque pointer).
    lib.ropecheck_plan_from_model.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int64,
                                              ctypes.POINTER(ctypes.c_void_p)]
    lib.ropecheck_plan_from_model.restype = ctypes.c_int
    lib.ropecheck_plan_free.argtypes = [ctypes.c_void_p]
    lib.ropecheck_plan_free.restype = None
    for name in ("head_dim", "rotary_offset", "rotary_dims"):
        f = getattr(lib, "ropecheck_plan_" + name)
        f.argtypes, f.restype = [ctypes.c_void_p], ctypes.c_int32
    for name in ("layout", "layer_type", "attention_factor_text", "describe"):
        f = getattr(lib, "ropecheck_plan_" + name)
        f.argtypes, f.restype = [ctypes.c_void_p], ctypes.c_char_p
    lib.ropecheck_plan_attention_factor.argtypes = [ctypes.c_void_p]
    lib.ropecheck_plan_attention_factor.restype = ctypes.c_double
    for name in ("ropecheck_plan_apply_f32", "ropecheck_plan_apply_bf16"):
        f = getattr(lib, name)
        f.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_int64), ctypes.POINTER(Tensor), ctypes.POINTER(Tensor),
                      ctypes.c_int32, ctypes.POINTER(Stats)]
        f.restype = ctypes.c_int
    lib.ropecheck_last_error.restype = ctypes.c_char_p
    lib.ropecheck_kernel_path.restype = ctypes.c_char_p
    lib.ropecheck_abi_version.restype = ctypes.c_int
    return lib


def dense(buffer, tokens, heads, head_dim):
    address, _ = buffer.buffer_info()
    return Tensor(address, tokens, heads, heads * head_dim, head_dim)


def positions_array(values):
    return (ctypes.c_int64 * len(values))(*values)


def f32_ulp(v):
    """ulp of float32 at magnitude v (normal range): 2^(e-24) for v in [2^(e-1), 2^e)."""
    return math.ldexp(1.0, math.frexp(v)[1] - 24) if v > 0 else math.ldexp(1.0, -149)


def yarn_inverse_frequencies(dim, base, factor, original_context, beta_fast, beta_slow):
    """transformers' _compute_yarn_parameters (truncate false, as gpt-oss ships it), in double."""
    def correction_dim(rotations):
        return dim * math.log(original_context / (rotations * 2 * math.pi)) / (2 * math.log(base))
    low, high = max(correction_dim(beta_fast), 0.0), min(correction_dim(beta_slow), dim - 1.0)
    if low == high:
        high += 0.001
    result = []
    for i in range(dim // 2):
        ramp = min(max((i - low) / (high - low), 0.0), 1.0)  # 1 - inv_freq_extrapolation_factor
        extrapolation = 1.0 / base ** (2 * i / dim)
        result.append(extrapolation / factor * ramp + extrapolation * (1 - ramp))
    return result


def yarn_model_demo(lib):
    """ABI version 2: gpt-oss-20b's YaRN from the zoo (a config.json text works the same way, passed
    as the second argument). Returns the number of failed checks."""
    failures = 0
    plan = ctypes.c_void_p()
    rc = lib.ropecheck_plan_from_model(b"gpt-oss-20b", None, b"full_attention", 0, ctypes.byref(plan))
    if rc != ROPECHECK_OK:
        sys.exit(f"ropecheck_plan_from_model failed: {lib.ropecheck_last_error().decode()}")
    try:
        d = lib.ropecheck_plan_head_dim(plan)
        a = lib.ropecheck_plan_attention_factor(plan)
        print(f"v2 plan: {lib.ropecheck_plan_describe(plan).decode()}")
        print(f"    head_dim {d}, rotary {lib.ropecheck_plan_rotary_dims(plan)} at channel "
              f"{lib.ropecheck_plan_rotary_offset(plan)}, layout {lib.ropecheck_plan_layout(plan).decode()}, "
              f"attention factor {lib.ropecheck_plan_attention_factor_text(plan).decode()}")
        # gpt-oss-20b's config: rope_theta 150000, yarn factor 32 over 4096, beta_fast 32, beta_slow 1,
        # no attention_factor, so a = 0.1 ln 32 + 1.
        g = yarn_inverse_frequencies(d, 150000.0, 32.0, 4096, 32.0, 1.0)
        a_ref = 0.1 * math.log(32.0) + 1
        if abs(a - a_ref) > 1e-15 * a_ref:
            failures += 1
            print(f"FAIL attention factor {a!r}, transformers' formula gives {a_ref!r}")

        tokens, heads = 5, 2
        positions = [0, 1, 127, 4095, 70000]
        x = array.array("f", [math.cos(0.91 * i + 0.3) * 3.0 for i in range(tokens * heads * d)])
        y = array.array("f", bytes(4 * len(x)))
        stats = Stats()
        rc = lib.ropecheck_plan_apply_f32(plan, positions_array(positions), ctypes.byref(dense(x, tokens, heads, d)),
                                          ctypes.byref(dense(y, tokens, heads, d)), 1, ctypes.byref(stats))
        if rc != ROPECHECK_OK:
            sys.exit(f"ropecheck_plan_apply_f32 failed: {lib.ropecheck_last_error().decode()}")
        # The kernel returns the correctly rounded a (x_a cos - x_b sin), a (x_a sin + x_b cos) (half
        # layout: pair k is (k, k + d/2)). This reference is double: inverse frequencies within a few
        # ulps (relative 2^-50), angles below 70000 * 1 < 2^17 off by < 2^-33, so it errs by less than
        # 2^-32 of a * n; that is added to the tolerance of half an ulp.
        worst = 0.0
        for t, p in enumerate(positions):
            for h in range(heads):
                for k in range(d // 2):
                    i0 = t * heads * d + h * d + k
                    i1 = i0 + d // 2
                    xa, xb = float(x[i0]), float(x[i1])
                    c, s_ = math.cos(p * g[k]), math.sin(p * g[k])
                    ref = (a_ref * (xa * c - xb * s_), a_ref * (xa * s_ + xb * c))
                    eps = math.ldexp(a_ref * math.hypot(xa, xb), -32)
                    for j, got in enumerate((y[i0], y[i1])):
                        ulp = f32_ulp(abs(ref[j]) + eps)
                        err = abs(got - ref[j])
                        worst = max(worst, err / ulp)
                        if err > 0.5 * ulp + eps:
                            failures += 1
                            print(f"FAIL yarn position {p} head {h} pair {k}: out {got.hex()}, ref {ref[j].hex()}")
        print(f"    f32 [{tokens}, {heads}, {d}] at positions {positions}: max {worst:.4f} ulp from transformers' "
              f"formula in double; {stats.outputs} outputs, {stats.slow} took the slow path")
        print(f"    position 4095 (token 3), head 0, pair 0: ({x[3 * heads * d]:.6f}, {x[3 * heads * d + d // 2]:.6f}) -> "
              f"({y[3 * heads * d]:.6f}, {y[3 * heads * d + d // 2]:.6f})")

        # A layer type the model does not have: an error code and a message.
        bad = ctypes.c_void_p()
        rc = lib.ropecheck_plan_from_model(b"gpt-oss-20b", None, b"chunked_attention", 0, ctypes.byref(bad))
        message = lib.ropecheck_last_error().decode()
        print(f"layer type chunked_attention -> code {rc}: {message}")
        if rc != ROPECHECK_BAD_ARGUMENT or "layer_type" not in message or bad.value is not None:
            failures += 1
            print("FAIL: expected ROPECHECK_BAD_ARGUMENT naming layer_type")
    finally:
        lib.ropecheck_plan_free(plan)
    return failures


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--library", default=os.path.join(here, "..", "build", "libropecheck.so"),
                        help="path of libropecheck.so (default: build/libropecheck.so)")
    args = parser.parse_args()
    lib = load(args.library)
    print(f"libropecheck ABI {lib.ropecheck_abi_version()}, kernel path {lib.ropecheck_kernel_path().decode()}")
    failures = 0

    # float32, head_dim 8, 2 heads, interleaved pairs (2i, 2i+1), rope with theta 10000.
    tokens, heads, d = 7, 2, 8
    spec = RopeSpec(d, b"10000", b"rope", None, b"interleaved")
    positions = [0, 1, 2, 3, 100, 4095, -5]
    x = array.array("f", [math.sin(0.37 * i + 0.1) * 2.0 for i in range(tokens * heads * d)])
    y = array.array("f", bytes(4 * len(x)))
    rc = lib.ropecheck_apply_rope_f32(ctypes.byref(spec), positions_array(positions), ctypes.byref(dense(x, tokens, heads, d)),
                                      ctypes.byref(dense(y, tokens, heads, d)), 1)
    if rc != ROPECHECK_OK:
        sys.exit(f"ropecheck_apply_rope_f32 failed: {lib.ropecheck_last_error().decode()}")

    # The documented bound: |y - exact| <= (0.5 + 2^-25) ulp, ulp = max(ulp_f32(exact), 2^-24 n),
    # n the pair's norm. The reference here is double: g_k = 10000**(-2k/d) from pow (within 1 ulp,
    # relative 2^-52), angle p * g_k < 2^12 (error <= 2^12 * 2^-51 = 2^-39), math.cos/sin within 1
    # ulp, so the reference errs by less than 2^-38 n; that is added to the tolerance (it is 2^-14
    # of the smallest ulp allowed, so a kernel off by noticeably more than half an ulp fails).
    worst = 0.0
    for t, p in enumerate(positions):
        for h in range(heads):
            for k in range(d // 2):
                a = t * heads * d + h * d + 2 * k
                xa, xb = float(x[a]), float(x[a + 1])
                angle = p * 10000.0 ** (-2.0 * k / d)
                ref = (xa * math.cos(angle) - xb * math.sin(angle), xa * math.sin(angle) + xb * math.cos(angle))
                n = math.hypot(xa, xb)
                eps = math.ldexp(n, -38)
                for j, got in enumerate((y[a], y[a + 1])):
                    ulp = max(f32_ulp(abs(ref[j]) + eps), math.ldexp(n, -24))
                    err = abs(got - ref[j])
                    worst = max(worst, err / ulp)
                    if err > (0.5 + 2.0 ** -25) * ulp + eps:
                        failures += 1
                        print(f"FAIL position {p} head {h} pair {k}: x = ({xa.hex()}, {xb.hex()}) "
                              f"[{struct.pack('<f', xa).hex()}, {struct.pack('<f', xb).hex()}], "
                              f"out {got.hex()}, ref {ref[j].hex()}, {err / ulp:.4f} ulp")
                    if p == 0 and got != (xa, xb)[j]:
                        failures += 1
                        print(f"FAIL position 0 is not the identity: {(xa, xb)[j].hex()} -> {got.hex()}")
    print(f"f32: max error {worst:.4f} ulp over {len(x)} outputs (sampled: a lower bound on the worst case; "
          "ulp floored at 2^-24 times the pair's norm)")

    # bfloat16 as uint16 bit patterns ('H'), half layout (pairs i, i + d/2), in place.
    xb16 = array.array("H", [0x3F80, 0x0000, 0x0000, 0x3F80] * 2)  # [[1, 0, 0, 1]] x 2 tokens, d = 4
    spec16 = RopeSpec(4, b"10000", b"rope", None, b"half")
    view = dense(xb16, 2, 1, 4)
    rc = lib.ropecheck_apply_rope_bf16(ctypes.byref(spec16), positions_array([0, 1]), ctypes.byref(view),
                                       ctypes.byref(view), 1)
    if rc != ROPECHECK_OK:
        sys.exit(f"ropecheck_apply_rope_bf16 failed: {lib.ropecheck_last_error().decode()}")
    as_float = [struct.unpack("<f", struct.pack("<I", b << 16))[0] for b in xb16]
    print("bf16 [1, 0, 0, 1] at positions 0 and 1:", [f"{v:.4f}" for v in as_float])
    # Position 1, pair 0 (elements 0 and 2) rotates (1, 0) by 1 radian: cos 1 and sin 1 rounded to
    # bf16 (RNE): 0.5390625 (0x3F0A) and 0.83984375 (0x3F57).
    if list(xb16[:4]) != [0x3F80, 0, 0, 0x3F80] or xb16[4] != 0x3F0A or xb16[6] != 0x3F57:
        failures += 1
        print("FAIL bf16:", [hex(b) for b in xb16])

    # Errors come back as a code and a message, never as a crash.
    bad = RopeSpec(7, b"10000", b"rope", None, b"half")
    rc = lib.ropecheck_apply_rope_f32(ctypes.byref(bad), positions_array(positions), ctypes.byref(dense(x, tokens, heads, d)),
                                      ctypes.byref(dense(y, tokens, heads, d)), 1)
    message = lib.ropecheck_last_error().decode()
    print(f"head_dim 7 -> code {rc}: {message}")
    if rc != ROPECHECK_BAD_ARGUMENT or "head_dim" not in message:
        failures += 1
        print("FAIL: expected ROPECHECK_BAD_ARGUMENT naming head_dim")

    failures += yarn_model_demo(lib)

    print("ok" if failures == 0 else f"{failures} failures")
    return 0 if failures == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
