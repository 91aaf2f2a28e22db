"""The typed results of ``ropecheck usage`` (``Usage`` and its parts, ``UsageSimilarity``): frozen
dataclasses read from the library's JSON by field name (docs/usage.md's schema table)."""

from __future__ import annotations

import dataclasses
from typing import Any, Mapping, Optional

from . import _core
from ._results import deep_copy, integers, json_field, kept_json, number, numbers, optional_int, optional_number

@dataclasses.dataclass(frozen=True)
class ScoreTest:
    """One attention score of a head with its test (usage/head_kind.h): the mean attention
    ``mass`` over ``rows`` rows, its 95% ``interval95``, the uniform ``baseline`` on the same keys,
    ``ratio`` = mass / baseline, ``z`` and whether it is ``significant``; ``offset`` for the offset
    scores (None for first_token and induction)."""

    rows: int
    mass: float
    interval95: tuple[float, float]
    baseline: float
    ratio: float
    z: float
    significant: bool
    offset: Optional[int] = None

    @classmethod
    def _from_json(cls, d: Mapping[str, Any]) -> ScoreTest:
        lo, hi = d["interval95"]
        return cls(rows=int(d["rows"]), mass=number(d["mass"]), interval95=(number(lo), number(hi)),
                   baseline=number(d["baseline"]), ratio=number(d["ratio"]), z=number(d["z"]),
                   significant=bool(d["significant"]), offset=optional_int(d.get("offset")))


@dataclasses.dataclass(frozen=True)
class HeadScores:
    """A head's scores: one per offset (0 is the diagonal), first token, and induction (None when
    the capture has no token ids)."""

    offsets: tuple[ScoreTest, ...]
    first_token: ScoreTest
    induction: Optional[ScoreTest]

    @classmethod
    def _from_json(cls, d: Mapping[str, Any]) -> HeadScores:
        induction = d.get("induction")
        return cls(offsets=tuple(ScoreTest._from_json(o) for o in d["offsets"]), first_token=ScoreTest._from_json(d["first_token"]),
                   induction=None if induction is None else ScoreTest._from_json(induction))


@dataclasses.dataclass(frozen=True)
class HeadAblation:
    """A frequency ablation of a head's attention: ``tv``, the mean total-variation distance of its
    rows to the model's attention, and ``top1``, the fraction of rows whose argmax key is unchanged."""

    tv: float
    top1: float

    @classmethod
    def _from_json(cls, d: Optional[Mapping[str, Any]]) -> Optional[HeadAblation]:
        return None if d is None else cls(tv=number(d["tv"]), top1=number(d["top1"]))


@dataclasses.dataclass(frozen=True)
class MechanismBreak:
    """The certificate of one strong content match under one mechanism (usage/content_breaks.h):
    ``outcome`` (found, none, undecided), the ``distance`` found and the searched ``limit``."""

    outcome: str
    distance: int
    limit: int

    @classmethod
    def _from_json(cls, d: Optional[Mapping[str, Any]]) -> Optional[MechanismBreak]:
        return None if d is None else cls(outcome=str(d["outcome"]), distance=int(d["distance"]), limit=int(d["limit"]))


@dataclasses.dataclass(frozen=True)
class ContentBreak:
    """A certified breaking distance of one strong content match (usage/content_breaks.h): the
    match (``sequence``, ``query`` and ``key`` tokens, the ``runner``-up key, their distances to the
    query, the key's attention ``weight``), the ``outcome`` (found, none, undecided), the
    ``distance`` found, the searched ``limit``, the layer type's ``span`` and the ``method``; the
    same certificate with only the slow quarter rotating (``slow_only``) and with it held still
    (``slow_still``), and the 1 - epsilon ``channel`` certificate (outcome also ``not-held``), each
    None when not run."""

    sequence: int
    query: int
    key: int
    runner: int
    key_distance: int
    runner_distance: int
    weight: float
    outcome: str
    distance: int
    limit: int
    span: int
    method: str
    slow_only: Optional[MechanismBreak] = None
    slow_still: Optional[MechanismBreak] = None
    channel: Optional[MechanismBreak] = None

    @classmethod
    def _from_json(cls, d: Mapping[str, Any]) -> ContentBreak:
        return cls(sequence=int(d["sequence"]), query=int(d["query"]), key=int(d["key"]), runner=int(d["runner"]),
                   key_distance=int(d["key_distance"]), runner_distance=int(d["runner_distance"]), weight=number(d["weight"]),
                   outcome=str(d["outcome"]), distance=int(d["distance"]), limit=int(d["limit"]), span=int(d["span"]),
                   method=str(d["method"]), slow_only=MechanismBreak._from_json(d.get("slow_only")),
                   slow_still=MechanismBreak._from_json(d.get("slow_still")), channel=MechanismBreak._from_json(d.get("channel")))


