"""How a trained model uses its RoPE: ``ropecheck usage`` on NumPy arrays, and one layer's attention
maps as the analysis computes them (docs/usage.md)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Optional

from . import _arguments as args
from . import _core
from ._errors import InputError
from ._results import from_json
from ._tensors import native_copy, positions_array
from ._usage_results import (HEAD_KINDS, BreakDistribution, BreakQuantile, ContentBreak, HeadAblation, HeadScores, LayerRanking,
                             NullCheck, NullKind, PositionalRanking, ScoreTest, Usage, UsageCapture, UsageHead, UsageLayer,
                             UsageSimilarity, WithinLayerRanking, OffsetEffect, HeadComponent, ComponentTest, ComponentCurvePoint, LayerTypeComponents,
                             CutQuality, Section5, BreakMechanisms, ChannelBreaks, SameTokenTest, SemanticHead, MechanismBreak,
                     HeadAttribution, MeanWithInterval, DistanceBucket, BandCount, AppendixE, LayerTypeDistance, Section3)

__all__ = ["usage", "attention", "attention_layer", "compare_usage", "HEAD_KINDS", "Usage", "UsageCapture", "UsageLayer", "UsageHead",
           "HeadScores", "ScoreTest", "HeadAblation", "ContentBreak", "PositionalRanking", "WithinLayerRanking", "LayerRanking",
           "NullCheck", "NullKind", "BreakDistribution", "BreakQuantile", "UsageSimilarity", "OffsetEffect", "HeadComponent",
           "ComponentTest", "ComponentCurvePoint", "LayerTypeComponents", "CutQuality", "Section5", "BreakMechanisms", "ChannelBreaks", "SameTokenTest", "SemanticHead", "MechanismBreak",
           "HeadAttribution", "MeanWithInterval", "DistanceBucket", "BandCount", "AppendixE", "LayerTypeDistance", "Section3"]

if TYPE_CHECKING:
    import numpy
    import numpy.typing as npt


def compare_usage(a: Usage, b: Usage) -> UsageSimilarity:
    """Two usage results side by side: one number for how alike their per-pair usage is.

    >>> import numpy as np, ropecheck
    >>> q = np.random.default_rng(0).standard_normal((2, 16, 32, 4, 64)).astype(np.float32)
    >>> u = ropecheck.usage(q, q[:, :, :8], np.arange(4), model="llama-3.2-1b", certify_breaks=False, null_sequences=0)
    >>> v = ropecheck.usage(q[:1], q[:1, :, :8], np.arange(4), model="llama-3.2-1b", certify_breaks=False, null_sequences=0)
    >>> round(ropecheck.compare_usage(u, u).correlation, 12), ropecheck.compare_usage(u, v).points
    (1.0, 512)

    Parameters
    ----------
    a, b : Usage
        Two results of ``ropecheck.usage`` with the same layers and pairs (two domains, lengths,
        seeds or models of one architecture).

    Returns
    -------
    UsageSimilarity
        Pearson's r of the per-pair usage shares over every (layer, pair), per layer, the largest
        share difference, and the fraction of heads of the same kind.

    Raises
    ------
    InputError
        Naming ``a`` or ``b``: not a Usage; ``b`` when the layers or their pair counts differ.
    """
    for name, u in (("a", a), ("b", b)):
        if not isinstance(u, Usage):
            raise InputError(name, "a ropecheck.Usage", type(u).__name__)

    def summary(u: Usage) -> list[tuple[list[float], list[float], list[str]]]:
        return [(list(layer.q_norm), list(layer.k_norm), [h.kind for h in layer.heads]) for layer in u.layers]

    d = json.loads(_core.compare_usage(summary(a), summary(b)))
    kinds = d["kinds_agree"]
    return UsageSimilarity(correlation=float(d["correlation"]), per_layer=tuple(d["per_layer"]),
                           max_difference=float(d["max_difference"]), points=int(d["points"]),
                           kinds_agree=None if kinds is None else float(kinds), statement=str(d["statement"]))


def _capture_array(x: Any, name: str) -> Any:
    np = args.numpy()
    a = np.asarray(x)
    if a.dtype.name not in _core.CAPTURE_DTYPES:  # usage/capture.h's dtypes, from the library
        raise InputError(name, "a " + " or ".join(_core.CAPTURE_DTYPES) + " array", str(a.dtype))
    if a.ndim != 5:
        raise InputError(name, "an array of shape [sequences, layers, heads, tokens, head_dim]", f"{a.ndim} axes")
    return native_copy(a)


def usage(q: npt.ArrayLike, k: npt.ArrayLike, positions: npt.ArrayLike, *, model: str, token_ids: Optional[npt.ArrayLike] = None,
          threads: int = 1, content_distance: int = 64, strong_match: float = 0.5, break_rows: int = 8, certify_breaks: bool = True,
          break_mechanisms: bool = True, certify_channel: bool = True, channel_epsilon: float = 0.5, break_limit: int = 2**20, max_offset: int = 16, lift: float = 2.0, min_mass: float = 0.1, alpha: float = 0.01,
          null_sequences: Optional[int] = None, null_repeats: int = 1, null_seed: int = 0) -> Usage:
    """Measure how a model uses its RoPE on captured pre-rotation queries and keys.

    >>> import numpy as np, ropecheck
    >>> q = np.zeros((1, 16, 32, 4, 64), np.float32); q[..., 0] = 1  # llama-3.2-1b: 16 layers, 32/8 heads, head_dim 64
    >>> u = ropecheck.usage(q, q[:, :, :8], np.arange(4), model="llama-3.2-1b", certify_breaks=False)
    >>> u.capture.heads, u.layers[0].heads[0].kind
    (32, 'other')

    Parameters
    ----------
    q : array, float32 or float16, [sequences, layers, heads, tokens, head_dim]
        Queries after q_proj (and any q norm), before the rotation.
    k : array, like q with kv_heads on axis 2
        Keys, likewise; query head h reads kv head h // (heads // kv_heads).
    positions : integers, [tokens] or [sequences, tokens]
    model : str
        A zoo name (``ropecheck.models()``) or a config.json path.
    token_ids : integers, [tokens] or [sequences, tokens], optional
        The tokens; with them each head also gets an induction score.
    threads : int
        Worker threads; the result does not depend on it.
    content_distance : int
        A content match is a row's winning key at least this many tokens back ...
    strong_match : float
        ... holding at least this weight of its row, in (0, 1].
    break_rows : int
        Strong matches certified per content head (Theorem 6.1), in [1, 1024].
    certify_breaks : bool
        Whether to certify the breaking distances of the content heads.
    break_mechanisms : bool
        Whether to certify them also with only the slow quarter rotating and with it held still
        (Theorem 6.1 separated by mechanism).
    certify_channel : bool
        Whether to certify them also in the theorem's notion: the distance at which the moved
        key's share of its row falls to 1 - channel_epsilon or below.
    channel_epsilon : float
        That epsilon, in (0, 1).
    break_limit : int
        Breaking distances are certified over [0, break_limit].
    max_offset, lift, min_mass, alpha
        The kind rule (docs/usage.md, Head kinds): offsets 0..max_offset scored; a score is
        significant when its mean mass >= min_mass and it exceeds lift x uniform over rows at the
        family-wise level alpha (Bonferroni over every score of every head).
    null_sequences : int, optional
        Sequences of the Gaussian null that measures the rule's false-positive rate: default all,
        0 skips it.
    null_repeats : int
        Gaussian captures (seeds null_seed, null_seed + 1, ...), in [1, 1000].
    null_seed : int
        The null's first seed.

    Returns
    -------
    Usage
        The measurements; ``to_dict()`` is ``ropecheck usage --json``, ``str()`` its table.

    Raises
    ------
    InputError
        Naming the parameter: a wrong dtype or shape, NaN or infinite values (the element is
        named), a capture that does not fit the model (layers, heads, kv heads, head_dim), an
        option out of range.
    """
    qa = _capture_array(q, "q")
    ka = _capture_array(k, "k")
    ids = None
    if token_ids is not None:
        np = args.numpy()
        ids = np.asarray(token_ids)
        if ids.dtype.kind not in "iu":
            raise InputError("token_ids", "an array of integers", f"dtype {ids.dtype}")
        ids = np.ascontiguousarray(ids, dtype="<i8")
    options: dict[str, int | float | bool] = {
        "threads": args.threads(threads),
        "content_distance": args.integer("content_distance", content_distance, 1, 2**40),
        "strong_match": _fraction("strong_match", strong_match, 0.0, 1.0, "a number in (0, 1]"),
        "break_rows": args.integer("break_rows", break_rows, 1, 1024),
        "certify_breaks": bool(certify_breaks),
        "break_mechanisms": bool(break_mechanisms),
        "certify_channel": bool(certify_channel),
        "channel_epsilon": _fraction("channel_epsilon", channel_epsilon, 0.0, 1.0, "a number in (0, 1)", top_open=True),
        "break_limit": args.integer("break_limit", break_limit, 1, 2**40),
        "max_offset": args.integer("max_offset", max_offset, 1, 4096),
        "lift": _fraction("lift", lift, 1.0, 1e300, "a number > 1"),
        "min_mass": _fraction("min_mass", min_mass, 0.0, 1.0, "a number in (0, 1]"),
        "alpha": _fraction("alpha", alpha, 0.0, 1.0, "a number in (0, 1)", top_open=True),
        "null_sequences": -1 if null_sequences is None else args.integer("null_sequences", null_sequences, 0, 2**40),
        "null_repeats": args.integer("null_repeats", null_repeats, 1, 1000),
        "null_seed": args.integer("null_seed", null_seed, 0, 2**63 - 1),
    }
    text, table = _core.usage(qa, ka, positions_array(positions), ids,
                              args.text("model", model, "a zoo name or a config.json path"), options)
    result = from_json(Usage, json.loads(text))
    object.__setattr__(result, "_text", table)
    return result


def _fraction(name: str, value: object, lo: float, hi: float, accepted: str, top_open: bool = False) -> float:
    """value as a float in (lo, hi] ((lo, hi) when top_open)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(name, accepted, repr(value))
    v = float(value)
    if not (lo < v <= hi) or (top_open and v == hi):
        raise InputError(name, accepted, repr(value))
    return v


