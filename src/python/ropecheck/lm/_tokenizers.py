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
import heapq
import importlib.metadata
import os
import unicodedata
from typing import Any, Callable, Optional, Sequence

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
# The reference encoders.

class SentencePieceReference(Tokenizer):
    """SentencePiece BPE in plain Python (the module docstring states the algorithm)."""

    def __init__(self, vocab: Vocabulary) -> None:
        table = _sentencepiece_table(vocab)
        self._vocab_tokens = vocab.tokens
        self._table = table
        self._prefix = bool(vocab.add_space_prefix)
        self._mergeable = {p: i for i, (p, t) in enumerate(zip(table.pieces, table.types)) if t in _MERGEABLE}
        self._reserved = {p: i for i, (p, t) in enumerate(zip(table.pieces, table.types)) if t not in _MERGEABLE}
        lengths: dict[str, set[int]] = {}
        for p, t in zip(table.pieces, table.types):
            if t == USER_DEFINED:
                lengths.setdefault(p[0], set()).add(len(p))
        self._user_defined = frozenset(p for p, t in zip(table.pieces, table.types) if t == USER_DEFINED)
        self._user_lengths = {c: tuple(sorted(ls, reverse=True)) for c, ls in lengths.items()}
        self.bos_id, self.add_bos = _bos(vocab)
        fallback = "byte fallback" if table.bytes else "no byte pieces: unknown characters to the unknown piece"
        self.name = (f"ropecheck reference SentencePiece BPE (pure Python) on the GGUF vocabulary ({len(table.pieces)} pieces, {fallback}, "
                     f"dummy prefix {'on' if self._prefix else 'off'})")

    def _symbols(self, normalized: str) -> tuple[list[str], list[bool]]:
        if not self._user_lengths:
            return list(normalized), [False] * len(normalized)
        symbols: list[str] = []
        frozen: list[bool] = []
        lengths, user_defined = self._user_lengths, self._user_defined
        i, n = 0, len(normalized)
        while i < n:
            c = normalized[i]
            for length in lengths.get(c, ()):
                if normalized[i:i + length] in user_defined:
                    symbols.append(normalized[i:i + length])
                    frozen.append(True)
                    i += length
                    break
            else:
                symbols.append(c)
                frozen.append(False)
                i += 1
        return symbols, frozen

    def _pieces(self, text: str) -> list[tuple[str, int]]:
        """(piece, id) after steps 1-4: an id of the unknown piece for a piece the vocabulary lacks."""
        if not text:
            return []
        symbols, frozen = self._symbols((_SPACE if self._prefix else "") + text.replace(" ", _SPACE))
        n = len(symbols)
        mergeable, scores, types = self._mergeable, self._table.scores, self._table.types
        previous = list(range(-1, n - 1))
        following = list(range(1, n + 1))
        following[-1] = -1
        split: dict[str, tuple[str, str]] = {}  # an unused piece -> the pair it was last formed from
        heap: list[tuple[float, int, int, int]] = []

        def add(left: int, right: int) -> None:
            if left < 0 or right < 0 or frozen[left] or frozen[right]:
                return
            a, b = symbols[left], symbols[right]
            token = mergeable.get(a + b)
            if token is None:
                return
            heapq.heappush(heap, (-scores[token], left, right, len(a) + len(b)))
            if types[token] == UNUSED:
                split[a + b] = (a, b)

        for i in range(1, n):
            add(i - 1, i)
        while heap:
            _, left, right, size = heapq.heappop(heap)
            a, b = symbols[left], symbols[right]
            if not a or not b or len(a) + len(b) != size:
                continue  # stale: one side has been merged since
            symbols[left] = a + b
            symbols[right] = ""
            following[left] = following[right]
            if following[right] >= 0:
                previous[following[right]] = left
            add(previous[left], left)
            add(left, following[left])

        out: list[tuple[str, int]] = []
        reserved, unk = self._reserved, self._table.unk
        i = 0
        while i != -1:
            stack = [symbols[i]]
            while stack:
                w = stack.pop()
                token = reserved.get(w, mergeable.get(w, unk))
                if types[token] == UNUSED and w in split:
                    a, b = split[w]
                    stack += [b, a]
                    continue
                if types[token] in (CONTROL, BYTE):  # a character that is only a control or byte piece: sentencepiece fails too
                    raise InputError("text", "text whose characters are not control pieces of the vocabulary", repr(w))
                out.append((w, token))
            i = following[i]
        return out

    def encode(self, text: str) -> list[int]:
        ids: list[int] = []
        unk, byte_ids = self._table.unk, self._table.bytes
        previous_unknown = False
        for w, token in self._pieces(text):
            if token != unk:
                ids.append(token)
                previous_unknown = False
            elif byte_ids:
                ids.extend(byte_ids[b] for b in w.encode("utf-8"))
            elif not previous_unknown:
                ids.append(unk)
                previous_unknown = True
        return ids

    def decode(self, ids: Sequence[int]) -> str:
        table = self._table
        byte_values = {token: b for b, token in enumerate(table.bytes)}
        parts: list[str] = []
        pending = bytearray()
        for token in ids:
            t = table.types[token]
            if t == BYTE:
                pending.append(byte_values[token])
                continue
            if pending:
                parts.append(pending.decode("utf-8", "replace"))
                pending.clear()
            if t == UNKNOWN:
                parts.append(_UNKNOWN_SURFACE)
            elif t != CONTROL:
                parts.append(table.pieces[token])
        if pending:
            parts.append(pending.decode("utf-8", "replace"))
        text = "".join(parts).replace(_SPACE, " ")
        return text[1:] if self._prefix and text.startswith(" ") else text

    def piece(self, token: int) -> str:
        return self._vocab_tokens[token]


