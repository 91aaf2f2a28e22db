"""The families ropecheck.lm measures, one file each; a new one is its file plus one line here
(CONTRIBUTING.md, "Adding a model family")."""

from __future__ import annotations

from .._family import Family
from . import gemma3, llama

#: Every family, by name.
FAMILIES: dict[str, Family] = {f.name: f for f in (llama.FAMILY, gemma3.FAMILY)}


def by_architecture(architecture: str) -> Family:
    """The family of a GGUF ``general.architecture``; KeyError when none."""
    for f in FAMILIES.values():
        if f.architecture == architecture:
            return f
    raise KeyError(architecture)


def by_model_type(model_type: str) -> Family:
    """The family of a transformers ``config.model_type``; KeyError when none."""
    for f in FAMILIES.values():
        if model_type in f.model_types:
            return f
    raise KeyError(model_type)
