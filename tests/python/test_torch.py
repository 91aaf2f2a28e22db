"""ropecheck.torch: apply is bit-identical to the NumPy API on every dtype and shape, zero-copy on
the CPU, differentiable with a correctly rounded backward (twice); check_rope finds what the NumPy
version finds, by input class, forward and backward, with signed_zeros and rtol loosening exactly
what they say; profile gives one row per decade; bad calls give InputError or an AssertionError
saying what fn did. Seeds are fixed and printed in every failure message."""

import re

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import ropecheck  # noqa: E402
import ropecheck.torch as rt  # noqa: E402

MODEL = "llama-3.1-8b"
DTYPES = (torch.float32, torch.bfloat16, torch.float16)


def bits(t):
    """A CPU tensor's bit patterns as a NumPy integer array."""
    width = {torch.float32: torch.int32, torch.bfloat16: torch.int16, torch.float16: torch.int16}[t.dtype]
    return t.detach().contiguous().view(width).numpy()


def numpy_of(t):
    """What the NumPy API takes for a tensor: float32, float16, or bfloat16's uint16 bits."""
    if t.dtype == torch.bfloat16:
        return t.contiguous().view(torch.int16).numpy().view(np.uint16)
    return t.contiguous().numpy()


def normal(shape, dtype, seed):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(shape, generator=g).to(dtype)


def test_every_kernel_dtype_has_its_torch_dtype():
    """ropecheck.torch's DTYPES names every kernel dtype of the library's one list (numeric/dtype.h):
    a new format without its torch dtype fails here (CONTRIBUTING.md, "Recipe: a new number format")."""
    assert set(rt.DTYPES) == set(ropecheck._core.KERNEL_DTYPES)
    assert set(DTYPES) == set(rt.DTYPES.values())


# --- apply ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
def test_apply_is_bit_identical_to_the_numpy_api(dtype):
    x = normal((2, 5, 3, 128), dtype, seed=1)  # batch, tokens, heads, head_dim
    positions = torch.tensor([0, 7, 4096, 131071, 2 ** 40])
    y = rt.apply(x, positions, model=MODEL)
    assert y.dtype == dtype and y.shape == x.shape
    want = ropecheck.apply(numpy_of(x), positions.numpy(), model=MODEL)
    np.testing.assert_array_equal(bits(y), want.view(bits(y).dtype))
    # Hugging Face's [batch, heads, tokens, head_dim] with per-row positions, and a strided view.
    xt = x.transpose(1, 2)
    per_row = torch.tensor([[3, 1, 4, 1, 5], [9, 2, 6, 5, 3]])
    y2 = rt.apply(xt, per_row, model=MODEL, axes="bhsd")
    want2 = ropecheck.apply(numpy_of(xt.contiguous()), per_row.numpy(), model=MODEL, axes="bhsd")
    np.testing.assert_array_equal(bits(y2), want2.view(bits(y2).dtype))


@pytest.mark.parametrize("dtype", DTYPES)
def test_apply_in_place_is_zero_copy_and_bumps_the_version(dtype):
    x = normal((4, 2, 128), dtype, seed=2)
    want = rt.apply(x, [1, 2, 3, 2 ** 30], model=MODEL)
    pointer, version = x.data_ptr(), x._version
    assert rt.apply_(x, [1, 2, 3, 2 ** 30], model=MODEL) is x
    assert x.data_ptr() == pointer and x._version > version
    np.testing.assert_array_equal(bits(x), bits(want))
    out = torch.empty_like(x)
    assert rt.apply(want, [1, 2, 3, 4], model=MODEL, out=out) is out
    np.testing.assert_array_equal(bits(out), bits(rt.apply(want, [1, 2, 3, 4], model=MODEL)))