@dataclasses.dataclass(frozen=True)
class OffsetEffect:
    """The attention the rotation adds at one offset (usage/positional_component.h): over the
    ``sequences`` that have such rows, the mean ``mass`` as trained and ``position_free`` (every
    pair held still), their mean per-sequence difference ``effect`` and its simultaneous
    ``interval`` (Student t over sequences, Bonferroni over heads x offsets; +-inf below 2
    sequences)."""

    offset: int
    sequences: int
    mass: float
    position_free: float
    effect: float
    interval: tuple[float, float]

    @classmethod
    def _from_json(cls, d: Mapping[str, Any]) -> OffsetEffect:
        lo, hi = d["interval"]
        return cls(offset=int(d["offset"]), sequences=int(d["sequences"]), mass=number(d["mass"]),
                   position_free=number(d["position_free"]), effect=number(d["effect"]), interval=(number(lo), number(hi)))


@dataclasses.dataclass(frozen=True)
class HeadComponent:
    """A head's positional-component test: its ``offsets`` (OffsetEffect, 0 .. max_offset) and
    the component ``offset`` (None: no positional component at the default cut)."""

    offset: Optional[int]
    offsets: tuple[OffsetEffect, ...]

    @classmethod
    def _from_json(cls, d: Optional[Mapping[str, Any]]) -> Optional[HeadComponent]:
        return None if d is None else cls(offset=optional_int(d.get("offset")), offsets=tuple(OffsetEffect._from_json(o) for o in d["offsets"]))


@dataclasses.dataclass(frozen=True)
class HeadAttribution:
    """Which pairs carry a head's logit (usage/pair_attribution.h; per pair, the layer's pair
    order): at its positional ``offset`` (None: none) the mean contribution ``offset_logit`` and its
    Cauchy-Schwarz bound ``offset_bound``; at the first token ``first_logit`` and ``first_advantage``
    (minus the pair's mean over the row's keys); ``q_constancy`` (1: the same query chunk at every
    token)."""

    offset: Optional[int]
    offset_logit: tuple[float, ...]
    offset_bound: tuple[float, ...]
    first_logit: tuple[float, ...]
    first_advantage: tuple[float, ...]
    q_constancy: tuple[float, ...]

    @classmethod
    def _from_json(cls, d: Optional[Mapping[str, Any]]) -> Optional[HeadAttribution]:
        if d is None:
            return None
        return cls(offset=optional_int(d.get("offset")), offset_logit=numbers(d["offset_logit"]), offset_bound=numbers(d["offset_bound"]),
                   first_logit=numbers(d["first_logit"]), first_advantage=numbers(d["first_advantage"]),
                   q_constancy=numbers(d["q_constancy"]))


@dataclasses.dataclass(frozen=True)
class MeanWithInterval:
    """A mean over ``n`` sequences (None when n is 0) with its two-sided 95% t ``interval``."""

    n: int
    mean: Optional[float]
    interval: tuple[float, float]

    @classmethod
    def _from_json(cls, d: Mapping[str, Any]) -> MeanWithInterval:
        lo, hi = d["interval"]
        return cls(n=int(d["n"]), mean=optional_number(d.get("mean")), interval=(number(lo), number(hi)))


@dataclasses.dataclass(frozen=True)
class DistanceBucket:
    """Section 3 on the captured vectors (usage/distance_logits.h): at ``distances`` [from, to) the
    mean logit as trained, position-free and their difference."""

    distances: tuple[int, int]
    logit: MeanWithInterval
    position_free: MeanWithInterval
    difference: MeanWithInterval

    @classmethod
    def _from_json(cls, d: Mapping[str, Any]) -> DistanceBucket:
        m = MeanWithInterval._from_json
        lo, hi = d["distances"]
        return cls(distances=(int(lo), int(hi)), logit=m(d["logit"]), position_free=m(d["position_free"]),
                   difference=m(d["difference"]))


