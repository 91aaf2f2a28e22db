"""A pytest file to copy: your torch RoPE against the exact map, forward and backward.

Replace my_rope with your implementation (fn(x, positions) -> rotated x; x [tokens, heads,
head_dim] of the dtype under test, positions int64 [tokens], both on `DEVICE`) and MODEL with your
model's zoo name or config.json path. On a GPU machine set DEVICE = "cuda": fn then receives CUDA
tensors, and ropecheck copies its output back to the CPU to check it.

Run: python3 -m pytest -q test_my_rope.py   (ctest runs this file as python.example_torch_rope)

The last two tests show what a failure looks like, on the transformers-style RoPE of styles.py
(float32 angles): they expect the AssertionError, so that this file passes as it stands.
"""

import pytest
import torch

import ropecheck.torch as rt
from styles import LLAMA_CONTEXT, hf_rotate_half

MODEL = "llama-3.1-8b"
DEVICE = "cpu"
DTYPES = [torch.bfloat16, torch.float16, torch.float32]


def my_rope(x, positions):
    """The implementation under test: here ropecheck's own, correctly rounded."""
    return rt.apply(x, positions, model=MODEL)


@pytest.mark.parametrize("dtype", DTYPES)
def test_forward_is_correctly_rounded(dtype):
    rt.check_rope(my_rope, model=MODEL, dtype=dtype, device=DEVICE)


@pytest.mark.parametrize("dtype", DTYPES)
def test_backward_is_correctly_rounded(dtype):
    # gradient_map(fn) is g -> d<fn(x, p), g>/dx through torch.autograd: fn's own backward.
    rt.check_rope(rt.gradient_map(my_rope), model=MODEL, dtype=dtype, device=DEVICE, backward=True)


def test_float32_angle_rope_fails_forward_with_a_clear_report():
    with pytest.raises(AssertionError) as failure:
        rt.check_rope(hf_rotate_half, model=MODEL, dtype=torch.bfloat16, device=DEVICE, max_position=LLAMA_CONTEXT - 1)
    report = str(failure.value)
    print(report)  # pytest -s shows it
    assert "[finite] round" in report  # ordinary inputs fail, not only the format's edges


def test_float32_angle_rope_fails_backward_too():
    with pytest.raises(AssertionError) as failure:
        rt.check_rope(rt.gradient_map(hf_rotate_half), model=MODEL, dtype=torch.bfloat16, device=DEVICE, backward=True,
                      max_position=LLAMA_CONTEXT - 1)
    assert "backward" in str(failure.value) and "[finite] round" in str(failure.value)
