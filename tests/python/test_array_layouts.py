"""Every array-taking function on every array NumPy can hand over, on whichever NumPy runs the suite
(ctest runs it on Debian's 1.24 and on the pinned NumPy 2 of scripts/python-env): each dtype, byte
order, stride pattern, 0-d and empty array either gives the result of the same values as a native
C-contiguous array, bit for bit, or raises InputError naming the parameter. Never a crash, never
"ropecheck internal error" (the module reads arrays through the buffer protocol, whose layout is the
same in both NumPy versions; pybind11 2.10's NumPy structs are not)."""

import json

import numpy as np
import pytest

import ropecheck
from ropecheck import capture

X = np.random.default_rng(3).uniform(-4, 4, (5, 2, 16)).astype(np.float32)  # seed 3
P = np.arange(5, dtype=np.int64) * 1000
SPECTRUM = dict(dim=16, layout="half")


def variants(a):
    """(name, array) with a's values in other layouts and byte orders, and the same values."""
    big = a.astype(a.dtype.newbyteorder(">"))
    padded = np.zeros(a.shape[:-1] + (2 * a.shape[-1],), a.dtype)
    padded[..., ::2] = a
    flipped = np.ascontiguousarray(a[::-1])[::-1]
    fortran = np.asfortranarray(a)
    raw = np.zeros(a.nbytes + 1, np.uint8)  # misaligned by one byte
    misaligned = np.frombuffer(raw.data, dtype=a.dtype, count=a.size, offset=1).reshape(a.shape)
    misaligned.flags.writeable = True
    misaligned[...] = a
    readonly = a.copy()
    readonly.flags.writeable = False
    return [("big-endian", big), ("strided last axis", padded[..., ::2]), ("negative strides", flipped),
            ("Fortran order", fortran), ("misaligned", misaligned), ("read-only", readonly)]


BAD_DTYPES = [np.float64, np.int32, np.bool_, np.complex64, "U3", "M8[s]", object, [("a", "<f4"), ("b", "<f4")]]


def bad(dtype, shape):
    try:
        return np.zeros(shape, dtype=dtype)
    except TypeError:  # pragma: no cover
        pytest.skip(f"{dtype} not constructible here")


@pytest.mark.parametrize("name,x", variants(X), ids=[n for n, _ in variants(X)])
def test_apply_and_audit_read_any_layout_as_its_values(name, x):
    want = ropecheck.apply(X, P, **SPECTRUM)
    got = ropecheck.apply(x, P, **SPECTRUM)
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))
    assert ropecheck.audit(x, P, np.ascontiguousarray(want), **SPECTRUM).share_correctly_rounded == 1.0
    for positions in (P.astype(">i8"), P.astype(np.int32)[::-1][::-1], P.astype(np.uint16), P.astype(np.float64)):
        np.testing.assert_array_equal(ropecheck.apply(x, positions, **SPECTRUM).view(np.uint32), want.view(np.uint32))


@pytest.mark.parametrize("name,x", variants(X), ids=[n for n, _ in variants(X)])
def test_apply_in_place_on_any_writable_layout(name, x):
    want = ropecheck.apply(X, P, **SPECTRUM)
    if not x.flags.writeable:
        with pytest.raises(ropecheck.InputError) as e:
            ropecheck.apply_(x, P, **SPECTRUM)
        assert e.value.parameter == "x"
        return
    y = x.copy() if name == "big-endian" else x
    ropecheck.apply_(y, P, **SPECTRUM)
    np.testing.assert_array_equal(np.asarray(y, dtype=np.float32).view(np.uint32), want.view(np.uint32))


@pytest.mark.parametrize("dtype", BAD_DTYPES, ids=str)
def test_other_dtypes_are_named(dtype):
    for call, parameter in ((lambda a: ropecheck.apply(a, P, **SPECTRUM), "x"),
                            (lambda a: ropecheck.audit(X, P, a, **SPECTRUM), "y"),
                            (lambda a: ropecheck.apply(X, a[:, 0, 0], **SPECTRUM), "positions"),
                            (lambda a: ropecheck.bfloat16(a), "bits")):
        if parameter == "positions" and np.dtype(dtype).kind in "iuf":
            continue  # integers (and floats holding them) are positions
        with pytest.raises(ropecheck.InputError) as e:
            call(bad(dtype, X.shape))
        assert e.value.parameter == parameter, str(e.value)


