"""ropecheck._call_patterns: the seeded call sequence of check_rope's stateful mode is a pure function
of its arguments, holds every kind of call a server makes, keeps its positions, lengths and checked
tokens within the arguments, and names a bad argument."""

import hashlib
import math

import numpy as np
import pytest

from ropecheck import InputError
from ropecheck._call_patterns import KINDS, Call, call_sequence, describe
from conftest import assert_typed

DEFAULT = dict(seed=7, calls=40, min_position=0, max_position=4095, max_tokens=4096, checked_tokens=16)


def digest(sequence):
    """The sequence's bytes: every field of every call."""
    h = hashlib.sha256()
    for c in sequence:
        h.update(repr((c.index, c.kind, c.sequence_length, c.follows)).encode())
        h.update(c.positions.astype("<i8").tobytes())
        h.update(b"|")
        h.update(c.checked.astype("<i8").tobytes())
    return h.hexdigest()


def test_same_arguments_same_calls():
    assert digest(call_sequence(**DEFAULT)) == digest(call_sequence(**DEFAULT))
    assert digest(call_sequence(**DEFAULT)) != digest(call_sequence(**(DEFAULT | {"seed": 8})))


def test_the_sequence_is_the_same_on_every_machine():
    # SplitMix64 and integer arithmetic only: this digest is that of every platform and NumPy version.
    s = call_sequence(**(DEFAULT | {"calls": 12}))
    assert [(c.kind, int(c.positions[0]), len(c.positions)) for c in s[:5]] == FIRST_FIVE
    assert digest(s) == "bfa754d4bc67ad71c0cb025d96e44d0c7ab5a94b5cd604c1eea6375d5c0f3d33"


FIRST_FIVE = [("prefill", 0, 4), ("decode", 4, 1), ("long", 0, 4096), ("short-after-long", 0, 23), ("offset-prefill", 1343, 5)]


def test_a_prefix_of_calls_is_the_shorter_sequence():
    long = call_sequence(**DEFAULT)
    for n in (1, 5, 13):
        assert digest(call_sequence(**(DEFAULT | {"calls": n}))) == digest(long[:n])


@pytest.mark.parametrize("seed", range(20))
def test_calls_keep_within_the_arguments(seed):
    args = dict(seed=seed, calls=60, min_position=100, max_position=2099, max_tokens=700, checked_tokens=9)
    s = call_sequence(**args)
    assert len(s) == 60
    for i, c in enumerate(s):
        assert_typed(c)
        assert c.index == i and c.kind in KINDS
        p = c.positions
        assert p.dtype == np.int64 and p.ndim == 1 and 1 <= len(p) <= 700
        assert np.array_equal(p, np.arange(p[0], p[0] + len(p)))  # contiguous
        assert 100 <= p.min() and p.max() <= 2099
        assert c.sequence_length == int(p.max()) + 1
        k = c.checked
        assert k.dtype == np.int64 and 1 <= len(k) <= 9
        assert np.all(np.diff(k) > 0) and k[0] == 0 and k[-1] == len(p) - 1
        if len(p) <= 9:
            assert np.array_equal(k, np.arange(len(p)))
        assert not p.flags.writeable and not k.flags.writeable
        if c.kind in ("prefill", "short-after-long"):
            assert p[0] == 100
        if c.kind == "offset-prefill":
            assert p[0] > 100
        if c.kind == "long":
            assert p[-1] == 2099 and len(p) == 700
        if c.kind == "decode":
            assert len(p) == 1 and s[i - 1].positions[-1] + 1 == p[0] and s[i - 1].kind in ("prefill", "offset-prefill", "decode")
        if c.kind == "short-after-long":
            assert s[i - 1].kind == "long" and len(p) <= math.isqrt(700)


@pytest.mark.parametrize("seed", range(50))
def test_the_first_five_calls_hold_every_kind(seed):
    s = call_sequence(**(DEFAULT | {"seed": seed, "calls": 5}))
    assert {c.kind for c in s} == set(KINDS)


@pytest.mark.parametrize("seed", range(20))
def test_a_table_sized_by_the_first_call_is_exceeded_later(seed):
    # A cache built on the first call and never regrown (a stale table) must meet a later call
    # beyond it: the first call is a short prefill, the long call reaches max_position.
    s = call_sequence(**(DEFAULT | {"seed": seed, "calls": 5}))
    assert s[0].kind == "prefill" and len(s[0].positions) <= math.isqrt(4096)
    assert max(int(c.positions.max()) for c in s[1:]) > int(s[0].positions.max())


def test_checked_tokens_are_sampled_by_the_seed():
    a = call_sequence(**(DEFAULT | {"calls": 60}))
    b = call_sequence(**(DEFAULT | {"calls": 60, "seed": 99}))
    big = [c.checked for c in a if len(c.positions) > 100]
    assert big and all(len(k) == 16 for k in big)
    assert len({k.tobytes() for k in big}) == len(big)  # not the same sample every call
    assert [c.checked.tobytes() for c in a] != [c.checked.tobytes() for c in b]


