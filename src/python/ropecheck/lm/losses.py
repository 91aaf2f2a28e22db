"""Band ablations measured as next-token loss (ropecheck.torch re-exports the public names under their
first home; docs/usage.md, "Band ablations as loss"): the model as trained and under each (band,
mode) of ropecheck.lm.bands on the same sequences, with paired differences and Student t-intervals
over sequences. A measurement on the given text, never a certificate.
"""

from __future__ import annotations

import dataclasses
import inspect
import math
import time
from typing import Any, Callable, Optional, Sequence, Union

import torch

from .. import _arguments as args
from .._errors import InputError
from .._statistics import T_INTERVAL_METHOD, MeanInterval, bonferroni_family, mean_interval
from . import attention as blocked
from .bands import BANDS, CONTROL, MODES, _plan, band_ablation

def _takes(fn: Any, name: str) -> bool:
    try:
        return name in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False


def _next_token_losses(model: Any, input_ids: torch.Tensor) -> torch.Tensor:
    """Per-target cross entropy (nats) of model(input_ids)'s logits: target t from tokens < t."""
    kwargs = {"use_cache": False} if _takes(model.forward, "use_cache") else {}
    out = model(input_ids, **kwargs)
    logits = getattr(out, "logits", None)
    if logits is None:
        logits = out[0] if isinstance(out, (tuple, list)) and out else out
    tokens = input_ids.shape[1]
    if not isinstance(logits, torch.Tensor) or logits.dim() != 3 or tuple(logits.shape[:2]) != (1, tokens):
        got = f"a tensor of shape {tuple(logits.shape)}" if isinstance(logits, torch.Tensor) else type(logits).__name__
        raise InputError("loss", "a callable for this model: the default reads model(input_ids)'s logits [1, tokens, vocab] "
                         "(a tensor, a tuple's first element or an output's .logits)", f"model returned {got}")
    return torch.nn.functional.cross_entropy(logits[0, :-1].float(), input_ids[0, 1:], reduction="none")


def _int_rows(value: Any, name: str, dtype_kind: str) -> list[torch.Tensor]:
    """A 2-D tensor/array or a sequence of 1-D ones as a list of 1-D CPU tensors."""
    rows: Optional[list[torch.Tensor]]
    if isinstance(value, torch.Tensor):
        rows = [r for r in value.detach().cpu()] if value.dim() == 2 else None
    else:
        np = args.numpy()
        if isinstance(value, np.ndarray) and value.ndim == 2:
            rows = [torch.from_numpy(np.ascontiguousarray(r)) for r in value]
        elif isinstance(value, Sequence) and not isinstance(value, (str, bytes)):
            rows = []
            for r in value:
                try:
                    rows.append(r.detach().cpu() if isinstance(r, torch.Tensor) else torch.as_tensor(np.asarray(r)))
                except (TypeError, ValueError, RuntimeError):
                    raise InputError(name, f"sequences of {dtype_kind}", repr(r)[:60]) from None
        else:
            rows = None
    if rows is None:
        raise InputError(name, f"a 2-D tensor or array, or a sequence of 1-D sequences of {dtype_kind}", type(value).__name__)
    for i, r in enumerate(rows):
        if r.dim() != 1:
            raise InputError(name, "one-dimensional rows", f"{name}[{i}] of shape {tuple(r.shape)}")
    return rows


def _sequences(sequences: Any) -> list[torch.Tensor]:
    rows = _int_rows(sequences, "sequences", "token ids")
    if len(rows) < 2:
        raise InputError("sequences", "at least 2 sequences (an interval over sequences needs 2)", str(len(rows)))
    out = []
    for i, r in enumerate(rows):
        if r.dtype.is_floating_point or r.dtype.is_complex or r.dtype == torch.bool:
            raise InputError("sequences", "integer token ids", f"sequences[{i}] of {r.dtype}")
        if r.numel() < 2:
            raise InputError("sequences", "sequences of at least 2 tokens (one next-token target)", f"sequences[{i}] of {r.numel()}")
        if int(r.min()) < 0:
            raise InputError("sequences", "token ids >= 0", f"sequences[{i}] holds {int(r.min())}")
        out.append(r.to(torch.int64))
    return out


