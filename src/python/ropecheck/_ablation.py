"""Band ablations of a torch model's RoPE, measured as next-token loss (ropecheck.torch re-exports
this module's public names; docs/usage.md, "Band ablations as loss").

A model qualifies when its rotary frequencies live in buffers named ``inv_freq`` (radians per token,
one per rotating pair: Hugging Face's Llama family keeps one in ``model.model.rotary_emb`` and, in
transformers 4.46, one per attention layer; the toy model of examples/toy_model in ``model.model``)
and its forward pass computes the angles from them. The bands are ropecheck's (src/usage/layer_pairs.h,
docs/usage.md "Pairs"), from the model's own ``inv_freq``: the rotating pairs (frequency > 0) sorted
fastest first (ties in pair order), ``fast`` the first floor(rotating / 4), ``slow`` the last
floor(rotating / 4), ``middle`` the rest; pairs at frequency 0 are ``still`` and in no band.

Two ablations of a band, no retraining:
- ``still``: its ``inv_freq`` entries set to 0 (cos 1, sin 0): the pairs keep their content match and
  lose their position, as p-RoPE does for the slow quarter;
- ``removed``: its channels of every query zeroed after the query projection (a forward hook): a
  pair's rotation mixes only its own two channels, so a zero query pair adds nothing to any q.k
  logit, at any position; keys and values are untouched.
"""

from __future__ import annotations

import contextlib
import dataclasses
import inspect
import math
import time
from typing import Any, Callable, Iterator, Optional, Sequence, Union

import torch

from . import _arguments as args
from ._errors import InputError
from ._statistics import T_INTERVAL_METHOD, MeanInterval, mean_interval

#: The bands an ablation acts on, fastest first, and the two ablations.
BANDS: tuple[str, ...] = ("fast", "middle", "slow")
MODES: tuple[str, ...] = ("still", "removed")

#: Attributes of a rotary module that hold cos/sin computed once from inv_freq (older transformers):
#: a `still` ablation could not reach them, so such a module is refused.
_CACHED = ("cos_cached", "sin_cached", "_cos_cached", "_sin_cached")

#: Buffers under ablation (by id) -> their values before the outermost ablation began, so that nested
#: ablations compute their bands from the model's own frequencies, not from an ablated buffer.
_ORIGINAL: dict[int, tuple[torch.Tensor, torch.Tensor, int]] = {}


def rotary_bands(inv_freq: Any) -> dict[str, tuple[int, ...]]:
    """ropecheck's bands of a RoPE spectrum: which pair indices are fast, middle, slow and still.

    Parameters
    ----------
    inv_freq : 1-D tensor, array or sequence of floats
        One frequency per pair (radians per token), each finite and >= 0; 0 is a still pair.

    Returns
    -------
    dict
        ``fast``, ``middle``, ``slow``: pair indices, fastest first (ties in pair order): the first
        floor(rotating / 4) rotating pairs, the last floor(rotating / 4), the rest; ``still``: the
        pairs at frequency 0, in pair order.

    Raises
    ------
    InputError
        ``inv_freq``: not one-dimensional, empty, or a value negative, NaN or infinite.

    Examples
    --------
    >>> import ropecheck.torch as rt
    >>> rt.rotary_bands([1.0, 0.1, 0.01, 0.001, 1e-4, 0.0, 1e-5, 1e-6])
    {'fast': (0,), 'middle': (1, 2, 3, 4, 6), 'slow': (7,), 'still': (5,)}
    """
    try:
        values = torch.as_tensor(inv_freq.detach() if isinstance(inv_freq, torch.Tensor) else inv_freq, dtype=torch.float64)
    except (TypeError, ValueError, RuntimeError) as e:
        raise InputError("inv_freq", "a 1-D sequence of frequencies", f"{type(inv_freq).__name__} ({e})") from None
    if values.dim() != 1 or values.numel() == 0:
        raise InputError("inv_freq", "a non-empty 1-D sequence of frequencies", f"shape {tuple(values.shape)}")
    w = [float(v) for v in values.cpu().tolist()]
    bad = [i for i, v in enumerate(w) if not (math.isfinite(v) and v >= 0.0)]
    if bad:
        raise InputError("inv_freq", "finite frequencies >= 0 (radians per token)", f"inv_freq[{bad[0]}] = {w[bad[0]]}")
    rotating = sorted((i for i, v in enumerate(w) if v > 0.0), key=lambda i: -w[i])  # stable: ties in pair order
    q = len(rotating) // 4
    return {"fast": tuple(rotating[:q]), "middle": tuple(rotating[q:len(rotating) - q]),
            "slow": tuple(rotating[len(rotating) - q:]), "still": tuple(i for i, v in enumerate(w) if v == 0.0)}