def _attention_arguments(q: Any, k: Any, positions: Any, model: str, layer: int, sequence: int,
                         tokens: Optional[int]) -> tuple[Any, Any, Any, str, int, int, int]:
    qa = _capture_array(q, "q")
    ka = _capture_array(k, "k")
    limit = qa.shape[3] if tokens is None else args.integer("tokens", tokens, 1, max(1, qa.shape[3]))
    return (qa, ka, positions_array(positions), args.text("model", model, "a zoo name or a config.json path"),
            args.integer("layer", layer, -2**31, 2**31 - 1), args.integer("sequence", sequence, -2**62, 2**62), limit)


def attention(q: npt.ArrayLike, k: npt.ArrayLike, positions: npt.ArrayLike, *, model: str, layer: int, head: int, sequence: int = 0,
              tokens: Optional[int] = None) -> npt.NDArray[numpy.float64]:
    """The causal softmax attention of one query head on one captured sequence, with the model's exact RoPE.

    The attention ``ropecheck usage`` measures (a head's kind, the ablations' base): scores
    ``scale * a^2 <R_i q_i, R_j k_j>`` over the rotating pairs plus ``scale * <q_i, k_j>`` over the
    pass-through channels (the model's rotation, attention factor ``a``, scale, softcap and sliding
    window), in binary64 (exact to ~1e-13 relative per score; a measurement, not a certificate).

    >>> import numpy as np, ropecheck
    >>> q = np.zeros((1, 16, 32, 4, 64), np.float32)  # llama-3.2-1b: 16 layers, 32/8 heads, head_dim 64
    >>> a = ropecheck.attention(q, q[:, :, :8], np.arange(4), model="llama-3.2-1b", layer=3, head=5)
    >>> a
    array([[1.        , 0.        , 0.        , 0.        ],
           [0.5       , 0.5       , 0.        , 0.        ],
           [0.33333333, 0.33333333, 0.33333333, 0.        ],
           [0.25      , 0.25      , 0.25      , 0.25      ]])

    Parameters
    ----------
    q : array, float32 or float16, [sequences, layers, heads, tokens, head_dim]
        Queries after q_proj (and any q norm), before the rotation, as for ``ropecheck.usage``.
    k : array, like q with kv_heads on axis 2
        Keys, likewise; query head h reads kv head h // (heads // kv_heads).
    positions : integers, [tokens] or [sequences, tokens]
    model : str
        A zoo name (``ropecheck.models()``) or a config.json path.
    layer : int
        In [0, layers).
    head : int
        The query head, in [0, heads).
    sequence : int
        In [0, sequences).
    tokens : int, optional
        The first ``tokens`` query tokens and keys, in [1, tokens]; default all.

    Returns
    -------
    numpy.ndarray of float64, [tokens, tokens]
        Row i: the softmax over keys j <= i (inside the model's window), zeros above the diagonal.

    Raises
    ------
    InputError
        Naming the parameter: a wrong dtype or shape, NaN or infinite values (the element is
        named), a capture that does not fit the model, layer, head, sequence or tokens out of range.
    """
    qa, ka, p, m, lay, seq, limit = _attention_arguments(q, k, positions, model, layer, sequence, tokens)
    return _core.attention(qa, ka, p, m, lay, args.integer("head", head, -2**31, 2**31 - 1), seq, limit)