def _masks(mask: Any, seqs: list[torch.Tensor]) -> list[torch.Tensor]:
    if mask is None:
        return [torch.ones(s.numel(), dtype=torch.bool) for s in seqs]
    rows = _int_rows(mask, "mask", "booleans")
    if len(rows) != len(seqs):
        raise InputError("mask", f"one row per sequence ({len(seqs)})", f"{len(rows)} rows")
    out = []
    for i, (m, s) in enumerate(zip(rows, seqs)):
        if m.dtype != torch.bool:
            raise InputError("mask", "booleans (True: the target at that position counts)", f"mask[{i}] of {m.dtype}")
        if m.numel() != s.numel():
            raise InputError("mask", "rows as long as their sequences", f"mask[{i}] has {m.numel()}, sequences[{i}] {s.numel()}")
        if not bool(m[1:].any()):
            raise InputError("mask", "at least one counted target (position >= 1) per sequence", f"none in mask[{i}]")
        out.append(m)
    return out


def _buckets(position_buckets: Any) -> Optional[tuple[int, ...]]:
    if position_buckets is None:
        return None
    accepted = "a strictly increasing sequence of at least 2 integers >= 0 (bucket i: targets at positions e[i] <= t < e[i+1])"
    if not isinstance(position_buckets, Sequence) or isinstance(position_buckets, (str, bytes)) or len(position_buckets) < 2:
        raise InputError("position_buckets", accepted, repr(position_buckets)[:60])
    edges = [args.integer("position_buckets", e, 0, 1 << 40) for e in position_buckets]
    if any(b <= a for a, b in zip(edges, edges[1:])):
        raise InputError("position_buckets", accepted, repr(edges)[:60])
    return tuple(edges)


@dataclasses.dataclass(frozen=True)
class BucketLoss:
    """The loss over the targets at positions ``start <= t < stop`` (t: the position of the
    predicted token), per sequence then over sequences.

    Attributes
    ----------
    start, stop : int
    loss : MeanInterval or None
        Over the sequences with a counted target in the bucket (None: no such sequence).
    difference : MeanInterval or None
        Paired with the model as trained on the same sequences: ablated minus as trained (None for
        the model as trained, or no such sequence).
    simultaneous : MeanInterval or None
        The same difference at the family's Bonferroni level (``AblationLosses.simultaneous_level``).
    """

    start: int
    stop: int
    loss: Optional[MeanInterval]
    difference: Optional[MeanInterval]
    simultaneous: Optional[MeanInterval] = None

    def to_dict(self) -> dict[str, Any]:
        """start, stop, loss, difference, simultaneous (JSON-ready)."""
        def d(m: Optional[MeanInterval]) -> Optional[dict[str, Any]]:
            return None if m is None else m.to_dict()
        return {"start": self.start, "stop": self.stop, "loss": d(self.loss), "difference": d(self.difference),
                "simultaneous": d(self.simultaneous)}


@dataclasses.dataclass(frozen=True)
class AblationRow:
    """One (band, mode): its loss and its paired difference with the model as trained.

    Attributes
    ----------
    band, mode : str
    pairs, channels : tuple of int
        The band's pairs (fastest first) and head channels.
    loss : MeanInterval
        The per-sequence mean loss under the ablation, over sequences.
    difference : MeanInterval
        Per sequence: ablated minus as trained (paired: the same sequence); over sequences. Its
        interval is at ``level`` for this comparison alone.
    simultaneous : MeanInterval
        The same difference with its interval at the family's Bonferroni level
        (``AblationLosses.simultaneous_level``): every simultaneous interval of the family holds
        together with probability at least ``level``.
    per_sequence : tuple of float
        The per-sequence mean losses under the ablation.
    buckets : tuple of BucketLoss
        Per position bucket (empty without ``position_buckets``).
    first_token_mass, first_token_difference : MeanInterval or None
        With ``ablation_losses(first_token_mass=True)``: per sequence, the attention weight on the
        first token (mean over layers, heads and query rows after the first) under the ablation,
        and its paired difference with the model as trained, over sequences; else None.
    """

    band: str
    mode: str
    pairs: tuple[int, ...]
    channels: tuple[int, ...]
    loss: MeanInterval
    difference: MeanInterval
    simultaneous: MeanInterval
    per_sequence: tuple[float, ...]
    buckets: tuple[BucketLoss, ...]
    first_token_mass: Optional[MeanInterval] = None
    first_token_difference: Optional[MeanInterval] = None

    @property
    def name(self) -> str:
        """``band-mode``, e.g. ``slow-still``."""
        return f"{self.band}-{self.mode}"

    @property
    def significant(self) -> bool:
        """Whether the difference's interval excludes 0 (the two-sided t-test at 1 - level, this
        comparison alone)."""
        return bool(self.difference.excludes_zero)

    @property
    def significant_simultaneous(self) -> bool:
        """Whether the simultaneous interval excludes 0: the difference stands after the Bonferroni
        correction for the family's comparisons."""
        return bool(self.simultaneous.excludes_zero)

    def to_dict(self) -> dict[str, Any]:
        """Every field (JSON-ready), with ``significant`` and ``significant_simultaneous``."""
        return {"band": self.band, "mode": self.mode, "pairs": list(self.pairs), "channels": list(self.channels),
                "loss": self.loss.to_dict(), "difference": self.difference.to_dict(), "significant": self.significant,
                "simultaneous": self.simultaneous.to_dict(), "significant_simultaneous": self.significant_simultaneous,
                "per_sequence": list(self.per_sequence), "buckets": [b.to_dict() for b in self.buckets],
                "first_token_mass": None if self.first_token_mass is None else self.first_token_mass.to_dict(),
                "first_token_difference": None if self.first_token_difference is None else self.first_token_difference.to_dict()}


