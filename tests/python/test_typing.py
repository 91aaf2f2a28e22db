"""Types in fact: mypy --strict rejects a misspelt or mistyped spectrum keyword, a dtype of no
accepted type and a result read as a dict (typing/bad_options.py, each such line marked), and
accepts every documented form (typing/good_options.py); every dtype form is accepted at run time
too, and anything else raises InputError naming ``dtype``."""

import os
import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest

import ropecheck
from ropecheck.testing import check_rope, fuzz_inputs

HERE = pathlib.Path(__file__).parent
TYPING = HERE / "typing"
PACKAGE_ROOT = pathlib.Path(ropecheck.__file__).parent.parent  # the directory holding the package under test
MODEL = "llama-3.1-8b"


@pytest.fixture(scope="module")
def mypy_errors(tmp_path_factory):
    """mypy --strict's errors on both files, one run: {(file name, line): message}."""
    if os.environ.get("ROPECHECK_SKIP_MYPY"):
        pytest.skip("mypy checks the .py files alone: run in the Release build, not the sanitizer build")
    mypy = pytest.importorskip("mypy.version")
    pytest.importorskip("torch")  # good_options.py passes torch dtypes
    flags = []
    if tuple(int(v) for v in re.findall(r"\d+", mypy.__version__)[:2]) < (1, 7):
        flags.append("--enable-incomplete-feature=Unpack")  # PEP 692's Unpack before mypy 1.7
    cache = os.environ.get("ROPECHECK_MYPY_CACHE") or str(tmp_path_factory.mktemp("mypy_cache"))
    env = dict(os.environ, MYPYPATH=str(PACKAGE_ROOT))
    run = subprocess.run([sys.executable, "-m", "mypy", "--strict", *flags, "--cache-dir", cache, "--no-error-summary",
                          str(TYPING / "good_options.py"), str(TYPING / "bad_options.py")],
                         capture_output=True, text=True, env=env, timeout=560)
    errors = {}
    for line in run.stdout.splitlines():
        m = re.match(r"(.+?):(\d+): error: (.*)", line)
        if m:
            errors[(pathlib.Path(m.group(1)).name, int(m.group(2)))] = m.group(3)
        else:
            assert ": note: " in line, f"mypy printed {line!r}\n{run.stderr}"
    assert run.returncode in (0, 1), run.stdout + run.stderr
    return errors


def marked_lines(name):
    text = (TYPING / name).read_text().splitlines()
    return {i + 1 for i, line in enumerate(text) if line.endswith("# rejected")}


def test_mypy_accepts_every_documented_form(mypy_errors):
    good = {k: v for k, v in mypy_errors.items() if k[0] == "good_options.py"}
    assert good == {}


def test_mypy_rejects_exactly_the_marked_lines(mypy_errors):
    bad = {line for (name, line) in mypy_errors if name == "bad_options.py"}
    marked = marked_lines("bad_options.py")
    assert len(marked) >= 10
    assert bad == marked, {k: v for k, v in mypy_errors.items() if k[0] == "bad_options.py"}


def test_mypy_names_the_misspelt_keyword(mypy_errors):
    messages = [m for (name, _), m in mypy_errors.items() if name == "bad_options.py"]
    assert any('Unexpected keyword argument "thetaa" for "spectrum"' in m for m in messages), messages
    assert any('Unexpected keyword argument "thetaa" for "check_rope"' in m for m in messages), messages


STORAGE = {"float32": np.float32, "bfloat16": np.uint16, "float16": np.float16}


def dtype_forms():
    forms = [(name, name) for name in STORAGE]
    forms += [("float32", np.float32), ("float16", np.float16), ("float32", np.dtype("float32")),
              ("float16", np.dtype("<f2")), ("float32", np.dtype(">f4"))]
    try:
        import torch
    except ImportError:
        return forms
    return forms + [(name, getattr(torch, name)) for name in STORAGE]


@pytest.mark.parametrize("name,dtype", dtype_forms(), ids=lambda v: repr(v))
def test_every_dtype_form_is_the_named_format(name, dtype):
    positions, x = fuzz_inputs(seed=3, dtype=dtype, model=MODEL, tokens=4)
    want_positions, want = fuzz_inputs(seed=3, dtype=name, model=MODEL, tokens=4)
    assert x.dtype == STORAGE[name]
    np.testing.assert_array_equal(positions, want_positions)
    assert x.tobytes() == want.tobytes()


@pytest.mark.parametrize("name,dtype", [("float16", np.float16), ("bfloat16", "bfloat16")])
def test_check_rope_and_profile_take_the_dtype_forms(name, dtype):
    def rope(x, positions):
        return ropecheck.apply(x, positions, model=MODEL, axes="shd")
    assert check_rope(rope, model=MODEL, dtype=dtype, budget=1).rounds == 1
    assert ropecheck.testing.profile(rope, model=MODEL, dtype=dtype, tokens=8, heads=1, max_position=999).dtype == name


def test_torch_functions_take_numpy_and_str_dtypes():
    torch = pytest.importorskip("torch")
    import ropecheck.torch as rt
    r = rt.check_rope(lambda t, p: rt.apply(t, p, model=MODEL), model=MODEL, dtype=np.float16, budget=1)
    assert r.rounds == 1
    assert rt.profile(lambda t, p: rt.apply(t, p, model=MODEL), model=MODEL, dtype="float32", tokens=8, heads=1,
                      max_position=999).dtype == "float32"
    with pytest.raises(ropecheck.InputError) as info:
        rt.check_rope(lambda t, p: t, model=MODEL, dtype=torch.float64)
    assert info.value.parameter == "dtype" and "torch.float64" in str(info.value)


BAD_DTYPES = ["float64", "Float32", "bf16", "", np.float64, np.dtype("int16"), np.uint16, 3, None, float, object()]


@pytest.mark.parametrize("dtype", BAD_DTYPES, ids=lambda v: repr(v))
def test_any_other_dtype_names_the_parameter_and_the_accepted_values(dtype):
    with pytest.raises(ropecheck.InputError) as info:
        fuzz_inputs(dtype=dtype, model=MODEL)
    e = info.value
    assert isinstance(e, ValueError) and e.parameter == "dtype"
    assert str(e).startswith("dtype must be ")
    for accepted in ("'float32'", "'bfloat16'", "'float16'", "NumPy dtype", "torch.dtype"):
        assert accepted in e.accepted, e.accepted


def test_importing_the_package_imports_no_torch():
    code = "import sys, ropecheck, ropecheck.testing, ropecheck.capture; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env=dict(os.environ, PYTHONPATH=str(PACKAGE_ROOT)))
    assert out.stdout.strip() == "False", out.stderr
