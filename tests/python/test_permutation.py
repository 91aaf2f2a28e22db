"""ropecheck._permutation: an output whose channels are permuted alike (the same q . k) is found,
mapped back and named; a non-permutation, an ambiguous match and the identity are not reported; a
bad permutation argument is named."""

import time

import numpy as np
import pytest

from ropecheck import InputError
from ropecheck._permutation import apply_permutation, describe_permutation, find_permutation, permutation_argument


def deinterleave(d):
    """Interleaved pairs (2i, 2i + 1) in, half pairs (i, i + d/2) out: output j holds 2j, then 2(j - d/2) + 1."""
    return tuple(range(0, d, 2)) + tuple(range(1, d, 2))


def interleave(d):
    return tuple(v for k in range(d // 2) for v in (k, k + d // 2))


def exact(seed, tokens=64, heads=4, d=128):
    """An exact output and its tolerances (1e-6 relative plus a floor), seeded."""
    e = np.random.default_rng(seed).uniform(-4.0, 4.0, size=(tokens, heads, d))
    return e, np.abs(e) * 1e-6 + 1e-9


def permuted(e, tol, perm, seed=0, within=0.9):
    """fn's output holding e's channel perm[j] at j, off by up to `within` times that element's tolerance."""
    noise = np.random.default_rng(seed).uniform(-within, within, size=e.shape)
    return e[..., list(perm)] + noise * tol[..., list(perm)]


@pytest.mark.parametrize("d", [2, 4, 64, 128])
def test_the_deinterleave_and_its_inverse_are_found(d):
    e, tol = exact(1, d=d)
    for perm in (deinterleave(d), interleave(d)):
        if perm == tuple(range(d)):
            assert find_permutation(permuted(e, tol, perm), e, tol) is None  # d = 2: both are the identity
            continue
        assert find_permutation(permuted(e, tol, perm), e, tol) == perm


def test_a_random_permutation_is_found_and_mapped_back():
    e, tol = exact(2)
    perm = tuple(int(v) for v in np.random.default_rng(3).permutation(128))
    y = permuted(e, tol, perm)
    found = find_permutation(y, e, tol)
    assert found == perm and all(type(v) is int for v in found)
    z = apply_permutation(y, found)
    assert z.shape == y.shape and np.all(np.abs(z - e) <= tol)
    assert np.array_equal(apply_permutation(e[..., list(perm)], perm), e)


def test_apply_permutation_puts_output_channel_j_at_perm_j():
    y = np.arange(8.0)[None, None, :]
    perm = (3, 0, 1, 2, 7, 4, 5, 6)
    z = apply_permutation(y, perm)
    assert all(z[0, 0, perm[j]] == y[0, 0, j] for j in range(8))
    assert z.dtype == y.dtype and z is not y


def test_the_identity_is_not_reported():
    e, tol = exact(4)
    assert find_permutation(permuted(e, tol, tuple(range(128))), e, tol) is None


def test_two_output_channels_holding_one_exact_channel_are_no_permutation():
    e, tol = exact(5)
    perm = list(deinterleave(128))
    perm[1] = perm[0]  # channel 0 twice, channel 2 nowhere
    assert find_permutation(e[..., perm], e, tol) is None


def test_a_sign_flip_is_no_permutation():
    e, tol = exact(6)
    y = e[..., list(deinterleave(128))].copy()
    y[..., 5] = -y[..., 5]
    assert find_permutation(y, e, tol) is None
    assert find_permutation(-e, e, tol) is None


def test_a_wrong_output_is_no_permutation():
    e, tol = exact(7)
    assert find_permutation(exact(8)[0], e, tol) is None


def test_an_error_beyond_the_tolerance_on_one_element_is_no_permutation():
    e, tol = exact(9)
    perm = deinterleave(128)
    y = permuted(e, tol, perm)
    y[40, 2, 17] = e[40, 2, perm[17]] + 1.5 * tol[40, 2, perm[17]]  # a late row: past the first rows compared
    assert find_permutation(y, e, tol) is None
    assert find_permutation(y, e, tol * 2) == perm


def test_the_tolerance_is_the_exact_elements():
    """Output j is held to the tolerance of the exact channel perm[j] it holds, not of channel j."""
    e = np.random.default_rng(10).uniform(1.0, 2.0, size=(16, 2, 8))
    perm = deinterleave(8)
    tol = np.zeros(8)
    tol[list(perm)[:4]] = 0.5  # exact channels 0, 2, 4, 6 are loose, the others exact
    y = e[..., list(perm)].copy()
    y[..., :4] += 0.25  # output 0..3 hold exact 0, 2, 4, 6: within their tolerance
    assert find_permutation(y, e, np.broadcast_to(tol, e.shape)) == perm
    y[..., 4] += 1e-12  # output 4 holds exact 1, which has no tolerance
    assert find_permutation(y, e, np.broadcast_to(tol, e.shape)) is None


def test_a_broadcast_tolerance():
    e, _ = exact(11)
    perm = interleave(128)
    y = e[..., list(perm)] + 1e-7
    assert find_permutation(y, e, np.array(2e-7)) == perm
    assert find_permutation(y, e, np.full((64, 1, 1), 2e-7)) == perm
    assert find_permutation(y, e, np.array(5e-8)) is None


def test_ambiguous_channels_are_not_reported():
    e, tol = exact(12)
    e[..., 3] = e[..., 2]  # two exact channels alike: output channels holding them match both
    assert find_permutation(e[..., list(deinterleave(128))], e, tol) is None
    z = np.zeros((64, 4, 16))
    assert find_permutation(z, z, np.ones_like(z)) is None  # everything matches everything (and the identity)
    z[..., 0] = 1.0
    assert find_permutation(z[..., ::-1], z, np.full_like(z, 0.1)) is None  # 15 zero channels, 15 ways


def test_rows_with_a_nan_are_ignored():
    e, tol = exact(13)
    perm = deinterleave(128)
    y = permuted(e, tol, perm)
    y[0, 0, :] = np.nan  # the first row: a NaN in fn's output
    y[5, 1, 3] = 7.0  # a wrong value, but in a row whose exact value is NaN
    e = e.copy()
    e[5, 1, 9] = np.nan
    assert find_permutation(y, e, tol) == perm
    assert find_permutation(np.full_like(y, np.nan), e, tol) is None  # no row left


def test_shapes_are_checked():
    e, tol = exact(14)
    with pytest.raises(InputError) as err:
        find_permutation(e, e[:1], tol)
    assert err.value.parameter == "expected"
    with pytest.raises(InputError) as err:
        find_permutation(e, e, tol[:, :, :3])
    assert err.value.parameter == "tolerance"


def test_fast_at_head_dim_1024():
    e, tol = exact(15, tokens=1024, heads=4, d=1024)
    perm = tuple(int(v) for v in np.random.default_rng(16).permutation(1024))
    y = permuted(e, tol, perm)
    t = time.perf_counter()
    assert find_permutation(y, e, tol) == perm
    assert find_permutation(exact(17, tokens=1024, heads=4, d=1024)[0], e, tol) is None
    assert time.perf_counter() - t < 5


@pytest.mark.parametrize("value", [None])
def test_none_passes(value):
    assert permutation_argument(value, 8) is None


@pytest.mark.parametrize("value", [[1, 0, 3, 2], (1, 0, 3, 2), np.array([1, 0, 3, 2]), np.array([1, 0, 3, 2], dtype=np.int32),
                                   [np.int64(1), 0, 3, 2]])
def test_a_permutation_argument(value):
    p = permutation_argument(value, 4)
    assert p == (1, 0, 3, 2) and all(type(v) is int for v in p)
    assert permutation_argument(range(4), 4) == (0, 1, 2, 3)


@pytest.mark.parametrize("value, why", [
    ([0, 1, 2], "(3 ints)"),
    ([0, 0, 2, 3], "(0 twice)"),
    ([0, 1, 2, 4], "(holds 4)"),
    ([0, 1, 2, -1], "(holds -1)"),
    ([0, 1, 2, 3.0], "(holds 3.0)"),
    ([0, 1, True, 3], "(holds True)"),
    (np.array([0.0, 1.0, 2.0, 3.0]), "dtype float64"),
    (np.array([[0, 1], [2, 3]]), "shape (2, 2)"),
    ("0123", "'0123'"),
    ({0, 1, 2, 3}, "{0, 1, 2, 3}"),
    (3, "3"),
])
def test_a_bad_permutation_argument_is_named(value, why):
    with pytest.raises(InputError) as e:
        permutation_argument(value, 4)
    assert e.value.parameter == "permutation"
    assert e.value.accepted == ("a permutation of range(4) as 4 ints (output channel j holds the exact map's "
                                "channel perm[j])")
    assert why in e.value.got


def test_a_long_bad_argument_is_shown_short():
    with pytest.raises(InputError) as e:
        permutation_argument(list(range(1000)), 4)
    assert len(e.value.got) < 100 and e.value.got.endswith("(1000 ints)")


def test_apply_permutation_checks_the_length():
    with pytest.raises(InputError) as e:
        apply_permutation(np.zeros((1, 1, 4)), (0, 1))
    assert e.value.parameter == "permutation"


def test_describe_permutation():
    assert describe_permutation(deinterleave(128)) == (
        "interleaved -> half: output channel j holds channel 2j for j < 64 and 2(j - 64) + 1 for j >= 64")
    assert describe_permutation(interleave(8)) == (
        "half -> interleaved: output channel 2k holds channel k and 2k + 1 holds k + 4, for k < 4")
    assert describe_permutation(interleave(64) + tuple(range(64, 128))) == (
        "half -> interleaved: output channel 2k holds channel k and 2k + 1 holds k + 32, for k < 32 "
        "(channels 0..63; 64..127 unchanged)")
    assert describe_permutation(deinterleave(64) + tuple(range(64, 80))).endswith("(channels 0..63; 64..79 unchanged)")
    assert describe_permutation(tuple(range(4, 8)) + tuple(range(4))) == "halves swapped: output channel j holds channel (j + 4) mod 8"
    assert describe_permutation((1, 0, 3, 2)).startswith("pairs swapped")
    assert describe_permutation(tuple(range(9, -1, -1))) == "reversed: output channel j holds channel 9 - j"
    assert describe_permutation((0, 1, 2)) == "the identity on 3 channels"
    perm = (0, 5, 1, 2, 3, 4, 6, 7, 9, 8)
    assert describe_permutation(perm) == ("output channel <- exact channel: 1 <- 5, 2 <- 1, 3 <- 2, 4 <- 3, 5 <- 4, 8 <- 9, "
                                          "... (7 of 10 channels moved)")