@dataclasses.dataclass(frozen=True)
class AblationLosses:
    """Next-token loss of a model as trained and under band ablations, on the same sequences.

    Every number is a measurement on the given sequences: a sequence's loss is the mean over its
    counted targets, and intervals are over sequences (``method``), so the sequences should be
    independent draws of the text of interest.

    Attributes
    ----------
    sequences : int
        The sample size of every interval (of a bucket's: ``n`` of its interval).
    tokens, targets : tuple of int
        Per sequence: its tokens, its counted targets.
    level : float
        The intervals' confidence level.
    comparisons : int
        The paired differences tested together (the family): every row and every row's bucket of
        this call, or the caller's larger family (``ablation_losses(comparisons=...)``).
    simultaneous_level : float
        1 - (1 - level) / comparisons: the level of each ``simultaneous`` interval (Bonferroni).
    method : str
        What the intervals are, and when they are exact.
    loss : str
        What a target's loss is.
    as_trained : MeanInterval
        The per-sequence mean loss of the model as trained, over sequences.
    as_trained_per_sequence : tuple of float
    rows : tuple of AblationRow
        One per (band, mode), in the order measured.
    buckets : tuple of BucketLoss
        The model as trained per position bucket (empty without ``position_buckets``).
    as_trained_first_token_mass : MeanInterval or None
        The first-token attention weight of the model as trained (``first_token_mass=True``).
    seconds : float
        Wall time of the measurement.
    """

    sequences: int
    tokens: tuple[int, ...]
    targets: tuple[int, ...]
    level: float
    comparisons: int
    simultaneous_level: float
    method: str
    loss: str
    as_trained: MeanInterval
    as_trained_per_sequence: tuple[float, ...]
    rows: tuple[AblationRow, ...]
    buckets: tuple[BucketLoss, ...]
    seconds: float
    as_trained_first_token_mass: Optional[MeanInterval] = None

    def row(self, band: str, mode: str) -> AblationRow:
        """The row of (band, mode); KeyError when it was not measured."""
        for r in self.rows:
            if (r.band, r.mode) == (band, mode):
                return r
        raise KeyError(f"{band}-{mode} was not measured")

    def to_dict(self) -> dict[str, Any]:
        """Every number (JSON-ready)."""
        return {"measurement": "next-token loss on the given sequences, not a certificate", "sequences": self.sequences,
                "tokens": list(self.tokens), "targets": list(self.targets), "level": self.level, "comparisons": self.comparisons,
                "simultaneous_level": self.simultaneous_level, "correction": CORRECTION, "method": self.method,
                "loss": self.loss, "as_trained": self.as_trained.to_dict(),
                "as_trained_per_sequence": list(self.as_trained_per_sequence), "rows": [r.to_dict() for r in self.rows],
                "buckets": [b.to_dict() for b in self.buckets], "seconds": self.seconds,
                "as_trained_first_token_mass": (None if self.as_trained_first_token_mass is None
                                                else self.as_trained_first_token_mass.to_dict())}

    def __str__(self) -> str:
        pct = f"{100 * self.level:g}%"
        lines = [f"next-token loss on {self.sequences} sequences (mean ± {pct} t-interval half-width; measured)",
                 f"{'as trained':<16} {self.as_trained.text()}",
                 f"{'ablation':<16} {'loss':<20} difference (paired)"]
        for r in self.rows:
            mark = " **" if r.significant_simultaneous else " *" if r.significant else ""
            lines.append(f"{r.name:<16} {r.loss.text():<20} {r.difference.text(signed=True)}{mark}")
        lines.append(f"*: the {pct} interval of the difference excludes 0; **: so does its simultaneous interval "
                     f"(Bonferroni over {self.comparisons} comparisons, each at {100 * self.simultaneous_level:.4g}%)")
        return "\n".join(lines)


