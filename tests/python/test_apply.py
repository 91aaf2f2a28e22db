"""ropecheck.apply / apply_: bit-identical to `ropecheck apply`, in place without copies, strided,
batched, bfloat16 and DLPack inputs. Inputs: conftest.uniform with the seed each test names."""

import threading

import numpy as np
import pytest

import ropecheck
from conftest import run_cli, uniform

POSITIONS = np.array([0, 1, 7, 4095, 4096, 8191, 16777215, 16777216, 16777217, 2 ** 31, 2 ** 40 + 3, 2 ** 62 - 3, -5], dtype=np.int64)


def cli_apply(tmp_path, x, positions, *flags):
    dtype = {np.dtype(np.float32): "f32", np.dtype(np.float16): "f16"}.get(x.dtype, "bf16")
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "p.npy", positions)
    run_cli("apply", "--dtype", dtype, "--positions", tmp_path / "p.npy", "--input", tmp_path / "x.npy",
            "--output", tmp_path / "y.npy", *flags)
    return np.load(tmp_path / "y.npy")


def same_bits(a, b):
    return a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()


@pytest.mark.parametrize("model", ["llama-3.1-8b", "gpt-oss-20b", "deepseek-v3", "gpt-neox-20b", "glm-4-9b", "phi-3.5-mini"])
@pytest.mark.parametrize("dtype", [np.float32, np.uint16, np.float16])
def test_bit_identical_to_the_cli(tmp_path, model, dtype):
    d = ropecheck.plan(model=model).head_dim
    x = uniform((2, len(POSITIONS), 3, d), seed=11, dtype=dtype)
    y = ropecheck.apply(x, POSITIONS, model=model)
    assert same_bits(y, cli_apply(tmp_path, x, POSITIONS, "--model", model))


def test_bare_spectrum_and_baseline_match_the_cli(tmp_path):
    x = uniform((len(POSITIONS), 2, 64), seed=12)
    y = ropecheck.apply(x, POSITIONS, dim=64, theta=10000, p_rope=0.5, layout="interleaved")
    assert same_bits(y, cli_apply(tmp_path, x, POSITIONS, "--dim", 64, "--p-rope", "0.5", "--layout", "interleaved"))
    x2 = uniform((len(POSITIONS), 2, 128), seed=12)
    b = ropecheck.apply(x2, POSITIONS, model="llama-3.1-8b", impl="f32-angle")
    assert same_bits(b, cli_apply(tmp_path, x2, POSITIONS, "--model", "llama-3.1-8b", "--impl", "f32-angle"))


def test_in_place_is_zero_copy():
    x = uniform((len(POSITIONS), 4, 128), seed=13)
    expected = ropecheck.apply(x, POSITIONS, model="llama-3.1-8b")
    pointer = x.__array_interface__["data"][0]
    out = ropecheck.apply_(x, POSITIONS, model="llama-3.1-8b")
    assert out is x and x.__array_interface__["data"][0] == pointer
    assert same_bits(x, expected)


def test_strided_views_are_rotated_in_their_parent():
    # q inside a fused qkv buffer: [tokens, 3 * heads, d], q = the first `heads` heads.
    heads, d = 4, 128
    qkv = uniform((len(POSITIONS), 3 * heads, d), seed=14)
    q = qkv[:, :heads]
    assert not q.flags.c_contiguous and ropecheck._core.kernel_readable(q)
    expected = ropecheck.apply(np.ascontiguousarray(q), POSITIONS, model="llama-3.1-8b")
    rest = qkv[:, heads:].copy()
    ropecheck.apply_(q, POSITIONS, model="llama-3.1-8b")
    assert same_bits(np.ascontiguousarray(qkv[:, :heads]), expected)
    assert same_bits(qkv[:, heads:], rest)  # the rest of the buffer untouched


def test_unreadable_strides_go_through_a_copy():
    x = uniform((len(POSITIONS), 2, 256), seed=15)
    view = x[::-1, :, ::2]  # negative token stride, non-contiguous last axis
    assert not ropecheck._core.kernel_readable(view)
    expected = ropecheck.apply(np.ascontiguousarray(view), POSITIONS, model="llama-3.1-8b")
    assert same_bits(ropecheck.apply(view, POSITIONS, model="llama-3.1-8b"), expected)
    ropecheck.apply_(view, POSITIONS, model="llama-3.1-8b")
    assert same_bits(np.ascontiguousarray(view), expected)


def test_any_float32_descriptor_and_byte_order():
    # A float32 whose descriptor is another object (NumPy metadata), and big-endian arrays: the
    # same values, the same result (big-endian ones through a native copy, written back by apply_).
    x = uniform((len(POSITIONS), 2, 128), seed=23)
    expected = ropecheck.apply(x, POSITIONS, model="llama-3.1-8b")
    tagged = x.astype(np.dtype("f4", metadata={"source": "test"}))
    assert same_bits(ropecheck.apply(tagged, POSITIONS, model="llama-3.1-8b").view(np.float32), expected)
    big = x.astype(">f4")
    assert np.array_equal(ropecheck.apply(big, POSITIONS, model="llama-3.1-8b").view(np.uint32), expected.view(np.uint32))
    ropecheck.apply_(big, POSITIONS, model="llama-3.1-8b")
    assert big.dtype == np.dtype(">f4") and same_bits(big.astype(np.float32), expected)
    a = ropecheck.audit(x.astype(">f4"), POSITIONS, big, model="llama-3.1-8b")
    assert a.correctly_rounded and a.elements == x.size