@dataclasses.dataclass(frozen=True)
class SameTokenTest:
    """The semantic-head criterion on one head (usage/same_token.h): over the ``sequences`` with
    rows that have an earlier copy of their own token (``rows`` of them), the mean ``mass`` on
    those copies, the ``expected`` mass the head's distance profile puts at their distances, their
    difference ``excess`` and its simultaneous ``interval`` over heads."""

    sequences: int
    rows: int
    mass: float
    expected: float
    excess: float
    interval: tuple[float, float]

    @classmethod
    def _from_json(cls, d: Optional[Mapping[str, Any]]) -> Optional[SameTokenTest]:
        if d is None:
            return None
        lo, hi = d["interval"]
        return cls(sequences=int(d["sequences"]), rows=int(d["rows"]), mass=number(d["mass"]), expected=number(d["expected"]),
                   excess=number(d["excess"]), interval=(number(lo), number(hi)))


@dataclasses.dataclass(frozen=True)
class SemanticHead:
    """The head chosen by the semantic-head criterion (``rule``): its ``layer``, ``head`` and
    ``test`` (None when no head's interval lies above 0), the Bonferroni ``family`` of heads and the
    simultaneous ``level``."""

    layer: Optional[int]
    head: Optional[int]
    test: Optional[SameTokenTest]
    family: int
    level: float
    rule: str

    @classmethod
    def _from_json(cls, d: Mapping[str, Any]) -> SemanticHead:
        h = d.get("head")
        return cls(layer=None if h is None else int(h["layer"]), head=None if h is None else int(h["head"]),
                   test=None if h is None else SameTokenTest._from_json(h["test"]), family=int(d["family"]), level=number(d["level"]),
                   rule=str(d["rule"]))


@dataclasses.dataclass(frozen=True)
class UsageHead:
    """One head of one layer as ``ropecheck usage`` measures it (usage/usage.h's HeadUsage, with the
    JSON's names). ``layer`` is the layer it belongs to; ``q_norm`` and ``k_norm`` are per pair
    (``k_norm`` its kv head's); ``diagonal``, ``previous_token`` and ``first_token`` the mean
    attention on those keys; ``kind`` is one of ``HEAD_KINDS``; ``breaking`` is the first of
    ``breaks`` (None when none was certified)."""

    layer: int
    head: int
    kv_head: int
    q_norm: tuple[float, ...]
    k_norm: tuple[float, ...]
    rows: int
    diagonal: float
    previous_token: float
    first_token: float
    kind: str
    kind_offset: Optional[int]
    scores: HeadScores
    high_frequency_share: Optional[float]
    share_rank: Optional[int]
    slow_still: Optional[HeadAblation]
    fast_removed: Optional[HeadAblation]
    strong_matches: int
    breaking: Optional[ContentBreak]
    breaks: tuple[ContentBreak, ...]
    slow_removed: Optional[HeadAblation] = None
    query_fast_share: Optional[float] = None
    positional_component: Optional[HeadComponent] = None
    attribution: Optional[HeadAttribution] = None
    distance_logits: tuple[DistanceBucket, ...] = ()
    same_token: Optional[SameTokenTest] = None

    @classmethod
    def _from_json(cls, layer: int, d: Mapping[str, Any]) -> UsageHead:
        breaking = d.get("breaking")
        return cls(layer=layer, head=int(d["head"]), kv_head=int(d["kv_head"]), q_norm=numbers(d["q_norm"]),
                   k_norm=numbers(d["k_norm"]), rows=int(d["rows"]), diagonal=number(d["diagonal"]),
                   previous_token=number(d["previous_token"]), first_token=number(d["first_token"]), kind=str(d["kind"]),
                   kind_offset=optional_int(d.get("kind_offset")), scores=HeadScores._from_json(d["scores"]),
                   high_frequency_share=optional_number(d.get("high_frequency_share")), share_rank=optional_int(d.get("share_rank")),
                   slow_still=HeadAblation._from_json(d.get("slow_still")), fast_removed=HeadAblation._from_json(d.get("fast_removed")),
                   strong_matches=int(d["strong_matches"]),
                   breaking=None if breaking is None else ContentBreak._from_json(breaking),
                   breaks=tuple(ContentBreak._from_json(b) for b in d["breaks"]),
                   slow_removed=HeadAblation._from_json(d.get("slow_removed")), query_fast_share=optional_number(d.get("query_fast_share")),
                   positional_component=HeadComponent._from_json(d.get("positional_component")),
                   attribution=HeadAttribution._from_json(d.get("attribution")),
                   distance_logits=tuple(DistanceBucket._from_json(b) for b in d.get("distance_logits") or ()),
                   same_token=SameTokenTest._from_json(d.get("same_token")))


