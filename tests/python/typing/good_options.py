"""Calls that mypy --strict must accept (tests/python/test_typing.py): the spectrum keywords,
every dtype form, the RoPE functions check_rope takes, and the typed results."""

from typing import Any, Optional

import numpy as np
import numpy.typing as npt
import torch

import ropecheck
import ropecheck.capture
import ropecheck.testing
import ropecheck.torch as rt
from ropecheck.testing import check_rope, fuzz_inputs


def rope(x: npt.NDArray[np.float32], positions: npt.NDArray[np.int64]) -> npt.NDArray[np.float32]:
    return x


s = ropecheck.spectrum(dim=128, theta="10000", p_rope=0.75)
f: npt.NDArray[np.float64] = ropecheck.spectrum(model="llama-3.1-8b").frequencies
p = ropecheck.plan(model="llama-3.1-8b", layout="half")
q = ropecheck.plan(dim=64, theta=10000, scaling="linear:2", layout="interleaved", context=4096)
v = ropecheck.verify("lemma-a3", model="llama-3.1-8b", layer_type="full")
x = np.ones((2, 1, 4), dtype=np.float32)
y = ropecheck.apply(x, [0, 1], dim=4, layout="interleaved", nope=False, sequence_length=None)
z: npt.NDArray[np.float32] = ropecheck.apply_(x, [0, 1], model="llama-3.1-8b", context=8192)
a = ropecheck.audit(x, [0, 1], y, dim=4, layout="interleaved", partial=0.5)
positions, inputs = fuzz_inputs(dtype=np.float16, model="llama-3.1-8b")
check_rope(rope, model="llama-3.1-8b", dtype="bfloat16", reversed="0.25")
check_rope(rope, model="llama-3.1-8b", dtype=np.float32)
check_rope(rope, model="llama-3.1-8b", dtype=np.dtype("float16"))
check_rope(rope, model="llama-3.1-8b", dtype=torch.bfloat16)
ropecheck.testing.profile(rope, model="llama-3.1-8b", dtype=torch.float16, vllm_dynamic=True)
rt.check_rope(lambda t, p: t, model="llama-3.1-8b", dtype=np.float32, config="llama3")
t: torch.Tensor = rt.apply(torch.ones(2, 1, 4), [0, 1], dim=4, layout="interleaved", theta=500000)
u = ropecheck.usage(x, x, [0, 1], model="llama-3.1-8b")
kind: str = u.layers[0].heads[0].kind
mass: float = u.layers[0].heads[0].scores.first_token.mass
norms: tuple[float, ...] = u.heads()[0].q_norm
context: Optional[int] = u.capture.tokens if u.capture.kv_heads else None
auc: Optional[float] = u.positional_ranking.auc
layer_aucs: list[float] = [r.auc for r in u.within_layers.layers]
flagged: Optional[int] = u.null.flagged if u.null is not None else None
quantiles: tuple[ropecheck.BreakQuantile, ...] = u.break_distribution.quantiles if u.break_distribution else ()
ulps: float = a.errors.max_ulps + a.decades[0].max_ulps
bits: tuple[int, ...] = a.worst.input_bits if a.worst is not None else ()
row: ropecheck.SpectrumRow = s.rows[0]
g: float = row.g_float64
horizon: Optional[int] = row.quarter_turn_horizon
geometry: str = ropecheck.models()[0].layer_types[0].geometry
zoo: list[ropecheck.ZooModel] = list(ropecheck.models())
configuration: str = v[0].parameters.configuration
attempts: tuple[int, ...] = v[0].details.precision_attempts
decisions: list[str] = [c.decision for c in v[0].details.conjuncts]
evidence: ropecheck.CertificateDetails = v[0].details
n = v[0].parameters["N"]
cxx: int = v.arithmetic.cxx_standard
c = ropecheck.capture.load("capture.npz")
ids: Optional[npt.NDArray[np.int64]] = c.token_ids
source: Optional[str] = c.source
ropecheck.capture.save("copy.npz", **c)


def in_place(x: npt.NDArray[np.float16], positions: npt.NDArray[np.int64]) -> None:
    x[...] = ropecheck.apply(x, positions, model="llama-3.1-8b")


def torch_rope(x: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
    return rt.apply(x, positions, model="llama-3.1-8b")


check_rope(in_place, model="llama-3.1-8b", dtype=np.float16)
check_rope(lambda x, p: ropecheck.bfloat16(x), model="llama-3.1-8b", dtype="bfloat16")
rt.check_rope(torch_rope, model="llama-3.1-8b")
rt.check_rope(rt.gradient_map(torch_rope), model="llama-3.1-8b", backward=True)
rt.profile(lambda t, p: None, model="llama-3.1-8b")

# check_rope's bounds, modes and its result, read by a program.
result = check_rope(rope, model="llama-3.1-8b", dtype="bfloat16", bound="strict", mode="calls", permutation=list(range(128)),
                    raise_on_failure=False, beyond_context=True, max_position=1 << 40)
check_rope(rope, model="llama-3.1-8b", dtype="bfloat16", tables="dtype")
passed: bool = result.passed
finite: Optional[ropecheck.testing.Failure] = result.failures.get("finite")
failure_kind: Optional[str] = finite.kind if finite is not None else None
worst_ulps: float = result.classes["finite"].max_ulps
as_json: dict[str, Any] = result.to_dict()
try:
    rt.check_rope(torch_rope, model="llama-3.1-8b", tables="dtype")
except ropecheck.RopeCheckError as error:
    carried: ropecheck.testing.CheckResult = error.result
