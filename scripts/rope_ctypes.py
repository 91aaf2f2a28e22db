#!/usr/bin/env python3
"""Calling ropecheck's RoPE kernel from Python through its C ABI (src/kernel/c_api.h) with ctypes.

No NumPy needed: tensors are `array.array` buffers (with NumPy, pass `x.ctypes.data` of a
C-contiguous float32 or uint16 array instead). Build the library first:

    cmake -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build --target ropecheck_c
    python3 scripts/rope_ctypes.py --library build/libropecheck.so

The script rotates a small float32 tensor, checks the result against a double-precision reference
within the kernel's documented bound, rotates a bfloat16 tensor, shows an error being reported,
and exits 0 when every check passes (ctest runs it as kernel.c_api_ctypes).
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

    print("ok" if failures == 0 else f"{failures} failures")
    return 0 if failures == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
