"""The reference encoders: the two kinds of ropecheck.lm._tokenizers' algorithms in plain Python
(the standard library only), written from their descriptions there, so that the production encoders
are checked against an implementation that shares no code with them (ropecheck.lm._segmentation)."""

from __future__ import annotations

import heapq
import unicodedata
from typing import Callable, Optional, Sequence

from .._errors import InputError
from ._gguf import Vocabulary
from ._tokenizers import (_BYTE_CHARS, _CONTRACTIONS, _MERGEABLE, _SPACE, _UNKNOWN_SURFACE, _WHITESPACE, BYTE, CONTROL, UNKNOWN,
                          UNUSED, USER_DEFINED, Tokenizer, _bos, _byte_level_tables, _check_bytes, _sentencepiece_table)

# ----------------------------------------------------------------------------------------------
# The reference encoders.


def _merge_pairs(symbols: list[str], priority: Callable[[int, int, str, str], Optional[float]]) -> None:
    """BPE's loop, shared by both kinds: of all adjacent pairs of live symbols with a priority
    (``priority(left, right, a, b)``: None when the pair cannot merge), merge the smallest, the
    leftmost on a tie, and repeat; merged-away symbols become "". Candidate pairs live in a heap and
    are dropped when popped stale (one side merged since), as sentencepiece's agenda does."""
    n = len(symbols)
    previous = list(range(-1, n - 1))
    following = list(range(1, n + 1))
    if n:
        following[-1] = -1
    heap: list[tuple[float, int, int, int]] = []

    def add(left: int, right: int) -> None:
        if left < 0 or right < 0:
            return
        a, b = symbols[left], symbols[right]
        p = priority(left, right, a, b)
        if p is not None:
            heapq.heappush(heap, (p, left, right, len(a) + len(b)))

    for i in range(1, n):
        add(i - 1, i)
    while heap:
        _, left, right, size = heapq.heappop(heap)
        a, b = symbols[left], symbols[right]
        if not a or not b or len(a) + len(b) != size:
            continue  # stale
        symbols[left] = a + b
        symbols[right] = ""
        following[left] = following[right]
        if following[right] >= 0:
            previous[following[right]] = left
        add(previous[left], left)
        add(left, following[left])

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
        mergeable, scores, types = self._mergeable, self._table.scores, self._table.types
        split: dict[str, tuple[str, str]] = {}  # an unused piece -> the pair it was last formed from

        def priority(left: int, right: int, a: str, b: str) -> Optional[float]:
            if frozen[left] or frozen[right]:
                return None
            token = mergeable.get(a + b)
            if token is None:
                return None
            if types[token] == UNUSED:
                split[a + b] = (a, b)
            return -scores[token]

        _merge_pairs(symbols, priority)

        out: list[tuple[str, int]] = []
        reserved, unk = self._reserved, self._table.unk
        for symbol in symbols:
            if not symbol:
                continue  # merged into the one before it
            stack = [symbol]
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
        ranks = self._ranks

        def priority(left: int, right: int, a: str, b: str) -> Optional[float]:
            rank = ranks.get((a, b))
            return None if rank is None else float(rank)

        _merge_pairs(symbols, priority)
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