@dataclasses.dataclass(frozen=True)
class UsageLayer:
    """One layer of a usage analysis: its ``layer`` index and ``layer_type``, the mean query and
    key norm per pair (``q_norm``, ``k_norm``), and its ``heads``."""

    layer: int
    layer_type: str
    q_norm: tuple[float, ...]
    k_norm: tuple[float, ...]
    heads: tuple[UsageHead, ...]


def _layers(layers: Any) -> tuple[UsageLayer, ...]:
    """The JSON's layers as UsageLayers."""
    return tuple(UsageLayer(layer=int(d["layer"]), layer_type=str(d["layer_type"]), q_norm=numbers(d["q_norm"]),
                            k_norm=numbers(d["k_norm"]), heads=tuple(UsageHead._from_json(int(d["layer"]), h) for h in d["heads"]))
                 for d in layers)


@dataclasses.dataclass(frozen=True)
class UsageCapture:
    """The capture a usage analysis measured: its ``description`` (file, shapes, dtypes), its
    geometry and the dtypes of q and k ("float32", "float16")."""

    description: str
    sequences: int
    layers: int
    heads: int
    kv_heads: int
    tokens: int
    head_dim: int
    q_dtype: str
    k_dtype: str

    @classmethod
    def _from_json(cls, d: Mapping[str, Any]) -> UsageCapture:
        return cls(description=str(d["description"]), sequences=int(d["sequences"]), layers=int(d["layers"]), heads=int(d["heads"]),
                   kv_heads=int(d["kv_heads"]), tokens=int(d["tokens"]), head_dim=int(d["head_dim"]), q_dtype=str(d["q_dtype"]),
                   k_dtype=str(d["k_dtype"]))


@dataclasses.dataclass(frozen=True)
class PositionalRanking:
    """Section 5 across heads (usage/positional_ranking.h): of the ``ranked`` heads with a
    fast-quarter share, ``positional`` are positional; ``auc`` is P(a positional head's share >
    another's) and ``p_value`` its one-sided rank-sum test (None when undefined), by ``p_method``;
    ``statement`` says it in one line."""

    ranked: int
    positional: int
    auc: Optional[float]
    p_value: Optional[float]
    p_method: str
    statement: str

    @classmethod
    def _from_json(cls, d: Mapping[str, Any]) -> PositionalRanking:
        return cls(ranked=int(d["ranked"]), positional=int(d["positional"]), auc=optional_number(d.get("auc")),
                   p_value=optional_number(d.get("p_value")), p_method=str(d["p_method"]), statement=str(d["statement"]))


@dataclasses.dataclass(frozen=True)
class LayerRanking:
    """Section 5 within one layer: its ``positional`` and ``others`` heads (head indices), the AUC
    of the positional heads' shares against the others' and its one-sided ``p_value``."""

    layer: int
    positional: tuple[int, ...]
    others: tuple[int, ...]
    auc: float
    p_value: float
    p_method: str
    kv_head: Optional[int] = None

    @classmethod
    def _from_json(cls, d: Mapping[str, Any]) -> LayerRanking:
        return cls(layer=int(d["layer"]), positional=integers(d["positional"]), others=integers(d["others"]), auc=number(d["auc"]),
                   p_value=number(d["p_value"]), p_method=str(d["p_method"]), kv_head=optional_int(d.get("kv_head")))


@dataclasses.dataclass(frozen=True)
class WithinLayerRanking:
    """Section 5 within layers: one LayerRanking per layer with a positional and another head,
    and over the ``pairs`` (positional, other) pairs compared within a layer the ``auc`` and
    ``p_value`` stratified by layer (None when no layer qualifies); ``statement`` in one line."""

    layers: tuple[LayerRanking, ...]
    pairs: int
    auc: Optional[float]
    p_value: Optional[float]
    p_method: str
    statement: str

    @classmethod
    def _from_json(cls, d: Mapping[str, Any]) -> WithinLayerRanking:
        return cls(layers=tuple(LayerRanking._from_json(r) for r in d["layers"]), pairs=int(d["pairs"]),
                   auc=optional_number(d.get("auc")), p_value=optional_number(d.get("p_value")), p_method=str(d["p_method"]),
                   statement=str(d["statement"]))