#: One ablation to measure: (band, mode, pairs) with pairs None for a band, the control's pair
#: indices for CONTROL.
_Ablation = tuple[str, str, Optional[tuple[int, ...]]]


def _ablation_pairs(bands: Any, modes: Any, ablations: Any) -> list[_Ablation]:
    if ablations is not None:
        if bands is not None or modes is not None:
            raise InputError("ablations", "None when bands or modes is given (ablations names the (band, mode) pairs itself)",
                             repr(ablations)[:60])
        if isinstance(ablations, (str, bytes)) or not isinstance(ablations, Sequence) or not ablations:
            raise InputError("ablations", "a non-empty sequence of (band, mode) pairs", repr(ablations)[:60])
        out = []
        for a in ablations:
            if not isinstance(a, (tuple, list)) or len(a) not in (2, 3) or (len(a) == 3) != (a[0] == CONTROL):
                raise InputError("ablations", f"(band, mode) pairs, e.g. (\"slow\", \"still\"), or ({CONTROL!r}, mode, pair "
                                 "indices) for a control", repr(a)[:60])
            chosen: Optional[tuple[int, ...]] = None
            if len(a) == 3:
                if isinstance(a[2], (str, bytes)) or not isinstance(a[2], Sequence) or not a[2]:
                    raise InputError("ablations", "a control's pair indices: a non-empty sequence of ints", repr(a[2])[:60])
                chosen = tuple(args.integer("ablations", j, 0, 1 << 20) for j in a[2])
            out.append((args.choice("ablations", a[0], BANDS + (CONTROL,)), args.choice("ablations", a[1], MODES), chosen))
    else:
        def names(name: str, value: Any, default: tuple[str, ...], choices: tuple[str, ...]) -> list[str]:
            if value is None:
                return list(default)
            if isinstance(value, (str, bytes)) or not isinstance(value, Sequence) or not value:
                raise InputError(name, "a non-empty sequence of " + args.or_list(choices), repr(value)[:60])
            return [args.choice(name, v, choices) for v in value]
        out = [(b, m, None) for b in names("bands", bands, BANDS, BANDS) for m in names("modes", modes, MODES, MODES)]
    if len(set(out)) != len(out):
        raise InputError("ablations" if ablations is not None else "bands", "each (band, mode) once", repr(out)[:80])
    return out


#: The multiplicity correction of the simultaneous intervals, stated once.
CORRECTION = ("Bonferroni: each simultaneous interval at 1 - (1 - level) / comparisons, so that all of the family's hold "
              "together with probability >= level (valid under any dependence between the comparisons)")


def _per_target_values(out: Any, tokens: int) -> torch.Tensor:
    """A loss callable's output as float64 CPU values, [tokens - 1]; InputError naming ``loss``
    for another shape or type."""
    if not isinstance(out, torch.Tensor) or tuple(out.shape) not in ((tokens - 1,), (1, tokens - 1)):
        got = f"shape {tuple(out.shape)}" if isinstance(out, torch.Tensor) else type(out).__name__
        raise InputError("loss", f"per-target losses of shape [tokens - 1] = [{tokens - 1}]", got)
    return out.detach().reshape(-1).to("cpu", torch.float64)


def _mean(values: torch.Tensor) -> float:
    return math.fsum(values.tolist()) / values.numel()


