"""Shared helpers of the pytest suite: the CLI the module's results are compared with, and seeded
test tensors (NumPy's PCG64 from a printed seed: the same arrays on every machine)."""

import json
import os
import subprocess

import numpy as np
import pytest


def cli_path():
    path = os.environ.get("ROPECHECK_CLI")
    if not path:
        pytest.skip("ROPECHECK_CLI is not set (ctest sets it to the build's ropecheck)")
    return path


def run_cli(*args, expect=(0,), stderr=False):
    """Runs `ropecheck ARGS`; returns its stdout (its stderr with stderr=True). Fails the test on an
    exit status not in expect."""
    r = subprocess.run([cli_path(), *map(str, args)], capture_output=True, text=True)
    assert r.returncode in expect, f"ropecheck {' '.join(map(str, args))}: exit {r.returncode}\n{r.stderr}"
    return r.stderr if stderr else r.stdout


def run_cli_json(*args):
    return json.loads(run_cli(*args))


def uniform(shape, seed, dtype=np.float32):
    """Values uniform in (-4, 4) from seed (printed by the tests that use them)."""
    x = np.random.default_rng(seed).uniform(-4.0, 4.0, size=shape).astype(np.float32)
    if dtype == np.uint16:  # bfloat16 bit patterns: the float32 values truncated
        return (x.view(np.uint32) >> 16).astype(np.uint16)
    if dtype == np.float16:  # NumPy's own rounding to nearest even
        return x.astype(np.float16)
    return x
