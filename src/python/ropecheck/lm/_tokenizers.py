"""Tokenizers built from a GGUF file's vocabulary (ropecheck.lm._gguf.Vocabulary), so that a model
under test reads its own segmentation of a text, and a check that two tokenizers agree on passages.

Two implementations of each of the two kinds a GGUF file describes:

* ``model_tokenizer(vocab)``: the production encoder, in a compiled library. A SentencePiece
  vocabulary (``tokenizer.ggml.model`` "llama") goes to Google's ``sentencepiece`` library as a
  ModelProto written here from the vocabulary (no tokenizer.model file is needed); a byte-level BPE
  vocabulary ("gpt2") goes to Hugging Face's ``tokenizers`` (a BPE model from the vocabulary and
  its merges, behind the pre-tokenizer the GGUF file names). transformers is not involved.
* ``reference_tokenizer(vocab)``: the same algorithms in plain Python (the standard library only),
  written here from the descriptions below, so that the production encoder is checked against an
  implementation that shares no code with it (``check_segmentation``).

``transformers_tokenizer(path)`` wraps transformers' own GGUF tokenizer, a control for the check.

SentencePiece BPE, as sentencepiece 0.2 encodes (read in its src/normalizer.cc
``Normalizer::Normalize``, src/model_interface.cc ``InitializePieces`` and ``PieceToId``,
src/bpe_model.cc ``Model::SampleEncode`` and src/sentencepiece_processor.cc
``PopulateSentencePieceText``), for the identity normalization the GGUF files imply:

1. Normalize: every space becomes U+2581 ("▁"); with ``add_space_prefix`` one "▁" is put in front
   of a non-empty text. Nothing else changes (no Unicode normalization, no whitespace removal).
2. Cut the normalized text into symbols from left to right: where a user-defined piece (type 4)
   starts, the longest such piece is one symbol that is never merged; elsewhere each Unicode
   character is a symbol.
3. Merge: of all adjacent pairs of unfrozen symbols whose concatenation is a piece of type normal
   (1), user-defined (4) or unused (5) -- the only types in the table sentencepiece merges into;
   control, unknown and byte pieces are never formed by a merge -- merge the one whose piece has
   the highest score, the leftmost on a tie, and repeat until no pair qualifies. Candidate pairs
   live in a heap and are dropped when popped stale (sentencepiece's agenda).
4. A resulting piece of type unused is split back into the two symbols it was last formed from
   (recursively), as sentencepiece's resegmentation does.
5. A piece that is not in the vocabulary (a character the vocabulary lacks) becomes one byte piece
   ``<0xNN>`` per UTF-8 byte when the vocabulary has the 256 byte pieces, else the unknown piece (a
   run of adjacent unknown characters giving one unknown token, as sentencepiece emits it).

llama.cpp's converter (convert_hf_to_gguf.py, ``_create_vocab_sentencepiece``) writes a
user-defined piece with each "▁" replaced by a space, because llama.cpp matches user-defined pieces
in the raw text; Gemma 3's runs of two to thirty-one spaces are stored so. sentencepiece matches
them after step 1, so both implementations here read a user-defined piece's spaces as "▁" again
(the piece the original tokenizer.model holds): a run of spaces in the text is then one
user-defined token, as in llama.cpp, and a run of literal U+2581 characters is that token too, as in
sentencepiece. The converter also marks the unknown piece control in some files (Gemma 3's
``<unk>``); the piece at ``unk_id`` is the unknown piece here whatever its stored type.

Byte-level BPE, as GPT-2 defined it and Hugging Face tokenizers runs it (src/models/bpe/word.rs
``merge_all``; llama.cpp's ``llm_tokenizer_bpe_session::tokenize`` is the same algorithm):

1. Pre-tokenize: cut the text into chunks by the expressions llama.cpp lists for the file's
   ``tokenizer.ggml.pre`` (src/llama-vocab.cpp, ``llm_tokenizer_bpe``), each expression splitting
   every chunk of the one before into its matches and the text between them. "gpt-2": GPT-2's
   expression (contractions 's 't 're 've 'm 'll 'd; an optional space and letters; an optional
   space and digits; an optional space and other non-space characters; whitespace not followed by
   a non-space; other whitespace). "smollm": first every number character alone, then GPT-2's
   expression. Letters and numbers are Unicode's categories L and N (for the reference, as the
   interpreter's unicodedata has them: a character assigned after its Unicode version is "other"
   there), whitespace Unicode's White_Space property. The reference scans these by hand; the
   production encoder uses tokenizers' Digits(individual_digits) and ByteLevel pre-tokenizers, the
   sequence SmolLM2's own tokenizer.json declares. llama.cpp's "default" for a byte-level
   vocabulary is another sequence of four expressions and is not accepted.
2. Each chunk's UTF-8 bytes become characters by GPT-2's byte-to-unicode table (printable Latin-1
   bytes stand for themselves, the other 68 bytes for U+0100 onwards).
3. Merge, within a chunk: of all adjacent pairs listed in the ranked merges, merge the one ranked
   first (the leftmost on a tie) and repeat; each resulting symbol is a token.

Control tokens (``<bos>``, ``<|im_start|>``, ...) are never parsed in the text: a text that spells
one is segmented as ordinary characters, so what a model reads is the text, nothing else.
"""