@dataclasses.dataclass(frozen=True)
class NullKind:
    """The null's heads given one kind: ``kind`` (of ``HEAD_KINDS``) and how many ``heads``."""

    kind: str
    heads: int

    @classmethod
    def _from_json(cls, d: Mapping[str, Any]) -> NullKind:
        return cls(kind=str(d["kind"]), heads=int(d["heads"]))


@dataclasses.dataclass(frozen=True)
class NullCheck:
    """The kind rule on Gaussian captures of the same shapes (usage/gaussian_capture.h): ``repeats``
    captures from ``seed`` of ``sequences`` sequences (the first described by ``capture``); of
    their ``heads``, ``flagged`` got a kind other than ``other`` (by kind in ``kinds``): the
    false-positive ``rate`` and its one-sided 95% ``upper95`` bound (``upper95_method``)."""

    seed: int
    sequences: int
    repeats: int
    capture: str
    heads: int
    flagged: int
    kinds: tuple[NullKind, ...]
    rate: float
    upper95: float
    upper95_method: str

    @classmethod
    def _from_json(cls, d: Mapping[str, Any]) -> NullCheck:
        return cls(seed=int(d["seed"]), sequences=int(d["sequences"]), repeats=int(d["repeats"]), capture=str(d["capture"]),
                   heads=int(d["heads"]), flagged=int(d["flagged"]), kinds=tuple(NullKind._from_json(k) for k in d["kinds"]),
                   rate=number(d["rate"]), upper95=number(d["upper95"]), upper95_method=str(d["upper95_method"]))


@dataclasses.dataclass(frozen=True)
class BreakQuantile:
    """A quantile of the certified breaking distances: at ``level``, ``distance`` (None: beyond the
    limit searched)."""

    level: float
    distance: Optional[int]

    @classmethod
    def _from_json(cls, d: Mapping[str, Any]) -> BreakQuantile:
        return cls(level=number(d["level"]), distance=optional_int(d.get("distance")))


@dataclasses.dataclass(frozen=True)
class BreakDistribution:
    """The certified breaking distances over rows (usage/content_breaks.h): ``rows`` certified
    from ``heads`` heads, of which ``found`` break (``found_within_span`` within the layer type's
    span), ``none`` are certified not to break up to ``limit`` and ``undecided``; ``quantiles`` by
    ``quantile_rule``. For the channel certificate, ``not_held`` rows (not in ``rows``) are those
    whose key does not hold more than 1 - epsilon where it is (0 elsewhere and in older documents)."""

    rows: int
    heads: int
    found: int
    none: int
    undecided: int
    found_within_span: int
    limit: int
    quantiles: tuple[BreakQuantile, ...]
    quantile_rule: str
    not_held: int = 0

    @classmethod
    def _from_json(cls, d: Mapping[str, Any]) -> BreakDistribution:
        return cls(rows=int(d["rows"]), heads=int(d["heads"]), found=int(d["found"]), none=int(d["none"]),
                   undecided=int(d["undecided"]), found_within_span=int(d["found_within_span"]), limit=int(d["limit"]),
                   quantiles=tuple(BreakQuantile._from_json(q) for q in d["quantiles"]), quantile_rule=str(d["quantile_rule"]),
                   not_held=int(d.get("not_held", 0)))


@dataclasses.dataclass(frozen=True)
class ChannelBreaks:
    """Theorem 6.1 in the theorem's own notion (usage/content_breaks.h): the certified shortest
    distance at which a moved key's share of its row falls to 1 - ``epsilon`` or below, the row's
    other keys fixed; ``breaks`` over the rows that hold more than 1 - epsilon where they are, by
    ``rule``."""

    epsilon: float
    breaks: BreakDistribution
    rule: str

    @classmethod
    def _from_json(cls, d: Mapping[str, Any]) -> ChannelBreaks:
        return cls(epsilon=number(d["epsilon"]), breaks=BreakDistribution._from_json(d), rule=str(d["rule"]))


