"""The exact audit of anyone's RoPE output: ``ropecheck audit`` on arrays."""

from __future__ import annotations

import dataclasses
import json
from typing import TYPE_CHECKING, Any, Mapping, Optional

from . import _arguments as args
from . import _core
from ._errors import InputError
from ._check_results import ClassSummary
from ._results import deep_copy, from_json, integers, json_field, kept_json, number, strings
from ._options import ModelOptions, TensorLike
from ._tensors import native_copy, positions_array, tensor

if TYPE_CHECKING:
    import numpy.typing as npt
    from typing_extensions import Unpack


@dataclasses.dataclass(frozen=True)
class AuditDecade:
    """The audit of one position decade (``positions``, e.g. "[1e3, 1e4)"): its ``elements``, how
    many are ``correctly_rounded``, the largest error in ulp (``max_ulps``), absolute
    (``max_abs``), over the pair's norm (``max_abs_over_pair_norm``) and as a phase
    (``max_phase_rad``)."""

    positions: str
    elements: int
    correctly_rounded: int
    max_ulps: float
    max_abs: float
    max_abs_over_pair_norm: float
    max_phase_rad: float

    @classmethod
    def _from_json(cls, d: Mapping[str, Any]) -> AuditDecade:
        return cls(positions=str(d["positions"]), elements=int(d["elements"]), correctly_rounded=int(d["correctly_rounded"]),
                   max_ulps=number(d["max_ulps"]), max_abs=number(d["max_abs"]),
                   max_abs_over_pair_norm=number(d["max_abs_over_pair_norm"]), max_phase_rad=number(d["max_phase_rad"]))


@dataclasses.dataclass(frozen=True)
class AuditWorst:
    """The element with the largest error: where (``position``, ``token``, ``head``, ``pair``,
    ``component`` "y_a" or "y_b"), its error (``ulps``, ``abs``) and the pair's ``norm``, the two
    inputs (``inputs_hex``, ``input_bits``), what was got, the exact value and its correctly
    rounded one (hex, and the got value's bits), and ``text``, the line the audit prints."""

    position: int
    token: int
    head: int
    pair: int
    component: str
    ulps: float
    abs: float
    norm: float
    text: str
    inputs_hex: tuple[str, ...]
    input_bits: tuple[int, ...]
    got_hex: str
    got_bits: int
    exact_hex: str
    correctly_rounded_hex: str

    @classmethod
    def _from_json(cls, d: Mapping[str, Any]) -> AuditWorst:
        return cls(position=int(d["position"]), token=int(d["token"]), head=int(d["head"]), pair=int(d["pair"]),
                   component=str(d["component"]), ulps=number(d["ulps"]), abs=number(d["abs"]), norm=number(d["norm"]),
                   text=str(d["text"]), inputs_hex=strings(d["inputs_hex"]), input_bits=integers(d["input_bits"]),
                   got_hex=str(d["got_hex"]), got_bits=int(d["got_bits"]), exact_hex=str(d["exact_hex"]),
                   correctly_rounded_hex=str(d["correctly_rounded_hex"]))