def _pair_channels(pairs: Sequence[int], rotating_width: int, layout: str) -> tuple[int, ...]:
    """The head channels of the given pairs: (j, j + rotating_width/2) for "half", (2j, 2j + 1) for
    "interleaved"; rotating_width = 2 * len(inv_freq), the rotary part at the start of the head."""
    half = rotating_width // 2
    if layout == "half":
        return tuple(sorted([j for j in pairs] + [j + half for j in pairs]))
    return tuple(sorted([2 * j for j in pairs] + [2 * j + 1 for j in pairs]))


@dataclasses.dataclass(frozen=True)
class BandAblation:
    """What one ablation acts on (``band_ablation`` yields it).

    Attributes
    ----------
    band, mode : str
        As given.
    pairs : tuple of int
        The band's pair indices in ``inv_freq``, fastest first.
    channels : tuple of int
        The band's channels within each query head (the ones ``removed`` zeroes), ascending.
    buffers : tuple of str
        The ``inv_freq`` buffers found (qualified names); ``still`` sets the band's entries of each.
    query_modules : tuple of str
        The modules whose outputs ``removed`` hooks (empty for ``still``).
    head_dim : int
        The channels per query head (``removed``; 0 for ``still``).
    """

    band: str
    mode: str
    pairs: tuple[int, ...]
    channels: tuple[int, ...]
    buffers: tuple[str, ...]
    query_modules: tuple[str, ...]
    head_dim: int


@dataclasses.dataclass(frozen=True)
class _Plan:
    info: BandAblation
    tensors: tuple[torch.Tensor, ...]
    modules: tuple[torch.nn.Module, ...]


def _frequency_buffers(model: Any) -> list[tuple[str, torch.nn.Module, torch.Tensor]]:
    if not isinstance(model, torch.nn.Module):
        raise InputError("model", "a torch.nn.Module", type(model).__name__)
    found: list[tuple[str, torch.nn.Module, torch.Tensor]] = []
    seen: set[int] = set()
    for name, module in model.named_modules():
        t = module._buffers.get("inv_freq")
        if t is not None and id(t) not in seen:
            seen.add(id(t))
            found.append((f"{name}.inv_freq" if name else "inv_freq", module, t))
    if not found:
        raise InputError("model", "a torch model whose RoPE frequencies are buffers named inv_freq (Hugging Face: "
                         "model.model.rotary_emb.inv_freq)", f"no inv_freq buffer in {type(model).__name__}")
    for name, _, t in found:
        if t.dim() != 1 or not t.is_floating_point():
            raise InputError("model", "inv_freq buffers of one dimension and a floating-point dtype",
                             f"{name}: shape {tuple(t.shape)}, {t.dtype}")
    return found


def _original(t: torch.Tensor) -> torch.Tensor:
    entry = _ORIGINAL.get(id(t))
    return entry[1] if entry is not None and entry[0] is t else t.detach()


def _head_dim(model: Any, head_dim: Optional[int], rotating_width: int) -> int:
    if head_dim is None:
        cfg = getattr(model, "config", None)
        value = getattr(cfg, "head_dim", None)
        if not value and getattr(cfg, "hidden_size", None) and getattr(cfg, "num_attention_heads", None):
            value = getattr(cfg, "hidden_size") // getattr(cfg, "num_attention_heads")
        head_dim = int(value) if isinstance(value, int) and value > 0 else rotating_width
        accepted = f"an integer >= {rotating_width} (2 x the {rotating_width // 2} pairs of inv_freq)"
        if head_dim < rotating_width:
            raise InputError("head_dim", accepted + "; model.config gives fewer, pass head_dim=", str(head_dim))
        return head_dim
    return args.integer("head_dim", head_dim, rotating_width, 1 << 20)