from __future__ import annotations

import abc
import dataclasses
import importlib.metadata
import os
from typing import Any, Optional, Sequence

from .._errors import InputError
from ._gguf import Vocabulary
from ._optional import module

#: llama.cpp's token types (SentencePiece's numbering)
NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE = 1, 2, 3, 4, 5, 6
_MERGEABLE = (NORMAL, USER_DEFINED, UNUSED)
_SPACE = "\u2581"
_UNKNOWN_SURFACE = " \u2047 "  # what sentencepiece decodes an unknown piece to

# Unicode's White_Space property (PropList.txt): regex engines' \s, llama.cpp's is_whitespace.
_WHITESPACE = frozenset("\t\n\v\f\r \x85\xa0\u1680\u2028\u2029\u202f\u205f\u3000" + "".join(chr(c) for c in range(0x2000, 0x200B)))
_CONTRACTIONS = ("s", "t", "re", "ve", "m", "ll", "d")


def _version(package: str) -> str:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return "(version unknown)"


class Tokenizer(abc.ABC):
    """A text -> token ids encoder of one model's vocabulary.

    Attributes
    ----------
    name : str
        What it is: the implementation, with library versions, and the vocabulary it was built from.
    bos_id : int or None
        The beginning-of-sequence token.
    add_bos : bool
        Whether the model's input starts with ``bos_id`` (``ids`` puts it first).
    """

    name: str
    bos_id: Optional[int]
    add_bos: bool

    @abc.abstractmethod
    def encode(self, text: str) -> list[int]:
        """The token ids of `text` alone (no BOS, no EOS)."""

    def ids(self, text: str) -> list[int]:
        """The model's input for `text`: ``encode(text)``, after ``bos_id`` when ``add_bos``."""
        body = self.encode(text)
        return [self.bos_id, *body] if self.add_bos and self.bos_id is not None else body

    @abc.abstractmethod
    def decode(self, ids: Sequence[int]) -> str:
        """The text the ids spell (control tokens spell nothing)."""

    @abc.abstractmethod
    def piece(self, token: int) -> str:
        """The vocabulary's spelling of one token id."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


# ----------------------------------------------------------------------------------------------
# Checks shared by both implementations of a kind: a vocabulary either builds both or neither.

def _kind(vocab: Vocabulary, model: str) -> None:
    kinds = {"llama": "a SentencePiece vocabulary (tokenizer.ggml.model 'llama')",
             "gpt2": "a byte-level BPE vocabulary (tokenizer.ggml.model 'gpt2')"}
    if vocab.model != model:
        raise InputError("model", kinds[model], f"tokenizer.ggml.model {vocab.model!r}")
    n = len(vocab.tokens)
    if n == 0:
        raise InputError("model", f"{kinds[model]} with at least one token", "none")
    if len(vocab.types) != n:
        raise InputError("model", "a vocabulary with one token type per token", f"{len(vocab.types)} types for {n} tokens")
    bad = [t for t in vocab.types if not NORMAL <= t <= BYTE]
    if bad:
        raise InputError("model", "token types in [1, 6] (normal, unknown, control, user-defined, unused, byte)", f"type {bad[0]}")
    for key in ("bos_id", "eos_id", "unk_id", "pad_id"):
        value = getattr(vocab, key)
        if value is not None and not 0 <= value < n:
            raise InputError("model", f"a vocabulary whose {key} is a token id in [0, {n})", str(value))
    if vocab.add_bos and vocab.bos_id is None:
        raise InputError("model", "a vocabulary with a BOS id when it adds BOS (tokenizer.ggml.add_bos_token)", "no tokenizer.ggml.bos_token_id")


def _bos(vocab: Vocabulary) -> tuple[Optional[int], bool]:
    return vocab.bos_id, bool(vocab.add_bos)


@dataclasses.dataclass(frozen=True)
class _SentencePieceTable:
    """A SentencePiece vocabulary as both implementations read it: ``pieces`` (user-defined ones
    with their spaces as "▁"), ``types`` (the unknown piece typed unknown and every other unknown
    piece control), ``unk`` and the 256 byte pieces' ids by byte value (``bytes``, empty without)."""

    pieces: tuple[str, ...]
    types: tuple[int, ...]
    scores: tuple[float, ...]
    unk: int
    bytes: tuple[int, ...]


