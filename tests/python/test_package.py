"""The package's shape: every public name exported and typed, results frozen dataclasses, the
names the package accepts read from the library's one list of each (the CLI's too), and the
docstrings' claim ids real."""

import dataclasses
import inspect
import pathlib
import re
import types

import numpy as np
import pytest

import ropecheck
import ropecheck.capture
import ropecheck.lm
import ropecheck.testing
import ropecheck.torch
from conftest import run_cli

PACKAGE = pathlib.Path(ropecheck.__file__).parent
X = np.zeros((1, 1, 2), dtype=np.float32)


def public_names(module):
    """The public functions and classes the module defines or re-exports from the package's private
    modules (ropecheck._audit, ...): what __all__ must list."""
    def own(v):
        m = getattr(v, "__module__", None) or ""
        if m == module.__name__ or m.startswith(module.__name__ + "._"):
            return True
        # A submodule re-exports the package's private modules' results (ropecheck._checking's
        # CheckResult in testing and torch), not its error class, which the package exports once;
        # ropecheck.capture and ropecheck.torch keep ropecheck.lm's capture and ablations under their
        # first names.
        if m.startswith("ropecheck.lm.") and module.__name__ in ("ropecheck.capture", "ropecheck.torch", "ropecheck.lm"):
            return True
        return m.startswith("ropecheck._") and not (isinstance(v, type) and issubclass(v, BaseException))
    return sorted(n for n, v in vars(module).items()
                  if not n.startswith("_") and not isinstance(v, types.ModuleType) and own(v))


@pytest.mark.parametrize("module", [ropecheck, ropecheck.testing, ropecheck.capture, ropecheck.torch, ropecheck.lm])
def test_all_lists_every_public_name(module):
    listed = [n for n in module.__all__ if not isinstance(getattr(module, n), (types.ModuleType, tuple, dict))]  # not constants
    assert sorted(listed) == public_names(module)


@pytest.mark.parametrize("name", ropecheck.__all__ + [f"testing.{n}" for n in ropecheck.testing.__all__]
                         + [f"capture.{n}" for n in ropecheck.capture.__all__] + [f"torch.{n}" for n in ropecheck.torch.__all__]
                         + [f"lm.{n}" for n in ropecheck.lm.__all__ if callable(getattr(ropecheck.lm, n))])
def test_every_public_function_is_typed_and_documented(name):
    obj = getattr(ropecheck, name.split(".")[0]) if "." in name else ropecheck
    obj = getattr(obj, name.split(".")[-1])
    assert inspect.getdoc(obj), f"{name} has no docstring"
    if inspect.isfunction(obj):
        sig = inspect.signature(obj)
        assert sig.return_annotation is not inspect.Signature.empty, f"{name}: no return annotation"
        for p in sig.parameters.values():
            assert p.annotation is not inspect.Parameter.empty, f"{name}: parameter {p.name} has no annotation"
        doc = inspect.getdoc(obj)
        assert "Returns\n-------" in doc, f"{name}: no numpydoc Returns section"
        if sig.parameters:
            assert "Parameters\n----------" in doc, f"{name}: no numpydoc Parameters section"


def test_typed_marker_and_extension_stub_ship_with_the_package():
    assert (PACKAGE / "py.typed").is_file()
    assert (PACKAGE / "_core.pyi").is_file()


def test_results_are_frozen_dataclasses():
    results = [ropecheck.models(), ropecheck.spectrum(config="gemma-7b"), ropecheck.spectrum(model="gemma-3-27b"),
               ropecheck.plan(model="llama-3.1-8b"), ropecheck.verify("lemma-a3")]
    results += [results[2].layer_types[0], results[4][0], results[4][0].quantities[0]]
    for r in results:
        assert dataclasses.is_dataclass(r), type(r).__name__
        field = dataclasses.fields(r)[0].name
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(r, field, None)


def test_to_dict_is_a_copy_the_caller_may_change():
    s = ropecheck.spectrum(config="gemma-7b")
    d = s.to_dict()
    d["rows"].clear()
    assert len(s.to_dict()["rows"]) == len(s) == 128


@pytest.mark.parametrize("names,cli,python", [
    (ropecheck._core.IMPLEMENTATIONS, ("apply", "--dtype", "f32", "--impl", "bogus", "--positions", "p", "--input", "x", "--output", "y"),
     lambda: ropecheck.apply(X, [0], dim=2, layout="half", impl="bogus")),
    (ropecheck._core.LAYOUTS, ("apply", "--dtype", "f32", "--layout", "bogus", "--positions", "p", "--input", "x", "--output", "y"),
     lambda: ropecheck.plan(dim=4, layout="bogus")),
    (ropecheck._core.CONFIGS, ("spectrum", "--config", "bogus"), lambda: ropecheck.spectrum(config="bogus")),
])
def test_names_come_from_the_library_list_the_cli_reads(names, cli, python):
    """One list: what the CLI names in its message is what the package accepts."""
    assert len(names) >= 2
    message = run_cli(*cli, expect=(2,), stderr=True)
    for n in names:
        assert n in message, (n, message)
    with pytest.raises(ropecheck.InputError) as info:
        python()
    for n in names:
        assert n in info.value.accepted, (n, info.value.accepted)


def test_limits_come_from_the_library():
    """The thread limit Python refuses beyond is the one the CLI states and enforces."""
    limit = ropecheck._core.MAX_THREADS
    accepted = f"an integer in [1, {limit}]"
    with pytest.raises(ropecheck.InputError) as info:
        ropecheck.apply(X, [0], dim=2, layout="half", threads=limit + 1)
    assert info.value.accepted == accepted
    assert ropecheck.apply(X, [0], dim=2, layout="half", threads=limit).shape == X.shape
    assert accepted in run_cli("apply", "--help")
    assert accepted in run_cli("apply", "--dtype", "f32", "--threads", limit + 1, "--positions", "p", "--input", "x",
                               "--output", "y", expect=(2,), stderr=True)


def test_docstring_claim_ids_are_registered():
    claims = ropecheck.claims()
    for source in PACKAGE.glob("*.py"):
        for claim in re.findall(r"verify\(\s*[\"']([a-z0-9.-]+)[\"']", source.read_text()):
            assert claim in claims, f"{source.name} calls verify({claim!r}), which is not a claim"