@pytest.mark.parametrize("dtype", DTYPES)
def test_backward_is_the_map_at_minus_p_and_twice_differentiable(dtype):
    x = normal((3, 2, 128), dtype, seed=3).requires_grad_()
    positions = torch.tensor([5, 70000, -(2 ** 62)])
    y = rt.apply(x, positions, model=MODEL)
    assert y.grad_fn is not None
    v = normal((3, 2, 128), dtype, seed=4).requires_grad_()
    (g,) = torch.autograd.grad(y, x, v, create_graph=True)
    np.testing.assert_array_equal(bits(g), bits(rt.apply(v.detach(), -positions, model=MODEL)))
    # The gradient of the gradient map with respect to v is the forward map again.
    u = normal((3, 2, 128), dtype, seed=5)
    (gg,) = torch.autograd.grad(g, v, u)
    np.testing.assert_array_equal(bits(gg), bits(rt.apply(u, positions, model=MODEL)))
    # Through autograd the backward passes check_rope's gradient check.
    r = rt.check_rope(rt.gradient_map(lambda t, p: rt.apply(t, p, model=MODEL)), model=MODEL, dtype=dtype, backward=True,
                      budget=4, min_position=-(2 ** 40), bound="strict", beyond_context=True)
    assert r.direction == "backward" and r.max_ulps <= 0.5


def test_views_in_place_autograd_and_the_version_counter():
    # Expanded (stride 0) and strided views are read as they are: the same bits as a dense copy.
    x = normal((1, 1, 128), torch.float32, seed=6).expand(4, 2, 128)
    np.testing.assert_array_equal(bits(rt.apply(x, [0, 1, 2, 3], model=MODEL)), bits(rt.apply(x.contiguous(), [0, 1, 2, 3], model=MODEL)))
    xb = normal((4, 2, 256), torch.bfloat16, seed=7)[..., ::2]
    np.testing.assert_array_equal(bits(rt.apply(xb, [0, 1, 2, 3], model=MODEL)), bits(rt.apply(xb.contiguous(), [0, 1, 2, 3], model=MODEL)))
    # apply_ on a non-leaf that requires grad: the gradient flows through it.
    w = normal((4, 2, 128), torch.float32, seed=8).requires_grad_()
    rt.apply_(w * 2, [5, 6, 7, 8], model=MODEL).sum().backward()
    assert torch.equal(w.grad, rt.apply(torch.ones(4, 2, 128), [-5, -6, -7, -8], model=MODEL) * 2)
    # A tensor saved for a backward and then rotated in place: autograd notices (the version counter).
    a, b = normal((3, 1, 128), torch.float32, seed=9).requires_grad_(), normal((3, 1, 128), torch.float32, seed=10)
    c = a * b
    rt.apply_(b, [1, 2, 3], model=MODEL)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        c.sum().backward()


def test_apply_bad_arguments_name_the_parameter():
    x = torch.zeros(2, 1, 128)
    cases = [
        (lambda: rt.apply(np.zeros((2, 1, 128), np.float32), [0, 1], model=MODEL), "x"),
        (lambda: rt.apply(torch.zeros(2, 1, 128, dtype=torch.float64), [0, 1], model=MODEL), "x"),
        (lambda: rt.apply(x, torch.tensor([0.0, 1.0]), model=MODEL), "positions"),
        (lambda: rt.apply(x, [0, 1], model=MODEL, out=torch.zeros(2, 1, 64)), "out"),
        (lambda: rt.apply(x.clone().requires_grad_(), [0, 1], model=MODEL, out=torch.zeros(2, 1, 128)), "out"),
        (lambda: rt.apply(x.clone().requires_grad_(), [0, -(2 ** 63)], model=MODEL), "positions"),
        (lambda: rt.apply_(x.clone().requires_grad_(), [0, 1], model=MODEL), "x"),
        (lambda: rt.apply(x, [0, 1], model="no-such-model"), "model"),
        # Not the CPU: the copy path, on the one other device CPU-only torch has (values-free meta).
        (lambda: rt.apply(torch.empty(2, 1, 128, device="meta"), [0, 1], model=MODEL), "x"),
        (lambda: rt.apply_(torch.empty(2, 1, 128, device="meta"), [0, 1], model=MODEL), "x"),
    ]
    for call, parameter in cases:
        with pytest.raises(ropecheck.InputError) as e:
            call()
        assert e.value.parameter == parameter, str(e.value)