def _query_modules(model: torch.nn.Module, query_modules: Optional[Sequence[Union[str, torch.nn.Module]]]
                   ) -> list[tuple[str, torch.nn.Module]]:
    named = dict(model.named_modules())
    if query_modules is None:
        found = [(n, m) for n, m in named.items() if n == "q_proj" or n.endswith(".q_proj")]
        if not found:
            raise InputError("query_modules", "the modules whose outputs are the queries (by default every submodule "
                             "named q_proj; after a q norm, the norm modules)", f"no q_proj in {type(model).__name__}")
        return found
    if isinstance(query_modules, (str, torch.nn.Module)) or not isinstance(query_modules, Sequence) or not query_modules:
        raise InputError("query_modules", "a non-empty sequence of submodules of model or their names", repr(query_modules)[:80])
    by_id = {id(m): n for n, m in named.items()}
    out = []
    for q in query_modules:
        if isinstance(q, str) and q in named:
            out.append((q, named[q]))
        elif isinstance(q, torch.nn.Module) and id(q) in by_id:
            out.append((by_id[id(q)], q))
        else:
            raise InputError("query_modules", "submodules of model or their names (model.named_modules())", repr(q)[:80])
    return out


def _plan(model: Any, band: object, mode: object, layout: object, query_modules: Any, head_dim: Any) -> _Plan:
    """Every check of band_ablation, before anything is changed."""
    band = args.choice("band", band, BANDS)
    mode = args.choice("mode", mode, MODES)
    lay = args.choice("layout", layout, args.LAYOUTS)
    found = _frequency_buffers(model)
    own = [rotary_bands(_original(t)) for _, _, t in found]
    first = found[0]
    for (name, _, t), b in zip(found[1:], own[1:]):
        if t.shape != first[2].shape or b != own[0]:
            raise InputError("model", "inv_freq buffers that agree on their length and bands (one RoPE spectrum)",
                             f"{first[0]} has {first[2].numel()} pairs, bands {own[0]}; {name} has {t.numel()} pairs, bands {b}")
    pairs = own[0][band]
    n_pairs = int(first[2].numel())
    if not pairs:
        rotating = n_pairs - len(own[0]["still"])
        raise InputError("band", "a band with at least one pair (fast and slow hold floor(rotating / 4) pairs each)",
                         f"{band!r} of a spectrum with {rotating} rotating pairs")
    channels = _pair_channels(pairs, 2 * n_pairs, lay)
    modules: list[tuple[str, torch.nn.Module]] = []
    hd = 0
    if mode == "still":
        for name, module, _ in found:
            kind = getattr(module, "rope_type", None)
            if isinstance(kind, str) and "dynamic" in kind:
                raise InputError("model", "a model whose forward pass reads its frequencies from inv_freq (dynamic RoPE "
                                 "recomputes them from the sequence length)", f"{name}: rope_type {kind!r}")
            cached = [a for a in _CACHED if isinstance(getattr(module, a, None), torch.Tensor)]
            if cached:
                raise InputError("model", "a model that computes cos and sin from inv_freq on every forward pass",
                                 f"{name}: cos/sin cached in {cached[0]}")
    else:
        hd = _head_dim(model, head_dim, 2 * n_pairs)
        modules = _query_modules(model, query_modules)
        for name, module in modules:
            width = getattr(module, "out_features", None)
            if isinstance(width, int) and width % hd:
                raise InputError("head_dim", f"a divisor of the query modules' output width ({name}: {width})", str(hd))
    info = BandAblation(band, mode, tuple(pairs), channels, tuple(n for n, _, _ in found), tuple(n for n, _ in modules), hd)
    return _Plan(info, tuple(t for _, _, t in found), tuple(m for _, m in modules))