def _sentencepiece_table(vocab: Vocabulary) -> _SentencePieceTable:
    _kind(vocab, "llama")
    n = len(vocab.tokens)
    if len(vocab.scores) != n:
        raise InputError("model", "a SentencePiece vocabulary with one score per token (tokenizer.ggml.scores)", f"{len(vocab.scores)} scores for {n} tokens")
    pieces = tuple(p.replace(" ", _SPACE) if t == USER_DEFINED else p for p, t in zip(vocab.tokens, vocab.types))
    if any(p == "" for p in pieces):
        raise InputError("model", "a SentencePiece vocabulary without an empty piece", f"token {pieces.index('')} empty")
    if len(set(pieces)) != n:
        seen: dict[str, int] = {}
        for i, p in enumerate(pieces):
            if p in seen:
                raise InputError("model", "a SentencePiece vocabulary whose pieces are distinct (user-defined spaces read as U+2581)",
                                 f"tokens {seen[p]} and {i} both {p!r}")
            seen[p] = i
    unk = vocab.unk_id
    if unk is None:
        unk = next((i for i, t in enumerate(vocab.types) if t == UNKNOWN), None)
    if unk is None:
        raise InputError("model", "a SentencePiece vocabulary with an unknown piece (tokenizer.ggml.unknown_token_id or a token of type 2)", "none")
    types = tuple(UNKNOWN if i == unk else CONTROL if t == UNKNOWN else t for i, t in enumerate(vocab.types))
    byte_ids: dict[int, int] = {}
    for i, t in enumerate(types):
        if t == BYTE:
            p = pieces[i]
            value = int(p[3:5], 16) if len(p) == 6 and p.startswith("<0x") and p.endswith(">") and all(c in "0123456789ABCDEF" for c in p[3:5]) else -1
            if value < 0 or value in byte_ids:
                raise InputError("model", "byte pieces spelt <0xNN> (NN two upper-case hex digits), one per byte", f"token {i} {p!r}")
            byte_ids[value] = i
    if byte_ids and len(byte_ids) != 256:
        raise InputError("model", "a SentencePiece vocabulary with all 256 byte pieces or none", f"{len(byte_ids)} byte pieces")
    return _SentencePieceTable(pieces, types, tuple(vocab.scores), unk, tuple(byte_ids[b] for b in range(256)) if byte_ids else ())


def _bytes_to_unicode() -> dict[int, str]:
    """GPT-2's map of each byte to a printable character (its encoder.py ``bytes_to_unicode``)."""
    kept = [*range(ord("!"), ord("~") + 1), *range(ord("\xa1"), ord("\xac") + 1), *range(ord("\xae"), ord("\xff") + 1)]
    table = {b: chr(b) for b in kept}
    extra = 0
    for b in range(256):
        if b not in table:
            table[b] = chr(256 + extra)
            extra += 1
    return table


_BYTE_CHARS = _bytes_to_unicode()
_PRE_TOKENIZERS = ("gpt-2", "smollm")


def _byte_level_tables(vocab: Vocabulary) -> tuple[dict[str, int], list[tuple[str, str]], frozenset[int]]:
    """(piece -> id, merges as pairs, the bytes without a piece) of a byte-level vocabulary, the
    merges checked as tokenizers' BPE builder checks them (two pieces of the vocabulary whose
    concatenation is one too)."""
    _kind(vocab, "gpt2")
    if vocab.pre not in _PRE_TOKENIZERS:
        raise InputError("model", f"a byte-level vocabulary whose pre-tokenizer (tokenizer.ggml.pre) is one of {', '.join(_PRE_TOKENIZERS)}",
                         repr(vocab.pre))
    ids: dict[str, int] = {}
    for i, p in enumerate(vocab.tokens):
        if p in ids:
            raise InputError("model", "a byte-level vocabulary whose pieces are distinct", f"tokens {ids[p]} and {i} both {p!r}")
        ids[p] = i
    merges: list[tuple[str, str]] = []
    for rank, m in enumerate(vocab.merges):
        parts = m.split(" ")
        if len(parts) != 2 or parts[0] not in ids or parts[1] not in ids or parts[0] + parts[1] not in ids:
            raise InputError("model", "merges 'a b' of two pieces of the vocabulary whose concatenation is a piece too", f"merge {rank} {m!r}")
        merges.append((parts[0], parts[1]))
    return ids, merges, frozenset(b for b, c in _BYTE_CHARS.items() if c not in ids)


