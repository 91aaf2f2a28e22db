"""ropecheck.audit: the CLI's audit of the same arrays, value for value, as an object."""

import json

import numpy as np
import pytest

import ropecheck
from conftest import as_json, assert_typed, run_cli, uniform

POSITIONS = np.array([0, 3, 4096, 16777217, 2 ** 31 + 1, 2 ** 40, 2 ** 62 - 3], dtype=np.int64)


def cli_audit(tmp_path, x, positions, y, *flags):
    for name, a in (("x", x), ("p", positions), ("y", y)):
        np.save(tmp_path / f"{name}.npy", a)
    dtype = {np.dtype(np.float32): "f32", np.dtype(np.float16): "f16"}.get(x.dtype, "bf16")
    out = tmp_path / "audit.json"
    run_cli("audit", "--dtype", dtype, "--input", tmp_path / "x.npy", "--positions", tmp_path / "p.npy",
            "--output", tmp_path / "y.npy", "--json", out, *flags)
    return json.loads(out.read_text())


@pytest.mark.parametrize("dtype", [np.float32, np.uint16, np.float16])
def test_audit_equals_the_cli(tmp_path, dtype):
    x = uniform((len(POSITIONS), 2, 64), seed=31, dtype=dtype)
    y = ropecheck.apply(x, POSITIONS, model="gpt-oss-20b", impl="f32-angle")
    a = ropecheck.audit(x, POSITIONS, y, model="gpt-oss-20b")
    cli = cli_audit(tmp_path, x, POSITIONS, y, "--model", "gpt-oss-20b")
    assert a.to_dict() == cli
    # The float32 angle at 2^40 and beyond: thousands of float32 ulp, hundreds of (coarser) 16-bit ulp.
    assert a.max_ulp == cli["errors"]["max_ulps"] and a.max_ulp > (1000 if dtype == np.float32 else 100)
    assert not a.correctly_rounded
    assert "worst element" in repr(a)
    assert a.worst is not None and len(a.worst.input_bits) == len(a.worst.inputs_hex) == 2
    # Typed fields holding the CLI's values: the error record, its decades and worst element.
    assert_typed(a)
    assert isinstance(a.errors, ropecheck.AuditErrors) and isinstance(a.worst, ropecheck.AuditWorst)
    assert a.decades and all(isinstance(d, ropecheck.AuditDecade) for d in a.decades)
    assert as_json(a.errors, nan="nan") == cli["errors"]
    assert a.decades == a.errors.decades and a.worst == a.errors.worst
    assert [d.positions for d in a.decades] == [d["positions"] for d in cli["errors"]["decades"]]
    assert a.worst.ulps == a.max_ulp and a.worst.position in POSITIONS


@pytest.mark.parametrize("dtype", [np.float32, np.uint16, np.float16])
def test_audit_reports_check_ropes_default_bound_as_the_cli_does(tmp_path, dtype):
    # A float32-angle RoPE (ropecheck's own f32-angle baseline) within Llama's context: inside the
    # float32 formulation's reach, so check_rope's default bound finds nothing outside it; the same
    # output shifted at position 3, where the float32 angle is nearly exact, by more than the
    # formulation's float32 arithmetic allows (its products, sum and 2-ulp cos/sin: ~12 float32 ulp
    # of the pair's norm; here 1000 float32 ulp, or 4 ulp of a 16-bit format) is outside it. CLI and
    # Python give the same figures.
    positions = np.array([0, 1, 3, 77, 4096, 100000, 131071], dtype=np.int64)
    x = uniform((len(positions), 2, 128), seed=34, dtype=dtype)
    y = ropecheck.apply(x, positions, model="llama-3.1-8b", impl="f32-angle")
    a = ropecheck.audit(x, positions, y, model="llama-3.1-8b")
    cli = cli_audit(tmp_path, x, positions, y, "--model", "llama-3.1-8b")
    assert a.to_dict()["formulation"] == cli["formulation"]
    f = a.formulation
    assert isinstance(f, ropecheck.AuditFormulation) and f.within and f.checked == x.size
    assert f.classes["finite"].checked == f.checked and f.classes["finite"].max_ulps == cli["formulation"]["classes"]["finite"]["max_ulps"]
    wrong = y.copy()
    wrong.view(np.uint16 if dtype != np.float32 else np.uint32)[2, 0, 5] += 4 if dtype != np.float32 else 1000  # position 3, pair 5
    b = ropecheck.audit(x, positions, wrong, model="llama-3.1-8b")
    assert not b.formulation.within and b.formulation.failed >= 1 and b.formulation.worst["position"] == 3
    assert "outside it" in repr(b)


def test_audit_names_the_dtype_flag_for_a_bfloat16_file(tmp_path):
    bits = uniform((3, 1, 64), seed=35, dtype=np.uint16)
    np.save(tmp_path / "x.npy", bits)
    np.save(tmp_path / "p.npy", np.arange(3, dtype=np.int64))
    err = run_cli("audit", "--input", tmp_path / "x.npy", "--positions", tmp_path / "p.npy", "--output", tmp_path / "x.npy",
                  "--dim", 64, "--layout", "half", expect=(2,), stderr=True)
    assert "--dtype" in err and "pass --dtype bf16" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_audit_of_the_kernel_is_all_correctly_rounded(dtype):
    x = uniform((2, len(POSITIONS), 3, 128), seed=32, dtype=dtype)
    y = ropecheck.apply(x, POSITIONS, model="llama-3.1-8b")
    a = ropecheck.audit(x, POSITIONS, y, model="llama-3.1-8b", threads=2)
    assert a.correctly_rounded and a.share_correctly_rounded == 1.0 and a.max_ulp <= 0.5
    assert a.elements == x.size
    assert_typed(a)
    assert sum(d.elements for d in a.decades) == a.elements and all(d.correctly_rounded == d.elements for d in a.decades)


def test_audit_axes_and_bfloat16_dlpack(tmp_path):
    bits = uniform((1, 4, len(POSITIONS), 128), seed=33, dtype=np.uint16)  # bhsd
    y = ropecheck.apply(bits, POSITIONS, model="llama-3.1-8b", axes="bhsd")
    a = ropecheck.audit(ropecheck.bfloat16(bits), POSITIONS, ropecheck.bfloat16(y), model="llama-3.1-8b", axes="bhsd")
    assert a.correctly_rounded
    assert a.to_dict() == cli_audit(tmp_path, bits, POSITIONS, y, "--model", "llama-3.1-8b", "--axes", "bhsd")
