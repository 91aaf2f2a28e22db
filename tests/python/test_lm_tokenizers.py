"""ropecheck.lm._tokenizers: encoders built from a GGUF vocabulary.

Tiny hand-made vocabularies pin each rule of the two algorithms with ids derived by hand, for the
pure-Python reference and (where sentencepiece / tokenizers are installed) for the production
encoder, which must give the same ids. On the registered model files (skipped unless gguf,
sentencepiece and tokenizers import and the model packages are installed) the production encoder
equals the reference on prose, source code, digits, whitespace runs, scripts and emoji, and
transformers' own GGUF tokenizer, the control, does not."""

import json
import os
import random

import pytest

from ropecheck import InputError
from ropecheck.lm._gguf import Vocabulary
from ropecheck.lm import _reference_tokenizers as R
from ropecheck.lm import _segmentation as S
from ropecheck.lm import _tokenizers as T


# ----------------------------------------------------------------------------------------------
# Synthetic vocabularies.

def spm_vocab(pieces, add_space_prefix=False, unk_id=0, bos_id=1):
    """A SentencePiece Vocabulary from (piece, type, score) triples."""
    return Vocabulary(model="llama", pre="default", tokens=tuple(p for p, _, _ in pieces), types=tuple(t for _, t, _ in pieces),
                      scores=tuple(float(s) for _, _, s in pieces), merges=(), bos_id=bos_id, eos_id=2, unk_id=unk_id, pad_id=None,
                      add_bos=bos_id is not None, add_space_prefix=add_space_prefix)


def bpe_vocab(tokens, merges, pre="smollm"):
    return Vocabulary(model="gpt2", pre=pre, tokens=tuple(tokens), types=tuple(3 if t.startswith("<|") else 1 for t in tokens),
                      scores=(), merges=tuple(merges), bos_id=0, eos_id=0, unk_id=None, pad_id=None, add_bos=False, add_space_prefix=False)


# ids:       0        1      2       3     4     5     6     7     8     9     10    11 (UD) 12 (UD) 13
BASE = [("<unk>", 2, 0), ("<s>", 3, 0), ("</s>", 3, 0), ("▁", 1, -1), ("a", 1, -2), ("b", 1, -3), ("c", 1, -4),
        ("ab", 1, -5), ("bc", 1, -5), ("▁a", 1, -6), ("▁b", 1, -6), ("  ", 4, 0), ("   ", 4, 0), ("b▁", 1, -0.5)]
BYTES = [(f"<0x{b:02X}>", 6, 0) for b in range(256)]  # ids 14 + b when appended to BASE


def with_score(pieces, piece, score):
    return [(p, t, score if p == piece else s) for p, t, s in pieces]


@pytest.fixture(params=["reference", "production"])
def build(request):
    """Builds the encoder under test from a vocabulary: the pure-Python one, or the library's."""
    if request.param == "reference":
        return R.reference_tokenizer

    def production(vocab):
        pytest.importorskip("sentencepiece" if vocab.model == "llama" else "tokenizers")
        return T.model_tokenizer(vocab)
    return production


def test_spm_highest_score_merges_first(build):
    # "abc": the pairs ab (-5) and bc; with bc at -4.5 it wins although ab is to its left.
    assert build(spm_vocab(with_score(BASE, "bc", -4.5))).encode("abc") == [4, 8]


def test_spm_equal_scores_merge_leftmost_first(build):
    assert build(spm_vocab(BASE)).encode("abc") == [7, 6]  # ab and bc both -5: ab, then c (no "abc")


def test_spm_merges_repeat_until_no_pair_is_a_piece(build):
    pieces = BASE + [("abc", 1, -7)]
    assert build(spm_vocab(pieces)).encode("abc") == [14]  # a+b, then ab+c


def test_spm_unused_piece_is_split_back(build):
    # abc (type 5, unused) is formed from ab + c, then resegmented into those two.
    assert build(spm_vocab(BASE + [("abc", 5, -7)])).encode("abc") == [7, 6]