@dataclasses.dataclass(frozen=True)
class ComponentCurvePoint:
    """At effect-size ``cut``: the ``heads`` whose largest offset effect is >= cut, and the
    simultaneous ``interval`` of that count."""

    cut: float
    heads: int
    interval: tuple[int, int]

    @classmethod
    def _from_json(cls, d: Mapping[str, Any]) -> ComponentCurvePoint:
        lo, hi = d["interval"]
        return cls(cut=number(d["cut"]), heads=int(d["heads"]), interval=(int(lo), int(hi)))


@dataclasses.dataclass(frozen=True)
class LayerTypeComponents:
    """The positional-component count of one layer type: of its ``heads``, ``with_component`` pass
    at the default cut; its ``curve`` (the same family and t quantile as the whole test)."""

    name: str
    heads: int
    with_component: int
    curve: tuple[ComponentCurvePoint, ...]

    @classmethod
    def _from_json(cls, d: Mapping[str, Any]) -> LayerTypeComponents:
        return cls(name=str(d["name"]), heads=int(d["heads"]), with_component=int(d["with_component"]),
                   curve=tuple(ComponentCurvePoint._from_json(c) for c in d["curve"]))


@dataclasses.dataclass(frozen=True)
class ComponentTest:
    """The positional-component test over every head (usage/positional_component.h): its ``cut``,
    ``alpha``, Bonferroni ``family``, the ``sequences`` (the unit), ``t_critical``; of ``heads``,
    ``with_component`` pass; the ``curve`` over cuts; ``statement`` and ``rule`` in words."""

    cut: float
    alpha: float
    family: int
    sequences: int
    t_critical: float
    heads: int
    with_component: int
    curve: tuple[ComponentCurvePoint, ...]
    by_layer_type: tuple[LayerTypeComponents, ...]
    statement: str
    rule: str

    @classmethod
    def _from_json(cls, d: Mapping[str, Any]) -> ComponentTest:
        return cls(cut=number(d["cut"]), alpha=number(d["alpha"]), family=int(d["family"]), sequences=int(d["sequences"]),
                   t_critical=number(d["t_critical"]), heads=int(d["heads"]), with_component=int(d["with_component"]),
                   curve=tuple(ComponentCurvePoint._from_json(c) for c in d["curve"]),
                   by_layer_type=tuple(LayerTypeComponents._from_json(t) for t in d["by_layer_type"]), statement=str(d["statement"]),
                   rule=str(d["rule"]))


@dataclasses.dataclass(frozen=True)
class CutQuality:
    """How many of ``heads`` a score misclassifies at ``cut``."""

    cut: float
    misclassified: int
    heads: int

    @classmethod
    def _from_json(cls, d: Mapping[str, Any]) -> CutQuality:
        return cls(cut=number(d["cut"]), misclassified=int(d["misclassified"]), heads=int(d["heads"]))


@dataclasses.dataclass(frozen=True)
class Section5:
    """Section 5 with the positional-component labels, interventions first: the attention change
    under removal of the fast quarter across heads, within layers and within kv groups, the slow
    quarter's removal as the contrast, then the paper's proxy (fast-quarter share; the query's
    alone within kv groups) and how many heads each misclassifies."""

    fast_removed: PositionalRanking
    fast_removed_within_layers: WithinLayerRanking
    fast_removed_within_kv_groups: WithinLayerRanking
    slow_removed: PositionalRanking
    slow_removed_within_layers: WithinLayerRanking
    share: PositionalRanking
    share_within_layers: WithinLayerRanking
    query_share_within_kv_groups: WithinLayerRanking
    share_at_even_spread: CutQuality
    share_at_best_cut: CutQuality
    fast_removed_at_best_cut: CutQuality

    @classmethod
    def _from_json(cls, d: Mapping[str, Any]) -> Section5:
        w = WithinLayerRanking._from_json
        r = PositionalRanking._from_json
        c = CutQuality._from_json
        return cls(fast_removed=r(d["fast_removed"]), fast_removed_within_layers=w(d["fast_removed_within_layers"]),
                   fast_removed_within_kv_groups=w(d["fast_removed_within_kv_groups"]), slow_removed=r(d["slow_removed"]),
                   slow_removed_within_layers=w(d["slow_removed_within_layers"]), share=r(d["share"]),
                   share_within_layers=w(d["share_within_layers"]), query_share_within_kv_groups=w(d["query_share_within_kv_groups"]),
                   share_at_even_spread=c(d["share_at_even_spread"]), share_at_best_cut=c(d["share_at_best_cut"]),
                   fast_removed_at_best_cut=c(d["fast_removed_at_best_cut"]))


