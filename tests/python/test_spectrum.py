"""ropecheck.models() and ropecheck.spectrum(): the CLI's rows, as objects and arrays."""

import json
from fractions import Fraction

import numpy as np
import pytest

import ropecheck
from conftest import as_json, assert_typed, run_cli, run_cli_json


def test_models_are_the_cli_zoo():
    m = ropecheck.models()
    cli = run_cli_json("models", "--json")
    assert m.to_dict() == cli
    assert repr(m) + "\n" == run_cli("models")
    assert "llama-3.1-8b" in m.names()
    # One ZooModel per entry, every field typed and holding the JSON's value under the JSON's name.
    assert len(m) == len(cli) and all(isinstance(r, ropecheck.ZooModel) for r in m)
    assert [as_json(r) for r in m] == cli
    for r in m:
        assert_typed(r)
        assert r.layer_types and all(isinstance(t, ropecheck.ZooLayerType) for t in r.layer_types)
    assert m[0] == m.rows[0] and m[:2] == m.rows[:2]
    d = m.to_dict()
    d[0].clear()
    assert m.to_dict() == cli  # a copy


@pytest.mark.parametrize("model", ["llama-3.1-8b", "gpt-oss-20b", "deepseek-v3", "gemma-3-27b"])
def test_model_spectrum_equals_the_cli(model):
    s = ropecheck.spectrum(model=model)
    cli = run_cli_json("spectrum", "--model", model, "--json")
    assert s.to_dict() == cli
    assert repr(s) + "\n" == run_cli("spectrum", "--model", model)
    assert_typed(s)
    for t, d in zip(s.layer_types, cli["layer_types"], strict=True):
        assert list(t.layers) == d["layers"]
        if t.spectrum is not None:
            assert all(isinstance(r, ropecheck.SpectrumRow) for r in t.spectrum.rows)
            assert [as_json(r) for r in t.spectrum.rows] == d["spectrum"]["rows"]


def test_spectrum_rows_as_floats_strings_and_arrays():
    s = ropecheck.spectrum(model="llama-3.1-8b", context=131072)
    first = s.layer_types[0].spectrum
    assert first.context == 131072
    assert isinstance(s.frequencies, np.ndarray) and s.frequencies.dtype == np.float64
    assert len(s.frequencies) == 64
    assert s.frequency_floats == [r.g_float64 for r in s.rows]
    assert [r.k for r in s.rows] == list(range(1, 65)) and {r.semantic for r in s.rows} <= {"yes", "no", "undecided"}
    assert all(r.quarter_turn_horizon is None or r.quarter_turn_horizon >= 1 for r in s.rows)
    assert all(isinstance(g, str) for g in s.frequencies_exact)
    # The exact decimal and the float agree to the float's rounding (g_float64 is g rounded to nearest).
    for g, f in zip(s.frequencies_exact, s.frequency_floats):
        assert abs(Fraction(g) - Fraction(f)) <= Fraction(f) * Fraction(1, 2 ** 52)
    assert np.all(np.diff(s.frequencies) < 0)


def test_bare_spectrum_and_variants_equal_the_cli():
    s = ropecheck.spectrum(dim=64, theta=10000, p_rope=0.75, context=4096)
    cli = run_cli_json("spectrum", "--dim", 64, "--theta", 10000, "--p-rope", "0.75", "--context", 4096, "--json")
    assert s.to_dict() == cli
    assert s.rotated_pairs == cli["rotated_pairs"]
    assert_typed(s)
    assert [as_json(r) for r in s.rows] == cli["rows"]
    removed = [r for r in s.rows if r.status == "removed"]
    assert len(removed) == 32 - 24 and all(r.wavelength == "inf" and r.g_float64 == 0.0 for r in removed)
    assert repr(s) + "\n" == run_cli("spectrum", "--dim", 64, "--theta", 10000, "--p-rope", "0.75", "--context", 4096)
    # A float fraction is the binary value it holds: 0.75 is exact.
    assert ropecheck.spectrum(dim=64, p_rope="0.75", context=4096).to_dict() == cli
    assert ropecheck.spectrum(config="gemma-7b").to_dict() == run_cli_json("spectrum", "--config", "gemma-7b", "--json")


def test_plan_describes_the_geometry():
    p = ropecheck.plan(model="deepseek-v3")
    assert p.rotary_dims == 64 and p.head_dim > 64
    assert p.rotary_offset + p.rotary_dims <= p.head_dim
    # YaRN's attention factor 0.1 ln(32) + 1: the shortest decimal of the double the kernel uses.
    assert float(ropecheck.plan(model="gpt-oss-20b").attention_factor) == 0.1 * __import__("math").log(32) + 1


def test_every_library_variant_has_its_keyword():
    """The library's one list of variants (spectrum/variant.h, exported as _core.VARIANTS) reaches
    Python: each but the default rope is selected by its keyword (its name with "-" written "_"),
    which sends the library's name for the library's parser, as the C ABI's spec->variant does."""
    import inspect

    from ropecheck import _arguments, _core

    keywords = inspect.signature(_arguments.spectrum_request).parameters
    assert set(_core.FRACTION_VARIANTS) <= set(_core.VARIANTS)
    for name in _core.VARIANTS:
        if name == "rope":
            continue
        keyword = name.replace("-", "_")
        assert keyword in keywords, f"variant {name} has no keyword {keyword} in spectrum_request"
        value = "0.5" if name in _core.FRACTION_VARIANTS else True
        request, chosen = _arguments.spectrum_request(dim=8, **{keyword: value})
        assert chosen == keyword and request["variant"] == name
        assert ropecheck.spectrum(dim=8, context=16, **{keyword: value}).variant == name
