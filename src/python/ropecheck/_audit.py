"""The exact audit of anyone's RoPE output: ``ropecheck audit`` on arrays."""

from __future__ import annotations

import dataclasses
import json
from typing import TYPE_CHECKING, Any, Mapping, Optional

from . import _arguments as args
from . import _core
from ._errors import InputError
from ._results import deep_copy, from_json, json_field, kept_json, number
from ._options import ModelOptions, TensorLike
from ._tensors import native_copy, positions_array, tensor

if TYPE_CHECKING:
    import numpy.typing as npt
    from typing_extensions import Unpack


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
    decades : tuple of dict
        A row per position decade: elements, correctly rounded, max ulp, max abs, phase error.
    worst : dict or None
        The worst element: position, token, head, pair, component, inputs and outputs in hex.
    """

    max_ulp: float = json_field("max_ulps", convert=number)
    median_ulp: float = json_field("median_ulps", convert=number)
    share_correctly_rounded: float = json_field()
    elements: int = json_field()
    correctly_rounded_elements: int = json_field("correctly_rounded")
    specials: int = json_field()
    special_mismatches: int = json_field()
    pass_through: int = json_field()
    pass_through_mismatches: int = json_field()
    decades: tuple[dict[str, Any], ...] = json_field(convert=tuple)
    worst: Optional[dict[str, Any]] = json_field()
    errors: Mapping[str, Any] = dataclasses.field(default_factory=dict, repr=False, compare=False)
    text: str = dataclasses.field(default="", repr=False, compare=False)
    _data: Mapping[str, Any] = kept_json()

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
    errors = document.get("errors", {})
    return from_json(Audit, errors, errors=errors, text=text, _data=document)