def _category(c: str, cache: dict[str, str]) -> str:
    """"L" (a letter), "N" (a number), "S" (whitespace) or "O" (anything else)."""
    k = cache.get(c)
    if k is None:
        if c in _WHITESPACE:
            k = "S"
        else:
            major = unicodedata.category(c)[0]
            k = major if major in "LN" else "O"
        cache[c] = k
    return k


def _gpt2_chunks(text: str, cache: dict[str, str]) -> list[str]:
    """GPT-2's pre-tokenizer expression, scanned by hand (the alternatives in their order)."""
    kinds = [_category(c, cache) for c in text]
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        if text[i] == "'":
            suffix = next((s for s in _CONTRACTIONS if text.startswith(s, i + 1)), None)
            if suffix is not None:
                out.append(text[i:i + 1 + len(suffix)])
                i += 1 + len(suffix)
                continue
        j = i + 1 if text[i] == " " and i + 1 < n and kinds[i + 1] != "S" else i
        kind = kinds[j]
        if kind != "S":  # an optional space, then a run of letters, of numbers or of other characters
            k = j
            while k < n and kinds[k] == kind:
                k += 1
            out.append(text[i:k])
            i = k
            continue
        k = i
        while k < n and kinds[k] == "S":
            k += 1
        end = k if k == n or k - i == 1 else k - 1  # whitespace before a non-space leaves its last character
        out.append(text[i:end])
        i = end
    return out


def _smollm_chunks(text: str, cache: dict[str, str]) -> list[str]:
    """Each number character alone, then GPT-2's expression on the text between them."""
    out: list[str] = []
    start = 0
    for i, c in enumerate(text):
        if _category(c, cache) == "N":
            if start < i:
                out += _gpt2_chunks(text[start:i], cache)
            out.append(c)
            start = i + 1
    if start < len(text):
        out += _gpt2_chunks(text[start:], cache)
    return out