@dataclasses.dataclass(frozen=True)
class AuditErrors:
    """The audit's whole error record (accuracy/ulp_error.h), every field named as in the JSON's
    ``errors``: the ``format`` and the ulp ``metric``; ``elements``, how many are
    ``correctly_rounded`` and ``undecided``; the share correctly rounded, the largest and median
    error in ulp (the median to ``median_resolution_ulps``), the largest absolute, relative and
    phase errors; specials and pass-through elements with their mismatches; the ``worst`` element
    (None when there is none) and a row per position decade (``decades``)."""

    format: str
    metric: str
    elements: int
    correctly_rounded: int
    undecided: int
    share_correctly_rounded: float
    max_ulps: float
    median_ulps: float
    median_resolution_ulps: float
    max_abs: float
    max_abs_over_pair_norm: float
    max_phase_rad: float
    specials: int
    special_mismatches: int
    pass_through: int
    pass_through_mismatches: int
    worst: Optional[AuditWorst]
    decades: tuple[AuditDecade, ...]

    @classmethod
    def _from_json(cls, d: Mapping[str, Any]) -> AuditErrors:
        worst = d.get("worst")
        return cls(format=str(d["format"]), metric=str(d["metric"]), elements=int(d["elements"]),
                   correctly_rounded=int(d["correctly_rounded"]), undecided=int(d["undecided"]),
                   share_correctly_rounded=number(d["share_correctly_rounded"]), max_ulps=number(d["max_ulps"]),
                   median_ulps=number(d["median_ulps"]), median_resolution_ulps=number(d["median_resolution_ulps"]),
                   max_abs=number(d["max_abs"]), max_abs_over_pair_norm=number(d["max_abs_over_pair_norm"]),
                   max_phase_rad=number(d["max_phase_rad"]), specials=int(d["specials"]), special_mismatches=int(d["special_mismatches"]),
                   pass_through=int(d["pass_through"]), pass_through_mismatches=int(d["pass_through_mismatches"]),
                   worst=None if worst is None else AuditWorst._from_json(worst),
                   decades=tuple(AuditDecade._from_json(r) for r in d["decades"]))


@dataclasses.dataclass(frozen=True)
class AuditFormulation:
    """check_rope's default bound on the audited tensor: every element against what the standard
    float32 formulation can produce (accuracy/float32_formulation.h), per input class; the same
    figures as ropecheck.testing's CheckResult (``ropecheck audit --json``'s "formulation").

    Attributes
    ----------
    checked, failed, undecided : int
    max_ulps, max_rel : float
        Full precision (exhaustive over this tensor).
    classes : dict
        Per input class ("finite", "subnormal", "overflow", "zeros", "nonfinite"): a ClassSummary.
    worst : dict or None
        The worst element outside the reach: where, bits, figures, rule, the reach and the angle bound.
    """

    checked: int
    failed: int
    undecided: int
    max_ulps: float
    max_rel: float
    classes: dict[str, ClassSummary]
    worst: Optional[dict[str, Any]]

    @property
    def within(self) -> bool:
        """Every element within the float32 formulation's reach."""
        return self.failed == 0

    @staticmethod
    def _from_json(d: Mapping[str, Any]) -> AuditFormulation:
        classes = {n: ClassSummary(int(k["checked"]), int(k["failed"]), number(k["max_ulps"]), number(k["max_rel"]))
                   for n, k in d["classes"].items()}
        return AuditFormulation(int(d["checked"]), int(d["failed"]), int(d["undecided"]), number(d["max_ulps"]), number(d["max_rel"]),
                                classes, None if d["worst"] is None else dict(d["worst"]))


