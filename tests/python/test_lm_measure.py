"""ropecheck.lm.measure's refusals, before any model runs: a tokenizer that does not give the
vocabulary's own segmentation stops the run (InputError naming `model`), and bad settings are
named (`out`, `domains`, `check_tokens`). Stand-ins for the model and the texts; no torch, no
transformers (both NumPy stacks)."""

import types

import pytest

from ropecheck import InputError
from ropecheck.lm import measure
from ropecheck.lm._gguf import Vocabulary
from ropecheck.lm._model import LayerTypeFacts
from ropecheck.lm._reference_tokenizers import reference_tokenizer

# A tiny SentencePiece vocabulary: "ab" merges; byte pieces for everything else.
PIECES = [("<unk>", 2, 0), ("<s>", 3, 0), ("</s>", 3, 0), ("▁", 1, -1), ("a", 1, -2), ("b", 1, -3), ("ab", 1, -4)]
PIECES += [(f"<0x{b:02X}>", 6, 0) for b in range(256)]
VOCAB = Vocabulary(model="llama", pre="default", tokens=tuple(p for p, _, _ in PIECES), types=tuple(t for _, t, _ in PIECES),
                   scores=tuple(float(s) for _, _, s in PIECES), merges=(), bos_id=1, eos_id=2, unk_id=0, pad_id=None, add_bos=True,
                   add_space_prefix=False)


class Texts:
    DOMAINS = ("english",)

    @staticmethod
    def passages(domain, count):
        return ["ab ab ba"] * count


class Wrong:
    """A tokenizer that never merges: what a model would read if its tokenizer ignored the scores."""
    name, bos_id, add_bos = "a tokenizer that never merges", 1, True
    _ref = reference_tokenizer(VOCAB)

    def encode(self, text):
        return [i for c in text for i in self._ref.encode(c)]

    def decode(self, ids):
        return ""

    def piece(self, token):
        return VOCAB.tokens[token]


def model(tokenizer, window=None):
    facts = types.SimpleNamespace(layer_types=(LayerTypeFacts("all", (0,), 1e4, window, window or 64, 8, "half", (1.0,) * 4),),
                                  add_bos=True, bos_id=1)
    gguf = types.SimpleNamespace(vocabulary=lambda: VOCAB, path="/nonexistent.gguf")
    return types.SimpleNamespace(tokenizer=tokenizer, gguf=gguf, facts=facts, load_seconds=None)


def settings(**changes):
    base = dict(domains=("english",), sequences=2, tokens=64, check_sequences=1, check_tokens=64, passages=2, ablation_domain="english",
                ablations=(), threads=1, null_repeats=0, cli="/bin/false")
    return measure.Settings(**(base | changes))


def test_a_tokenizer_that_does_not_segment_as_the_vocabulary_stops_the_run():
    ok = measure._tokenization(model(reference_tokenizer(VOCAB)), Texts, settings(), None)  # the rule itself: agrees
    assert ok["check"]["agree"] and ok["check"]["tokens"] > 0
    with pytest.raises(InputError) as e:
        measure._tokenization(model(Wrong()), Texts, settings(), None)
    assert e.value.parameter == "model" and "segmentation" in str(e.value)


def test_bad_settings_are_named_before_anything_runs(tmp_path):
    with pytest.raises(InputError) as e:
        measure.run(model(Wrong()), Texts, settings(), str(tmp_path))  # exists
    assert e.value.parameter == "out"
    with pytest.raises(InputError) as e:
        measure.run(model(Wrong()), Texts, settings(domains=("klingon",)), str(tmp_path / "new"))
    assert e.value.parameter == "domains"
    with pytest.raises(InputError) as e:  # a sliding window of 512 needs rows past it
        measure.run(model(Wrong(), window=512), Texts, settings(check_tokens=600), str(tmp_path / "new"))
    assert e.value.parameter == "check_tokens" and "640" in str(e.value)
    assert not (tmp_path / "new").exists()


class Windows:
    """Texts whose windows are numbered: window w of `tokens` ids is [100 w, 100 w + 1, ...]."""
    DOMAINS = ("english",)

    @staticmethod
    def sequences(domain, tokenizer, count, tokens, seed=0):
        return [[100 * w + i for i in range(tokens)] for w in range(count)]


def test_bos_first_as_the_model_does_always_or_never():
    m = model(reference_tokenizer(VOCAB))  # add_bos, bos_id 1
    assert measure.with_bos(m, Windows, "english", 2, 4, 0) == [[1, 0, 1, 2], [1, 100, 101, 102]]
    assert measure.with_bos(m, Windows, "english", 1, 4, 0, bos="never") == [[0, 1, 2, 3]]
    m.facts.add_bos = False  # a model whose tokenizer does not add BOS (SmolLM2's)
    assert measure.with_bos(m, Windows, "english", 1, 4, 0) == [[0, 1, 2, 3]]
    assert measure.with_bos(m, Windows, "english", 1, 4, 0, bos="always") == [[1, 0, 1, 2]]
    with pytest.raises(InputError) as e:
        measure.with_bos(m, Windows, "english", 1, 4, 0, bos="sometimes")
    assert e.value.parameter == "bos"
    m.facts.bos_id = None
    with pytest.raises(InputError) as e:
        measure.with_bos(m, Windows, "english", 1, 4, 0, bos="always")
    assert e.value.parameter == "bos"


def test_a_bad_bos_setting_is_named_before_anything_runs(tmp_path):
    with pytest.raises(InputError) as e:
        measure.run(model(Wrong()), Texts, settings(bos="first"), str(tmp_path / "new"))
    assert e.value.parameter == "bos"
    assert not (tmp_path / "new").exists()
