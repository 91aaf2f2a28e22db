"""The paper's claims as certificates: ``ropecheck verify`` from Python, bounds as exact
fractions."""

from __future__ import annotations

import collections.abc
import dataclasses
import fractions
import json
import os
from typing import TYPE_CHECKING, Any, Iterator, Mapping, Optional, Sequence, Union, overload

from . import _arguments as args
from . import _core
from ._options import SpectrumRequest
from ._results import deep_copy, from_json, json_field, kept_json

if TYPE_CHECKING:
    from typing_extensions import Unpack


def _fraction(text: Optional[str]) -> Optional[fractions.Fraction]:
    if text is None:
        return None
    try:
        return fractions.Fraction(text)
    except (ValueError, ZeroDivisionError):
        return None  # "inf", "-inf", "nan": not a rational bound


@dataclasses.dataclass(frozen=True)
class Bound:
    """A certified quantity: the exact value lies in [lower, upper].

    Attributes
    ----------
    name : str
    kind : str
        "enclosure" (certified), "exact" (an integer) or "estimate".
    lower_text, upper_text : str
        The certificate's decimal strings (lower rounded down, upper up).
    lower, upper : fractions.Fraction or None
        The same as exact fractions, never a float that could round a bound inward (None for
        "inf" and "nan").
    """

    name: str = json_field()
    kind: str = json_field()
    lower_text: Optional[str] = json_field("lower")
    upper_text: Optional[str] = json_field("upper")

    @property
    def lower(self) -> Optional[fractions.Fraction]:
        return _fraction(self.lower_text)

    @property
    def upper(self) -> Optional[fractions.Fraction]:
        return _fraction(self.upper_text)

    def __repr__(self) -> str:
        return f"{self.name} in [{self.lower_text}, {self.upper_text}] ({self.kind})"


def _bounds(quantities: Sequence[Mapping[str, Any]]) -> tuple[Bound, ...]:
    return tuple(from_json(Bound, q) for q in quantities)


@dataclasses.dataclass(frozen=True)
class Certificate:
    """One certificate of a claim check.

    Attributes
    ----------
    claim, statement, method : str
    verdict : str
        As the CLI prints it: "holds", "fails", "counterexample", "confirmed", "not-confirmed" or
        "inconclusive".
    expected : str
        The verdict the paper states.
    as_paper_states : bool
        The verdict is the paper's (an inconclusive one never is).
    parameters, details : dict
    quantities : tuple of Bound
    seconds : float
    """

    claim: str = json_field()
    statement: str = json_field()
    verdict: str = json_field()
    expected: str = json_field("paper_states")
    as_paper_states: bool = json_field()
    method: str = json_field()
    parameters: Mapping[str, Any] = json_field()
    details: Any = json_field()
    quantities: tuple[Bound, ...] = json_field(convert=_bounds)
    seconds: float = json_field()
    _data: Mapping[str, Any] = kept_json()

    def to_dict(self) -> dict[str, Any]:
        """The certificate as ``ropecheck verify --json`` writes it."""
        return deep_copy(self._data)

    def __repr__(self) -> str:
        lines = [f"{self.claim}: {self.verdict} (the paper: {self.expected}) -- {self.statement}", f"  method: {self.method}"]
        lines += [f"  {q!r}" for q in self.quantities]
        return "\n".join(lines)


@dataclasses.dataclass(frozen=True)
class Verification(collections.abc.Sequence[Certificate]):
    """The certificates of one claim check, a sequence of Certificate; printed as the CLI's table.

    ``as_paper_states`` is true when every certificate agrees with the paper (an inconclusive one
    never does).
    """

    claim: str = json_field()
    title: str = json_field()
    arithmetic: Mapping[str, Any] = json_field()
    certificates: tuple[Certificate, ...] = json_field(convert=lambda cs: tuple(from_json(Certificate, c) for c in cs))
    text: str = dataclasses.field(default="", repr=False, compare=False)
    _data: Mapping[str, Any] = kept_json()

    @property
    def as_paper_states(self) -> bool:
        return len(self.certificates) > 0 and all(c.as_paper_states for c in self.certificates)

    @property
    def verdicts(self) -> list[str]:
        return [c.verdict for c in self.certificates]

    @overload
    def __getitem__(self, i: int) -> Certificate: ...
    @overload
    def __getitem__(self, i: slice) -> tuple[Certificate, ...]: ...
    def __getitem__(self, i: Union[int, slice]) -> Union[Certificate, tuple[Certificate, ...]]:
        return self.certificates[i]

    def __len__(self) -> int:
        return len(self.certificates)

    def __iter__(self) -> Iterator[Certificate]:
        return iter(self.certificates)

    def to_dict(self) -> dict[str, Any]:
        """claim, title, arithmetic and certificates, as the library wrote them."""
        return deep_copy(self._data)

    def __repr__(self) -> str:
        return self.text.rstrip("\n")