@dataclasses.dataclass(frozen=True)
class Audit:
    """The audit of one RoPE output against the exact map, as ``ropecheck audit`` prints it.

    Every figure is exhaustive over the given tensor: the exact maximum for this input, a lower
    bound of the implementation's error on other inputs. ``errors`` holds the whole error record;
    the attributes below are its headline fields. ``to_dict()`` is ``ropecheck audit --json``.

    Attributes
    ----------
    max_ulp, median_ulp : float
        The largest and the median error in ulp (the floored metric, accuracy/ulp_error.h).
    share_correctly_rounded : float
        Share of the elements equal to their correctly rounded value.
    elements, specials, special_mismatches, pass_through, pass_through_mismatches : int
    decades : tuple of AuditDecade
        A row per position decade: elements, correctly rounded, max ulp, max abs, phase error.
    worst : AuditWorst or None
        The worst element: position, token, head, pair, component, inputs and outputs in hex.
    errors : AuditErrors
        The whole error record (``decades`` and ``worst`` are its own).
    formulation : AuditFormulation
        check_rope's default bound on this tensor, per input class.
    """

    errors: AuditErrors = dataclasses.field(repr=False, compare=False)  # first: the json_fields count as defaulted
    max_ulp: float = json_field("max_ulps", convert=number)
    median_ulp: float = json_field("median_ulps", convert=number)
    share_correctly_rounded: float = json_field()
    elements: int = json_field()
    correctly_rounded_elements: int = json_field("correctly_rounded")
    specials: int = json_field()
    special_mismatches: int = json_field()
    pass_through: int = json_field()
    pass_through_mismatches: int = json_field()
    decades: tuple[AuditDecade, ...] = json_field(convert=lambda rows: tuple(AuditDecade._from_json(r) for r in rows))
    worst: Optional[AuditWorst] = json_field(convert=AuditWorst._from_json)
    text: str = dataclasses.field(default="", repr=False, compare=False)
    _data: Mapping[str, Any] = kept_json()
    formulation: Optional[AuditFormulation] = dataclasses.field(default=None, repr=False, compare=False)

    @property
    def correctly_rounded(self) -> bool:
        """Every element equal to its correctly rounded value, every special and copy as expected."""
        return (self.correctly_rounded_elements == self.elements and not self.special_mismatches
                and not self.pass_through_mismatches)

    def to_dict(self) -> dict[str, Any]:
        """``ropecheck audit --json``."""
        return deep_copy(self._data)

    def __repr__(self) -> str:
        return self.text.rstrip("\n")


def audit(x: TensorLike, positions: npt.ArrayLike, y: TensorLike, *, model: Optional[str] = None, layer_type: Optional[str] = None,
          layout: Optional[str] = None, axes: str = "auto", threads: int = 1, precision: Optional[int] = None,
          **spectrum_options: Unpack[ModelOptions]) -> Audit:
    """Audits y, another implementation's RoPE of x at `positions`, against the exact map.

    Every element is checked; the figures are those of ``ropecheck audit`` on the same arrays.

    Parameters
    ----------
    x, y : numpy.ndarray or DLPack tensor
        The input and the implementation's output: float32, float16 or bfloat16 (uint16 bits, or
        DLPack bfloat16), same shape and dtype.
    positions : array_like of int
        As for ``apply``.
    model, layer_type, layout, axes : optional
        As for ``apply``.
    threads : int
        Threads splitting the tokens, in [1, 256] (the same result).
    precision : int, optional
        The reference's working precision in bits (default 200).

    Returns
    -------
    Audit

    Raises
    ------
    InputError
        A bad argument, naming it (``y`` when its shape or dtype is not x's).

    Examples
    --------
    >>> import numpy as np, ropecheck
    >>> x = np.ones((2, 1, 4), dtype=np.float32)
    >>> y = ropecheck.apply(x, [0, 1], dim=4, layout="half")
    >>> a = ropecheck.audit(x, [0, 1], y, dim=4, layout="half")
    >>> a.correctly_rounded, a.max_ulp <= 0.5
    (True, True)
    """
    a = native_copy(tensor(x, "x"))
    b = native_copy(tensor(y, "y"))
    if a.dtype != b.dtype:
        raise InputError("y", f"an array of x's dtype {a.dtype}", str(b.dtype))
    request, variant = args.spectrum_request(model=model, layer_type=layer_type, **spectrum_options)
    checked_threads = args.threads(threads)
    checked_precision = 200 if precision is None else args.integer("precision", precision, 64, 65536)
    with args.VariantNames(variant):
        text, data = _core.audit(a, positions_array(positions), b, request, args.layout(layout), args.choice("axes", axes, args.AXES),
                                 checked_threads, checked_precision)
    document = json.loads(data)
    errors = AuditErrors._from_json(document["errors"])
    return from_json(Audit, document["errors"], errors=errors, decades=errors.decades, worst=errors.worst, text=text, _data=document,
                     formulation=AuditFormulation._from_json(document["formulation"]))
