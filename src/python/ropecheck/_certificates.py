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
from ._results import JSONValue, deep_copy, from_json, frozen_json, integers, json_field, kept_json

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


class _JSONObject(collections.abc.Mapping[str, JSONValue]):
    """A read-only mapping over a JSON object the library wrote (the ``_data`` field of the
    dataclass deriving from it): every key as written, objects read-only and arrays tuples
    (``frozen_json``); equal to any mapping with the same items."""

    _data: Mapping[str, JSONValue]

    def __getitem__(self, key: str) -> JSONValue:
        return self._data[key]

    def __len__(self) -> int:
        return len(self._data)

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)


def _object(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _frozen_object(value: Any) -> Mapping[str, JSONValue]:
    frozen = frozen_json(_object(value))
    assert isinstance(frozen, Mapping)
    return frozen


def _optional_str(value: Any) -> Optional[str]:
    return None if value is None else str(value)


@dataclasses.dataclass(frozen=True, eq=False)
class CertificateParameters(_JSONObject):
    """What a certificate checked (the library's ``parameters``): a read-only mapping of every
    parameter as the claim wrote it (each claim its own; proofs/<id>.md names them), with the ones
    the claims share as typed attributes.

    Attributes
    ----------
    configuration : str
        The configuration column of ``ropecheck verify``'s table ("-" when the claim names none).
    precision_bits : int or None
        The working precision of the reals the verdict was reached with, as the claim reports it
        (MPFR's, which may exceed the one asked for: 257 for 256).
    spectrum : str or None
        The spectrum checked, for the claims about one.
    """

    configuration: str
    precision_bits: Optional[int]
    spectrum: Optional[str]
    _data: Mapping[str, JSONValue] = dataclasses.field(repr=False)

    @classmethod
    def _from_json(cls, d: Any) -> CertificateParameters:
        raw = _object(d)
        bits = raw.get("precision_bits")
        return cls(configuration=str(raw.get("configuration", "-")), precision_bits=None if bits is None else int(bits),
                   spectrum=_optional_str(raw.get("spectrum")), _data=_frozen_object(raw))


@dataclasses.dataclass(frozen=True)
class Conjunct:
    """One conjunct of a claim checked as several: its ``statement`` and its ``decision`` ("yes",
    "no" or "undecided")."""

    statement: str
    decision: str


@dataclasses.dataclass(frozen=True, eq=False)
class CertificateDetails(_JSONObject):
    """The evidence behind a verdict (the library's ``details``): a read-only mapping of every
    item as the claim wrote it (per frequency, per distance, ...: each claim its own), with the
    ones the certificates share as typed attributes.

    Attributes
    ----------
    precision_attempts : tuple of int
        The working precisions asked for, in bits, in the order tried (certificate/retry.h's
        ladder); the verdict is the last one's.
    precision_cannot_help : bool
        An inconclusive verdict that more precision would not decide (no retry was made).
    conjuncts : tuple of Conjunct
        For a claim checked as a conjunction, each conjunct decided (empty otherwise).
    note : str or None
        A remark on the verdict (a vacuous case, ...).
    """

    precision_attempts: tuple[int, ...]
    precision_cannot_help: bool
    conjuncts: tuple[Conjunct, ...]
    note: Optional[str]
    _data: Mapping[str, JSONValue] = dataclasses.field(repr=False)

    @classmethod
    def _from_json(cls, d: Any) -> CertificateDetails:
        raw = _object(d)
        return cls(precision_attempts=integers(raw.get("precision_attempts", ())),
                   precision_cannot_help=bool(raw.get("precision_cannot_help", False)),
                   conjuncts=tuple(Conjunct(str(k), str(v)) for k, v in _object(raw.get("conjuncts")).items()),
                   note=_optional_str(raw.get("note")), _data=_frozen_object(raw))


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
    parameters : CertificateParameters
        The configuration, precision and spectrum, and as a read-only mapping every parameter.
    details : CertificateDetails
        The precisions tried and the conjuncts, and as a read-only mapping every item of evidence.
    quantities : tuple of Bound
    seconds : float
    """

    claim: str = json_field()
    statement: str = json_field()
    verdict: str = json_field()
    expected: str = json_field("paper_states")
    as_paper_states: bool = json_field()
    method: str = json_field()
    parameters: CertificateParameters = json_field(convert=CertificateParameters._from_json)
    details: CertificateDetails = json_field(convert=CertificateDetails._from_json)
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


def _certificate(c: Mapping[str, Any]) -> Certificate:
    # parameters and details are read even when null (as empty objects): their attributes are never None.
    return from_json(Certificate, c, parameters=CertificateParameters._from_json(c.get("parameters")),
                     details=CertificateDetails._from_json(c.get("details")))


@dataclasses.dataclass(frozen=True)
class ArithmeticEnvironment:
    """The arithmetic the certificates were computed with: the versions of MPFR, MPFI, GMP, Boost
    and Eigen, the compiler, its C++ standard (``__cplusplus``) and whether fast-math was on."""

    mpfr: str = json_field()
    mpfi: str = json_field()
    gmp: str = json_field()
    boost: str = json_field()
    eigen: str = json_field()
    compiler: str = json_field()
    cxx_standard: int = json_field()
    fast_math: bool = json_field()


@dataclasses.dataclass(frozen=True)
class Verification(collections.abc.Sequence[Certificate]):
    """The certificates of one claim check, a sequence of Certificate; printed as the CLI's table.

    ``as_paper_states`` is true when every certificate agrees with the paper (an inconclusive one
    never does).
    """

    claim: str = json_field()
    title: str = json_field()
    arithmetic: ArithmeticEnvironment = json_field(convert=lambda d: from_json(ArithmeticEnvironment, d))
    certificates: tuple[Certificate, ...] = json_field(convert=lambda cs: tuple(_certificate(c) for c in cs))
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
