"""A model's run as typed results: ``Run`` (what ``ropecheck.lm.measure.run`` returns, and
``read_run(dir)`` reads back from a run's run.json), frozen dataclasses down to every summary, each
read from the run's JSON by its field names (``to_dict()`` gives that JSON back).

Only the headline parts are typed here (the facts, the checks, the per-layer-type summaries, the
ablation rows); ``data`` keeps the whole document, per domain and per head included.
"""

from __future__ import annotations

import dataclasses
import json
import os
import types
import typing
from typing import Any, Mapping, Optional, Union

from .._errors import InputError
from .._statistics import MeanInterval
from ._model import ModelFacts
from .summaries import LayerTypeSummary


def from_dict(cls: Any, data: Any) -> Any:
    """`data` (JSON as json.load gives it) as an instance of `cls`: dataclasses field by field
    (unknown keys ignored), tuple[X, ...] and Optional[X] recursively, anything else as it is."""
    origin = typing.get_origin(cls)
    if origin in (Union, types.UnionType):
        args = [a for a in typing.get_args(cls) if a is not type(None)]
        return None if data is None else from_dict(args[0], data)
    if origin is tuple:
        items = typing.get_args(cls)
        if len(items) == 2 and items[1] is Ellipsis:
            return tuple(from_dict(items[0], x) for x in data)
        return tuple(from_dict(a, x) for a, x in zip(items, data))
    if dataclasses.is_dataclass(cls) and isinstance(cls, type):
        hints = typing.get_type_hints(cls)
        return cls(**{f.name: from_dict(hints[f.name], data.get(f.name)) for f in dataclasses.fields(cls) if f.init})
    return data


@dataclasses.dataclass(frozen=True)
class Checks:
    """The run's proofs that it measured the model: tokenization (``passed``: the model's tokenizer
    gives the vocabulary's own segmentation; None for a model not loaded from GGUF), weights (None
    likewise), attention (every head within the float32 bound), control (rejected by the check),
    the fast path's loss against eager."""

    tokenization: Optional[bool]
    transformers_tokenizer_agrees: Optional[bool]
    weights: Optional[bool]
    attention: bool
    attention_heads: int
    attention_max_ratio: Optional[float]
    control_rejected: Optional[bool]
    loss_agreement: Optional[float]

    @property
    def passed(self) -> bool:
        return (self.tokenization is not False and self.weights is not False and self.attention
                and self.control_rejected is not False)


@dataclasses.dataclass(frozen=True)
class AblationRowResult:
    """One (band, mode) at one length: loss and paired difference over sequences; ``significant``
    for this comparison alone, ``significant_simultaneous`` after the Bonferroni correction over
    the run's comparisons (None in a run.json written before the correction)."""

    band: str
    mode: str
    loss: MeanInterval
    difference: MeanInterval
    significant: bool
    simultaneous: Optional[MeanInterval] = None
    significant_simultaneous: Optional[bool] = None


@dataclasses.dataclass(frozen=True)
class AblationLength:
    """The ablations at one length."""

    length: int
    sequences: int
    of_context: float
    as_trained: MeanInterval
    rows: tuple[AblationRowResult, ...]


@dataclasses.dataclass(frozen=True)
class Run:
    """One model's run (run.json), typed.

    Attributes
    ----------
    facts : ModelFacts
    checks : Checks
    layer_types : tuple of LayerTypeSummary
    ablations : tuple of AblationLength
    timings : mapping of stage -> seconds
    versions : mapping of package -> version
    command : str
    data : mapping
        The whole run.json.
    """

    facts: ModelFacts
    checks: Checks
    layer_types: tuple[LayerTypeSummary, ...]
    ablations: tuple[AblationLength, ...]
    timings: Mapping[str, float]
    versions: Mapping[str, str]
    command: str
    data: Mapping[str, Any] = dataclasses.field(repr=False, compare=False)

    def layer_type(self, name: str) -> LayerTypeSummary:
        for t in self.layer_types:
            if t.name == name:
                return t
        raise KeyError(name)

    def to_dict(self) -> dict[str, Any]:
        """The run.json document (a copy)."""
        out: dict[str, Any] = json.loads(json.dumps(self.data))
        return out


def run_from_json(doc: Mapping[str, Any]) -> Run:
    """A run.json document as a Run."""
    tok = doc["tokenization"]
    c = doc["check"]
    ctl = (tok.get("transformers_control") or {}) if tok.get("check") else {}
    agreement = (doc["ablations"].get("loss_agreement") or {}).get("difference")
    checks = Checks(tokenization=None if tok.get("check") is None else bool(tok["check"]["agree"]),
                    transformers_tokenizer_agrees=None if "agree" not in ctl else bool(ctl["agree"]),
                    weights=None if doc["weights"] is None else bool(doc["weights"]["passed"]), attention=bool(c["passed"]),
                    attention_heads=int(c["heads_checked"]), attention_max_ratio=c["max_ratio"],
                    control_rejected=None if c.get("control") is None else bool(c["control"]["rejected"]), loss_agreement=agreement)
    return Run(facts=from_dict(ModelFacts, doc["facts"]), checks=checks,
               layer_types=tuple(from_dict(LayerTypeSummary, t) for t in doc["layer_types"]),
               ablations=tuple(from_dict(AblationLength, r) for r in doc["ablations"]["lengths"]), timings=dict(doc["timings"]),
               versions=dict(doc["versions"]), command=str(doc["command"]), data=doc)


def read_run(path: Union[str, os.PathLike[str]]) -> Run:
    """A run written by ``ropecheck.lm.measure.run`` (scripts/real-model), as typed results.

    Parameters
    ----------
    path : str or path
        The run's directory (DIR/<model>/), or its run.json.

    Returns
    -------
    Run

    Raises
    ------
    InputError
        ``path``: not a run directory, or a run.json that does not parse.
    """
    p = os.fspath(path)
    file = os.path.join(p, "run.json") if os.path.isdir(p) else p
    try:
        with open(file) as f:
            doc = json.load(f)
        return run_from_json(doc)
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise InputError("path", "a run directory written by ropecheck.lm.measure (its run.json)", f"{p}: {type(e).__name__}: {e}") from None