def claims() -> dict[str, str]:
    """The claim ids and their titles, in the paper's order (``ropecheck verify --list``).

    Returns
    -------
    dict
        Claim id to title (the statement as the paper names it).

    Examples
    --------
    >>> import ropecheck
    >>> list(ropecheck.claims())[:3]
    ['lemma-a1', 'lemma-a2', 'lemma-a3']
    """
    return dict(_core.claims())


def verify(claim: str, *, precision: int = _core.DEFAULT_PRECISION_BITS, max_precision: Optional[int] = None,
           seed: Optional[int] = None, epsilon: Optional[args.DecimalLike] = None, frequency: Optional[args.DecimalLike] = None,
           phase: Optional[args.DecimalLike] = None, tolerance: Optional[args.DecimalLike] = None, max_n: Optional[int] = None,
           trials: Optional[int] = None, ledger: Union[str, os.PathLike[str], None] = None,
           distances: Optional[Sequence[int]] = None, query_lengths: Optional[Sequence[int]] = None,
           query: Optional[Sequence[args.DecimalLike]] = None, **spectrum_options: Unpack[SpectrumRequest]) -> Verification:
    """Runs one claim check, ``ropecheck verify --claim CLAIM``, and returns its certificates.

    Parameters
    ----------
    claim : str
        A claim id (``ropecheck.claims()``).
    precision, max_precision : int, optional
        Working precision in bits (default 256) and the cap of the retry ladder (default 4096).
    seed : int, optional
        The seed of the claim's random inputs.
    epsilon, frequency, phase, tolerance : decimal, optional
        str, int, float or a Fraction with a terminating decimal; ``frequency`` and ``phase``
        also take "K*pi/M".
    max_n, trials : int, optional
    ledger : str or path, optional
        The ledger JSON to check instead of proofs/ledger.json.
    distances, query_lengths : sequence of int, optional
    query : sequence of decimals, optional
    **spectrum_options
        The spectrum keywords of ``spectrum``. Each claim's statement (proofs/<id>.md) says which
        parameters it reads.

    Returns
    -------
    Verification

    Raises
    ------
    InputError
        An unknown claim or a parameter outside its range, naming it.

    Examples
    --------
    >>> import ropecheck
    >>> v = ropecheck.verify("lemma-a3")
    >>> v.as_paper_states, v.verdicts[0]
    (True, 'holds')
    """
    checked_claim = args.text("claim", claim, "a claim id (ropecheck.claims())")
    o: dict[str, Any] = {"precision": args.integer("precision", precision, _core.MIN_PRECISION_BITS, _core.MAX_PRECISION_BITS)}
    o["max_precision"] = max(o["precision"], 4096) if max_precision is None else \
        args.integer("max_precision", max_precision, o["precision"], _core.MAX_PRECISION_BITS)
    if seed is not None:
        o["seed"] = args.integer("seed", seed, 0, args.UINT64_MAX)
    for name, value, accepted in (("epsilon", epsilon, "a decimal in (0, 1/2)"), ("frequency", frequency, "a decimal > 0 or K*pi/M"),
                                  ("phase", phase, "an angle in radians (decimal or K*pi/M)"), ("tolerance", tolerance, "a decimal > 0")):
        if value is not None:
            o[name] = args.decimal_text(name, value, accepted)
    if max_n is not None:
        o["max_n"] = args.integer("max_n", max_n, 1, args.MAX_LENGTH)
    if trials is not None:
        o["trials"] = args.integer("trials", trials, 1, 1000000)
    if ledger is not None:
        o["ledger"] = args.text("ledger", os.fspath(ledger) if isinstance(ledger, os.PathLike) else ledger, "a path")
    if distances is not None:
        o["distances"] = [args.integer("distances", d, 0, args.MAX_LENGTH) for d in distances]
    if query_lengths is not None:
        o["query_lengths"] = [args.integer("query_lengths", s, 1, args.MAX_LENGTH) for s in query_lengths]
    if query is not None:
        o["query"] = [args.decimal_text("query", q, "decimals") for q in query]
    request, variant = args.spectrum_request(**spectrum_options)
    o["spectrum"] = request
    with args.VariantNames(variant):
        text, data = _core.verify(checked_claim, o)
    return from_json(Verification, json.loads(data), text=text)
