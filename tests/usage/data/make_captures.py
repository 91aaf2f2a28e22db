#!/usr/bin/python3
"""Writes the capture fixtures of tests/io/npz_test.cpp and tests/usage/capture_test.cpp.

Run from anywhere with Debian's NumPy: /usr/bin/python3 tests/usage/data/make_captures.py
The values are formulas the tests recompute (q_value, k_value below, mirrored in C++), so the
files need not be read by eye. Bad files are the good base with one thing wrong each.
"""
import io
import os
import struct
import zipfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def q_value(s, l, h, t, c):
    return (((s * 7 + l * 5 + h * 3 + t * 2 + c) % 61) - 30) * 0.25


def k_value(s, l, h, t, c):
    return (((s * 3 + l * 7 + h * 11 + t * 5 + c * 2) % 53) - 26) * 0.125


def tensor(f, shape, dtype):
    a = np.zeros(shape, dtype=np.float64)
    for idx in np.ndindex(*shape):
        a[idx] = f(*idx)
    return a.astype(dtype)


def path(name):
    return os.path.join(HERE, name)


def npy_bytes(header_dict_text, data):
    """A version 1.0 .npy file with the header text as given (for headers NumPy would not write)."""
    header = header_dict_text.encode("latin1")
    pad = 64 - (10 + len(header) + 1) % 64
    header += b" " * pad + b"\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header + data


def raw_zip(name, members, compression=zipfile.ZIP_STORED):
    with zipfile.ZipFile(path(name), "w", compression=compression) as z:
        for member, data in members.items():
            z.writestr(member + ".npy", data)


def npy_of(a):
    b = io.BytesIO()
    np.save(b, a)
    return b.getvalue()


def member_data_offset(file, member):
    """Offset in `file` of the first byte of `member`'s (stored or compressed) data."""
    with zipfile.ZipFile(file) as z:
        info = z.getinfo(member)
    with open(file, "rb") as f:
        f.seek(info.header_offset)
        local = f.read(30)
    name_len, extra_len = struct.unpack("<HH", local[26:30])
    return info.header_offset + 30 + name_len + extra_len, info.compress_size


def flip_byte(src, dst, member, fraction):
    offset, size = member_data_offset(path(src), member)
    data = bytearray(open(path(src), "rb").read())
    data[offset + int(size * fraction)] ^= 0x5A
    open(path(dst), "wb").write(bytes(data))