def ablation_losses(model: Any, sequences: Any, *, bands: Optional[Sequence[str]] = None,
                    modes: Optional[Sequence[str]] = None, ablations: Optional[Sequence[tuple[str, str]]] = None,
                    mask: Any = None, loss: Optional[Callable[[Any, Any], Any]] = None,
                    position_buckets: Optional[Sequence[int]] = None, level: float = 0.95, layout: str = "half",
                    query_modules: Optional[Sequence[Union[str, torch.nn.Module]]] = None,
                    head_dim: Optional[int] = None, log: Optional[Callable[[str], None]] = None,
                    comparisons: Optional[int] = None, first_token_mass: bool = False) -> AblationLosses:
    """Next-token loss of a model as trained and with each band ablated, on the same sequences, with
    paired differences and Student t-intervals over sequences.

    Each sequence runs alone (batch 1) through the model as trained and under each (band, mode) of
    ``band_ablation``, in ``torch.no_grad``; its loss is the mean over its counted targets.

    Parameters
    ----------
    model : torch.nn.Module
        In eval mode; ``inv_freq`` buffers as ``band_ablation`` needs.
    sequences : 2-D integer tensor or array [sequences, tokens], or a sequence of 1-D ones
        Token ids, at least 2 sequences of at least 2 tokens (lengths may differ), independent draws
        of the text of interest (the intervals treat them so).
    bands, modes : sequence of str, optional
        Every band of ``bands`` (default fast, middle, slow) with every mode of ``modes`` (default
        still, removed).
    ablations : sequence of (band, mode), optional
        The pairs to measure instead, in this order (not with ``bands`` or ``modes``); an entry
        ``("random", mode, pair_indices)`` measures a control acting on the given pairs
        (``band_ablation(..., pairs=...)``; ``ropecheck.lm.controls`` draws norm-matched ones).
    mask : like sequences, bool, optional
        ``mask[i][t]`` True where the target at position t (predicted from the tokens before it)
        counts; position 0 is never a target. Default: every target.
    loss : callable, optional
        ``loss(model, input_ids)`` -> per-target losses, shape [tokens - 1] or [1, tokens - 1], for
        input_ids int64 [1, tokens] on the model's device. Default: the cross entropy (nats) of
        ``model(input_ids)``'s logits (a tensor, a tuple's first element or an output's ``.logits``;
        ``use_cache=False`` when forward takes it, as Hugging Face's do).
    position_buckets : sequence of int, optional
        Strictly increasing edges e: bucket i holds the targets at positions e[i] <= t < e[i+1], so
        that a caller sees where along the sequence the loss moves.
    level : float
        The intervals' confidence level, in [0.5, 0.999999].
    layout, query_modules, head_dim
        As for ``band_ablation``.
    log : callable, optional
        Called with one line after each sequence (progress).
    comparisons : int, optional
        The size of the family of paired differences the caller tests together, for the
        simultaneous intervals (Bonferroni); at least this call's own, rows x (1 + buckets), which is
        the default. A caller measuring several lengths passes the total over them.
    first_token_mass : bool
        Also measure, per sequence, the attention weight on the first token as trained and under
        each ablation (the sinks' share: does an ablation move the loss through them?). Needs the
        model's attention to run through ``ropecheck.lm.attention.blocked_attention`` (a with block
        around the call); it costs one more fused attention pass per layer.

    Returns
    -------
    AblationLosses
        As trained and per (band, mode): the loss and the paired difference, each a mean with its
        two-sided t-interval (exact for normal per-sequence values, asymptotic otherwise); ``*``
        in its table where the difference's interval excludes 0.

    Raises
    ------
    InputError
        Naming the parameter, before any forward pass: ``model`` (training mode; and
        ``band_ablation``'s), ``sequences``, ``mask``, ``bands``, ``modes``, ``ablations``,
        ``position_buckets``, ``level``, ``loss`` (not callable; what it returned), ``layout``,
        ``query_modules``, ``head_dim``, ``comparisons`` (below this call's own), ``first_token_mass`` (not a
        bool; no attention call recorded: the model does not run the blocked attention).
    """
    pairs = _ablation_pairs(bands, modes, ablations)
    seqs = _sequences(sequences)
    masks = _masks(mask, seqs)
    edges = _buckets(position_buckets)
    if isinstance(level, bool) or not isinstance(level, (int, float)) or not 0.5 <= level <= 0.999999:
        raise InputError("level", "a confidence level in [0.5, 0.999999]", repr(level))
    family, joint_level = bonferroni_family(level, len(pairs) * (1 + (len(edges) - 1 if edges else 0)), comparisons)
    if loss is not None and not callable(loss):
        raise InputError("loss", "a callable loss(model, input_ids) -> per-target losses", type(loss).__name__)
    if not isinstance(first_token_mass, bool):
        raise InputError("first_token_mass", "True or False", repr(first_token_mass)[:60])
    if log is not None and not callable(log):
        raise InputError("log", "a callable taking one line of text", type(log).__name__)
    plans = [_plan(model, b, m, layout, query_modules, head_dim, c).info for b, m, c in pairs]
    if model.training:
        raise InputError("model", "a model in eval mode (model.eval(): dropout off)", "a model in training mode")
    per_target = loss if loss is not None else _next_token_losses
    loss_text = ("next-token cross entropy (nats) of model(input_ids)'s logits" if loss is None
                 else f"loss(model, input_ids) of {getattr(loss, '__qualname__', type(loss).__name__)}")
    try:
        device = next(model.parameters()).device
    except StopIteration:
        device = torch.device("cpu")

    masses: dict[Optional[_Ablation], list[float]] = {None: [], **{p: [] for p in pairs}}

    def measure(ids: torch.Tensor, counted: torch.Tensor, which: Optional[_Ablation] = None) -> torch.Tensor:
        x = ids[None].to(device)
        if first_token_mass:
            with blocked.first_token_mass() as rec:
                out = per_target(model, x)
            if rec.mean is None:
                raise InputError("first_token_mass", "a model whose attention runs through ropecheck.lm.attention.blocked_attention "
                                 "(with blocked_attention(model): around the call)", "no attention call recorded")
            masses[which].append(rec.mean)
        else:
            out = per_target(model, x)
        values = _per_target_values(out, ids.numel())
        bad = ~torch.isfinite(values) & counted[1:]
        if bool(bad.any()):
            t = int(bad.nonzero()[0]) + 1
            raise InputError("loss", "finite per-target losses", f"{float(values[t - 1])} at target {t}")
        return values

    started = time.perf_counter()
    base: list[torch.Tensor] = []
    ablated: dict[_Ablation, list[torch.Tensor]] = {p: [] for p in pairs}
    with torch.no_grad():
        for i, (ids, m) in enumerate(zip(seqs, masks)):
            base.append(measure(ids, m))
            for a in pairs:
                with band_ablation(model, a[0], a[1], layout=layout, query_modules=query_modules, head_dim=head_dim, pairs=a[2]):
                    ablated[a].append(measure(ids, m, a))
            if log is not None:
                c = m[1:]
                log(f"sequence {i + 1}/{len(seqs)} ({ids.numel()} tokens): as trained {_mean(base[-1][c]):.4f}"
                    + "".join(f", {a[0]}-{a[1]} {_mean(ablated[a][-1][c]):.4f}" for a in pairs))
    seconds = time.perf_counter() - started

    counted = [m[1:] for m in masks]
    positions = [torch.arange(1, s.numel()) for s in seqs]

    def means(values: list[torch.Tensor], start: int = 0, stop: Optional[int] = None) -> list[Optional[float]]:
        out: list[Optional[float]] = []
        for v, c, p in zip(values, counted, positions):
            keep = c & (p >= start) & (p < stop) if stop is not None else c
            out.append(_mean(v[keep]) if bool(keep.any()) else None)
        return out

    def paired(a: list[Optional[float]], b: list[Optional[float]], at: float = level) -> Optional[MeanInterval]:
        d = [x - y for x, y in zip(a, b) if x is not None and y is not None]
        return mean_interval(d, at) if d else None

    def present(a: list[Optional[float]]) -> Optional[MeanInterval]:
        v = [x for x in a if x is not None]
        return mean_interval(v, level) if v else None

    base_means = [x for x in means(base) if x is not None]
    spans = list(zip(edges, edges[1:])) if edges else []
    rows = []
    for a, info in zip(pairs, plans):
        b, md = a[0], a[1]
        values = [x for x in means(ablated[a]) if x is not None]
        buckets = tuple(BucketLoss(s, e, present(means(ablated[a], s, e)),
                                   paired(means(ablated[a], s, e), means(base, s, e)),
                                   paired(means(ablated[a], s, e), means(base, s, e), joint_level)) for s, e in spans)
        diff = [x - y for x, y in zip(values, base_means)]
        sink = sink_difference = None
        if first_token_mass:
            sink = mean_interval(masses[a], level)
            sink_difference = mean_interval([x - y for x, y in zip(masses[a], masses[None])], level)
        rows.append(AblationRow(b, md, info.pairs, info.channels, mean_interval(values, level), mean_interval(diff, level),
                                mean_interval(diff, joint_level), tuple(values), buckets, sink, sink_difference))
    return AblationLosses(
        sequences=len(seqs), tokens=tuple(s.numel() for s in seqs), targets=tuple(int(c.sum()) for c in counted),
        level=float(level), comparisons=family, simultaneous_level=joint_level, method=T_INTERVAL_METHOD, loss=loss_text, as_trained=mean_interval(base_means, level),
        as_trained_per_sequence=tuple(base_means), rows=tuple(rows),
        buckets=tuple(BucketLoss(s, e, present(means(base, s, e)), None) for s, e in spans), seconds=seconds,
        as_trained_first_token_mass=mean_interval(masses[None], level) if first_token_mass else None)
