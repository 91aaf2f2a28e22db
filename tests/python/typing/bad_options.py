"""Calls that mypy --strict must reject, each on a line marked `# rejected`
(tests/python/test_typing.py): misspelt or mistyped spectrum keywords, a dtype of no accepted
type, a RoPE function check_rope would call with what it does not take, and results read as the
dicts they no longer are."""

import numpy as np
import numpy.typing as npt
import torch

import ropecheck
import ropecheck.torch as rt
from ropecheck.testing import check_rope, fuzz_inputs

x = np.ones((2, 1, 4), dtype=np.float32)
ropecheck.spectrum(dim=128, thetaa=10000)  # rejected
ropecheck.spectrum(dim="128")  # rejected
ropecheck.plan(model="llama-3.1-8b", layout="half", p_rop=0.5)  # rejected
ropecheck.verify("lemma-a3", modle="llama-3.1-8b")  # rejected
ropecheck.apply(x, [0, 1], model="llama-3.1-8b", contxt=4096)  # rejected
ropecheck.apply_(x, [0, 1], model="llama-3.1-8b", nope="yes")  # rejected
ropecheck.audit(x, [0, 1], x, model="llama-3.1-8b", scalling="llama3")  # rejected
fuzz_inputs(model="llama-3.1-8b", dtype=3)  # rejected
check_rope(lambda a, p: a, model="llama-3.1-8b", thetaa=10000)  # rejected
check_rope(lambda a, p: a, model="llama-3.1-8b", permutation=3)  # rejected
ropecheck.testing.profile(lambda a, p: a, model="llama-3.1-8b", dtype=None)  # rejected
rt.check_rope(lambda a, p: a, model="llama-3.1-8b", theta_=10000)  # rejected
rt.apply_(x, [0, 1], model="llama-3.1-8b")  # rejected
u = ropecheck.usage(x, x, [0, 1], model="llama-3.1-8b")
heads = u.layers[0]["heads"]  # rejected
ropecheck.spectrum(model="llama-3.1-8b").frequencies.upper()  # rejected
tokens = u.capture["tokens"]  # rejected
statement = u.within_layers["statement"]  # rejected
a = ropecheck.audit(x, [0, 1], x, model="llama-3.1-8b")
worst = a.errors.worst.ulps  # rejected
decade = a.decades[0]["max_ulps"]  # rejected
g = ropecheck.spectrum(dim=64, theta=10000).rows[0]["g"]  # rejected
name = ropecheck.models()[0]["model"]  # rejected
v = ropecheck.verify("lemma-a3")
mpfr = v.arithmetic["mpfr"]  # rejected
bits: str = v[0].parameters.precision_bits  # rejected
q = ropecheck.capture.load("capture.npz").q.upper()  # rejected


def torch_rope(x: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
    return x


def int32_positions(x: npt.NDArray[np.float32], positions: npt.NDArray[np.int32]) -> npt.NDArray[np.float32]:
    return x


check_rope(torch_rope, model="llama-3.1-8b")  # rejected
check_rope(int32_positions, model="llama-3.1-8b")  # rejected
check_rope(lambda a: a, model="llama-3.1-8b")  # rejected
check_rope(lambda a, p: "rotated", model="llama-3.1-8b")  # rejected
rt.check_rope(int32_positions, model="llama-3.1-8b")  # rejected
rt.gradient_map(lambda a, p: None)  # rejected
