"""A pytest file to copy: your torch RoPE against the exact map, forward and backward.

Replace my_rope with your implementation (fn(x, positions) -> rotated x; x [tokens, heads,
head_dim] of the dtype under test, positions int64 [tokens], both on `DEVICE`) and MODEL with your
model's zoo name or config.json path. On a GPU machine set DEVICE = "cuda": fn then receives CUDA
tensors, and ropecheck copies its output back to the CPU to check it.

Run: python3 -m pytest -q test_my_rope.py   (ctest runs this file as python.example_torch_rope)

The defaults hold fn to what the standard float32 formulation of RoPE can produce (float32
frequencies, angles, cos, sin and arithmetic, one rounding to the dtype), at positions up to the
model's context: a correct production RoPE passes, a wrong one fails. bound="strict" demands
correct rounding (what ropecheck's own kernel meets). The last tests show the transformers-style
RoPE of styles.py, whose cos and sin are cast to the activation dtype: outside the standard bound
(a clear report, expected here so that this file passes as it stands), inside the same
formulation with its tables declared, tables="dtype".
"""

import pytest
import torch

import ropecheck.torch as rt
from styles import hf_rotate_half

MODEL = "llama-3.1-8b"
DEVICE = "cpu"
DTYPES = [torch.bfloat16, torch.float16, torch.float32]


def my_rope(x, positions):
    """The implementation under test: here ropecheck's own, correctly rounded."""
    return rt.apply(x, positions, model=MODEL)


@pytest.mark.parametrize("dtype", DTYPES)
def test_forward(dtype):
    rt.check_rope(my_rope, model=MODEL, dtype=dtype, device=DEVICE)


@pytest.mark.parametrize("dtype", DTYPES)
def test_backward(dtype):
    # gradient_map(fn) is g -> d<fn(x, p), g>/dx through torch.autograd: fn's own backward.
    rt.check_rope(rt.gradient_map(my_rope), model=MODEL, dtype=dtype, device=DEVICE, backward=True)


@pytest.mark.parametrize("dtype", DTYPES)
def test_forward_is_correctly_rounded(dtype):
    # ropecheck's own kernel meets the strict bound too; most correct RoPEs do not, and need not.
    rt.check_rope(my_rope, model=MODEL, dtype=dtype, device=DEVICE, bound="strict")


def test_dtype_tables_fail_the_standard_bound_with_a_clear_report():
    with pytest.raises(AssertionError) as failure:
        rt.check_rope(hf_rotate_half, model=MODEL, dtype=torch.bfloat16, device=DEVICE)
    report = str(failure.value)
    print(report)  # pytest -s shows it
    assert "[finite] round" in report  # ordinary inputs fail, not only the format's edges
    assert "kind: everywhere" in report  # already at small positions: the tables' precision, not the angle


def test_dtype_tables_pass_when_declared():
    rt.check_rope(hf_rotate_half, model=MODEL, dtype=torch.bfloat16, device=DEVICE, tables="dtype")
    # Its backward too, but for autograd's zeros: its gradient accumulation starts from +0 and so
    # gives +0 where the formula gives -0; signed_zeros=False accepts exactly that.
    rt.check_rope(rt.gradient_map(hf_rotate_half), model=MODEL, dtype=torch.bfloat16, device=DEVICE, backward=True,
                  tables="dtype", signed_zeros=False)
