"""ropecheck.verify and ropecheck.claims: the CLI's certificates, value for value, with bounds as
exact decimal strings and Fractions."""

import json
from fractions import Fraction

import pytest

import ropecheck
from conftest import run_cli


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
    assert v.arithmetic == cli["arithmetic"]


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
