"""ropecheck.lm.controls: the norm-matched random-pair control of a band removal is disjoint from
the band, as large, the closest in norm share of its draws (checked against an enumeration of
every set where that is small), matched where the band's share is within reach and the nearest end
where it is not, the same for the same seed and refused with the parameter named for bad input. No torch needed."""

import itertools
import math

import pytest

from ropecheck import InputError
from ropecheck.lm.controls import norm_matched_control

# 12 rotating pairs (indices 0-11) and a still pair 12; shares rising with the index.
SHARES = [0.01 * (j + 1) for j in range(12)] + [0.0]
ROTATING = list(range(12))
FAST = [0, 1, 2]


def share(pairs):
    return math.fsum(SHARES[j] for j in pairs)


def test_the_control_is_disjoint_as_large_and_the_closest_of_its_draws():
    c = norm_matched_control("fast", FAST, ROTATING, SHARES, seed=3, draws=1)
    assert len(c.pairs) == 3 and not set(c.pairs) & set(FAST) and set(c.pairs) <= set(ROTATING)
    assert c.pairs == tuple(sorted(c.pairs)) and c.band_share == share(FAST) and c.share == share(c.pairs)
    assert c.distinct == math.comb(9, 3) == 84
    # the kept one is the best of all 84 sets (enumerated): pairs 3-5, 0.04 + 0.05 + 0.06 = 0.15 against
    # the band's 0.06, which no 3 pairs outside it can reach
    best = min(abs(share(s) - share(FAST)) for s in itertools.combinations(range(3, 12), 3))
    assert abs(c.share - c.band_share) == best and c.pairs == (3, 4, 5)
    assert c.matched == pytest.approx(1.5)
    # out of reach: no 3 pairs outside the band hold less than 0.15, and the control is that end
    assert c.reachable == pytest.approx((0.15, 0.33)) and not c.reached and c.share == pytest.approx(c.reachable[0])
    d = c.to_dict()
    assert d["pairs"] == [3, 4, 5] and d["seed"] == 3 and "closest" in d["rule"]


def test_same_seed_same_control_and_seeds_draw_differently():
    middle = list(range(3, 9))
    a = norm_matched_control("middle", middle, ROTATING, SHARES, seed=5, draws=3)
    assert a == norm_matched_control("middle", middle, ROTATING, SHARES, seed=5, draws=3)
    # A share within reach is matched by the swaps (0.01 + 0.06 + 0.12 = 0.19: e.g. 0.02 + 0.07 + 0.10),
    # from every seed's start, to rounding.
    spread = [0, 5, 11]
    for seed in range(6):
        m = norm_matched_control("spread", spread, ROTATING, SHARES, seed=seed, draws=1)
        assert m.reached and abs(m.share - m.band_share) < 1e-15 and not set(m.pairs) & set(spread)
    # outside a 6-pair band of 12 there are 6 pairs: the control is all of them, whatever the seed
    assert a.distinct == 1 and a.pairs == (0, 1, 2, 9, 10, 11)


@pytest.mark.parametrize("kwargs,name", [
    (dict(band_pairs=[]), "band_pairs"),
    (dict(band_pairs=[0, 0]), "band_pairs"),
    (dict(band_pairs=[12]), "band_pairs"),           # a still pair is in no band
    (dict(band_pairs=list(range(7))), "rotating"),    # 5 pairs outside a band of 7
    (dict(shares=SHARES[:5]), "shares"),
    (dict(shares=[float("nan")] * 13), "shares"),
    (dict(seed=-1), "seed"),
    (dict(draws=0), "draws"),
])
def test_bad_input_names_the_parameter(kwargs, name):
    args = dict(band="fast", band_pairs=FAST, rotating=ROTATING, shares=SHARES) | kwargs
    with pytest.raises(InputError) as e:
        norm_matched_control(args.pop("band"), args.pop("band_pairs"), args.pop("rotating"), args.pop("shares"), **args)
    assert e.value.parameter == name
