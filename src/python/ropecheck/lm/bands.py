"""Band ablations of a torch model's RoPE (ropecheck.torch re-exports the public names under their
first home; docs/usage.md, "Band ablations as loss"): which pairs are fast, middle and slow, and a
context in which one band is made position-free or removed.

A model qualifies when its rotary frequencies live in buffers whose names end in ``inv_freq``
(radians per token, one per rotating pair: transformers' Llama family keeps ``inv_freq`` in
``model.model.rotary_emb``, Gemma 3 one per layer type there, ``sliding_attention_inv_freq`` and
``full_attention_inv_freq``; the toy model of examples/toy_model one in ``model.model``; the
``original_inv_freq`` copies that dynamic rules restore from are left alone) and its forward pass
computes the angles from them. The bands are ropecheck's (src/usage/layer_pairs.h, docs/usage.md
"Pairs"), from the model's own frequencies: the rotating pairs (frequency > 0) sorted fastest first
(ties in pair order), ``fast`` the first floor(rotating / 4), ``slow`` the last floor(rotating / 4),
``middle`` the rest; pairs at frequency 0 are ``still`` and in no band. Several buffers (layer types
with their own theta) must agree on their bands, which holds whenever each decreases along the pairs.

Two ablations of a band, no retraining:
- ``still``: its entries of every frequency buffer set to 0 (cos 1, sin 0): the pairs keep their
  content match and lose their position, as p-RoPE does for the slow quarter;
- ``removed``: its channels of every query zeroed where the rotation reads them (a forward hook on
  the query modules: q_proj, or the q norm that follows it in Qwen3, Gemma 3, OLMo 2): a pair's
  rotation mixes only its own two channels, so a zero query pair adds nothing to any q.k logit, at
  any position; keys and values are untouched.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
from typing import Any, Callable, Iterator, Optional, Sequence, Union

import torch

from .. import _arguments as args
from .. import _core
from .._errors import InputError

#: The bands an ablation acts on, fastest first (usage/layer_pairs.h's names, from the library,
#: without `still`: the zero-frequency pairs no ablation changes), and the two ablations.
BANDS: tuple[str, ...] = tuple(_core.BANDS[:3])
MODES: tuple[str, ...] = ("still", "removed")
#: The control "band": rotating pairs the caller names (``band_ablation(..., pairs=...)``), e.g. a
#: random set matched to a band's norm (``ropecheck.lm.controls``).
CONTROL = "random"

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
        for key, t in module._buffers.items():
            if t is None or not key.endswith("inv_freq") or key.endswith("original_inv_freq") or id(t) in seen:
                continue
            seen.add(id(t))
            found.append((f"{name}.{key}" if name else key, module, t))
    if not found:
        raise InputError("model", "a torch model whose RoPE frequencies are buffers named *inv_freq (Hugging Face: "
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
    return args.integer("head_dim", head_dim, rotating_width, _core.MAX_HEAD_DIM)  # the library's limit (spectrum/limits.h)


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


def _plan(model: Any, band: object, mode: object, layout: object, query_modules: Any, head_dim: Any,
          pairs: Optional[Sequence[int]] = None) -> _Plan:
    """Every check of band_ablation, before anything is changed."""
    band = args.choice("band", band, BANDS + (CONTROL,))
    if (band == CONTROL) != (pairs is not None):
        raise InputError("pairs", f"pair indices with band {CONTROL!r}, and only with it", f"band {band!r}, pairs {pairs!r}"[:80])
    mode = args.choice("mode", mode, MODES)
    lay = args.choice("layout", layout, args.LAYOUTS)
    found = _frequency_buffers(model)
    own = [rotary_bands(_original(t)) for _, _, t in found]
    first = found[0]
    for (name, _, t), b in zip(found[1:], own[1:]):
        if t.shape != first[2].shape or b != own[0]:
            raise InputError("model", "inv_freq buffers that agree on their length and bands (one RoPE spectrum)",
                             f"{first[0]} has {first[2].numel()} pairs, bands {own[0]}; {name} has {t.numel()} pairs, bands {b}")
    n_pairs = int(first[2].numel())
    if band == CONTROL:
        turning = set(own[0]["fast"] + own[0]["middle"] + own[0]["slow"])
        if isinstance(pairs, (str, bytes)) or not isinstance(pairs, Sequence) or not pairs:
            raise InputError("pairs", "a non-empty sequence of rotating pair indices", repr(pairs)[:60])
        chosen = [args.integer("pairs", j, 0, n_pairs - 1) for j in pairs]
        if len(set(chosen)) != len(chosen) or not set(chosen) <= turning:
            raise InputError("pairs", f"distinct rotating pair indices in [0, {n_pairs - 1}] (frequency > 0)", repr(list(pairs))[:60])
        pairs = tuple(j for j in own[0]["fast"] + own[0]["middle"] + own[0]["slow"] if j in chosen)  # fastest first
    else:
        pairs = own[0][band]
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
                  head_dim: Optional[int] = None, pairs: Optional[Sequence[int]] = None) -> Iterator[BandAblation]:
    """A context in which one band of the model's RoPE is made position-free or removed; everything
    is restored on exit, also when the body raises.

    Parameters
    ----------
    model : torch.nn.Module
        A model whose rotary frequencies are buffers named ``inv_freq`` (one, or several that agree:
        transformers 4.46 keeps one per layer too), read by its forward pass.
    band : str
        ``"fast"``, ``"middle"`` or ``"slow"``, computed from the model's own ``inv_freq``
        (``rotary_bands``; inside another ablation, from the frequencies before it); or
        ``"random"`` with ``pairs``: a control, the pairs given (``ropecheck.lm.controls``).
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
    pairs : sequence of int, optional
        With ``band="random"`` only: the distinct rotating pair indices (in ``inv_freq``) to act on.

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
        an output that is not a tensor); ``head_dim``; ``pairs`` (without ``"random"`` or with
        another band; not distinct rotating pair indices).

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
    plan = _plan(model, band, mode, layout, query_modules, head_dim, pairs)
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