def _zero_channels_hook(channels: Sequence[int], head_dim: int) -> Callable[[Any, Any, Any], Any]:
    mask = torch.zeros(head_dim, dtype=torch.bool)
    mask[list(channels)] = True

    def hook(module: Any, inputs: Any, output: Any) -> Any:
        if not isinstance(output, torch.Tensor):
            raise InputError("query_modules", "modules whose output is a tensor of queries, [..., heads * head_dim] or "
                             "[..., head_dim]", type(output).__name__)
        width = output.shape[-1] if output.dim() else 0
        if width == 0 or width % head_dim:
            raise InputError("head_dim", f"a divisor of the query modules' output width ({width})", str(head_dim))
        heads = output.reshape(*output.shape[:-1], width // head_dim, head_dim)
        return heads.masked_fill(mask.to(output.device), 0).reshape(output.shape)
    return hook


@contextlib.contextmanager
def band_ablation(model: Any, band: str, mode: str, *, layout: str = "half",
                  query_modules: Optional[Sequence[Union[str, torch.nn.Module]]] = None,
                  head_dim: Optional[int] = None) -> Iterator[BandAblation]:
    """A context in which one band of the model's RoPE is made position-free or removed; everything
    is restored on exit, also when the body raises.

    Parameters
    ----------
    model : torch.nn.Module
        A model whose rotary frequencies are buffers named ``inv_freq`` (one, or several that agree:
        transformers 4.46 keeps one per layer too), read by its forward pass.
    band : str
        ``"fast"``, ``"middle"`` or ``"slow"``, computed from the model's own ``inv_freq``
        (``rotary_bands``; inside another ablation, from the frequencies before it).
    mode : str
        ``"still"``: the band's ``inv_freq`` entries set to 0 in every buffer (position-free, as
        p-RoPE does for the slow quarter). ``"removed"``: the band's channels of every query head
        zeroed after the query projection (forward hooks), so it adds nothing to any logit.
    layout : str
        How a pair's two channels sit in a head, for ``removed``: ``"half"`` (Hugging Face's
        rotate_half: pair j is channels j and j + r/2, r = 2 len(inv_freq) the rotary width) or
        ``"interleaved"`` (2j, 2j + 1). The rotary channels are the first r of each head.
    query_modules : sequence of modules or names, optional
        The modules whose outputs are the queries, for ``removed`` (default: every submodule named
        ``*q_proj``). For a model with a q norm (Qwen3, Gemma 3, OLMo 2) pass the norm modules; a
        fused qkv projection has no such module and is not supported.
    head_dim : int, optional
        Channels per query head, for ``removed`` (default: ``model.config.head_dim``, else
        hidden_size / num_attention_heads, else the rotary width).

    Returns
    -------
    context manager of BandAblation
        Entering yields what the ablation acts on (pairs, channels, buffers, modules).

    Raises
    ------
    InputError
        On entering, naming the parameter: ``band``, ``mode``, ``layout``; ``model`` (no ``inv_freq``
        buffer, buffers that disagree, or, for ``still``, frequencies the forward pass does not read
        from the buffer: transformers' dynamic RoPE, cached cos/sin); ``band`` (empty: fewer than 4
        rotating pairs); ``query_modules`` (none found, not submodules of model; at the forward pass,
        an output that is not a tensor); ``head_dim``.

    Examples
    --------
    >>> import torch, ropecheck.torch as rt
    >>> class Attention(torch.nn.Module):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.register_buffer("inv_freq", torch.tensor([1.0, 0.1, 0.01, 0.001]))
    ...         self.q_proj = torch.nn.Linear(8, 8, bias=False)
    >>> m = Attention()
    >>> with rt.band_ablation(m, "slow", "still") as a:
    ...     a.pairs, m.inv_freq[3].item()
    ((3,), 0.0)
    >>> m.inv_freq[3].item() == torch.tensor(0.001).item()
    True
    >>> with rt.band_ablation(m, "fast", "removed") as a:
    ...     a.channels, m.q_proj(torch.ones(1, 8))[0, [0, 4]].tolist()
    ((0, 4), [0.0, 0.0])
    """
    plan = _plan(model, band, mode, layout, query_modules, head_dim)
    saved: list[tuple[torch.Tensor, torch.Tensor]] = []
    registered: list[int] = []
    handles: list[Any] = []
    try:
        for t in plan.tensors:
            entry = _ORIGINAL.get(id(t))
            if entry is not None and entry[0] is t:
                _ORIGINAL[id(t)] = (t, entry[1], entry[2] + 1)
            else:
                _ORIGINAL[id(t)] = (t, t.detach().clone(), 1)
            registered.append(id(t))
        if plan.info.mode == "still":
            index = torch.tensor(plan.info.pairs, dtype=torch.int64)
            with torch.no_grad():
                for t in plan.tensors:
                    saved.append((t, t.detach().clone()))
                    t[index.to(t.device)] = 0
        else:
            hook = _zero_channels_hook(plan.info.channels, plan.info.head_dim)
            for m in plan.modules:
                handles.append(m.register_forward_hook(hook))
        yield plan.info
    finally:
        for h in handles:
            h.remove()
        with torch.no_grad():
            for t, values in reversed(saved):
                t.copy_(values)
        for key in registered:
            tensor, original, depth = _ORIGINAL[key]
            if depth > 1:
                _ORIGINAL[key] = (tensor, original, depth - 1)
            else:
                del _ORIGINAL[key]


# --- loss ------------------------------------------------------------------------------------------

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
    """

    start: int
    stop: int
    loss: Optional[MeanInterval]
    difference: Optional[MeanInterval]

    def to_dict(self) -> dict[str, Any]:
        """start, stop, loss, difference (JSON-ready)."""
        return {"start": self.start, "stop": self.stop, "loss": None if self.loss is None else self.loss.to_dict(),
                "difference": None if self.difference is None else self.difference.to_dict()}


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
        Per sequence: ablated minus as trained (paired: the same sequence); over sequences.
    per_sequence : tuple of float
        The per-sequence mean losses under the ablation.
    buckets : tuple of BucketLoss
        Per position bucket (empty without ``position_buckets``).
    """

    band: str
    mode: str
    pairs: tuple[int, ...]
    channels: tuple[int, ...]
    loss: MeanInterval
    difference: MeanInterval
    per_sequence: tuple[float, ...]
    buckets: tuple[BucketLoss, ...]

    @property
    def name(self) -> str:
        """``band-mode``, e.g. ``slow-still``."""
        return f"{self.band}-{self.mode}"

    @property
    def significant(self) -> bool:
        """Whether the difference's interval excludes 0 (the two-sided t-test at 1 - level)."""
        return bool(self.difference.excludes_zero)

    def to_dict(self) -> dict[str, Any]:
        """Every field (JSON-ready), with ``significant``."""
        return {"band": self.band, "mode": self.mode, "pairs": list(self.pairs), "channels": list(self.channels),
                "loss": self.loss.to_dict(), "difference": self.difference.to_dict(), "significant": self.significant,
                "per_sequence": list(self.per_sequence), "buckets": [b.to_dict() for b in self.buckets]}


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
    seconds : float
        Wall time of the measurement.
    """

    sequences: int
    tokens: tuple[int, ...]
    targets: tuple[int, ...]
    level: float
    method: str
    loss: str
    as_trained: MeanInterval
    as_trained_per_sequence: tuple[float, ...]
    rows: tuple[AblationRow, ...]
    buckets: tuple[BucketLoss, ...]
    seconds: float

    def row(self, band: str, mode: str) -> AblationRow:
        """The row of (band, mode); KeyError when it was not measured."""
        for r in self.rows:
            if (r.band, r.mode) == (band, mode):
                return r
        raise KeyError(f"{band}-{mode} was not measured")

    def to_dict(self) -> dict[str, Any]:
        """Every number (JSON-ready)."""
        return {"measurement": "next-token loss on the given sequences, not a certificate", "sequences": self.sequences,
                "tokens": list(self.tokens), "targets": list(self.targets), "level": self.level, "method": self.method,
                "loss": self.loss, "as_trained": self.as_trained.to_dict(),
                "as_trained_per_sequence": list(self.as_trained_per_sequence), "rows": [r.to_dict() for r in self.rows],
                "buckets": [b.to_dict() for b in self.buckets], "seconds": self.seconds}

    def __str__(self) -> str:
        pct = f"{100 * self.level:g}%"
        lines = [f"next-token loss on {self.sequences} sequences (mean ± {pct} t-interval half-width; measured)",
                 f"{'as trained':<16} {self.as_trained.text()}",
                 f"{'ablation':<16} {'loss':<20} difference (paired)"]
        for r in self.rows:
            lines.append(f"{r.name:<16} {r.loss.text():<20} {r.difference.text(signed=True)}{' *' if r.significant else ''}")
        lines.append(f"*: the {pct} interval of the difference excludes 0")
        return "\n".join(lines)


def _ablation_pairs(bands: Any, modes: Any, ablations: Any) -> list[tuple[str, str]]:
    if ablations is not None:
        if bands is not None or modes is not None:
            raise InputError("ablations", "None when bands or modes is given (ablations names the (band, mode) pairs itself)",
                             repr(ablations)[:60])
        if isinstance(ablations, (str, bytes)) or not isinstance(ablations, Sequence) or not ablations:
            raise InputError("ablations", "a non-empty sequence of (band, mode) pairs", repr(ablations)[:60])
        out = []
        for a in ablations:
            if not isinstance(a, (tuple, list)) or len(a) != 2:
                raise InputError("ablations", "(band, mode) pairs, e.g. (\"slow\", \"still\")", repr(a)[:60])
            out.append((args.choice("ablations", a[0], BANDS), args.choice("ablations", a[1], MODES)))
    else:
        def names(name: str, value: Any, default: tuple[str, ...], choices: tuple[str, ...]) -> list[str]:
            if value is None:
                return list(default)
            if isinstance(value, (str, bytes)) or not isinstance(value, Sequence) or not value:
                raise InputError(name, "a non-empty sequence of " + args.or_list(choices), repr(value)[:60])
            return [args.choice(name, v, choices) for v in value]
        out = [(b, m) for b in names("bands", bands, BANDS, BANDS) for m in names("modes", modes, MODES, MODES)]
    if len(set(out)) != len(out):
        raise InputError("ablations" if ablations is not None else "bands", "each (band, mode) once", repr(out)[:80])
    return out


def _mean(values: torch.Tensor) -> float:
    return math.fsum(values.tolist()) / values.numel()


def ablation_losses(model: Any, sequences: Any, *, bands: Optional[Sequence[str]] = None,
                    modes: Optional[Sequence[str]] = None, ablations: Optional[Sequence[tuple[str, str]]] = None,
                    mask: Any = None, loss: Optional[Callable[[Any, Any], Any]] = None,
                    position_buckets: Optional[Sequence[int]] = None, level: float = 0.95, layout: str = "half",
                    query_modules: Optional[Sequence[Union[str, torch.nn.Module]]] = None,
                    head_dim: Optional[int] = None, log: Optional[Callable[[str], None]] = None) -> AblationLosses:
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
        The pairs to measure instead, in this order (not with ``bands`` or ``modes``).
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
        ``query_modules``, ``head_dim``.
    """
    pairs = _ablation_pairs(bands, modes, ablations)
    seqs = _sequences(sequences)
    masks = _masks(mask, seqs)
    edges = _buckets(position_buckets)
    if isinstance(level, bool) or not isinstance(level, (int, float)) or not 0.5 <= level <= 0.999999:
        raise InputError("level", "a confidence level in [0.5, 0.999999]", repr(level))
    if loss is not None and not callable(loss):
        raise InputError("loss", "a callable loss(model, input_ids) -> per-target losses", type(loss).__name__)
    if log is not None and not callable(log):
        raise InputError("log", "a callable taking one line of text", type(log).__name__)
    plans = [_plan(model, b, m, layout, query_modules, head_dim).info for b, m in pairs]
    if model.training:
        raise InputError("model", "a model in eval mode (model.eval(): dropout off)", "a model in training mode")
    per_target = loss if loss is not None else _next_token_losses
    loss_text = ("next-token cross entropy (nats) of model(input_ids)'s logits" if loss is None
                 else f"loss(model, input_ids) of {getattr(loss, '__qualname__', type(loss).__name__)}")
    try:
        device = next(model.parameters()).device
    except StopIteration:
        device = torch.device("cpu")

    def measure(ids: torch.Tensor, counted: torch.Tensor) -> torch.Tensor:
        x = ids[None].to(device)
        out = per_target(model, x)
        if not isinstance(out, torch.Tensor) or tuple(out.shape) not in ((ids.numel() - 1,), (1, ids.numel() - 1)):
            got = f"shape {tuple(out.shape)}" if isinstance(out, torch.Tensor) else type(out).__name__
            raise InputError("loss", f"per-target losses of shape [tokens - 1] = [{ids.numel() - 1}]", got)
        values = out.detach().reshape(-1).to("cpu", torch.float64)
        bad = ~torch.isfinite(values) & counted[1:]
        if bool(bad.any()):
            t = int(bad.nonzero()[0]) + 1
            raise InputError("loss", "finite per-target losses", f"{float(values[t - 1])} at target {t}")
        return values

    started = time.perf_counter()
    base: list[torch.Tensor] = []
    ablated: dict[tuple[str, str], list[torch.Tensor]] = {p: [] for p in pairs}
    with torch.no_grad():
        for i, (ids, m) in enumerate(zip(seqs, masks)):
            base.append(measure(ids, m))
            for b, md in pairs:
                with band_ablation(model, b, md, layout=layout, query_modules=query_modules, head_dim=head_dim):
                    ablated[(b, md)].append(measure(ids, m))
            if log is not None:
                c = m[1:]
                log(f"sequence {i + 1}/{len(seqs)} ({ids.numel()} tokens): as trained {_mean(base[-1][c]):.4f}"
                    + "".join(f", {b}-{md} {_mean(ablated[(b, md)][-1][c]):.4f}" for b, md in pairs))
    seconds = time.perf_counter() - started

    counted = [m[1:] for m in masks]
    positions = [torch.arange(1, s.numel()) for s in seqs]

    def means(values: list[torch.Tensor], start: int = 0, stop: Optional[int] = None) -> list[Optional[float]]:
        out: list[Optional[float]] = []
        for v, c, p in zip(values, counted, positions):
            keep = c & (p >= start) & (p < stop) if stop is not None else c
            out.append(_mean(v[keep]) if bool(keep.any()) else None)
        return out

    def paired(a: list[Optional[float]], b: list[Optional[float]]) -> Optional[MeanInterval]:
        d = [x - y for x, y in zip(a, b) if x is not None and y is not None]
        return mean_interval(d, level) if d else None

    def present(a: list[Optional[float]]) -> Optional[MeanInterval]:
        v = [x for x in a if x is not None]
        return mean_interval(v, level) if v else None

    base_means = [x for x in means(base) if x is not None]
    spans = list(zip(edges, edges[1:])) if edges else []
    rows = []
    for (b, md), info in zip(pairs, plans):
        own = [x for x in means(ablated[(b, md)]) if x is not None]
        buckets = tuple(BucketLoss(s, e, present(means(ablated[(b, md)], s, e)),
                                   paired(means(ablated[(b, md)], s, e), means(base, s, e))) for s, e in spans)
        rows.append(AblationRow(b, md, info.pairs, info.channels, mean_interval(own, level),
                                mean_interval([x - y for x, y in zip(own, base_means)], level), tuple(own), buckets))
    return AblationLosses(
        sequences=len(seqs), tokens=tuple(s.numel() for s in seqs), targets=tuple(int(c.sum()) for c in counted),
        level=float(level), method=T_INTERVAL_METHOD, loss=loss_text, as_trained=mean_interval(base_means, level),
        as_trained_per_sequence=tuple(base_means), rows=tuple(rows),
        buckets=tuple(BucketLoss(s, e, present(means(base, s, e)), None) for s, e in spans), seconds=seconds)