# --- check_rope ----------------------------------------------------------------------------------

def kernel(t, p):
    return rt.apply(t, p, model=MODEL)


@pytest.mark.parametrize("dtype", DTYPES)
def test_check_rope_passes_on_ropecheck_own_rope(dtype):
    seen = []

    def rope(t, p):
        seen.append((t.dtype, t.device, p.dtype, p.device))
        return kernel(t, p)

    r = rt.check_rope(rope, model=MODEL, dtype=dtype, budget=4)
    assert r.max_ulps <= 0.5 and r.classes["finite"].checked > 0 and r.classes["nonfinite"].checked > 0
    assert set(seen) == {(dtype, torch.device("cpu"), torch.int64, torch.device("cpu"))}
    # The other axis orders, and a fn that moves its tensors and returns a strided view.
    rt.check_rope(lambda t, p: rt.apply(t.to("cpu"), p.to("cpu"), model=MODEL, axes="bhsd").transpose(1, 2).contiguous().transpose(1, 2),
                  model=MODEL, dtype=dtype, axes="bhsd", budget=2)


def float32_formula(t, p):
    """x_a cos - x_b sin in float32 with float32 angles: a float32-angle RoPE (half layout)."""
    from styles import llama3_inv_freq
    a = p.float()[:, None] * llama3_inv_freq()[None, :]
    c, s = a.cos()[:, None, :], a.sin()[:, None, :]
    x1, x2 = t.float().chunk(2, dim=-1)
    return torch.cat((x1 * c - x2 * s, x1 * s + x2 * c), dim=-1).to(t.dtype)


def test_check_rope_reports_every_failing_class_ordinary_inputs_first(monkeypatch):
    monkeypatch.syspath_prepend(str(__import__("pathlib").Path(__file__).parents[2] / "examples" / "torch_rope"))
    # A float32 formula is what the default bound accepts, at every class (the overflow included).
    r = rt.check_rope(float32_formula, model=MODEL, dtype=torch.float32, budget=4)
    assert r.passed and r.classes["overflow"].checked > 0 and r.bound == "standard"
    with pytest.raises(AssertionError) as e:
        rt.check_rope(float32_formula, model=MODEL, dtype=torch.float32, budget=4, bound="strict", max_position=2 ** 40,
                      beyond_context=True)
    message = str(e.value)
    print(message)
    sections = re.findall(r"^  \[(\w+)\] round", message, flags=re.M)
    assert sections[0] == "finite", message
    assert "overflow" in sections, "the float32 sum overflows at the top of the range"
    assert "forward" in message and "replay: ropecheck.torch.check_rope(" in message and "dtype=torch.float32" in message
    finite = message.split("[finite]")[1]
    assert re.search(r"error [\d.e+]+ ulp", finite)
    # max_position within Llama's context still fails on ordinary inputs, as the float32 angle drifts.
    with pytest.raises(AssertionError) as e:
        rt.check_rope(float32_formula, model=MODEL, dtype=torch.float32, budget=4, max_position=131071, bound="strict")
    assert "[finite]" in str(e.value)


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_transformers_tables_in_the_dtype_pass_with_tables_dtype_only(monkeypatch, dtype):
    # transformers' apply_rotary_pos_emb (styles.hf_rotate_half): float32 angles, cos and sin cast to
    # the activation dtype, products and sum in it. Outside the standard (float32-table) bound by
    # rounding flips at small positions, inside the reach of the same formulation with dtype tables;
    # a bfloat16 angle stays outside even that.
    monkeypatch.syspath_prepend(str(__import__("pathlib").Path(__file__).parents[2] / "examples" / "torch_rope"))
    from styles import hf_rotate_half
    r = rt.check_rope(hf_rotate_half, model=MODEL, dtype=dtype, raise_on_failure=False)
    assert not r.passed and r.failures["finite"].kind == "everywhere" and r.classes["finite"].max_ulps < 16
    assert rt.check_rope(hf_rotate_half, model=MODEL, dtype=dtype, tables="dtype").bound == "standard, dtype tables"

    def bfloat16_angle(x, positions):
        from styles import llama3_inv_freq
        angle = (positions.float()[:, None] * llama3_inv_freq()[None, :]).to(torch.bfloat16).float()
        emb = torch.cat((angle, angle), dim=-1)
        c, s = emb.cos().to(x.dtype)[:, None, :], emb.sin().to(x.dtype)[:, None, :]
        h = x.shape[-1] // 2
        return x * c + torch.cat((-x[..., h:], x[..., :h]), dim=-1) * s

    r = rt.check_rope(bfloat16_angle, model=MODEL, dtype=dtype, tables="dtype", raise_on_failure=False)
    assert not r.passed and r.classes["finite"].max_ulps > 100
    with pytest.raises(ropecheck.InputError) as e:
        rt.check_rope(hf_rotate_half, model=MODEL, dtype=dtype, tables="bf16")
    assert e.value.parameter == "tables"