class ByteLevelBPEReference(Tokenizer):
    """Byte-level BPE in plain Python (the module docstring states the algorithm)."""

    def __init__(self, vocab: Vocabulary) -> None:
        ids, merges, self._missing = _byte_level_tables(vocab)
        self._ids = ids
        self._ranks = {pair: rank for rank, pair in enumerate(merges)}  # a repeated merge ranks last, as in GPT-2 and tokenizers
        self._chunks: Callable[[str, dict[str, str]], list[str]] = _smollm_chunks if vocab.pre == "smollm" else _gpt2_chunks
        self._categories: dict[str, str] = {}
        self._cache: dict[str, tuple[int, ...]] = {}
        self._vocab_tokens = vocab.tokens
        self._byte_values = {c: b for b, c in _BYTE_CHARS.items()}
        self.bos_id, self.add_bos = _bos(vocab)
        self.name = (f"ropecheck reference byte-level BPE (pure Python) on the GGUF vocabulary ({len(ids)} pieces, {len(merges)} merges, "
                     f"pre-tokenizer {vocab.pre!r})")

    def _merge(self, chunk: str) -> tuple[int, ...]:
        symbols = [_BYTE_CHARS[b] for b in chunk.encode("utf-8")]
        n = len(symbols)
        ranks = self._ranks
        previous = list(range(-1, n - 1))
        following = list(range(1, n + 1))
        following[-1] = -1
        heap: list[tuple[int, int, int, int]] = []

        def add(left: int, right: int) -> None:
            if left < 0 or right < 0:
                return
            rank = ranks.get((symbols[left], symbols[right]))
            if rank is not None:
                heapq.heappush(heap, (rank, left, right, len(symbols[left]) + len(symbols[right])))

        for i in range(1, n):
            add(i - 1, i)
        while heap:
            _, left, right, size = heapq.heappop(heap)
            a, b = symbols[left], symbols[right]
            if not a or not b or len(a) + len(b) != size:
                continue
            symbols[left] = a + b
            symbols[right] = ""
            following[left] = following[right]
            if following[right] >= 0:
                previous[following[right]] = left
            add(previous[left], left)
            add(left, following[left])
        return tuple(self._ids[s] for s in symbols if s)

    def encode(self, text: str) -> list[int]:
        _check_bytes(text, self._missing)
        out: list[int] = []
        cache = self._cache
        for chunk in self._chunks(text, self._categories):
            ids = cache.get(chunk)
            if ids is None:
                ids = self._merge(chunk)
                if len(cache) < 200_000:
                    cache[chunk] = ids
            out += ids
        return out

    def decode(self, ids: Sequence[int]) -> str:
        values = self._byte_values
        data = bytearray()
        for token in ids:
            for c in self._vocab_tokens[token]:
                b = values.get(c)
                data += bytes([b]) if b is not None else c.encode("utf-8")
        return data.decode("utf-8", "replace")

    def piece(self, token: int) -> str:
        return self._vocab_tokens[token]


def reference_tokenizer(vocab: Vocabulary) -> Tokenizer:
    """The pure-Python encoder of `vocab`: SentencePiece BPE for ``model == "llama"``, byte-level
    BPE for ``"gpt2"`` (pre-tokenizers "gpt-2" and "smollm"). InputError naming ``model`` for
    another kind, another pre-tokenizer or a vocabulary neither library would load."""
    if vocab.model == "llama":
        return SentencePieceReference(vocab)
    if vocab.model == "gpt2":
        return ByteLevelBPEReference(vocab)
    raise InputError("model", "a SentencePiece ('llama') or byte-level BPE ('gpt2') vocabulary", f"tokenizer.ggml.model {vocab.model!r}")


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
    """transformers' tokenizer of a GGUF file (``AutoTokenizer.from_pretrained(folder,
    gguf_file=name)``), encoding without special tokens: the control of ``check_segmentation``."""

    def __init__(self, path: str) -> None:
        if not os.path.isfile(path):
            raise InputError("model", "an existing GGUF file", path)
        transformers = module("transformers")
        path = os.path.abspath(path)
        tokenizer = transformers.AutoTokenizer.from_pretrained(os.path.dirname(path), gguf_file=os.path.basename(path))
        self._tokenizer = tokenizer
        bos = tokenizer.bos_token_id
        self.bos_id = None if bos is None else int(bos)
        self.add_bos = bool(getattr(tokenizer, "add_bos_token", False)) and self.bos_id is not None
        self.name = f"transformers {_version('transformers')} GGUF tokenizer ({type(tokenizer).__name__}) of {os.path.basename(path)}"

    def encode(self, text: str) -> list[int]:
        return [int(i) for i in self._tokenizer.encode(text, add_special_tokens=False)]

    def decode(self, ids: Sequence[int]) -> str:
        return str(self._tokenizer.decode([int(i) for i in ids]))

    def piece(self, token: int) -> str:
        return str(self._tokenizer.convert_ids_to_tokens(int(token)))


def transformers_tokenizer(gguf_path: str) -> Tokenizer:
    """transformers' own GGUF tokenizer of the file at `gguf_path` (a control: on Gemma 3 it does
    not segment as the vocabulary does). InputError naming ``model`` when the file is missing or
    transformers is not installed."""
    return TransformersTokenizer(gguf_path)


