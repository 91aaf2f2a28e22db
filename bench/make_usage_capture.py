#!/usr/bin/env python3
"""A synthetic capture for the usage benchmark (bench/usage_bench.cpp): Llama-3.1-8B's shape
(32 layers, 32 query heads on 8 kv heads, head_dim 128), standard normal float16 values from a
seeded NumPy generator, stored uncompressed (np.savez). Usage: make_usage_capture.py OUT TOKENS [LAYERS]."""

import sys

import numpy as np


def main() -> None:
    out, tokens = sys.argv[1], int(sys.argv[2])
    layers = int(sys.argv[3]) if len(sys.argv) > 3 else 32
    rng = np.random.default_rng(31)
    q = rng.standard_normal((1, layers, 32, tokens, 128), dtype=np.float32).astype(np.float16)
    k = rng.standard_normal((1, layers, 8, tokens, 128), dtype=np.float32).astype(np.float16)
    tmp = out + ".tmp.npz"
    np.savez(tmp, q=q, k=k, positions=np.arange(tokens, dtype=np.int64))
    import os
    os.replace(tmp, out)


if __name__ == "__main__":
    main()