def test_check_rope_backward_holds_fn_to_the_gradient():
    with pytest.raises(AssertionError) as e:  # the forward map is not its own gradient
        rt.check_rope(kernel, model=MODEL, dtype=torch.float32, backward=True, budget=2)
    message = str(e.value)
    assert "backward" in message and ("dx_a = a(g_a cos + g_b sin)" in message or "dx_b = a(g_b cos - g_a sin)" in message)
    # The failure names fn's own position, not the reference's -p.
    position = int(re.search(r"position (-?\d+), head", message).group(1))
    assert position >= 0
    with pytest.raises(ropecheck.InputError) as e:
        rt.check_rope(kernel, model=MODEL, backward=True, min_position=-(2 ** 63), beyond_context=True)
    assert e.value.parameter == "min_position"


def test_signed_zeros_and_rtol_loosen_exactly_what_they_say():
    def loses_sign(t, p):
        return kernel(t, p) + 0.0  # -0 + 0 = +0

    with pytest.raises(AssertionError) as e:
        rt.check_rope(loses_sign, model=MODEL, dtype=torch.bfloat16, budget=4)
    assert "[zeros]" in str(e.value) and "[finite]" not in str(e.value)
    rt.check_rope(loses_sign, model=MODEL, dtype=torch.bfloat16, budget=4, signed_zeros=False)

    def two_ulps_off(t, p):
        y = kernel(t, p)
        b = y.view(torch.int32)
        ok = torch.isfinite(y) & (y.abs() >= 2.0 ** -100) & (y.abs() <= 2.0 ** 100)
        return torch.where(ok, (b + 2).view(torch.float32), y)

    # Two ulps of |y| <= ||(x_a, x_b)|| (attention factor 1) is at most 2.5 x 2^-23 of the pair's
    # norm: within rtol 2^-21, beyond rtol 2^-30 (|y| >= 2^-100 keeps the norm >= 2^-126; |y| <=
    # 2^100 keeps the nudge from overflowing to infinity or NaN).
    with pytest.raises(AssertionError):
        rt.check_rope(two_ulps_off, model=MODEL, dtype=torch.float32, budget=2)
    rt.check_rope(two_ulps_off, model=MODEL, dtype=torch.float32, budget=2, rtol=2.0 ** -21)
    with pytest.raises(AssertionError) as e:
        rt.check_rope(two_ulps_off, model=MODEL, dtype=torch.float32, budget=2, rtol=2.0 ** -30)
    assert "or rtol" in str(e.value)


