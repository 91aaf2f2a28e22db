"""Head ablations measured as next-token loss: what a set of attention heads is for (the paper's
open question of why Gemma learns diagonal and previous-token heads; docs/usage.md, "Head
ablations as loss"). A measurement on the given sequences, never a certificate.

A head is **mean-ablated**: its output (its slice of the input of the layer's output projection,
``o_proj``, before the heads are mixed) is replaced at every position by its mean over every
position of the given sequences as trained, so that the head keeps its average contribution and
loses what it computes from the context. A set of heads is compared with a **random control** of
the same number of heads in each of the same layers (none of the set's), drawn by sha256 of the
seed, the layer and the head (``random_heads``: the same control on every machine), or, for a set
that holds more than half of some layer, as many heads drawn from the other heads of the same
layers taken together (``pooled``): a set whose ablation costs more than its control's matters
beyond the number of heads removed.

Losses are per sequence (the mean over its targets) and differences are paired (the same
sequences) with Student t-intervals over sequences, each also at the Bonferroni level of the
call's family of comparisons (``ropecheck.lm.losses``' statistics).
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import re
import time
from typing import Any, Callable, Iterator, Mapping, Optional, Sequence

import torch

from .. import _arguments as args
from .._errors import InputError
from .._statistics import T_INTERVAL_METHOD, MeanInterval, bonferroni_family, mean_interval
from .losses import CORRECTION, _mean, _next_token_losses, _per_target_values, _sequences

#: A head: (layer, query head).
Head = tuple[int, int]

_OUTPUT = re.compile(r"(^|\.)layers\.(\d+)\.(self_attn|attention)\.(o_proj|dense)$")


def output_projections(model: Any) -> dict[int, torch.nn.Module]:
    """Layer index -> the module whose input is the layer's concatenated head outputs
    (``layers.<i>.self_attn.o_proj``, or ``attention.dense`` for GPT-NeoX). InputError naming
    ``model`` when there is none."""
    out: dict[int, torch.nn.Module] = {}
    for name, module in model.named_modules():
        m = _OUTPUT.search(name)
        if m is not None:
            out[int(m.group(2))] = module
    if not out:
        raise InputError("model", "a model with an output projection per attention layer (layers.<i>.self_attn.o_proj)",
                         "no such module")
    return out


def _heads_of(model: Any) -> int:
    for owner in (getattr(getattr(model, "config", None), "text_config", None), getattr(model, "config", None)):
        h = getattr(owner, "num_attention_heads", None)
        if isinstance(h, int) and h > 0:
            return h
    raise InputError("model", "a model whose config gives num_attention_heads", "none")


def _checked_heads(heads: Any, layers: Mapping[int, Any], n_heads: int, name: str) -> tuple[Head, ...]:
    if isinstance(heads, (str, bytes)) or not isinstance(heads, Sequence) or not heads:
        raise InputError(name, "a non-empty sequence of (layer, head) pairs", repr(heads)[:60])
    out = []
    for h in heads:
        if not isinstance(h, (tuple, list)) or len(h) != 2:
            raise InputError(name, "(layer, head) pairs", repr(h)[:60])
        layer = args.integer(name, h[0], 0, 1 << 20)
        head = args.integer(name, h[1], 0, n_heads - 1)
        if layer not in layers:
            raise InputError(name, f"layers among the model's attention layers (0-{max(layers)})", str(layer))
        out.append((layer, head))
    if len(set(out)) != len(out):
        raise InputError(name, "each (layer, head) once", repr(out)[:60])
    return tuple(sorted(out))


def random_heads(heads: Sequence[Head], n_heads: int, *, seed: int = 0, pooled: bool = False) -> tuple[Head, ...]:
    """The random control of a set of heads: in each layer of the set, as many other heads of that
    layer, the first by sha256("ropecheck-heads:<seed>:<layer>:<head>"). InputError naming
    ``heads`` when a layer holds more than half its heads in the set (no disjoint control).
    ``pooled``: as many heads in all, from the other heads of the set's layers taken together (the
    first by the same sha256 rank): the same layers, not as many per layer, for a set that crowds
    some layer; InputError when those layers hold fewer others than the set has heads."""
    seed = args.integer("seed", seed, 0, (1 << 63) - 1)
    by_layer: dict[int, list[int]] = {}
    for layer, head in heads:
        by_layer.setdefault(layer, []).append(head)

    def rank(layer: int, h: int) -> bytes:
        return hashlib.sha256(f"ropecheck-heads:{seed}:{layer}:{h}".encode()).digest()
    out: list[Head] = []
    if pooled:
        others = [(layer, h) for layer, own in by_layer.items() for h in range(n_heads) if h not in set(own)]
        if len(others) < len(heads):
            raise InputError("heads", f"a set whose layers hold as many other heads ({len(heads)})",
                             f"{len(others)} others in its {len(by_layer)} layers")
        return tuple(sorted(sorted(others, key=lambda x: rank(*x))[:len(heads)]))
    for layer, own in sorted(by_layer.items()):
        others_here = [h for h in range(n_heads) if h not in set(own)]
        if len(others_here) < len(own):
            raise InputError("heads", f"at most half of a layer's {n_heads} heads (a control of as many others)",
                             f"{len(own)} in layer {layer}")
        out += [(layer, h) for h in sorted(others_here, key=lambda h: rank(layer, h))[:len(own)]]
    return tuple(sorted(out))


def _slices(x: torch.Tensor, n_heads: int) -> torch.Tensor:
    """[..., heads * width] -> [..., heads, width] (a view)."""
    if x.shape[-1] % n_heads:
        raise InputError("model", f"an output projection whose input width is a multiple of the {n_heads} heads",
                         str(x.shape[-1]))
    return x.view(*x.shape[:-1], n_heads, x.shape[-1] // n_heads)


def head_means(model: Any, sequences: Any, heads: Sequence[Head],
               loss: Optional[Callable[[Any, Any], Any]] = None) -> dict[Head, torch.Tensor]:
    """Each head's mean output over every position of `sequences` as trained (float64; the input
    of its layer's output projection, its slice), one forward pass per sequence in no_grad,
    through `loss` (``head_ablation_losses``' own, so the passes cost what its measurements do)."""
    projections = output_projections(model)
    n_heads = _heads_of(model)
    wanted = _checked_heads(heads, projections, n_heads, "heads")
    sums: dict[Head, torch.Tensor] = {}
    counts: dict[int, int] = {}

    def hook(layer: int) -> Callable[[Any, Any], None]:
        def record(module: Any, inputs: Any) -> None:
            x = _slices(inputs[0], n_heads)
            flat = x.reshape(-1, n_heads, x.shape[-1]).double()
            counts[layer] = counts.get(layer, 0) + flat.shape[0]
            for lay, h in wanted:
                if lay == layer:
                    s = flat[:, h].sum(0)
                    sums[(lay, h)] = sums[(lay, h)] + s if (lay, h) in sums else s
        return record
    handles = [projections[layer].register_forward_pre_hook(hook(layer)) for layer in sorted({L for L, _ in wanted})]
    try:
        with torch.no_grad():
            for ids in _sequences(sequences):
                (loss or _next_token_losses)(model, ids[None].to(next(model.parameters()).device))
    finally:
        for handle in handles:
            handle.remove()
    return {h: sums[h] / counts[h[0]] for h in wanted}


@contextlib.contextmanager
def head_ablation(model: Any, means: Mapping[Head, torch.Tensor]) -> Iterator[tuple[Head, ...]]:
    """Inside the block, each head of `means` outputs its mean (``head_means``) at every position:
    a forward pre-hook on its layer's output projection replaces its slice. Restored on exit."""
    projections = output_projections(model)
    n_heads = _heads_of(model)
    heads = _checked_heads(list(means), projections, n_heads, "means")

    def hook(layer: int) -> Callable[[Any, Any], Any]:
        mine = [(h, means[(layer, h)]) for lay, h in heads if lay == layer]

        def replace(module: Any, inputs: Any) -> Any:
            x = inputs[0].clone()
            view = _slices(x, n_heads)
            for h, mean in mine:
                if mean.shape != (view.shape[-1],):
                    raise InputError("means", f"per head a vector of the head's width {view.shape[-1]}", f"shape {tuple(mean.shape)}")
                view[..., h, :] = mean.to(x.dtype).to(x.device)
            return (x,) + tuple(inputs[1:])
        return replace
    handles = [projections[layer].register_forward_pre_hook(hook(layer)) for layer in sorted({L for L, _ in heads})]
    try:
        yield heads
    finally:
        for handle in handles:
            handle.remove()


@dataclasses.dataclass(frozen=True)
class HeadAblationRow:
    """One set of heads mean-ablated: its loss and the paired difference with the model as trained.

    Attributes
    ----------
    name : str
    heads : tuple of (layer, head)
    loss, difference : MeanInterval
        Over sequences; the difference per sequence, ablated minus as trained, at ``level``.
    simultaneous : MeanInterval
        The difference at the call's Bonferroni level.
    per_sequence : tuple of float
    """

    name: str
    heads: tuple[Head, ...]
    loss: MeanInterval
    difference: MeanInterval
    simultaneous: MeanInterval
    per_sequence: tuple[float, ...]

    @property
    def significant_simultaneous(self) -> bool:
        """Whether the simultaneous interval of the difference excludes 0."""
        return bool(self.simultaneous.excludes_zero)

    def to_dict(self) -> dict[str, Any]:
        """Every field (JSON-ready)."""
        return {"name": self.name, "heads": [list(h) for h in self.heads], "loss": self.loss.to_dict(),
                "difference": self.difference.to_dict(), "simultaneous": self.simultaneous.to_dict(),
                "significant": bool(self.difference.excludes_zero), "significant_simultaneous": self.significant_simultaneous,
                "per_sequence": list(self.per_sequence)}


@dataclasses.dataclass(frozen=True)
class HeadAblationLosses:
    """Next-token loss as trained and with each set of heads mean-ablated, on the same sequences
    (a measurement on them: ``sequences`` is every interval's sample size)."""

    sequences: int
    tokens: tuple[int, ...]
    level: float
    comparisons: int
    simultaneous_level: float
    method: str
    as_trained: MeanInterval
    as_trained_per_sequence: tuple[float, ...]
    rows: tuple[HeadAblationRow, ...]
    seconds: float

    def row(self, name: str) -> HeadAblationRow:
        """The row named `name`; KeyError when there is none."""
        for r in self.rows:
            if r.name == name:
                return r
        raise KeyError(name)

    def to_dict(self) -> dict[str, Any]:
        """Every number (JSON-ready)."""
        return {"measurement": "next-token loss on the given sequences, not a certificate",
                "ablation": "mean ablation: each head's output replaced by its mean over every position of these sequences",
                "sequences": self.sequences, "tokens": list(self.tokens), "level": self.level, "comparisons": self.comparisons,
                "simultaneous_level": self.simultaneous_level, "correction": CORRECTION, "method": self.method,
                "as_trained": self.as_trained.to_dict(), "as_trained_per_sequence": list(self.as_trained_per_sequence),
                "rows": [r.to_dict() for r in self.rows], "seconds": self.seconds}


def head_ablation_losses(model: Any, sequences: Any, sets: Sequence[tuple[str, Sequence[Head]]], *, level: float = 0.95,
                         loss: Optional[Callable[[Any, Any], Any]] = None, comparisons: Optional[int] = None,
                         log: Optional[Callable[[str], None]] = None) -> HeadAblationLosses:
    """Next-token loss of a model as trained and with each named set of heads mean-ablated.

    Parameters
    ----------
    model : torch.nn.Module
        In eval mode, with an output projection per attention layer (``output_projections``).
    sequences : as ``ablation_losses``' (at least 2 sequences of at least 2 tokens)
    sets : sequence of (name, heads)
        Distinct names; heads as (layer, query head) pairs. Every set's means come from one pass
        over ``sequences`` as trained.
    level : float
        In [0.5, 0.999999].
    loss : callable, optional
        ``loss(model, input_ids)`` -> per-target losses [tokens - 1] (default: the cross entropy of
        ``model(input_ids)``'s logits, as ``ablation_losses``).
    comparisons : int, optional
        The family of the simultaneous intervals (default: the call's sets).
    log : callable, optional

    Raises
    ------
    InputError
        Naming the parameter: ``model`` (training mode, no output projections), ``sequences``,
        ``sets`` (empty, repeated names, bad heads), ``level``, ``loss``, ``comparisons``, ``log``.
    """
    seqs = _sequences(sequences)
    if isinstance(sets, (str, bytes)) or not isinstance(sets, Sequence) or not sets:
        raise InputError("sets", "a non-empty sequence of (name, heads)", repr(sets)[:60])
    projections = output_projections(model)
    n_heads = _heads_of(model)
    named: list[tuple[str, tuple[Head, ...]]] = []
    for item in sets:
        if not isinstance(item, (tuple, list)) or len(item) != 2 or not isinstance(item[0], str) or not item[0]:
            raise InputError("sets", "(name, heads) pairs with a non-empty name", repr(item)[:60])
        named.append((item[0], _checked_heads(item[1], projections, n_heads, "sets")))
    if len({n for n, _ in named}) != len(named):
        raise InputError("sets", "distinct names", repr([n for n, _ in named])[:60])
    if isinstance(level, bool) or not isinstance(level, (int, float)) or not 0.5 <= level <= 0.999999:
        raise InputError("level", "a confidence level in [0.5, 0.999999]", repr(level))
    family, joint = bonferroni_family(level, len(named), comparisons)
    if loss is not None and not callable(loss):
        raise InputError("loss", "a callable loss(model, input_ids) -> per-target losses", type(loss).__name__)
    if log is not None and not callable(log):
        raise InputError("log", "a callable taking one line of text", type(log).__name__)
    if model.training:
        raise InputError("model", "a model in eval mode (model.eval(): dropout off)", "a model in training mode")
    per_target = loss if loss is not None else _next_token_losses
    device = next(model.parameters()).device
    started = time.perf_counter()
    means = head_means(model, seqs, sorted({h for _, hs in named for h in hs}), per_target)

    def measure(ids: torch.Tensor) -> float:
        values = _per_target_values(per_target(model, ids[None].to(device)), ids.numel())
        if not bool(torch.isfinite(values).all()):
            raise InputError("loss", "finite per-target losses", f"{int((~torch.isfinite(values)).sum())} not finite")
        return _mean(values)

    base: list[float] = []
    ablated: dict[str, list[float]] = {n: [] for n, _ in named}
    with torch.no_grad():
        for i, ids in enumerate(seqs):
            base.append(measure(ids))
            for n, hs in named:
                with head_ablation(model, {h: means[h] for h in hs}):
                    ablated[n].append(measure(ids))
            if log is not None:
                log(f"sequence {i + 1}/{len(seqs)}: as trained {base[-1]:.4f}" + "".join(f", {n} {ablated[n][-1]:.4f}" for n, _ in named))
    rows = []
    for n, hs in named:
        diff = [a - b for a, b in zip(ablated[n], base)]
        rows.append(HeadAblationRow(n, hs, mean_interval(ablated[n], level), mean_interval(diff, level),
                                    mean_interval(diff, joint), tuple(ablated[n])))
    return HeadAblationLosses(len(seqs), tuple(s.numel() for s in seqs), float(level), family, joint, T_INTERVAL_METHOD,
                              mean_interval(base, level), tuple(base), tuple(rows), time.perf_counter() - started)


__all__ = ["Head", "HeadAblationLosses", "HeadAblationRow", "head_ablation", "head_ablation_losses", "head_means",
           "output_projections", "random_heads"]

