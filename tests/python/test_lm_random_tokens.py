"""ropecheck.lm.random_tokens: random-token input draws only ordinary ids, the same ones for the
same seed, BOS first by the model's rule; the cross with the text capture keeps a head exactly when
the random capture's lower bound at the text's offset reaches the cut. Stand-ins for the model and
the usage documents; no torch (both NumPy stacks)."""

import types

import pytest

from ropecheck import InputError
from ropecheck.lm import random_tokens
from ropecheck.lm._gguf import Vocabulary

# ids 0-2 special (unknown, control, control), 3-6 normal, 7-8 byte, 9 user-defined, 10 unused.
TYPES = (2, 3, 3, 1, 1, 1, 1, 6, 6, 4, 5)
VOCAB = Vocabulary(model="llama", pre="default", tokens=tuple(f"t{i}" for i in range(len(TYPES))), types=TYPES,
                   scores=(0.0,) * len(TYPES), merges=(), bos_id=1, eos_id=2, unk_id=0, pad_id=None, add_bos=True,
                   add_space_prefix=False)


def model(add_bos=True, vocab=len(TYPES), gguf=True):
    facts = types.SimpleNamespace(vocab=vocab, bos_id=1, add_bos=add_bos)
    tok = types.SimpleNamespace(decode=lambda ids: "" if ids[0] in (0, 1, 2) else f"t{ids[0]}")
    g = types.SimpleNamespace(vocabulary=lambda: VOCAB) if gguf else None
    return types.SimpleNamespace(facts=facts, gguf=g, tokenizer=tok)


def test_only_ordinary_ids_are_drawn_and_the_seed_fixes_them():
    assert random_tokens.ordinary_ids(model()) == [3, 4, 5, 6, 7, 8]
    assert random_tokens.ordinary_ids(model(vocab=6)) == [3, 4, 5]  # ids past the embedding never
    assert random_tokens.ordinary_ids(model(gguf=False)) == list(range(3, len(TYPES)))  # by their text
    a = random_tokens.random_sequences(model(), 3, 200, seed=3)
    assert a == random_tokens.random_sequences(model(), 3, 200, seed=3)
    assert a != random_tokens.random_sequences(model(), 3, 200, seed=4)
    assert all(len(s) == 200 and s[0] == 1 and set(s[1:]) == {3, 4, 5, 6, 7, 8} for s in a)  # 199 draws reach all 6
    b = random_tokens.random_sequences(model(add_bos=False), 2, 50, seed=3)
    assert all(len(s) == 50 and 1 not in s for s in b)
    assert all(s[0] == 1 for s in random_tokens.random_sequences(model(add_bos=False), 2, 50, seed=3, bos="always"))
    assert all(1 not in s for s in random_tokens.random_sequences(model(), 2, 50, seed=3, bos="never"))


def test_bad_arguments_are_named():
    for count, tokens in ((0, 10), (2, 1)):
        with pytest.raises(InputError) as e:
            random_tokens.random_sequences(model(), count, tokens, seed=0)
        assert e.value.parameter == "random_sequences"
    with pytest.raises(InputError) as e:
        random_tokens.random_sequences(model(), 2, 10, seed=0, bos="sometimes")
    assert e.value.parameter == "bos"


def usage(heads, cut=0.1, sequences=8):
    """heads: {(layer, head): (component offset or None, {offset: (effect, lo, hi)})}."""
    layers = {}
    for (layer, head), (offset, effects) in heads.items():
        offsets = [{"offset": d, "effect": e, "interval": [lo, hi], "mass": e, "position_free": 0.0, "sequences": sequences}
                   for d, (e, lo, hi) in sorted(effects.items())]
        layers.setdefault(layer, []).append({"head": head, "positional_component": {"offset": offset, "offsets": offsets}})
    with_component = sum(o is not None for o, _ in heads.values())
    return {"layers": [{"layer": L, "heads": hs} for L, hs in sorted(layers.items())],
            "positional_component": {"cut": cut, "with_component": with_component, "sequences": sequences}}


def test_a_head_is_kept_exactly_when_the_random_lower_bound_at_its_text_offset_reaches_the_cut():
    text = usage({(0, 0): (1, {0: (0.0, -0.1, 0.1), 1: (0.6, 0.5, 0.7)}),
                  (0, 1): (0, {0: (0.4, 0.3, 0.5), 1: (0.0, -0.1, 0.1)}),
                  (1, 0): (1, {0: (0.0, 0.0, 0.0), 1: (0.3, 0.2, 0.4)}),
                  (1, 1): (None, {0: (0.0, -0.1, 0.1), 1: (0.05, 0.0, 0.1)})})
    randomised = usage({(0, 0): (1, {0: (0.0, -0.1, 0.1), 1: (0.5, 0.1, 0.9)}),  # lower bound == cut: kept
                        (0, 1): (1, {0: (0.2, 0.0999, 0.3), 1: (0.5, 0.4, 0.6)}),  # at the text's offset 0 just below; 1 elsewhere
                        (1, 0): (None, {0: (0.0, 0.0, 0.0), 1: (0.05, 0.0, 0.1)}),
                        (1, 1): (0, {0: (0.3, 0.2, 0.4), 1: (0.0, 0.0, 0.0)})}, sequences=4)
    c = random_tokens.purely_positional(text, randomised)
    assert [(h["layer"], h["head"], h["offset"], h["kept"]) for h in c["heads"]] == [(0, 0, 1, True), (0, 1, 0, False), (1, 0, 1, False)]
    assert c["heads"][1]["random_offset"] == 1 and c["heads"][1]["random_interval"] == [0.0999, 0.3]
    assert (c["with_component"], c["kept"], c["random_only"], c["random_sequences"]) == (3, 1, 1, 4)
    assert c["by_offset"] == [{"offset": 0, "heads": 1, "kept": 0}, {"offset": 1, "heads": 2, "kept": 1}]
    assert c["statement"].startswith("1 of the 3 heads")
    with pytest.raises(InputError):  # different cuts: not the same rule
        random_tokens.purely_positional(text, usage({(0, 0): (1, {1: (0.5, 0.4, 0.6)})}, cut=0.2))
    with pytest.raises(InputError):  # no test on the random capture (fewer than 2 sequences)
        random_tokens.purely_positional(text, {"layers": []})
