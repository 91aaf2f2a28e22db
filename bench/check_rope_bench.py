"""The default check_rope's cost in a user's test suite: a 128-dim head (Llama 3.1 8B), 8 rounds of
32 tokens x 2 heads, in each dtype, on one core; medians of repeated runs, with the strict bound
(correct rounding) timed in the same run as the baseline of the ratio.

    PYTHONPATH=build/python python3 bench/check_rope_bench.py [--repeats 7] [--budget 8]

fn is ropecheck's own kernel (ropecheck.apply), so the time is check_rope's: generating the
adversarial tensors, the MPFR reference, the float32 formulation's reach per element, the result.
The element check is single-threaded; NumPy's own threads do not enter (no BLAS call). The goal
(issue 53): under 10 s per check on one core.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time

import ropecheck
from ropecheck.testing import check_rope

MODEL = "llama-3.1-8b"


def cpu_name() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def kernel(x, positions):
    return ropecheck.apply(x, positions, model=MODEL)


def timed(repeats: int, **kwargs) -> tuple[float, int]:
    times, checked = [], 0
    for _ in range(repeats):
        t = time.perf_counter()
        r = check_rope(kernel, model=MODEL, raise_on_failure=False, **kwargs)
        times.append(time.perf_counter() - t)
        checked = r.checked
    return statistics.median(times), checked


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--budget", type=int, default=8)
    a = ap.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})  # one core
    print(f"check_rope on {MODEL} (head_dim 128), {a.budget} rounds of 32 tokens x 2 heads, median of {a.repeats} runs, one core")
    print(f"CPU: {cpu_name()}; ropecheck {ropecheck.__version__}")
    print("| dtype | mode | default (s) | strict (s) | default / strict | elements |")
    print("|---|---|---:|---:|---:|---:|")
    for dtype in ("float32", "bfloat16", "float16"):
        for mode in ("rounds", "calls"):
            d, n = timed(a.repeats, dtype=dtype, budget=a.budget, mode=mode)
            s, _ = timed(a.repeats, dtype=dtype, budget=a.budget, mode=mode, bound="strict")
            print(f"| {dtype} | {mode} | {d:.3f} | {s:.3f} | {d / s:.2f} | {n} |")


if __name__ == "__main__":
    main()
