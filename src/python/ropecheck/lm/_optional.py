"""The PyPI packages ropecheck.lm needs beyond NumPy and torch (gguf, transformers, sentencepiece,
tokenizers, regex), imported on first use by name so that ``import ropecheck.lm`` needs none of them
and mypy checks the package without them (they are typed Any here). scripts/python-env installs
every one at the version it pins."""

from __future__ import annotations

import importlib
from typing import Any

from .._errors import InputError


def module(name: str) -> Any:
    """The module `name`; InputError naming ``model`` (what needs it) when it is not installed."""
    try:
        return importlib.import_module(name)
    except ImportError as e:
        package = name.split(".")[0]
        raise InputError("model", f"the Python package {package} installed (scripts/python-env installs the pinned one)",
                         f"not importable: {e}") from None