def attention_layer(q: npt.ArrayLike, k: npt.ArrayLike, positions: npt.ArrayLike, *, model: str, layer: int, sequence: int = 0,
                    tokens: Optional[int] = None) -> npt.NDArray[numpy.float64]:
    """Every query head's attention of one layer on one captured sequence: ``attention`` for each head at once.

    The capture is read up to the (sequence, layer) block once and each kv head rotated once, so a
    layer costs about one ``attention`` call per head's scores; entry h equals
    ``attention(..., head=h)`` bit for bit.

    >>> import numpy as np, ropecheck
    >>> q = np.zeros((1, 16, 32, 4, 64), np.float32)
    >>> maps = ropecheck.attention_layer(q, q[:, :, :8], np.arange(4), model="llama-3.2-1b", layer=3, tokens=2)
    >>> maps.shape, maps[31]
    ((32, 2, 2), array([[1. , 0. ],
           [0.5, 0.5]]))

    Parameters
    ----------
    q, k, positions, model, layer, sequence, tokens
        As for ``attention``.

    Returns
    -------
    numpy.ndarray of float64, [heads, tokens, tokens]
        Entry h: head h's attention, as ``attention`` returns it.

    Raises
    ------
    InputError
        Naming the parameter, as ``attention``.
    """
    qa, ka, p, m, lay, seq, limit = _attention_arguments(q, k, positions, model, layer, sequence, tokens)
    return _core.attention_layer(qa, ka, p, m, lay, seq, limit)