@dataclasses.dataclass(frozen=True)
class BreakMechanisms:
    """Theorem 6.1 separated by mechanism: the breaking distances with only the slow quarter
    rotating (``slow_only``) and with it held still (``slow_still``)."""

    slow_only: BreakDistribution
    slow_still: BreakDistribution

    @classmethod
    def _from_json(cls, d: Mapping[str, Any]) -> BreakMechanisms:
        return cls(slow_only=BreakDistribution._from_json(d["slow_only"]), slow_still=BreakDistribution._from_json(d["slow_still"]))


@dataclasses.dataclass(frozen=True)
class BandCount:
    """How many ``heads`` have their top pair in ``band``."""

    band: str
    heads: int

    @classmethod
    def _from_json(cls, d: Mapping[str, Any]) -> BandCount:
        return cls(band=str(d["band"]), heads=int(d["heads"]))


@dataclasses.dataclass(frozen=True)
class AppendixE:
    """Appendix E over the heads (usage/pair_attribution.h): the band of the pair carrying most of
    each positional head's logit at its offset, with that pair's median alignment (contribution over
    its Cauchy-Schwarz bound); the band of the pair carrying most of each first-token head's
    advantage, with its median share and query constancy; ``statement`` in one line."""

    positional_heads: int
    positional_top_band: tuple[BandCount, ...]
    positional_alignment_median: float
    sink_heads: int
    sink_top_band: tuple[BandCount, ...]
    sink_top_share_median: float
    sink_constancy_median: float
    statement: str

    @classmethod
    def _from_json(cls, d: Mapping[str, Any]) -> AppendixE:
        return cls(positional_heads=int(d["positional_heads"]), positional_top_band=tuple(BandCount._from_json(b) for b in d["positional_top_band"]),
                   positional_alignment_median=number(d["positional_alignment_median"]), sink_heads=int(d["sink_heads"]),
                   sink_top_band=tuple(BandCount._from_json(b) for b in d["sink_top_band"]),
                   sink_top_share_median=number(d["sink_top_share_median"]), sink_constancy_median=number(d["sink_constancy_median"]),
                   statement=str(d["statement"]))


@dataclasses.dataclass(frozen=True)
class LayerTypeDistance:
    """Section 3 for one ``layer_type``: its heads' mean logit by distance ``buckets``."""

    layer_type: str
    buckets: tuple[DistanceBucket, ...]

    @classmethod
    def _from_json(cls, d: Mapping[str, Any]) -> LayerTypeDistance:
        return cls(layer_type=str(d["layer_type"]), buckets=tuple(DistanceBucket._from_json(b) for b in d["buckets"]))


@dataclasses.dataclass(frozen=True)
class Section3:
    """The paper's Section 3 on the captured vectors, per layer type, by the stated ``rule``."""

    layer_types: tuple[LayerTypeDistance, ...]
    rule: str

    @classmethod
    def _from_json(cls, d: Mapping[str, Any]) -> Section3:
        return cls(layer_types=tuple(LayerTypeDistance._from_json(t) for t in d["layer_types"]), rule=str(d["rule"]))