# ----------------------------------------------------------------------------------------------
# The segmentation check.

@dataclasses.dataclass(frozen=True)
class Disagreement:
    """Where two segmentations first differ: passage ``passage``, token index ``token`` (the first
    index whose ids differ, or the shorter one's length), and the ids and pieces of both from token
    ``start`` to a few past ``token``."""

    passage: int
    token: int
    start: int
    tokenizer_ids: tuple[int, ...]
    reference_ids: tuple[int, ...]
    tokenizer_pieces: tuple[str, ...]
    reference_pieces: tuple[str, ...]


@dataclasses.dataclass(frozen=True)
class SegmentationCheck:
    """Whether a tokenizer segments passages exactly as a reference does.

    Attributes
    ----------
    tokenizer, reference : str
        The two tokenizers' names.
    passages, characters : int
        How many passages, and their characters in all.
    tokens : int
        The reference's tokens in all.
    agree : bool
        Whether every passage has the same ids from both.
    agreeing : int
        How many passages do.
    tokenizer_counts, reference_counts : tuple of int
        Per passage, the tokens of each.
    first_disagreement : Disagreement or None
        The first difference (None when they agree).
    """

    tokenizer: str
    reference: str
    passages: int
    characters: int
    tokens: int
    agree: bool
    agreeing: int
    tokenizer_counts: tuple[int, ...]
    reference_counts: tuple[int, ...]
    first_disagreement: Optional[Disagreement]

    def to_dict(self) -> dict[str, Any]:
        """The check as JSON-ready values (tuples as lists, the disagreement as a mapping or None)."""
        d = dataclasses.asdict(self)
        for key in ("tokenizer_counts", "reference_counts"):
            d[key] = list(d[key])
        if self.first_disagreement is not None:
            d["first_disagreement"] = {k: list(v) if isinstance(v, tuple) else v for k, v in d["first_disagreement"].items()}
        return d

    @property
    def statement(self) -> str:
        """One sentence saying what was found."""
        if self.agree:
            return (f"{self.tokenizer} gives the same ids as {self.reference} on all {self.passages} passages "
                    f"({self.characters} characters, {self.tokens} tokens).")
        d = self.first_disagreement
        assert d is not None
        return (f"{self.tokenizer} differs from {self.reference} on {self.passages - self.agreeing} of {self.passages} passages "
                f"({sum(self.tokenizer_counts)} tokens against the reference's {self.tokens} in {self.characters} characters); "
                f"first in passage {d.passage} at token {d.token}: {list(d.tokenizer_pieces[d.token - d.start:])} "
                f"against {list(d.reference_pieces[d.token - d.start:])}.")


def check_segmentation(tokenizer: Tokenizer, reference: Tokenizer, passages: Sequence[str]) -> SegmentationCheck:
    """Encodes each passage with both tokenizers (``encode``: no BOS) and compares the ids.

    Parameters
    ----------
    tokenizer : Tokenizer
        The encoder under test.
    reference : Tokenizer
        The one it must agree with.
    passages : sequence of str
        At least one text.

    Returns
    -------
    SegmentationCheck
    """
    if isinstance(passages, str) or len(passages) == 0:
        raise InputError("passages", "a sequence of at least one text", "a str" if isinstance(passages, str) else "none")
    counts: list[int] = []
    reference_counts: list[int] = []
    agreeing = 0
    first: Optional[Disagreement] = None
    for index, text in enumerate(passages):
        ours, theirs = tokenizer.encode(text), reference.encode(text)
        counts.append(len(ours))
        reference_counts.append(len(theirs))
        if ours == theirs:
            agreeing += 1
            continue
        if first is None:
            at = next((i for i, (a, b) in enumerate(zip(ours, theirs)) if a != b), min(len(ours), len(theirs)))
            start, end = max(0, at - 3), at + 5
            first = Disagreement(index, at, start, tuple(ours[start:end]), tuple(theirs[start:end]),
                                 tuple(tokenizer.piece(i) for i in ours[start:end]), tuple(reference.piece(i) for i in theirs[start:end]))
    return SegmentationCheck(tokenizer.name, reference.name, len(passages), sum(len(p) for p in passages), sum(reference_counts),
                             agreeing == len(passages), agreeing, tuple(counts), tuple(reference_counts), first)