def test_axes_orders_agree():
    x = uniform((2, len(POSITIONS), 3, 128), seed=16)  # bshd
    y = ropecheck.apply(x, POSITIONS, model="llama-3.1-8b", axes="bshd")
    bhsd = ropecheck.apply(np.ascontiguousarray(x.transpose(0, 2, 1, 3)), POSITIONS, model="llama-3.1-8b", axes="bhsd")
    assert same_bits(np.ascontiguousarray(bhsd.transpose(0, 2, 1, 3)), y)
    # A transposed view is read in place (Hugging Face's q.transpose(1, 2) without .contiguous()).
    view = x.transpose(0, 2, 1, 3)
    assert same_bits(np.ascontiguousarray(ropecheck.apply(view, POSITIONS, model="llama-3.1-8b", axes="bhsd").transpose(0, 2, 1, 3)), y)
    flat = ropecheck.apply(x[0].reshape(len(POSITIONS), -1), POSITIONS, model="llama-3.1-8b", axes="sd")
    assert same_bits(flat.reshape(len(POSITIONS), 3, 128), y[0])


def test_positions_per_batch_row():
    x = uniform((2, 5, 2, 128), seed=17)
    p = np.array([[0, 1, 2, 3, 4], [10 ** 6, 10 ** 9, 2 ** 33, 7, 2 ** 24 + 1]], dtype=np.int64)
    y = ropecheck.apply(x, p, model="llama-3.1-8b")
    for b in range(2):
        assert same_bits(y[b], ropecheck.apply(x[b], p[b], model="llama-3.1-8b"))


def test_position_dtypes_follow_the_cli():
    x = uniform((4, 1, 128), seed=18)
    ref = ropecheck.apply(x, np.array([0, 3, 2 ** 20, 9], dtype=np.int64), model="llama-3.1-8b")
    for p in (np.array([0, 3, 2 ** 20, 9], dtype=np.int32), np.array([0, 3, 2 ** 20, 9], dtype=np.uint32),
              np.array([0.0, 3.0, 2.0 ** 20, 9.0]), [0, 3, 2 ** 20, 9]):
        assert same_bits(ropecheck.apply(x, p, model="llama-3.1-8b"), ref)


def test_threads_give_the_same_bits():
    x = uniform((64, 4, 128), seed=19)
    p = np.arange(64, dtype=np.int64) * 1000003
    assert same_bits(ropecheck.apply(x, p, model="llama-3.1-8b", threads=3), ropecheck.apply(x, p, model="llama-3.1-8b"))


def test_bfloat16_through_dlpack_round_trip():
    bits = uniform((len(POSITIONS), 2, 128), seed=20, dtype=np.uint16)
    expected = ropecheck.apply(bits, POSITIONS, model="llama-3.1-8b")
    t = ropecheck.bfloat16(bits)  # a DLPack bfloat16 tensor viewing `bits`
    assert same_bits(ropecheck.apply(t, POSITIONS, model="llama-3.1-8b"), expected)
    # Consumed through the DLPack protocol by NumPy's own reader of ropecheck's capsule: the view
    # holds the same memory, and in-place rotation through it changes `bits`.
    view = ropecheck._core.dlpack_to_numpy(t, "x")
    assert view.dtype == np.uint16 and view.__array_interface__["data"][0] == bits.__array_interface__["data"][0]
    ropecheck.apply_(t, POSITIONS, model="llama-3.1-8b")
    assert same_bits(bits, expected)


class OnlyDLPack:
    """A tensor known to ropecheck only through __dlpack__ (NumPy's own export)."""

    def __init__(self, a):
        self.a = a

    def __dlpack__(self, stream=None):
        return self.a.__dlpack__()

    def __dlpack_device__(self):
        return self.a.__dlpack_device__()


def test_float32_dlpack_tensors_are_read_and_rotated_in_place():
    x = uniform((len(POSITIONS), 2, 128), seed=21)
    expected = ropecheck.apply(x, POSITIONS, model="llama-3.1-8b")
    assert same_bits(ropecheck.apply(OnlyDLPack(x), POSITIONS, model="llama-3.1-8b"), expected)
    ropecheck.apply_(OnlyDLPack(x), POSITIONS, model="llama-3.1-8b")
    assert same_bits(x, expected)
    back = np.from_dlpack(OnlyDLPack(expected))
    assert same_bits(back, expected)


def test_the_gil_is_released_while_the_kernel_runs():
    # Two threads rotating at once give the same bits as one after the other.
    x = uniform((512, 8, 128), seed=22)
    p = (np.arange(512, dtype=np.int64) * 2 ** 33) + 5
    ref = ropecheck.apply(x, p, model="llama-3.1-8b")
    results = [None, None]

    def work(i):
        results[i] = ropecheck.apply(x, p, model="llama-3.1-8b")

    threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(same_bits(r, ref) for r in results)