def main():
    # The two good captures.
    S, L, H, KV, T, D = 2, 3, 4, 2, 5, 6
    np.savez(path("stored_f32.npz"),
             q=tensor(q_value, (S, L, H, T, D), "<f4"),
             k=tensor(k_value, (S, L, KV, T, D), "<f4"),
             positions=np.array([0, 1, 2, 3, 7], dtype="<i8"),
             source=np.array("toy capture, θ = 10000 \U0001d70b"))
    q16 = tensor(q_value, (S, L, H, T, D), "<f2")
    q16[1, 2, 3, 4, 5] = np.float16(2.0 ** -24)  # the smallest subnormal
    q16[1, 2, 3, 4, 4] = np.float16(-65504.0)   # the largest finite magnitude
    q16[0, 0, 0, 0, 1] = np.float16(-0.0)
    np.savez_compressed(path("compressed_f16.npz"),
                        q=q16,
                        k=tensor(k_value, (S, L, KV, T, D), "<f4"),
                        positions=np.array([[5, 6, 7, 8, 9], [100, 50, 0, 2**40 - 1, 3]], dtype="<i8"),
                        token_ids=np.arange(S * T, dtype="<i4").reshape(S, T))
    np.savez(path("positions_i4.npz"),
             q=tensor(q_value, (1, 1, 2, 3, 2), "<f4"),
             k=tensor(k_value, (1, 1, 1, 3, 2), "<f2"),
             positions=np.array([[4, 2, 9]], dtype="<i4"))

    # Bad ones: a small base, one thing wrong each.
    s, l, h, kv, t, d = 1, 3, 2, 1, 4, 6
    base = dict(q=tensor(q_value, (s, l, h, t, d), "<f4"),
                k=tensor(k_value, (s, l, kv, t, d), "<f4"),
                positions=np.arange(t, dtype="<i8"))

    def bad(name, **changes):
        members = dict(base)
        for key, value in changes.items():
            if value is None:
                del members[key]
            else:
                members[key] = value
        np.savez(path("bad_" + name + ".npz"), **members)

    bad("missing_k", k=None)
    bad("missing_positions", positions=None)
    bad("extra_member", v=np.zeros(3, dtype="<f4"))
    bad("q_ndim", q=np.zeros((s, l, h, t * d), dtype="<f4"))
    bad("q_dtype", q=base["q"].astype("<f8"))
    bad("k_dtype", k=base["k"].astype("<i4"))
    bad("k_tokens", k=np.zeros((s, l, kv, t + 1, d), dtype="<f4"))
    bad("k_head_dim", k=np.zeros((s, l, kv, t, d + 2), dtype="<f4"))
    bad("k_layers", k=np.zeros((s, l + 1, kv, t, d), dtype="<f4"))
    bad("heads_multiple", q=np.zeros((s, l, 3, t, d), dtype="<f4"), k=np.zeros((s, l, 2, t, d), dtype="<f4"))
    bad("kv_heads_zero", k=np.zeros((s, l, 0, t, d), dtype="<f4"))
    bad("head_dim_odd", q=np.zeros((s, l, h, t, 5), dtype="<f4"), k=np.zeros((s, l, kv, t, 5), dtype="<f4"))
    bad("tokens_zero", q=np.zeros((s, l, h, 0, d), dtype="<f4"), k=np.zeros((s, l, kv, 0, d), dtype="<f4"),
        positions=np.zeros(0, dtype="<i8"))
    bad("positions_length", positions=np.arange(t + 1, dtype="<i8"))
    bad("positions_sequences", positions=np.zeros((s + 1, t), dtype="<i8"))
    bad("positions_negative", positions=np.array([0, 1, -2, 3], dtype="<i8"))
    bad("positions_huge", positions=np.array([0, 1, 2, 2**40], dtype="<i8"))
    bad("positions_dtype", positions=np.arange(t, dtype="<f8"))
    bad("token_ids_shape", token_ids=np.zeros(t + 1, dtype="<i8"))
    bad("source_shape", source=np.array(["a", "b"]))
    bad("source_dtype", source=np.array(3))
    q_nan = base["q"].copy()
    q_nan[0, 2, 1, 3, 5] = np.nan
    bad("q_nan", q=q_nan)
    k_inf = base["k"].copy()
    k_inf[0, 1, 0, 2, 4] = -np.inf
    bad("k_inf", k=k_inf)
    k16_inf = base["k"].astype("<f2")
    k16_inf[0, 2, 0, 0, 0] = np.inf
    bad("k_f16_inf", k=k16_inf)

    # Headers that disagree with their data, and a shape whose size overflows.
    q_data = base["q"].tobytes()
    k_npy, p_npy = npy_of(base["k"]), npy_of(base["positions"])
    q_header = "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 3, 2, 4, 6), }"
    raw_zip("bad_q_short.npz", {"q": npy_bytes(q_header, q_data[:-4]), "k": k_npy, "positions": p_npy})
    raw_zip("bad_q_long.npz", {"q": npy_bytes(q_header, q_data + b"\0\0\0\0"), "k": k_npy, "positions": p_npy})
    raw_zip("bad_q_overflow.npz", {"q": npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': "
                                                  "(4294967296, 4294967296, 1, 4, 6), }", b""),
                                   "k": k_npy, "positions": p_npy})
    raw_zip("bad_q_not_npy.npz", {"q": b"not a npy file at all", "k": k_npy, "positions": p_npy})

    # Damaged archives.
    open(path("bad_not_zip.npz"), "wb").write(b"PK\x03\x04 this is not really a zip archive\n" * 4)
    whole = open(path("compressed_f16.npz"), "rb").read()
    open(path("bad_truncated.npz"), "wb").write(whole[: len(whole) * 2 // 3])
    np.savez(path("bad_base_stored.npz"), **base)
    flip_byte("bad_base_stored.npz", "bad_crc_stored.npz", "q.npy", 0.9)
    np.savez_compressed(path("bad_base_deflated.npz"), **base)
    flip_byte("bad_base_deflated.npz", "bad_crc_deflated.npz", "q.npy", 0.6)
    os.remove(path("bad_base_stored.npz"))
    os.remove(path("bad_base_deflated.npz"))


if __name__ == "__main__":
    main()
