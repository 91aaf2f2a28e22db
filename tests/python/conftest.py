"""Shared helpers of the pytest suite: the CLI the module's results are compared with, and seeded
test tensors (NumPy's PCG64 from a printed seed: the same arrays on every machine)."""

import collections.abc
import dataclasses
import json
import math
import os
import subprocess
import sys
import typing

import numpy as np
import numpy.typing as npt
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


def as_json(value, nan=None):
    """A result as the JSON it was read from: a dataclass's fields by name, a read-only mapping's
    items, tuples as lists, infinities as the library's "inf"/"-inf", NaN as `nan` (null where the
    JSON writer spelt it, "nan" where the library did)."""
    if isinstance(value, collections.abc.Mapping):
        return {k: as_json(v, nan) for k, v in value.items()}
    if dataclasses.is_dataclass(value):
        return {f.name: as_json(getattr(value, f.name), nan) for f in dataclasses.fields(value) if not f.name.startswith("_")}
    if isinstance(value, tuple):
        return [as_json(v, nan) for v in value]
    if isinstance(value, float) and math.isnan(value):
        return nan
    if isinstance(value, float) and math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return value


def _matches(value, hint):
    """Whether value is of the type `hint`, exactly: a float field holds a float (not an int), an
    int an int (not a bool), a tuple its items' types, a dataclass its own fields' (assert_typed)."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint is typing.Any or isinstance(hint, typing.ForwardRef):
        return True
    if origin is typing.Union:
        return any(_matches(value, a) for a in args)
    if hint is type(None):
        return value is None
    if hint is float:
        return type(value) is float
    if hint is int:
        return type(value) is int
    if hint in (str, bool):
        return type(value) is hint
    if origin is tuple:
        if not isinstance(value, tuple):
            return False
        if len(args) == 2 and args[1] is Ellipsis:
            return all(_matches(v, args[0]) for v in value)
        return len(value) == len(args) and all(_matches(v, a) for v, a in zip(value, args))
    if origin is list:
        return isinstance(value, list) and all(_matches(v, args[0]) for v in value)
    if origin in (collections.abc.Mapping, dict):
        return isinstance(value, collections.abc.Mapping) and all(_matches(v, args[1]) for v in value.values())
    if origin is np.ndarray:  # npt.NDArray[scalar]: its dtype's scalar type too
        scalar = typing.get_args(args[1])[0] if len(args) == 2 and typing.get_args(args[1]) else typing.Any
        return isinstance(value, np.ndarray) and (scalar is typing.Any or value.dtype.type is scalar)
    if dataclasses.is_dataclass(hint):
        if not isinstance(value, hint):
            return False
        assert_typed(value)
        return True
    if isinstance(hint, type):
        return isinstance(value, hint)
    raise AssertionError(f"assert_typed does not know the type {hint!r}")


def assert_typed(result):
    """Every public field of the dataclass `result` holds a value of its annotated type, nested
    dataclasses included (the annotations resolved in the result's module)."""
    assert dataclasses.is_dataclass(result) and not isinstance(result, type), type(result).__name__
    cls = type(result)
    hints = typing.get_type_hints(cls, vars(sys.modules[cls.__module__]) | {"npt": npt, "numpy": np})
    for f in dataclasses.fields(result):
        if f.name.startswith("_"):
            continue
        value = getattr(result, f.name)
        assert _matches(value, hints[f.name]), f"{cls.__name__}.{f.name} = {value!r:.200} is not {hints[f.name]}"