def _check_bytes(text: str, missing: frozenset[int]) -> None:
    """InputError naming ``text`` when its UTF-8 holds a byte the vocabulary has no piece for
    (SmolLM2 has none for 04, 06, 13, 14, 16, 1D, F1 and F2): tokenizers would drop the character
    silently and llama.cpp fails, so neither encoder here segments it."""
    found = missing.intersection(text.encode("utf-8")) if missing else None
    if found:
        b = min(found)
        raise InputError("text", "text whose UTF-8 bytes all have a piece in the vocabulary", f"byte {b:02X}, which has none")


# ----------------------------------------------------------------------------------------------
# The production encoders.

class SentencePieceTokenizer(Tokenizer):
    """Google's sentencepiece library on a ModelProto written from the vocabulary: every piece with
    its score and type, model type BPE, byte fallback when the vocabulary has byte pieces, the
    vocabulary's unknown/BOS/EOS/padding ids, and the identity normalizer that only escapes spaces
    (dummy prefix as ``add_space_prefix``, no whitespace removal). What the library requires to
    load it (model_interface.cc): exactly one piece of type unknown, distinct non-empty pieces,
    and byte pieces only with ``byte_fallback``, then all 256 of them; the trainer's vocab_size
    is written but not checked."""

    def __init__(self, vocab: Vocabulary) -> None:
        table = _sentencepiece_table(vocab)
        pb2 = module("sentencepiece.sentencepiece_model_pb2")
        spm = module("sentencepiece")
        proto = pb2.ModelProto()
        piece = pb2.ModelProto.SentencePiece
        proto.pieces.extend(piece(piece=p, score=s, type=t) for p, s, t in zip(table.pieces, table.scores, table.types))
        trainer = proto.trainer_spec
        trainer.model_type = pb2.TrainerSpec.BPE
        trainer.vocab_size = len(table.pieces)
        trainer.byte_fallback = bool(table.bytes)
        for key, value in (("unk", table.unk), ("bos", vocab.bos_id), ("eos", vocab.eos_id), ("pad", vocab.pad_id)):
            setattr(trainer, f"{key}_id", -1 if value is None else value)
            if value is not None:
                setattr(trainer, f"{key}_piece", table.pieces[value])
        normalizer = proto.normalizer_spec
        normalizer.name = "identity"
        normalizer.precompiled_charsmap = b""
        normalizer.add_dummy_prefix = bool(vocab.add_space_prefix)
        normalizer.remove_extra_whitespaces = False
        normalizer.escape_whitespaces = True
        processor = spm.SentencePieceProcessor()
        try:
            processor.LoadFromSerializedProto(proto.SerializeToString())
        except (RuntimeError, OSError) as e:
            raise InputError("model", "a vocabulary sentencepiece loads", f"{type(e).__name__}: {e}") from None
        self._processor = processor
        self._vocab_tokens = vocab.tokens
        self.bos_id, self.add_bos = _bos(vocab)
        fallback = "byte fallback" if table.bytes else "no byte fallback"
        self.name = (f"sentencepiece {_version('sentencepiece')} BPE on a ModelProto from the GGUF vocabulary ({len(table.pieces)} pieces, "
                     f"{fallback}, dummy prefix {'on' if vocab.add_space_prefix else 'off'})")

    def encode(self, text: str) -> list[int]:
        return [int(i) for i in self._processor.EncodeAsIds(text)]

    def decode(self, ids: Sequence[int]) -> str:
        return str(self._processor.DecodeIds([int(i) for i in ids]))

    def piece(self, token: int) -> str:
        return self._vocab_tokens[token]