def test_spm_spaces_escaped_and_merged(build):
    tok = build(spm_vocab(BASE))
    assert tok.encode("a b") == [4, 10]  # a ▁b
    assert tok.encode(" a") == [9]


def test_spm_dummy_prefix_on_and_off(build):
    assert build(spm_vocab(BASE)).encode("a") == [4]
    assert build(spm_vocab(BASE, add_space_prefix=True)).encode("a") == [9]  # ▁a
    assert build(spm_vocab(BASE, add_space_prefix=True)).encode("") == []


def test_spm_user_defined_space_runs_pass_through_longest_first(build):
    # GGUF stores the user-defined runs with ASCII spaces; they match the text's runs of spaces,
    # the longest first, and are never merged with a neighbour (b▁, score -0.5, is not formed).
    tok = build(spm_vocab(BASE))
    assert tok.encode("a   b") == [4, 12, 5]      # a, "   ", b
    assert tok.encode("a    b") == [4, 12, 10]    # a, "   ", ▁b
    assert tok.encode("b  c") == [5, 11, 6]       # b, "  ", c (not b▁)
    assert tok.encode("\u2581\u2581") == [11]     # literal U+2581 U+2581 is the same user-defined piece
    assert tok.piece(11) == "  "


def test_spm_unknown_characters_without_byte_pieces(build):
    tok = build(spm_vocab(BASE))
    assert tok.encode("xyz") == [0]               # a run of unknown characters is one unknown token
    assert tok.encode("xay") == [0, 4, 0]
    assert tok.encode("<s>") == [0]               # control pieces are not parsed in the text


def test_spm_byte_fallback_for_unseen_characters(build):
    tok = build(spm_vocab(BASE + BYTES))
    assert tok.encode("aé") == [4, 14 + 0xC3, 14 + 0xA9]
    assert tok.encode("😀") == [14 + 0xF0, 14 + 0x9F, 14 + 0x98, 14 + 0x80]  # 4-byte UTF-8
    assert tok.encode("x b") == [14 + ord("x"), 10]
    assert tok.decode(tok.encode("a😀 bé")) == "a😀 bé"


def test_spm_ids_put_bos_first():
    tok = R.reference_tokenizer(spm_vocab(BASE))
    assert (tok.bos_id, tok.add_bos) == (1, True)
    assert tok.ids("ab") == [1, 7]


def test_spm_unknown_piece_of_control_type_is_the_unknown_piece(build):
    # llama.cpp's converter types Gemma's <unk> control; unk_id still names the unknown piece.
    pieces = [("<unk>", 3, 0)] + BASE[1:]
    assert build(spm_vocab(pieces)).encode("xa") == [0, 4]


# Byte-level BPE: "Ġ" is the space byte's character.
BPE_TOKENS = ["<|endoftext|>", "a", "b", "c", "d", "o", "n", "'", "t", "1", "2", "Ġ", "ab", "bc", "aa", "12", "Ġ1", "Ġb", "abc", "on", "don",
              "<", "|", ">", "e", "f", "x"]


def bpe(build, merges, pre="smollm"):
    return build(bpe_vocab(BPE_TOKENS, merges, pre))


def test_bpe_lower_rank_merges_first(build):
    assert bpe(build, ["a b", "b c"]).encode("abc") == [12, 3]      # ab, c
    assert bpe(build, ["b c", "a b"]).encode("abc") == [1, 13]      # a, bc
    assert bpe(build, ["b c", "a b", "a bc"]).encode("abc") == [18]


def test_bpe_equal_ranks_merge_leftmost_first(build):
    assert bpe(build, ["a a"]).encode("aaa") == [14, 1]             # aa, a (not a, aa)


def test_bpe_smollm_isolates_each_digit(build):
    merges = ["1 2", "Ġ 1"]
    assert bpe(build, merges, "smollm").encode(" 12") == [11, 9, 10]    # Ġ, 1, 2: digits alone, then no merge
    assert bpe(build, merges, "gpt-2").encode(" 12") == [11, 15]        # one chunk " 12": 12 ranks first
    assert bpe(build, merges, "smollm").encode("a 12") == [1, 11, 9, 10]