def test_bad_fn_results_are_assertion_errors_saying_what_fn_did():
    def failure(fn, **kw):
        with pytest.raises(AssertionError) as e:
            rt.check_rope(fn, model=MODEL, budget=1, **kw)
        return str(e.value)

    assert "returned ndarray, not a torch.Tensor" in failure(lambda t, p: t.float().numpy())
    assert "torch.float32 for an input of shape" in failure(lambda t, p: t.float())
    assert "shape (32, 2, 64)" in failure(lambda t, p: t[..., :64])

    def raises(t, p):
        raise ValueError("head_dim 128 unsupported")

    m = failure(raises)
    assert "fn raised ValueError: head_dim 128 unsupported" in m and "torch.bfloat16 on cpu" in m
    assert "on meta that could not be copied to the CPU" in failure(lambda t, p: torch.empty_like(t, device="meta"))


def test_check_rope_bad_arguments_name_the_parameter():
    cases = [
        (dict(dtype=torch.int32), "dtype"),
        (dict(dtype="float64"), "dtype"),
        (dict(device="no-such-device"), "device"),
        (dict(device="cuda:0" if not torch.cuda.is_available() else "cuda:999"), "device"),
        (dict(rtol=-1.0), "rtol"),
        (dict(rtol=2.0), "rtol"),
        (dict(signed_zeros="no"), "signed_zeros"),
        (dict(backward=1), "backward"),
        (dict(max_ulp=0.25), "max_ulp"),
        (dict(axes="auto"), "axes"),
    ]
    for kw, parameter in cases:
        with pytest.raises(ropecheck.InputError) as e:
            rt.check_rope(kernel, model=MODEL, budget=1, **kw)
        assert e.value.parameter == parameter, (kw, str(e.value))
    with pytest.raises(ropecheck.InputError) as e:
        rt.check_rope("not callable", model=MODEL)
    assert e.value.parameter == "fn"


# --- profile -------------------------------------------------------------------------------------

def test_profile_rows_per_decade(monkeypatch):
    p = rt.profile(kernel, model=MODEL, dtype=torch.bfloat16, tokens=8, heads=2, max_position=99999)
    assert [r.positions for r in p.rows] == ["[0, 10)", "[10, 100)", "[100, 1e3)", "[1e3, 1e4)", "[1e4, 1e5)"]
    assert all(r.elements == 8 * 2 * 128 and r.correctly_rounded == 1.0 and r.max_ulp <= 0.5 for r in p.rows)
    d = p.to_dict()
    assert d["direction"] == "forward" and d["dtype"] == "bfloat16" and len(d["rows"]) == 5
    assert set(d["rows"][0]) == {"positions", "elements", "max_ulp", "max_rel", "correctly_rounded"}
    assert "max_rel" in repr(p) and "[1e4, 1e5)" in repr(p)
    back = rt.profile(rt.gradient_map(kernel), model=MODEL, dtype=torch.float16, backward=True, tokens=4, heads=1, max_position=999)
    assert back.direction == "backward" and all(r.correctly_rounded == 1.0 for r in back.rows)
    # A float32-angle RoPE: its error grows with the position (the angle's error is |p| 2^-24).
    monkeypatch.syspath_prepend(str(__import__("pathlib").Path(__file__).parents[2] / "examples" / "torch_rope"))
    f = rt.profile(float32_formula, model=MODEL, dtype=torch.float32, tokens=16, heads=2, max_position=10 ** 7 - 1)
    assert f.rows[0].max_rel < f.rows[-1].max_rel / 100, repr(f)
    assert f.rows[-1].correctly_rounded < 0.5, repr(f)
    # The same seed gives the same figures.
    assert rt.profile(float32_formula, model=MODEL, dtype=torch.float32, tokens=16, heads=2).to_dict() == f.to_dict()
