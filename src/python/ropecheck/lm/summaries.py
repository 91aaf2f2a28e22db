"""The paper's Sections 4-5 per layer type, from a capture and its ``ropecheck usage`` result: where
the query and key norm sits (bands, the high-norm peak as absolute frequency and as rotation over
the span the layer attends over), the values' control, head kinds, Section 5 across heads, within
layers and within kv groups, and Theorem 6.1's breaking distances on content heads.

Every number is a measurement on the captured text, not a certificate (the breaking distances are
certified for the captured vectors). Intervals are over captured sequences (two-sided 95% Student
t: ``ropecheck._statistics.mean_interval``), so they say how much another draw of such text would
move the number, not how the model behaves on other text.

Definitions (pairs in ropecheck's pair order, bands as ``ropecheck usage`` defines them: the
fastest and the slowest quarter of the rotating pairs, the rest the middle):
- a layer's norm per pair: the mean over sequences, tokens and query heads (keys: kv heads) of the
  pair's 2-norm, as ``ropecheck usage`` reports it (its ``q_norm``, ``k_norm``); values: the same on
  the value channels paired as q and k are (never rotated: the paper's Fig. 10c/13 control);
- a band's share: the band's sum of q + k norm over the layer's sum;
- the peak: the pair with the largest q + k norm; its frequency w (radians per token) and its
  rotation w * span, span = the layer type's window, or the trained context without one: the
  largest angle that pair turns between a query and a key the layer can see;
- per sequence, the layer type's peak rotation is the median over its layers; its interval is the
  t-interval of log10 of that over sequences, shown as a geometric mean [low, high].
"""

from __future__ import annotations

import dataclasses
import math
from typing import TYPE_CHECKING, Any, Mapping, Optional, Sequence

from .. import _core
from .._statistics import MeanInterval, mean_interval
from .._usage_results import CONTENT_KINDS, POSITIONAL_KINDS
from .check import pair_norms

if TYPE_CHECKING:
    from ._model import LanguageModel, LayerTypeFacts

BANDS: tuple[str, ...] = tuple(_core.BANDS[:3])  # usage/layer_pairs.h's names, from the library
POSITIONAL = POSITIONAL_KINDS  # usage/head_kind.h's groups, from the library
CONTENT = CONTENT_KINDS


@dataclasses.dataclass(frozen=True)
class BandShares:
    """Shares of a per-pair norm on each band (an even spread: 0.25 / 0.5 / 0.25)."""

    fast: float
    middle: float
    slow: float


def band_shares(per_pair: Sequence[float], bands: Sequence[str]) -> BandShares:
    total = math.fsum(per_pair)
    if total <= 0:
        return BandShares(0.0, 0.0, 0.0)
    return BandShares(*(math.fsum(x for x, b in zip(per_pair, bands) if b == name) / total for name in BANDS))


@dataclasses.dataclass(frozen=True)
class LayerNorms:
    """One layer: q, k and v norm per pair, band shares of q + k and of v, and the q + k peak."""

    layer: int
    q_norm: tuple[float, ...]
    k_norm: tuple[float, ...]
    v_norm: tuple[float, ...]
    shares: BandShares
    value_shares: BandShares
    peak_pair: int
    peak_frequency: float
    peak_rotation: float


@dataclasses.dataclass(frozen=True)
class Geometric:
    """A positive quantity's geometric mean over sequences with its 95% interval (from the
    t-interval of log10 over sequences), and the smallest and largest per-sequence values (a
    per-sequence peak is one pair's value: when every sequence gives the same pair the interval
    has width 0, and the range says so)."""

    value: float
    low: float
    high: float
    minimum: float
    maximum: float
    n: int

    @staticmethod
    def of(values: Sequence[float]) -> Geometric:
        logs = [math.log10(v) for v in values]
        m = mean_interval(logs)
        hw = m.half_width if m.half_width is not None else 0.0
        return Geometric(10 ** m.mean, 10 ** (m.mean - hw), 10 ** (m.mean + hw), min(values), max(values), m.n)

    def scaled(self, factor: float) -> Geometric:
        return Geometric(self.value * factor, self.low * factor, self.high * factor, self.minimum * factor, self.maximum * factor, self.n)