def test_zero_d_and_empty_arrays_are_named_or_empty():
    for x in (np.float32(1.0), np.zeros((), np.float32)):
        with pytest.raises(ropecheck.InputError) as e:
            ropecheck.apply(x, P[:1], **SPECTRUM)
        assert e.value.parameter == "x"
    empty = np.zeros((0, 2, 16), np.float32)
    assert ropecheck.apply(empty, P[:0], **SPECTRUM).shape == (0, 2, 16)
    with pytest.raises(ropecheck.InputError) as e:
        ropecheck.apply(X, np.zeros((), np.int64), **SPECTRUM)
    assert e.value.parameter == "positions"


@pytest.fixture(scope="module")
def config(tmp_path_factory):
    path = tmp_path_factory.mktemp("layouts") / "config.json"
    path.write_text(json.dumps({"model_type": "llama", "hidden_size": 32, "head_dim": 16, "num_attention_heads": 2,
                                "num_key_value_heads": 1, "num_hidden_layers": 2, "max_position_embeddings": 4096,
                                "rope_theta": 10000.0}))
    return str(path)


def test_captures_in_any_layout_give_the_same_attention_and_usage(config, tmp_path):
    rng = np.random.default_rng(11)  # seed 11
    q = rng.standard_normal((2, 2, 2, 24, 16)).astype(np.float32)
    k = rng.standard_normal((2, 2, 1, 24, 16)).astype(np.float32)
    pos = np.tile(np.arange(24), (2, 1))
    want = ropecheck.attention_layer(q, k, pos, model=config, layer=1, sequence=1)
    assert want.dtype == np.float64 and want.flags.c_contiguous and want.flags.writeable
    u = ropecheck.usage(q, k, pos, model=config, certify_breaks=False, null_sequences=0).to_dict()
    for (_, qv), (_, kv), pv in zip(variants(q), variants(k), [pos.astype(">i8"), pos[:, ::-1][:, ::-1], pos.astype(np.int32)] * 2):
        np.testing.assert_array_equal(ropecheck.attention_layer(qv, kv, pv, model=config, layer=1, sequence=1), want)
        assert ropecheck.usage(qv, kv, pv, model=config, certify_breaks=False, null_sequences=0).to_dict() == u
    capture.save(tmp_path / "c.npz", q[:, :, :, ::-1][:, :, :, ::-1], k.astype(">f4"), pos.astype(">i8"), source="layouts")
    c = capture.load(tmp_path / "c.npz")
    np.testing.assert_array_equal(c.q, q)
    np.testing.assert_array_equal(c.k, k)
    for dtype in BAD_DTYPES:
        with pytest.raises(ropecheck.InputError) as e:
            ropecheck.attention(bad(dtype, q.shape), k, pos, model=config, layer=0, head=0)
        assert e.value.parameter == "q"


def test_dlpack_views_of_numpy_arrays_read_as_numpy_does():
    class Tensor:  # a bare DLPack producer around a NumPy array
        def __init__(self, a):
            self.a = a

        def __dlpack__(self, stream=None):
            return self.a.__dlpack__()

        def __dlpack_device__(self):
            return (1, 0)

    for x in (X, X[:, :, ::2], X[::-1]):
        np.testing.assert_array_equal(ropecheck.apply(Tensor(x), P, dim=x.shape[-1], layout="half").view(np.uint32),
                                      ropecheck.apply(np.ascontiguousarray(x), P, dim=x.shape[-1], layout="half").view(np.uint32))
    bits = (X.view(np.uint32) >> 16).astype(np.uint16)
    t = ropecheck.bfloat16(bits)
    np.testing.assert_array_equal(ropecheck.apply(t, P, **SPECTRUM), ropecheck.apply(bits, P, **SPECTRUM))
