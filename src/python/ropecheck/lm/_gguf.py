"""GGUF files as ropecheck.lm reads them: metadata, tensors (dequantized to float32 by the ``gguf``
package, the reader maintained with llama.cpp) and the tokenizer's vocabulary.

Every failure is an InputError naming ``model`` (the file) and what is accepted, raised before
anything is written: not a file, not GGUF (magic), unreadable or truncated (a tensor's data running
past the end of the file), a field missing or of another type.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
from typing import Any, Optional

from .._errors import InputError
from ._optional import module

_MISSING = object()


@dataclasses.dataclass(frozen=True)
class Vocabulary:
    """A GGUF file's tokenizer: what its ``tokenizer.ggml.*`` fields hold.

    Attributes
    ----------
    model : str
        ``tokenizer.ggml.model``: ``"llama"`` (SentencePiece: pieces with scores, merged by score)
        or ``"gpt2"`` (byte-level BPE: ranked merges).
    pre : str
        ``tokenizer.ggml.pre``, llama.cpp's name of the pre-tokenizer (``"default"`` when absent).
    tokens : tuple of str
        The pieces, by id.
    types : tuple of int
        Per id, llama.cpp's token type (SentencePiece's numbering): 1 normal, 2 unknown, 3 control,
        4 user-defined, 5 unused, 6 byte.
    scores : tuple of float
        Per id (empty when the file has none).
    merges : tuple of str
        Ranked merges ``"a b"`` (empty when the file has none).
    bos_id, eos_id, unk_id, pad_id : int or None
    add_bos : bool
        ``tokenizer.ggml.add_bos_token`` (False when absent).
    add_space_prefix : bool
        ``tokenizer.ggml.add_space_prefix`` (SentencePiece's dummy prefix; False when absent).
    """

    model: str
    pre: str
    tokens: tuple[str, ...]
    types: tuple[int, ...]
    scores: tuple[float, ...]
    merges: tuple[str, ...]
    bos_id: Optional[int]
    eos_id: Optional[int]
    unk_id: Optional[int]
    pad_id: Optional[int]
    add_bos: bool
    add_space_prefix: bool


@dataclasses.dataclass(frozen=True)
class TensorInfo:
    """One tensor's ggml type name (``"Q4_K"``, ``"F32"``) and its shape as NumPy orders it (rows
    first: ggml's dimensions reversed)."""

    type: str
    shape: tuple[int, ...]


class GGUFFile:
    """An open GGUF file: ``fields`` (every scalar and string field), ``tensors`` (name ->
    TensorInfo), ``architecture``, ``size`` (bytes), ``sha256()`` (computed once, on demand),
    ``array(key)`` (an array field's values), ``dequantize(name)`` and ``vocabulary()``."""

    def __init__(self, path: str) -> None:
        if not os.path.isfile(path):
            raise InputError("model", "an existing GGUF file", path)
        with open(path, "rb") as f:
            magic = f.read(4)
        if magic != b"GGUF":
            raise InputError("model", "a GGUF file (magic 'GGUF')", f"{path} starting with {magic!r}")
        gguf = module("gguf")
        self.path = os.path.abspath(path)
        self.size = os.path.getsize(path)
        try:
            self._reader = gguf.GGUFReader(path)
            fields: dict[str, Any] = {}
            for key, field in self._reader.fields.items():
                if not field.types or not field.data:
                    continue
                if field.types[0] == gguf.GGUFValueType.STRING:
                    fields[key] = bytes(field.parts[field.data[0]]).decode("utf-8")
                elif field.types[0] != gguf.GGUFValueType.ARRAY:
                    fields[key] = field.parts[field.data[0]].tolist()[0]
            tensors = {t.name: TensorInfo(t.tensor_type.name, tuple(int(x) for x in reversed(t.shape))) for t in self._reader.tensors}
            end = max((int(t.data_offset) + int(t.n_bytes) for t in self._reader.tensors), default=0)
        except (ValueError, IndexError, KeyError, OSError, UnicodeDecodeError, AttributeError) as e:
            raise InputError("model", "a readable GGUF file (version 2 or 3)", f"{path}: {type(e).__name__}: {e}") from None
        if end > self.size:
            raise InputError("model", "a whole GGUF file (every tensor's data inside it)",
                             f"{path}: {self.size} bytes, tensor data up to byte {end} (truncated)")
        self.fields = fields
        self.tensors = tensors
        self._sha256: Optional[str] = None

    @property
    def architecture(self) -> str:
        return str(self.fields.get("general.architecture", ""))

    def field(self, key: str, default: Any = _MISSING) -> Any:
        """A scalar or string field; InputError naming the field when it is missing and no default is given."""
        if key in self.fields:
            return self.fields[key]
        if default is _MISSING:
            raise InputError("model", f"a GGUF file with the field {key}", f"{self.path} without it")
        return default

    def array(self, key: str) -> list[Any]:
        """An array field's values (strings decoded); InputError when it is missing."""
        field = self._reader.fields.get(key)
        if field is None:
            raise InputError("model", f"a GGUF file with the array field {key}", f"{self.path} without it")
        gguf = module("gguf")
        if field.types and field.types[-1] == gguf.GGUFValueType.STRING:
            return [bytes(field.parts[i]).decode("utf-8") for i in field.data]
        return [field.parts[i].tolist()[0] for i in field.data]

    def sha256(self) -> str:
        if self._sha256 is None:
            self._sha256 = file_sha256(self.path)
        return self._sha256

    def dequantize(self, name: str) -> Any:
        """The tensor as float32, shaped as NumPy orders it (``tensors[name].shape``)."""
        import numpy as np
        quants = module("gguf.quants")
        for t in self._reader.tensors:
            if t.name == name:
                return np.asarray(quants.dequantize(t.data, t.tensor_type), dtype=np.float32).reshape(self.tensors[name].shape)
        raise InputError("model", f"a GGUF file with the tensor {name}", f"{self.path} without it")

    def vocabulary(self) -> Vocabulary:
        def optional_int(key: str) -> Optional[int]:
            v = self.fields.get(key)
            return None if v is None else int(v)
        has = self._reader.fields
        return Vocabulary(
            model=str(self.field("tokenizer.ggml.model")), pre=str(self.fields.get("tokenizer.ggml.pre", "default")),
            tokens=tuple(self.array("tokenizer.ggml.tokens")),
            types=tuple(int(t) for t in self.array("tokenizer.ggml.token_type")),
            scores=tuple(float(s) for s in self.array("tokenizer.ggml.scores")) if "tokenizer.ggml.scores" in has else (),
            merges=tuple(self.array("tokenizer.ggml.merges")) if "tokenizer.ggml.merges" in has else (),
            bos_id=optional_int("tokenizer.ggml.bos_token_id"), eos_id=optional_int("tokenizer.ggml.eos_token_id"),
            unk_id=optional_int("tokenizer.ggml.unknown_token_id"), pad_id=optional_int("tokenizer.ggml.padding_token_id"),
            add_bos=bool(self.fields.get("tokenizer.ggml.add_bos_token", False)),
            add_space_prefix=bool(self.fields.get("tokenizer.ggml.add_space_prefix", False)))


def file_sha256(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()