@dataclasses.dataclass(frozen=True)
class Usage:
    """The usage analysis of one capture, as ``ropecheck usage`` computes it.

    Every number is a measurement on the capture (its sample size is in ``capture``), not a
    certificate; only a head's ``breaking`` distance is certified, for the captured vectors.
    ``to_dict()`` is ``ropecheck usage --json`` (schema ropecheck-usage/2).

    Attributes
    ----------
    model : str
        The model the capture was analysed with.
    capture : UsageCapture
        Its description, sequences, layers, heads, kv_heads, tokens, head_dim and the dtypes.
    layers : tuple of UsageLayer
        One per layer: ``layer_type``, ``q_norm`` and ``k_norm`` per pair, and ``heads``
        (UsageHead), each with ``kind`` (one of ``HEAD_KINDS``) and ``kind_offset``, ``scores``
        (HeadScores: per offset, first token and induction, each a ScoreTest: mass, 95% interval over
        rows, uniform baseline, z, significant), ``high_frequency_share``, the two ablations
        (``slow_still``, ``fast_removed``: HeadAblation) and ``breaks`` (ContentBreak, certified, one per
        strong content match; ``breaking`` is the first).
    positional_ranking : PositionalRanking
        Section 5 measured across heads: do the positional heads have the largest fast-quarter share
        (AUC, p-value).
    within_layers : WithinLayerRanking
        The same within each layer (LayerRanking) and stratified by layer (exact where small).
    null : NullCheck or None
        The kind rule's false-positive rate on Gaussian captures of the same shapes (None when
        skipped: ``null_sequences=0``).
    break_distribution : BreakDistribution or None
        Quantiles over rows of the certified breaking distances (None with
        ``certify_breaks=False``).
    positional_component : ComponentTest or None
        Which heads put attention at an offset because of position: the offset mass the rotation
        adds over the position-free null, over sequences, with the count as a curve over the cut
        (None in a document written before it).
    section5 : Section5 or None
        Section 5 with those labels, interventions first, then the paper's proxy.
    break_mechanisms : BreakMechanisms or None
        The breaking distances with only the slow quarter rotating and with it held still.
    break_channel : ChannelBreaks or None
        The breaking distances in the theorem's notion (the key's share falling to 1 - epsilon);
        None when skipped, under a softcap, or in a document written before it.
    semantic_head : SemanticHead or None
        The head chosen by the semantic-head criterion (attention on earlier copies of the query's
        own token beyond the head's distance profile); None without token ids or in an older document.
    appendix_e : AppendixE or None
        Which pairs carry the positional heads' logit and the sinks' first-token advantage.
    section3 : Section3 or None
        The mean logit by distance on the captured vectors, as trained and position-free.
    """

    model: str = json_field()
    capture: UsageCapture = json_field(convert=UsageCapture._from_json)
    layers: tuple[UsageLayer, ...] = json_field(convert=_layers)
    positional_ranking: PositionalRanking = json_field(convert=PositionalRanking._from_json)
    within_layers: WithinLayerRanking = json_field(convert=WithinLayerRanking._from_json)
    null: Optional[NullCheck] = json_field(convert=NullCheck._from_json)
    break_distribution: Optional[BreakDistribution] = json_field(convert=BreakDistribution._from_json)
    positional_component: Optional[ComponentTest] = json_field(convert=ComponentTest._from_json)
    section5: Optional[Section5] = json_field(convert=Section5._from_json)
    break_mechanisms: Optional[BreakMechanisms] = json_field(convert=BreakMechanisms._from_json)
    break_channel: Optional[ChannelBreaks] = json_field(convert=ChannelBreaks._from_json)
    semantic_head: Optional[SemanticHead] = json_field(convert=SemanticHead._from_json)
    appendix_e: Optional[AppendixE] = json_field(convert=AppendixE._from_json)
    section3: Optional[Section3] = json_field(convert=Section3._from_json)
    _data: Mapping[str, Any] = kept_json()
    _text: str = dataclasses.field(default="", repr=False, compare=False)

    def heads(self) -> list[UsageHead]:
        """Every head of every layer, layer by layer (each knows its ``layer``)."""
        return [h for layer in self.layers for h in layer.heads]

    def to_dict(self) -> dict[str, Any]:
        """``ropecheck usage --json``."""
        return deep_copy(self._data)

    def __str__(self) -> str:
        """The table ``ropecheck usage`` prints (the library's one printer)."""
        return self._text


#: The head kinds, in the library's order (usage/head_kind.h), from the library itself.
HEAD_KINDS: tuple[str, ...] = tuple(_core.HEAD_KINDS[0])
#: The positional kinds (Section 5's group) and the content kinds (Theorem 6.1's), likewise.
POSITIONAL_KINDS: tuple[str, ...] = tuple(_core.HEAD_KINDS[1])
CONTENT_KINDS: tuple[str, ...] = tuple(_core.HEAD_KINDS[2])


@dataclasses.dataclass(frozen=True)
class UsageSimilarity:
    """How alike two captures' per-pair usage is (the paper's Fig. 19; usage/usage_compare.h).

    A measurement on the two captures. ``correlation`` is Pearson's r over every (layer, pair) of
    the layers' usage shares (each pair's query + key norm over the layer's total);
    ``per_layer`` the same within each layer (None where a layer's shares are constant);
    ``kinds_agree`` the fraction of heads of the same kind.
    """

    correlation: float
    per_layer: tuple[Optional[float], ...]
    max_difference: float
    points: int
    kinds_agree: Optional[float]
    statement: str