class ByteLevelBPETokenizer(Tokenizer):
    """Hugging Face tokenizers: a BPE model of the vocabulary and its ranked merges behind the
    pre-tokenizer the file names ("gpt-2": ByteLevel; "smollm": Digits(individual_digits) then
    ByteLevel, both without a prefix space), and the ByteLevel decoder."""

    def __init__(self, vocab: Vocabulary) -> None:
        ids, merges, self._missing = _byte_level_tables(vocab)
        tk = module("tokenizers")
        tokenizer = tk.Tokenizer(tk.models.BPE(vocab=ids, merges=merges))
        byte_level = tk.pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
        if vocab.pre == "smollm":
            tokenizer.pre_tokenizer = tk.pre_tokenizers.Sequence([tk.pre_tokenizers.Digits(individual_digits=True), byte_level])
        else:
            tokenizer.pre_tokenizer = byte_level
        tokenizer.decoder = tk.decoders.ByteLevel()
        self._tokenizer = tokenizer
        self._vocab_tokens = vocab.tokens
        self.bos_id, self.add_bos = _bos(vocab)
        self.name = (f"tokenizers {_version('tokenizers')} byte-level BPE from the GGUF vocabulary ({len(ids)} pieces, {len(merges)} merges, "
                     f"pre-tokenizer {vocab.pre!r})")

    def encode(self, text: str) -> list[int]:
        _check_bytes(text, self._missing)
        return [int(i) for i in self._tokenizer.encode(text, add_special_tokens=False).ids]

    def decode(self, ids: Sequence[int]) -> str:
        return str(self._tokenizer.decode([int(i) for i in ids], skip_special_tokens=False))

    def piece(self, token: int) -> str:
        return self._vocab_tokens[token]


def model_tokenizer(vocab: Vocabulary) -> Tokenizer:
    """The production encoder of `vocab`: sentencepiece for ``model == "llama"``, tokenizers for
    ``"gpt2"``. InputError naming ``model`` for another kind, another pre-tokenizer, a vocabulary
    the library would not load, or the library not installed."""
    if vocab.model == "llama":
        return SentencePieceTokenizer(vocab)
    if vocab.model == "gpt2":
        return ByteLevelBPETokenizer(vocab)
    raise InputError("model", "a SentencePiece ('llama') or byte-level BPE ('gpt2') vocabulary", f"tokenizer.ggml.model {vocab.model!r}")


class TransformersTokenizer(Tokenizer):
    """A transformers tokenizer object, encoding without special tokens: a GGUF file's
    (``transformers_tokenizer``, the control of ``check_segmentation``) or a model folder's own
    (``hf_tokenizer``, for a model not loaded from GGUF)."""

    def __init__(self, tokenizer: Any, name: str) -> None:
        self._tokenizer = tokenizer
        bos = getattr(tokenizer, "bos_token_id", None)
        self.bos_id = None if bos is None else int(bos)
        self.add_bos = bool(getattr(tokenizer, "add_bos_token", False)) and self.bos_id is not None
        self.name = name

    def encode(self, text: str) -> list[int]:
        return [int(i) for i in self._tokenizer.encode(text, add_special_tokens=False)]

    def decode(self, ids: Sequence[int]) -> str:
        return str(self._tokenizer.decode([int(i) for i in ids]))

    def piece(self, token: int) -> str:
        return str(self._tokenizer.convert_ids_to_tokens(int(token)))


def hf_tokenizer(tokenizer: Any) -> Tokenizer:
    """A transformers tokenizer object (``AutoTokenizer.from_pretrained(folder)``) as a Tokenizer."""
    if not callable(getattr(tokenizer, "encode", None)):
        raise InputError("tokenizer", "a transformers tokenizer (with encode and decode)", type(tokenizer).__name__)
    return TransformersTokenizer(tokenizer, f"transformers {_version('transformers')} {type(tokenizer).__name__} "
                                            f"({getattr(tokenizer, 'name_or_path', '')})")


def transformers_tokenizer(gguf_path: str) -> Tokenizer:
    """transformers' own GGUF tokenizer of the file at `gguf_path` (a control: on Gemma 3 it does
    not segment as the vocabulary does). InputError naming ``model`` when the file is missing or
    transformers is not installed."""
    if not os.path.isfile(gguf_path):
        raise InputError("model", "an existing GGUF file", gguf_path)
    transformers = module("transformers")
    path = os.path.abspath(gguf_path)
    tokenizer = transformers.AutoTokenizer.from_pretrained(os.path.dirname(path), gguf_file=os.path.basename(path))
    return TransformersTokenizer(tokenizer, f"transformers {_version('transformers')} GGUF tokenizer ({type(tokenizer).__name__}) "
                                            f"of {os.path.basename(path)}")
