"""ropecheck.verify and ropecheck.claims: the CLI's certificates, value for value, with bounds as
exact decimal strings and Fractions."""

import copy
import json
import pickle
from fractions import Fraction

import pytest

import ropecheck
from conftest import as_json, assert_typed, run_cli


def cli_certificates(tmp_path, *args):
    out = tmp_path / "v.json"
    run_cli("verify", *args, "--json", out, expect=(0, 1))  # 1: a verdict differs from the paper's
    return json.loads(out.read_text())


def without_seconds(c):
    c = dict(c)
    c.pop("seconds", None)
    return c


def test_claims_are_the_cli_list():
    listed = [line.split("\t") for line in run_cli("verify", "--list").splitlines()]
    assert ropecheck.claims() == {cid: title for cid, title in listed}


@pytest.mark.parametrize("claim,kwargs,flags", [
    ("lemma-a2", {}, []),
    ("lemma-a2", {"frequency": "1", "phase": "0.5", "tolerance": Fraction(1, 1000), "max_n": 5000},
     ["--frequency", "1", "--phase", "0.5", "--tolerance", "0.001", "--max-n", "5000"]),
    ("fig-2a", {"seed": 3}, ["--seed", "3"]),
    ("ledger", {}, []),
])
def test_certificates_equal_the_cli(tmp_path, claim, kwargs, flags):
    v = ropecheck.verify(claim, **kwargs)
    cli = cli_certificates(tmp_path, "--claim", claim, *flags)
    assert [without_seconds(c.to_dict()) for c in v] == [without_seconds(c) for c in cli["certificates"]]
    assert v.as_paper_states == cli["all_as_paper_states"]
    assert v.verdicts == [c["verdict"] for c in cli["certificates"]]
    assert as_json(v.arithmetic) == cli["arithmetic"] == v.to_dict()["arithmetic"]
    assert_typed(v)
    for c, d in zip(v, cli["certificates"], strict=True):
        # parameters and details: typed where the claims share them, every item as a read-only mapping.
        assert as_json(c.parameters) == d["parameters"] and as_json(c.details) == d["details"]
        assert c.parameters.configuration == d["parameters"]["configuration"]
        assert c.parameters.precision_bits == d["parameters"]["precision_bits"] and c.parameters.spectrum == d["parameters"].get("spectrum")
        assert c.details.precision_attempts == tuple(d["details"]["precision_attempts"])
        assert [(x.statement, x.decision) for x in c.details.conjuncts] == list(d["details"].get("conjuncts", {}).items())


def test_bounds_are_exact_strings_and_fractions():
    v = ropecheck.verify("lemma-a2")
    quantities = [q for c in v for q in c.quantities]
    assert quantities
    for q in quantities:
        assert isinstance(q.lower_text, str) and isinstance(q.upper_text, str)
        if q.lower is not None:
            assert isinstance(q.lower, Fraction) and q.lower == Fraction(q.lower_text)
        if q.lower is not None and q.upper is not None:
            assert q.lower <= q.upper
    assert all(c.verdict in ("holds", "fails", "counterexample", "confirmed", "not-confirmed", "inconclusive") for c in v)
    assert "lemma-a2" in repr(v)


def test_parameters_and_details_are_typed_and_read_only():
    v = ropecheck.verify("fig-2a", seed=3)
    c = v[0]
    assert isinstance(v.arithmetic, ropecheck.ArithmeticEnvironment) and isinstance(v.arithmetic.cxx_standard, int)
    assert v.arithmetic.cxx_standard >= 202002 and isinstance(v.arithmetic.fast_math, bool)
    assert isinstance(c.parameters, ropecheck.CertificateParameters) and isinstance(c.details, ropecheck.CertificateDetails)
    assert_typed(c)
    assert c.parameters.spectrum is not None and c.parameters["spectrum"] == c.parameters.spectrum
    assert c.parameters["early_window"] == tuple(c.to_dict()["parameters"]["early_window"])  # arrays as tuples
    assert c.details.conjuncts and all(isinstance(x, ropecheck.Conjunct) and x.decision == "yes" for x in c.details.conjuncts)
    assert dict(c.parameters) == c.parameters and c.parameters == v[0].parameters
    with pytest.raises(TypeError):
        c.parameters["configuration"] = "other"  # type: ignore[index]
    with pytest.raises(TypeError):
        c.details["conjuncts"]["not monotone"] = "no"  # nested objects are read-only too
    assert c.to_dict()["details"]["conjuncts"]["not monotone"] == "yes"
    assert c.details.precision_cannot_help is False and c.details.note is None
    assert pickle.loads(pickle.dumps(v)) == v and copy.deepcopy(v) == v  # read-only, not unpicklable