@dataclasses.dataclass(frozen=True)
class BandLocation:
    """Where the layer type's high-norm band sits.

    Attributes
    ----------
    peak_pairs : tuple of int
        Per layer of the type (in layer order), the q + k peak over the whole capture.
    peak_rotation : Geometric
        The median over layers of the peak's rotation over the span, per sequence, over sequences.
    peak_frequency : Geometric
        The same as a frequency (radians per token): peak_rotation / span.
    slow_share, fast_share : MeanInterval
        The mean over layers of the slow (fast) quarter's share of q + k norm, per sequence, over
        sequences.
    profile : tuple of (pair, frequency, rotation, share)
        The type's q + k norm per pair (mean over its layers, as a share of the sum over pairs),
        with each pair's frequency and rotation over the span: the common axis's data.
    """

    peak_pairs: tuple[int, ...]
    peak_rotation: Geometric
    peak_frequency: Geometric
    slow_share: MeanInterval
    fast_share: MeanInterval
    profile: tuple[tuple[int, float, float, float], ...]


@dataclasses.dataclass(frozen=True)
class RankTest:
    """A rank-sum comparison of positional heads with the others (statistics/rank_sum.h): AUC =
    P(a positional head's share > another's), ties 1/2; p one-sided; strata as named."""

    share: str
    strata: str
    positional: int
    others: int
    strata_used: int
    pairs: int
    auc: float
    p_value: float
    method: str

    @property
    def statement(self) -> str:
        return (f"{self.share}, {self.strata}: AUC {self.auc:.3f} over {self.pairs} (positional, other) pairs in "
                f"{self.strata_used} strata ({self.positional} positional heads, {self.others} others), one-sided p = "
                f"{self.p_value:.3g} ({self.method})")


def rank_test(groups: Mapping[Any, tuple[list[float], list[float]]], share: str, strata: str) -> Optional[RankTest]:
    """The stratified rank-sum test over the strata with both kinds of head; None when none has."""
    used = [(g, o) for g, o in groups.values() if g and o]
    if not used:
        return None
    auc, _, p, method = _core.rank_sum(used)
    return RankTest(share, strata, sum(len(g) for g, _ in used), sum(len(o) for _, o in used), len(used),
                    sum(len(g) * len(o) for g, o in used), float(auc), float(p), str(method))


@dataclasses.dataclass(frozen=True)
class BreakSummary:
    """Theorem 6.1's certified breaking distances on the type's content heads (``ropecheck usage``):
    rows (strong content matches) and heads examined, how many break within the limit, within the
    type's span, none up to the limit, undecided; lower empirical quantiles of the distance over
    rows (rows that do not break, or are undecided, count as beyond the limit: None)."""

    rows: int
    heads: int
    found: int
    found_within_span: int
    none: int
    undecided: int
    limit: Optional[int]
    quantiles: tuple[tuple[float, Optional[int]], ...]
    not_held: int = 0  # the channel certificate: rows whose key does not hold more than 1 - epsilon where it is (not in rows)


@dataclasses.dataclass(frozen=True)
class Interventions:
    """Section 5 of one layer type with the positional-component labels (``ropecheck usage``'s
    test against the position-free null), interventions first: the attention change (tv) under
    removal of the fast quarter across heads, within layers, within kv groups; the slow quarter's
    removal within layers (the contrast); then the paper's proxy, the fast-quarter share (the
    query's alone within kv groups). Each a RankTest (statistics/rank_sum.h), None where no stratum
    has both labels."""

    across_heads: Optional[RankTest]
    within_layers: Optional[RankTest]
    within_kv_groups: Optional[RankTest]
    slow_removed_within_layers: Optional[RankTest]
    proxy_across_heads: Optional[RankTest]
    proxy_within_layers: Optional[RankTest]
    proxy_within_kv_groups: Optional[RankTest]


@dataclasses.dataclass(frozen=True)
class ComponentCount:
    """How many of the layer type's ``heads`` have a positional component (``with_component`` at
    the default ``cut``), and the curve over cuts as ``ropecheck usage`` computes it: (cut, heads,
    interval low, interval high)."""

    cut: float
    heads: int
    with_component: int
    curve: tuple[tuple[float, int, int, int], ...]


@dataclasses.dataclass(frozen=True)
class LayerTypeSummary:
    """Sections 4-5 of one layer type of one model."""

    name: str
    layers: tuple[int, ...]
    theta: float
    window: Optional[int]
    span: int
    pairs: int
    norms: tuple[LayerNorms, ...]
    location: BandLocation
    kinds: dict[str, int]
    across_heads: Optional[RankTest]
    within_layers: Optional[RankTest]
    within_kv_groups: Optional[RankTest]
    breaks: BreakSummary
    semantic_head: Optional[dict[str, Any]]
    components: Optional[ComponentCount] = None
    interventions: Optional[Interventions] = None
    breaks_slow_only: Optional[BreakSummary] = None
    breaks_slow_still: Optional[BreakSummary] = None
    breaks_channel: Optional[BreakSummary] = None  # Theorem 6.1's own notion: the key's share falling to 1 - epsilon

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        for key in ("across_heads", "within_layers", "within_kv_groups"):
            test = getattr(self, key)
            if test is not None:
                d[key]["statement"] = test.statement
        if self.interventions is not None:
            for f in dataclasses.fields(Interventions):
                test = getattr(self.interventions, f.name)
                if test is not None:
                    d["interventions"][f.name]["statement"] = test.statement
        return d