def test_bpe_gpt2_chunks(build):
    tok = bpe(build, ["Ġ b", "o n", "d on"], "gpt-2")
    assert tok.encode("a  b") == [1, 11, 17]                        # a | Ġ | Ġb: whitespace leaves its last space
    assert tok.encode("don't") == [20, 7, 8]                        # don | 't (no merge ' t)
    assert tok.encode("<|endoftext|>") == [21, 22, 24, 6, 4, 5, 25, 8, 24, 26, 8, 22, 23]  # not parsed: <| endoftext |>


def test_bpe_text_with_a_byte_the_vocabulary_lacks(build):
    with pytest.raises(InputError) as info:
        bpe(build, []).encode("aé")
    assert info.value.parameter == "text"


def test_bpe_decode_round_trip():
    tok = R.reference_tokenizer(bpe_vocab(BPE_TOKENS, ["a b"]))
    assert tok.decode(tok.encode("ab 12 don't")) == "ab 12 don't"


# ----------------------------------------------------------------------------------------------
# Bad input.

@pytest.mark.parametrize("factory", [R.reference_tokenizer, T.model_tokenizer, R.SentencePieceReference, R.ByteLevelBPEReference])
def test_other_model_kind_is_an_input_error_naming_model(factory):
    vocab = Vocabulary("bert", "default", ("a",), (1,), (), (), None, None, None, None, False, False)
    with pytest.raises(InputError) as info:
        factory(vocab)
    assert info.value.parameter == "model"


def test_sentencepiece_builder_rejects_a_byte_level_vocabulary():
    with pytest.raises(InputError) as info:
        R.SentencePieceReference(bpe_vocab(BPE_TOKENS, []))
    assert info.value.parameter == "model" and "llama" in info.value.accepted


@pytest.mark.parametrize("factory", [R.reference_tokenizer, T.model_tokenizer])
def test_unknown_pre_tokenizer_is_an_input_error_naming_model(factory):
    with pytest.raises(InputError) as info:
        factory(bpe_vocab(BPE_TOKENS, [], pre="qwen2"))
    assert info.value.parameter == "model" and "smollm" in info.value.accepted and "'qwen2'" in info.value.got


def test_bad_vocabularies_are_input_errors_naming_model():
    for vocab in (spm_vocab(BASE + BYTES[:10]),                          # some byte pieces but not 256
                  spm_vocab([("a", 1, 0)], unk_id=None, bos_id=None),             # no unknown piece
                  spm_vocab(BASE + [("▁▁▁", 1, 0)]),                    # a normal ▁▁▁ clashes with the user-defined "   "
                  bpe_vocab(BPE_TOKENS, ["a z"])):                       # a merge of a piece not in the vocabulary
        with pytest.raises(InputError) as info:
            R.reference_tokenizer(vocab)
        assert info.value.parameter == "model", vocab


# ----------------------------------------------------------------------------------------------
# The segmentation check.

def test_check_segmentation_agreeing_and_disagreeing():
    ref = R.reference_tokenizer(spm_vocab(BASE))
    other = R.reference_tokenizer(spm_vocab(with_score(BASE, "bc", -4.5)))
    same = S.check_segmentation(ref, ref, ["abc", "a b"])
    assert same.agree and same.agreeing == 2 and same.first_disagreement is None
    assert (same.passages, same.characters, same.tokens, same.reference_counts) == (2, 6, 4, (2, 2))
    assert "same ids" in same.statement
    diff = S.check_segmentation(other, ref, ["a b", "c abc"])
    assert not diff.agree and diff.agreeing == 1
    d = diff.first_disagreement
    assert (d.passage, d.token, d.start) == (1, 1, 0)
    # "c abc": bc (-4.5) first, then ▁a; the reference merges ab (leftmost of two at -5), then nothing
    assert d.tokenizer_ids == (6, 9, 8) and d.reference_ids == (6, 3, 7, 6)
    assert d.tokenizer_pieces == ("c", "▁a", "bc") and d.reference_pieces == ("c", "▁", "ab", "c")
    assert diff.tokenizer_counts == (2, 3) and diff.reference_counts == (2, 4) and diff.tokens == 6
    assert "passage 1 at token" in diff.statement
    assert json.loads(json.dumps(diff.to_dict())) == diff.to_dict()
    assert diff.to_dict()["first_disagreement"]["tokenizer_pieces"] == ["c", "▁a", "bc"]
    with pytest.raises(InputError) as info:
        S.check_segmentation(ref, ref, [])
    assert info.value.parameter == "passages"


