"""Threads through the Python API (issue 55, item 3; the C ABI rows are kernel_bench.cpp's c_abi): ropecheck.apply on the kernel bench's shape
([4096][32][128], theta 10000, positions 0..4095, inputs uniform in (-4, 4) from a seeded NumPy
generator), at 1 and 2 threads, each dtype and layout, three ways of handing the output over:

    fresh     ropecheck.apply(x, ...): a new output array per call, as the API returns it (its
              pages are first touched by the kernel, inside the timing)
    in place  ropecheck.apply_(x, ...) on a copy of x made (and touched) before the timing

Each row: the median over --repeats calls of wall time, interleaved 1-thread / 2-thread call by
call (the machine is noisy: the pair is timed together), and the speed-up = median of the
per-pair ratios 1-thread time / 2-thread time. A measurement on this machine; the CPU and the
kernel path (ROPECHECK_KERNEL forces one) are printed first.

    PYTHONPATH=build/python /usr/bin/python3 bench/apply_threads_bench.py [--repeats 15] [--dtypes float32 ...]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np

import ropecheck

from check_rope_bench import cpu_name

SHAPE = (4096, 32, 128)


def inputs(dtype: str, seed: int) -> np.ndarray:
    x = np.random.default_rng(seed).uniform(-4.0, 4.0, SHAPE)
    if dtype == "float32":
        return x.astype(np.float32)
    if dtype == "float16":
        return x.astype(np.float16)
    b = x.astype(np.float32).view(np.uint32)  # bfloat16 bits: round to nearest even from float32
    return ((b + 0x7FFF + ((b >> 16) & 1)) >> 16).astype(np.uint16)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeats", type=int, default=15)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--dtypes", nargs="+", default=["float32", "bfloat16", "float16"])
    a = p.parse_args()
    path = os.environ.get("ROPECHECK_KERNEL") or "the best this CPU runs (ROPECHECK_KERNEL unset)"
    print(f"cpu: {cpu_name()}; kernel path: {path}; seed {a.seed}; {a.repeats} pairs per row")
    positions = np.arange(SHAPE[0], dtype=np.int64)
    print("| dtype | layout | output | 1 thread (ms) | 2 threads (ms) | speed-up |")
    print("|---|---|---|---|---|---|")
    for dtype in a.dtypes:
        x = inputs(dtype, a.seed)
        for layout in ("interleaved", "half"):
            kw = dict(dim=128, theta=10000.0, layout=layout)
            for mode in ("fresh", "in place"):
                times: dict[int, list[float]] = {1: [], 2: []}
                for i in range(a.repeats):
                    for threads in ((1, 2) if i % 2 == 0 else (2, 1)):
                        if mode == "fresh":
                            t0 = time.perf_counter()
                            ropecheck.apply(x, positions, threads=threads, **kw)
                            t1 = time.perf_counter()
                        else:
                            y = x.copy()
                            t0 = time.perf_counter()
                            ropecheck.apply_(y, positions, threads=threads, **kw)
                            t1 = time.perf_counter()
                        times[threads].append(t1 - t0)
                ratio = statistics.median(s / d for s, d in zip(times[1], times[2]))
                print(f"| {dtype} | {layout} | {mode} | {1e3 * statistics.median(times[1]):.1f} | "
                      f"{1e3 * statistics.median(times[2]):.1f} | {ratio:.2f} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