def pair_norm_means(x: Any, axes: tuple[int, ...], layout: str = "half") -> Any:
    """Mean pair norms (check.pair_norms: the layout's pairs) of x [..., tokens, d] over `axes`, in binary64."""
    return pair_norms(x, layout).mean(axis=axes)


def _breaks(heads: Sequence[Mapping[str, Any]], span: int) -> BreakSummary:
    rows = [b for h in heads for b in (h.get("breaks") or [])]
    dist = sorted(b["distance"] for b in rows if b.get("outcome") == "found")
    limit = rows[0]["limit"] if rows else None
    n = len(rows)
    quantiles = []
    for level in (0.1, 0.25, 0.5, 0.75, 0.9):
        k = max(1, math.ceil(level * n)) if n else 0
        quantiles.append((level, dist[k - 1] if n and k <= len(dist) else None))  # none rows lie beyond the limit
    return BreakSummary(n, sum(1 for h in heads if h.get("breaks")), len(dist), sum(1 for d in dist if d <= span),
                        sum(1 for b in rows if b.get("outcome") == "none"), sum(1 for b in rows if b.get("outcome") == "undecided"),
                        limit, tuple(quantiles))


def summarise_layer_type(t: LayerTypeFacts, usage: Mapping[str, Any], q: Any, k: Any, v: Any) -> LayerTypeSummary:
    """One layer type's summary. usage: ``ropecheck usage``'s JSON of the whole capture; q, k, v:
    the capture [sequences, layers, heads or kv heads, tokens, head_dim]."""
    import numpy as np
    pairs_of = next((lt["pairs"] for lt in usage["layer_types"] if lt["name"] == t.name), usage["pairs"])
    bands = [p["band"] for p in pairs_of]
    freq = np.array([p["frequency"] for p in pairs_of], dtype=np.float64)
    layers = {L["layer"]: L for L in usage["layers"]}
    norms = []
    per_seq_peak_rot: list[list[float]] = [[] for _ in range(q.shape[0])]
    per_seq_slow: list[list[float]] = [[] for _ in range(q.shape[0])]
    per_seq_fast: list[list[float]] = [[] for _ in range(q.shape[0])]
    profile = np.zeros(len(bands))
    for layer in t.layers:
        L = layers[layer]
        qn, kn = np.array(L["q_norm"]), np.array(L["k_norm"])
        vn = pair_norm_means(v[:, layer], (0, 1, 2), t.layout)
        total = qn + kn
        peak = int(np.argmax(total))
        norms.append(LayerNorms(layer, tuple(qn.tolist()), tuple(kn.tolist()), tuple(vn.tolist()), band_shares(total.tolist(), bands),
                                band_shares(vn.tolist(), bands), peak, float(freq[peak]), float(freq[peak] * t.span)))
        profile += total / total.sum()
        sq = pair_norm_means(q[:, layer], (1, 2), t.layout) + pair_norm_means(k[:, layer], (1, 2), t.layout)  # [sequences, pairs]
        for s in range(q.shape[0]):
            p = int(np.argmax(sq[s]))
            per_seq_peak_rot[s].append(float(freq[p] * t.span))
            sh = band_shares(sq[s].tolist(), bands)
            per_seq_slow[s].append(sh.slow)
            per_seq_fast[s].append(sh.fast)
    profile /= len(t.layers)
    rot = Geometric.of([float(np.median(r)) for r in per_seq_peak_rot])
    location = BandLocation(
        tuple(n.peak_pair for n in norms), rot, rot.scaled(1 / t.span),
        mean_interval([float(np.mean(x)) for x in per_seq_slow]), mean_interval([float(np.mean(x)) for x in per_seq_fast]),
        tuple((i, float(freq[i]), float(freq[i] * t.span), float(profile[i])) for i in range(len(bands))))
    heads = [h | {"layer": layer} for layer in t.layers for h in layers[layer]["heads"]]
    kinds: dict[str, int] = {}
    for h in heads:
        kinds[h["kind"]] = kinds.get(h["kind"], 0) + 1
    fast = [i for i, b in enumerate(bands) if b == "fast"]

    def query_share(h: Mapping[str, Any]) -> float:
        qn = h["q_norm"]
        s = math.fsum(qn)
        return math.fsum(qn[i] for i in fast) / s if s > 0 else 0.0

    def by_kind(h: Mapping[str, Any]) -> bool:
        return h["kind"] in POSITIONAL

    def split(key: Any, share: Any, label: Any = by_kind) -> dict[Any, tuple[list[float], list[float]]]:
        out: dict[Any, tuple[list[float], list[float]]] = {}
        for h in heads:
            if h.get("high_frequency_share") is None:
                continue
            g = out.setdefault(key(h), ([], []))
            (g[0] if label(h) else g[1]).append(float(share(h)))
        return out
    hf = lambda h: h["high_frequency_share"]  # noqa: E731 - the fast quarter's share of q + k
    across = rank_test(split(lambda h: 0, hf), "fast-quarter share of q + k norm", "heads of the layer type pooled")
    within = rank_test(split(lambda h: h["layer"], hf), "fast-quarter share of q + k norm", "within layers (layer the stratum)")
    kv = rank_test(split(lambda h: (h["layer"], h["kv_head"]), query_share), "fast-quarter share of the query norm alone",
                   "within kv groups (heads reading the same keys)")
    interventions = None
    components = None
    whole = usage.get("positional_component")
    if whole is not None:
        def component(h: Mapping[str, Any]) -> bool:
            return (h.get("positional_component") or {}).get("offset") is not None
        of_type = next(c for c in whole["by_layer_type"] if c["name"] == t.name)
        components = ComponentCount(float(whole["cut"]), int(of_type["heads"]), int(of_type["with_component"]),
                                    tuple((float(c["cut"]), int(c["heads"]), int(c["interval"][0]), int(c["interval"][1])) for c in of_type["curve"]))
        fast_tv = lambda h: h["fast_removed"]["tv"]  # noqa: E731
        slow_tv = lambda h: h["slow_removed"]["tv"]  # noqa: E731
        removed = "attention change (tv) under removal of the fast quarter"
        interventions = Interventions(
            rank_test(split(lambda h: 0, fast_tv, component), removed, "heads of the layer type pooled"),
            rank_test(split(lambda h: h["layer"], fast_tv, component), removed, "within layers (layer the stratum)"),
            rank_test(split(lambda h: (h["layer"], h["kv_head"]), fast_tv, component), removed, "within kv groups (heads reading the same keys)"),
            rank_test(split(lambda h: h["layer"], slow_tv, component), "attention change (tv) under removal of the slow quarter",
                      "within layers (layer the stratum)"),
            rank_test(split(lambda h: 0, hf, component), "fast-quarter share of q + k norm", "heads of the layer type pooled"),
            rank_test(split(lambda h: h["layer"], hf, component), "fast-quarter share of q + k norm", "within layers (layer the stratum)"),
            rank_test(split(lambda h: (h["layer"], h["kv_head"]), query_share, component), "fast-quarter share of the query norm alone",
                      "within kv groups (heads reading the same keys)"))
    content_heads = [h for h in heads if h["kind"] in CONTENT]
    mechanisms: list[Optional[BreakSummary]] = []
    for m in ("slow_only", "slow_still", "channel"):  # each row's certificate of that kind, as _breaks reads a head's
        certified = [[b[m] for b in (h.get("breaks") or []) if b.get(m)] for h in content_heads]
        per_head = [{"breaks": [c for c in cs if c["outcome"] != "not-held"]} for cs in certified]
        held_not = sum(1 for cs in certified for c in cs if c["outcome"] == "not-held")
        summary = _breaks(per_head, t.span) if any(cs for cs in certified) else None
        mechanisms.append(dataclasses.replace(summary, not_held=held_not) if summary is not None else None)
    best = None
    for h in heads:
        b = h.get("breaking")
        if h["kind"] in CONTENT and b and (best is None or b["weight"] > best["weight"]):
            best = {"layer": h["layer"], "head": h["head"], "kind": h["kind"], "weight": b["weight"], "key_distance": b["key_distance"],
                    "outcome": b["outcome"], "distance": b.get("distance"), "q_norm": list(h["q_norm"]), "k_norm": list(h["k_norm"])}
    return LayerTypeSummary(t.name, t.layers, t.theta, t.window, t.span, len(bands), tuple(norms), location, kinds, across, within, kv,
                            _breaks(content_heads, t.span), best, components, interventions, mechanisms[0], mechanisms[1], mechanisms[2])


def summarise(model: LanguageModel, usage: Mapping[str, Any], q: Any, k: Any, v: Any) -> tuple[LayerTypeSummary, ...]:
    """Every layer type of the model."""
    return tuple(summarise_layer_type(t, usage, q, k, v) for t in model.facts.layer_types)