# ----------------------------------------------------------------------------------------------
# The registered model files.

def _passages():
    """English prose, Python source, digits, whitespace runs, tabs, newlines, scripts, emoji."""
    texts = []
    for path in ("/usr/share/common-licenses/GPL-3", "/usr/share/common-licenses/Apache-2.0",
                 *(f"/usr/lib/python3.11/{name}.py" for name in ("textwrap", "heapq", "bisect", "fnmatch"))):
        if os.path.isfile(path):
            with open(path, encoding="utf-8") as f:
                texts.append(f.read())
    texts += [
        "3.14159 × 2 = 6.28318; 1234567890 + 987654321 = 2222222211\n2024-01-15 12:34:56 (+0100) 0x1F 1e-9 -42 ½ ² ٣ ४",
        "".join("a" + " " * k + "b\n" for k in range(1, 41)),
        "\n \n\n \n\n\n \t \t\t \t\n  \n   \n    \n     x\n\t\tdef f():\n\t\t\treturn 1\n\n\n\n\n   \t  \t\n" + " " * 70 + "end",
        "Ελληνικά κείμενα. Русский текст. العربية نص. עברית טקסט. हिन्दी पाठ। 中文文本。日本語のテキスト。한국어 텍스트. ภาษาไทย",
        "😀🎉👍🏽 👨‍👩‍👧‍👦 🇫🇷 ❤️ 🧪x🦀",
        "<bos><eos><|im_start|>user<|im_end|> <table><tr><td>x</td></tr></table> [multimodal]",
    ]
    return texts


PASSAGES = _passages()


def _random_texts(seed, count=400):
    pool = list("abcdeTHE thecapital  \n\n\t\t") + ["▁", "<b>", "</td>", "<bos>", "😀", "👨‍👩‍👧", "é", "日本", "١٢", "½", "'s", "'ll",
                                                    " 12", "\r\n", "\u3000", "\xa0", "\u2028", "ǅ", "Ⅻ", " " * 40, "\t" * 35, "\n" * 33]
    rng = random.Random(seed)
    return ["".join(rng.choice(pool) for _ in range(rng.randint(0, 30))) for _ in range(count)]


def _vocabulary(name):
    pytest.importorskip("gguf")
    pytest.importorskip("sentencepiece")
    pytest.importorskip("tokenizers")
    from ropecheck.lm import _gguf, _models, _sources
    try:
        path = _sources.locate(_models.FILES[name])
    except InputError as e:
        pytest.skip(f"{name} is not installed: {e}")
    return path, _gguf.GGUFFile(path).vocabulary()


@pytest.fixture(scope="module")
def gemma():
    return _vocabulary("gemma3-270m")


@pytest.fixture(scope="module")
def smollm():
    return _vocabulary("smollm2-135m")


@pytest.fixture(scope="module")
def gemma_transformers(gemma):
    pytest.importorskip("transformers")
    return T.transformers_tokenizer(gemma[0])


@pytest.fixture(scope="module")
def smollm_transformers(smollm):
    pytest.importorskip("transformers")
    return T.transformers_tokenizer(smollm[0])


def test_gemma3_vocabulary_is_sentencepiece_with_user_defined_whitespace(gemma):
    vocab = gemma[1]
    assert (vocab.model, vocab.add_space_prefix, vocab.add_bos, vocab.bos_id, vocab.unk_id) == ("llama", False, True, 2, 3)
    assert vocab.tokens[138] == "  " and vocab.types[138] == 4 and vocab.tokens[167] == " " * 31
    assert vocab.tokens[5279] == "▁capital"


