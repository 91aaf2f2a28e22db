"""Every documented bad input raises ropecheck.InputError (a ValueError) naming the Python
parameter and the accepted range: no abort, no C++ exception text."""

import numpy as np
import pytest

import ropecheck
from ropecheck.testing import check_rope

X = np.zeros((3, 2, 128), dtype=np.float32)
P = np.array([0, 1, 2], dtype=np.int64)


def kernel(x, p):
    return ropecheck.apply(x, p, model="llama-3.1-8b")


CASES = [
    ("dim", lambda: ropecheck.spectrum(dim=63)),
    ("dim", lambda: ropecheck.spectrum(dim=1.5)),
    ("theta", lambda: ropecheck.spectrum(dim=64, theta=1)),
    ("theta", lambda: ropecheck.spectrum(dim=64, theta=float("nan"))),
    ("p_rope", lambda: ropecheck.spectrum(dim=64, p_rope=1.5)),
    ("reversed", lambda: ropecheck.spectrum(dim=64, reversed=-0.25)),
    ("partial", lambda: ropecheck.spectrum(dim=64, p_rope=0.5, partial=0.5)),
    ("context", lambda: ropecheck.spectrum(dim=64, context=0)),
    ("config", lambda: ropecheck.spectrum(config="no-such-config")),
    ("model", lambda: ropecheck.spectrum(model="no-such-model")),
    ("layer_type", lambda: ropecheck.spectrum(model="gemma-3-27b", layer_type="no-such-layer")),
    ("layer_type", lambda: ropecheck.spectrum(dim=64, layer_type="full_attention")),
    ("scaling", lambda: ropecheck.spectrum(dim=64, scaling="linear:-2")),
    ("precision", lambda: ropecheck.spectrum(dim=64, precision=10)),
    ("x", lambda: ropecheck.apply(X.astype(np.float64), P, model="llama-3.1-8b")),
    ("x", lambda: ropecheck.apply(np.zeros(8, dtype=np.float32), P[:1], model="llama-3.1-8b")),
    ("x", lambda: ropecheck.apply(np.zeros((3, 2, 64), dtype=np.float32), P, model="llama-3.1-8b")),
    ("x", lambda: ropecheck.apply("not a tensor", P, model="llama-3.1-8b")),
    ("x", lambda: ropecheck.apply_(np.broadcast_to(X, X.shape), P, model="llama-3.1-8b")),
    ("layout", lambda: ropecheck.apply(X, P, model="llama-3.1-8b", layout="interleaved")),
    ("layout", lambda: ropecheck.apply(X, P, dim=128, layout="sideways")),
    ("layout", lambda: ropecheck.apply(X, P, dim=128)),
    ("axes", lambda: ropecheck.apply(X, P, model="llama-3.1-8b", axes="dsh")),
    ("threads", lambda: ropecheck.apply(X, P, model="llama-3.1-8b", threads=0)),
    ("impl", lambda: ropecheck.apply(X, P, model="llama-3.1-8b", impl="fast")),
    ("positions", lambda: ropecheck.apply(X, P[:2], model="llama-3.1-8b")),
    ("positions", lambda: ropecheck.apply(X, np.array([0.5, 1, 2]), model="llama-3.1-8b")),
    ("positions", lambda: ropecheck.apply(X, np.array([0, 1, 2 ** 25], dtype=np.float32), model="llama-3.1-8b")),
    ("positions", lambda: ropecheck.apply(X, np.array([0, 1, 2 ** 63], dtype=np.uint64), model="llama-3.1-8b")),
    ("positions", lambda: ropecheck.apply(X, np.array(["a", "b", "c"]), model="llama-3.1-8b")),
    ("y", lambda: ropecheck.audit(X, P, X[:2], model="llama-3.1-8b")),
    ("y", lambda: ropecheck.audit(X, P, X.view(np.uint16)[..., :128], model="llama-3.1-8b")),
    ("precision", lambda: ropecheck.audit(X, P, X, model="llama-3.1-8b", precision=10)),
    ("claim", lambda: ropecheck.verify("thm-99")),
    ("max_n", lambda: ropecheck.verify("lemma-a2", max_n=0)),
    ("seed", lambda: ropecheck.verify("fig-2a", seed=-1)),
    ("tolerance", lambda: ropecheck.verify("lemma-a2", tolerance=float("inf"))),
    ("bits", lambda: ropecheck.bfloat16(X)),
    ("max_ulp", lambda: check_rope(kernel, model="llama-3.1-8b", max_ulp=0.25)),
    ("dtype", lambda: check_rope(kernel, model="llama-3.1-8b", dtype="float64")),
    ("fn", lambda: check_rope(None, model="llama-3.1-8b")),
    ("budget", lambda: check_rope(kernel, model="llama-3.1-8b", budget=0)),
    ("max_position", lambda: check_rope(kernel, model="llama-3.1-8b", min_position=10, max_position=5)),
]


@pytest.mark.parametrize("parameter,call", CASES, ids=[f"{p}-{i}" for i, (p, _) in enumerate(CASES)])
def test_bad_input_names_its_parameter(parameter, call):
    with pytest.raises(ropecheck.InputError) as info:
        call()
    e = info.value
    assert isinstance(e, ValueError)
    assert e.parameter == parameter, str(e)
    assert str(e).startswith(parameter + " must be "), str(e)
    assert e.accepted and "std::" not in str(e) and "what()" not in str(e)