def test_lengths_are_spread_log_uniformly():
    s = call_sequence(**(DEFAULT | {"calls": 400}))
    lengths = np.array([len(c.positions) for c in s if c.kind in ("prefill", "offset-prefill")])
    octaves = np.bincount(np.floor(np.log2(lengths)).astype(int), minlength=13)
    assert np.count_nonzero(octaves) >= 11, octaves  # nearly every octave of [1, 4096]


@pytest.mark.parametrize("threshold", [32, 64, 512, 2048])
@pytest.mark.parametrize("seed", range(10))
def test_sequence_lengths_cross_a_dynamic_threshold_and_come_back(threshold, seed):
    """A dynamic-NTK model with max_position_embeddings = threshold: some call scales, a later one
    does not, and a decode continues a prefill across a power of two."""
    s = call_sequence(**(DEFAULT | {"seed": seed}))
    over = [c.index for c in s if c.sequence_length > threshold]
    assert over and any(c.sequence_length <= threshold for c in s[over[0] + 1:])


def test_some_decode_crosses_a_power_of_two():
    s = call_sequence(**(DEFAULT | {"calls": 60}))
    assert any(c.kind == "decode" and c.sequence_length - 1 == 1 << (c.sequence_length - 1).bit_length() - 1
               and s[c.index - 1].sequence_length == c.sequence_length - 1 for c in s)


def test_max_tokens_caps_every_call_and_the_long_call_ends_at_max_position():
    s = call_sequence(seed=3, calls=30, min_position=0, max_position=32767, max_tokens=256, checked_tokens=4)
    assert max(len(c.positions) for c in s) == 256
    longs = [c for c in s if c.kind == "long"]
    assert longs and all(c.positions[0] == 32767 - 255 and c.sequence_length == 32768 for c in longs)


def test_a_one_position_range():
    s = call_sequence(seed=1, calls=10, min_position=5, max_position=5, max_tokens=8, checked_tokens=2)
    assert all(c.positions.tolist() == [5] and c.sequence_length == 6 and c.checked.tolist() == [0] for c in s)
    assert "decode" not in {c.kind for c in s} and "offset-prefill" not in {c.kind for c in s}


def test_single_token_calls_and_two_checked_tokens():
    s = call_sequence(seed=2, calls=20, min_position=0, max_position=999, max_tokens=1, checked_tokens=2)
    assert all(len(c.positions) == 1 for c in s)
    s = call_sequence(seed=2, calls=20, min_position=0, max_position=999, max_tokens=1000, checked_tokens=2)
    assert all(c.checked.tolist() == sorted({0, len(c.positions) - 1}) for c in s)


def test_describe():
    s = call_sequence(**DEFAULT)
    for c in s:
        text = describe(c)
        assert text.startswith(f"call {c.index} ({c.kind}, ") and text.endswith(f"; sequence length {c.sequence_length})")
        if c.kind == "decode":
            assert f"position {c.positions[0]} after a" in text
        if c.kind == "short-after-long":
            assert f"after call {c.index - 1} (long, sequence length 4096)" in text
    c = Call(5, "decode", np.array([4097]), 4098, np.array([0]), "after a prefill of 4096 at positions 1..4096")
    assert describe(c) == "call 5 (decode, position 4097 after a prefill of 4096 at positions 1..4096; sequence length 4098)"
    c = Call(0, "prefill", np.arange(3), 3, np.array([0, 2]))
    assert describe(c) == "call 0 (prefill, 3 tokens at positions 0..2; sequence length 3)"


@pytest.mark.parametrize("name, value, accepted", [
    ("seed", -1, "an integer in [0, 18446744073709551615]"),
    ("seed", 1.5, "an integer in [0, 18446744073709551615]"),
    ("calls", 0, "an integer in [1, 65536]"),
    ("calls", True, "an integer in [1, 65536]"),
    ("min_position", -1, "an integer in [0, 1099511627775]"),
    ("max_position", 4, "an integer in [10, 1099511627775]"),  # below min_position = 10
    ("max_position", 1 << 40, "an integer in [10, 1099511627775]"),
    ("max_tokens", 0, "an integer in [1, 65536]"),
    ("checked_tokens", 1, "an integer in [2, 65536]"),
    ("checked_tokens", "16", "an integer in [2, 65536]"),
])
def test_a_bad_argument_is_named(name, value, accepted):
    kw = DEFAULT | {"min_position": 10, name: value}
    with pytest.raises(InputError) as e:
        call_sequence(**kw)
    assert e.value.parameter == name and e.value.accepted == accepted


def test_arguments_are_keywords():
    with pytest.raises(TypeError):
        call_sequence(7, 40, 0, 4095, 4096, 16)


def test_calls_are_frozen():
    c = call_sequence(**(DEFAULT | {"calls": 1}))[0]
    with pytest.raises(AttributeError):
        c.kind = "decode"
    with pytest.raises(ValueError):
        c.positions[0] = 1


def test_fast():
    import time
    t = time.perf_counter()
    call_sequence(seed=1, calls=2000, min_position=0, max_position=131071, max_tokens=65536, checked_tokens=64)
    assert time.perf_counter() - t < 5