def test_gemma3_production_equals_reference(gemma):
    vocab = gemma[1]
    check = S.check_segmentation(T.model_tokenizer(vocab), R.reference_tokenizer(vocab), PASSAGES + _random_texts(1))
    assert check.agree, check.statement
    print(check.statement, check.reference_counts[:len(PASSAGES)])


def test_gemma3_segments_by_its_own_pieces(gemma):
    vocab = gemma[1]
    for tok in (T.model_tokenizer(vocab), R.reference_tokenizer(vocab)):
        ids = tok.encode(" The capital")
        assert [tok.piece(i) for i in ids] == ["▁The", "▁capital"] and ids[1] == 5279
        assert tok.ids(" The capital") == [2, *ids]
        assert tok.encode("a" + " " * 33 + "b") == [tok.encode("a")[0], 167, 138, tok.encode("b")[0]]  # 31 spaces, then 2
        assert tok.encode("\n\n\t\t") == [108, 255969]
        assert tok.encode("1234") == [tok.encode(d)[0] for d in "1234"]
        assert tok.decode(tok.encode(PASSAGES[0])) == PASSAGES[0]


def test_smollm2_production_equals_reference(smollm):
    vocab = smollm[1]
    assert (vocab.model, vocab.pre) == ("gpt2", "smollm")
    check = S.check_segmentation(T.model_tokenizer(vocab), R.reference_tokenizer(vocab), PASSAGES + _random_texts(2))
    assert check.agree, check.statement
    print(check.statement, check.reference_counts[:len(PASSAGES)])


def test_smollm2_segments_by_its_own_pieces(smollm):
    vocab = smollm[1]
    for tok in (T.model_tokenizer(vocab), R.reference_tokenizer(vocab)):
        assert [tok.piece(i) for i in tok.encode(" The capital")] == ["ĠThe", "Ġcapital"]
        assert [tok.piece(i) for i in tok.encode("x = 12345")] == ["x", "Ġ=", "Ġ", "1", "2", "3", "4", "5"]
        assert [tok.piece(i) for i in tok.encode("\n\n  0.")] == ["ĊĊĠĠ", "0", "."]
        assert tok.ids("a") == tok.encode("a")  # add_bos is off
        assert tok.decode(tok.encode(PASSAGES[2])) == PASSAGES[2]


def test_transformers_gguf_tokenizer_fails_the_check_on_gemma3(gemma, gemma_transformers):
    # The control: transformers' tokenizer of the same file splits long runs of spaces its own way
    # (16 + 17 where the vocabulary's longest user-defined run is 31) and parses control tokens.
    vocab = gemma[1]
    reference = R.reference_tokenizer(vocab)
    prose = S.check_segmentation(gemma_transformers, reference, PASSAGES[:2])
    print(prose.statement)
    assert not prose.agree, prose.statement
    assert 167 in prose.first_disagreement.reference_ids and 167 not in prose.first_disagreement.tokenizer_ids
    everything = S.check_segmentation(gemma_transformers, reference, PASSAGES)
    print("transformers", everything.tokenizer_counts, "reference", everything.reference_counts)
    assert not everything.agree
    assert gemma_transformers.encode("a" + " " * 33 + "b") != reference.encode("a" + " " * 33 + "b")


def test_transformers_gguf_tokenizer_fails_the_check_on_smollm2(smollm, smollm_transformers):
    # transformers builds SmolLM2's pre-tokenizer without "smollm"'s digit isolation, so whitespace
    # before a digit is cut differently ("\n\n " + " 0" instead of "\n\n  " + "0").
    vocab = smollm[1]
    reference = R.reference_tokenizer(vocab)
    check = S.check_segmentation(smollm_transformers, reference, PASSAGES)
    print(check.statement)
    print("transformers", check.tokenizer_counts, "reference", check.reference_counts)
    assert not check.agree
    assert smollm_transformers.encode(" The capital of France is") == reference.encode(" The capital of France is")
    assert smollm_transformers.encode("\n\n  0.") != reference.encode("\n\n  0.")
