"""The model zoo, spectra and kernel plans: what ``ropecheck models`` and ``ropecheck spectrum``
print, as objects."""

from __future__ import annotations

import collections.abc
import copy
import dataclasses
import json
from typing import TYPE_CHECKING, Any, Iterator, Mapping, Optional, Sequence, Union, overload

from . import _arguments as args
from . import _core
from ._options import SpectrumOptions, SpectrumRequest
from ._results import deep_copy, from_json, integers, json_field, kept_json, number, optional_int, strings

if TYPE_CHECKING:
    import numpy
    import numpy.typing as npt
    from typing_extensions import Unpack


@dataclasses.dataclass(frozen=True)
class ZooLayerType:
    """One layer type of a zoo model as ``ropecheck models`` lists it: its name, how many
    ``layers`` have it, its ``geometry`` (layout and rotary channels), ``theta``, ``span``,
    ``attention_factor`` and ``scaling`` as the library prints them ("-" and "no RoPE" for a layer
    type without RoPE)."""

    layer_type: str
    layers: int
    geometry: str
    theta: str
    span: int
    attention_factor: str
    scaling: str

    @classmethod
    def _from_json(cls, d: Mapping[str, Any]) -> ZooLayerType:
        return cls(layer_type=str(d["layer_type"]), layers=int(d["layers"]), geometry=str(d["geometry"]), theta=str(d["theta"]),
                   span=int(d["span"]), attention_factor=str(d["attention_factor"]), scaling=str(d["scaling"]))


@dataclasses.dataclass(frozen=True)
class ZooModel:
    """One model of the zoo (``ropecheck models --json``'s entry): its name (``model``), ``title``,
    Hugging Face ``model_type``, ``layer_types``, and the ``sources`` each value was read from and
    the values still ``unconfirmed``."""

    model: str
    title: str
    model_type: str
    layer_types: tuple[ZooLayerType, ...]
    sources: tuple[str, ...]
    unconfirmed: tuple[str, ...]

    @classmethod
    def _from_json(cls, d: Mapping[str, Any]) -> ZooModel:
        return cls(model=str(d["model"]), title=str(d["title"]), model_type=str(d["model_type"]),
                   layer_types=tuple(ZooLayerType._from_json(t) for t in d["layer_types"]), sources=strings(d["sources"]),
                   unconfirmed=strings(d["unconfirmed"]))


@dataclasses.dataclass(frozen=True)
class Models(collections.abc.Sequence[ZooModel]):
    """The model zoo: a sequence of ZooModel (model, title, model_type, layer_types, sources,
    unconfirmed), one per model, as ``ropecheck models --json`` lists them; printed as
    ``ropecheck models`` prints them. ``to_dict()`` is ``ropecheck models --json`` (a list)."""

    rows: tuple[ZooModel, ...]
    text: str = dataclasses.field(repr=False)
    _data: Sequence[Any] = dataclasses.field(default=(), repr=False, compare=False)

    def names(self) -> list[str]:
        """The zoo's model names, in order."""
        return [m.model for m in self.rows]

    def to_dict(self) -> list[dict[str, Any]]:
        """``ropecheck models --json``: one dict per model."""
        return copy.deepcopy(list(self._data))

    @overload
    def __getitem__(self, i: int) -> ZooModel: ...
    @overload
    def __getitem__(self, i: slice) -> tuple[ZooModel, ...]: ...
    def __getitem__(self, i: Union[int, slice]) -> Union[ZooModel, tuple[ZooModel, ...]]:
        return self.rows[i]

    def __len__(self) -> int:
        return len(self.rows)

    def __iter__(self) -> Iterator[ZooModel]:
        return iter(self.rows)

    def __repr__(self) -> str:
        return self.text.rstrip("\n")


def models() -> Models:
    """The model zoo, as ``ropecheck models --json`` gives it.

    Returns
    -------
    Models
        One ZooModel per model; ``repr`` is the CLI's table, ``to_dict()`` its JSON.

    Examples
    --------
    >>> import ropecheck
    >>> "llama-3.1-8b" in ropecheck.models().names()
    True
    """
    text, data = _core.zoo(False)
    document = json.loads(data)
    return Models(tuple(ZooModel._from_json(m) for m in document), text, tuple(document))


@dataclasses.dataclass(frozen=True)
class SpectrumRow:
    """One pair of a spectrum's table (spectrum/table.h), named as in the JSON: ``k`` (1-based),
    ``status`` ("kept": it rotates, or "removed"), ``g`` (rad/token, 17 significant digits),
    ``g_float64`` (g rounded to nearest binary64), ``g_unscaled`` (before the scaling),
    ``wavelength`` ("inf" for a removed pair) and ``rotations_over_context`` (decimal strings),
    ``quarter_turn_horizon`` (the first position turning it a quarter, None when not decided or
    not rotating) and ``semantic`` ("yes", "no" or "undecided")."""

    k: int
    status: str
    g: str
    g_float64: float
    g_unscaled: str
    wavelength: str
    rotations_over_context: str
    quarter_turn_horizon: Optional[int]
    semantic: str

    @classmethod
    def _from_json(cls, d: Mapping[str, Any]) -> SpectrumRow:
        return cls(k=int(d["k"]), status=str(d["status"]), g=str(d["g"]), g_float64=number(d["g_float64"]),
                   g_unscaled=str(d["g_unscaled"]), wavelength=str(d["wavelength"]),
                   rotations_over_context=str(d["rotations_over_context"]),
                   quarter_turn_horizon=optional_int(d.get("quarter_turn_horizon")), semantic=str(d["semantic"]))


def _rows(rows: Sequence[Mapping[str, Any]]) -> tuple[SpectrumRow, ...]:
    return tuple(SpectrumRow._from_json(r) for r in rows)


@dataclasses.dataclass(frozen=True)
class Spectrum:
    """One spectrum's table: a SpectrumRow per pair k (status, g, wavelength, rotations over the
    context, quarter-turn horizon, semantic), as ``ropecheck spectrum`` prints it.

    Frequencies come three ways: ``frequencies`` (NumPy float64, g rounded to nearest),
    ``frequency_floats`` (the same as Python floats) and ``frequencies_exact`` (the library's
    decimal strings). ``to_dict()`` is ``ropecheck spectrum --json``.
    """

    name: Optional[str] = json_field("configuration")
    description: Optional[str] = json_field("spectrum")
    dim: Optional[int] = json_field()
    theta: Optional[str] = json_field()
    variant: Optional[str] = json_field()
    fraction: Optional[str] = json_field()
    scaling: Optional[str] = json_field()
    context: Optional[int] = json_field()
    rotated_pairs: Optional[int] = json_field()
    semantic_pairs: Optional[int] = json_field()
    semantic_pairs_undecided: Optional[int] = json_field()
    semantic_pairs_definition: Optional[str] = json_field()
    rows: tuple[SpectrumRow, ...] = json_field(convert=_rows)
    text: Optional[str] = dataclasses.field(default=None, repr=False, compare=False)
    _data: Mapping[str, Any] = kept_json()

    @property
    def frequencies_exact(self) -> list[str]:
        """g_k per pair as the library's decimal strings (17 significant digits)."""
        return [r.g for r in self.rows]

    @property
    def frequency_floats(self) -> list[float]:
        """g_k per pair, rounded to the nearest binary64."""
        return [r.g_float64 for r in self.rows]

    @property
    def frequencies(self) -> npt.NDArray[numpy.float64]:
        """g_k per pair as a NumPy float64 array."""
        a: npt.NDArray[numpy.float64] = args.numpy().array(self.frequency_floats, dtype="float64")
        return a

    @property
    def wavelengths_exact(self) -> list[str]:
        return [r.wavelength for r in self.rows]

    @property
    def wavelengths(self) -> npt.NDArray[numpy.float64]:
        """2 pi / g_k per pair as a NumPy float64 array."""
        a: npt.NDArray[numpy.float64] = args.numpy().array([float(w) for w in self.wavelengths_exact], dtype="float64")
        return a

    @property
    def semantic(self) -> list[str]:
        """Per pair: "yes" when it turns less than once over the context, "no", or "undecided"."""
        return [r.semantic for r in self.rows]

    def to_dict(self) -> dict[str, Any]:
        """``ropecheck spectrum --json``."""
        return deep_copy(self._data)

    def __len__(self) -> int:
        return len(self.rows)

    def __repr__(self) -> str:
        if self.text:
            return self.text.rstrip("\n")
        return f"<ropecheck.Spectrum {self.name}: {self.description}, context {self.context}, {len(self.rows)} pairs>"


def _spectrum(data: Optional[Mapping[str, Any]]) -> Optional[Spectrum]:
    return None if data is None else from_json(Spectrum, data)


@dataclasses.dataclass(frozen=True)
class LayerType:
    """One layer type of a model: its geometry, span and attention factor, and its Spectrum (None
    for a layer type without RoPE)."""

    layer_type: str = json_field()
    layers: tuple[int, ...] = json_field(convert=integers)
    head_dim: int = json_field()
    rotary_offset: int = json_field()
    rotary_dims: int = json_field()
    layout: str = json_field()
    pass_through_pairs: int = json_field()
    context: int = json_field()
    window: Optional[int] = json_field()
    span: int = json_field()
    attention_factor: Optional[str] = json_field()
    scaling_decided: Optional[bool] = json_field()
    spectrum: Optional[Spectrum] = json_field(convert=_spectrum)


@dataclasses.dataclass(frozen=True)
class ModelSpectrum:
    """Every layer type of a model (or the one asked for), each a LayerType with its Spectrum.

    Indexing by layer type name gives that layer type's Spectrum; ``frequencies`` and the other
    row properties are the first RoPE layer type's. ``to_dict()`` is ``ropecheck spectrum --model
    M --json``.
    """

    model: str = json_field()
    title: str = json_field()
    model_type: str = json_field()
    layer_types: tuple[LayerType, ...] = json_field(convert=lambda ts: tuple(from_json(LayerType, t) for t in ts))
    text: str = dataclasses.field(default="", repr=False, compare=False)
    _data: Mapping[str, Any] = kept_json()

    def __getitem__(self, layer_type: str) -> Optional[Spectrum]:
        for t in self.layer_types:
            if t.layer_type == layer_type:
                return t.spectrum
        raise KeyError(layer_type)

    def first(self) -> Spectrum:
        """The first layer type with RoPE's Spectrum."""
        for t in self.layer_types:
            if t.spectrum is not None:
                return t.spectrum
        raise ValueError(f"{self.model} has no layer type with RoPE")

    @property
    def frequencies(self) -> npt.NDArray[numpy.float64]:
        return self.first().frequencies

    @property
    def frequency_floats(self) -> list[float]:
        return self.first().frequency_floats

    @property
    def frequencies_exact(self) -> list[str]:
        return self.first().frequencies_exact

    @property
    def rows(self) -> tuple[SpectrumRow, ...]:
        return self.first().rows

    def to_dict(self) -> dict[str, Any]:
        return deep_copy(self._data)

    def __repr__(self) -> str:
        return self.text.rstrip("\n")


def spectrum(model: Optional[str] = None, layer_type: Optional[str] = None, context: Optional[int] = None, *,
             precision: int = _core.DEFAULT_PRECISION_BITS, **spectrum_options: Unpack[SpectrumOptions]) -> Union[Spectrum, ModelSpectrum]:
    """The spectrum table ``ropecheck spectrum`` prints, as an object.

    Parameters
    ----------
    model : str, optional
        A zoo name (``ropecheck.models()``) or a config.json path. Alone, every layer type.
    layer_type : str, optional
        With `model`: that layer type only.
    context : int, optional
        The context N the rotations and semantic pairs are counted over (default: the model's
        span, or the configuration's context).
    precision : int
        Working precision in bits (default 256).
    **spectrum_options
        ``config``, ``dim``, ``theta``, ``p_rope`` / ``reversed`` / ``partial`` (a fraction) /
        ``nope=True``, ``scaling`` ("linear:8", "llama3", ...), ``sequence_length``,
        ``vllm_dynamic``: the CLI's spectrum flags.

    Returns
    -------
    Spectrum or ModelSpectrum
        A ModelSpectrum for a model (every layer type, or `layer_type`'s alone); a Spectrum for a
        configuration or explicit flags.

    Raises
    ------
    InputError
        A keyword outside its range, naming it.

    Examples
    --------
    >>> import ropecheck
    >>> s = ropecheck.spectrum(dim=64, theta=10000, p_rope=0.75, context=4096)
    >>> s.rotated_pairs, s.frequencies_exact[0]
    (24, '1')
    """
    precision = args.integer("precision", precision, _core.MIN_PRECISION_BITS, _core.MAX_PRECISION_BITS)
    request, variant = args.spectrum_request(model=model, layer_type=layer_type, context=context, **spectrum_options)
    with args.VariantNames(variant):
        text, data = _core.spectrum(request, precision)
    document = json.loads(data)
    if "layer_types" in document:
        return from_json(ModelSpectrum, document, text=text)
    return from_json(Spectrum, document, text=text)


@dataclasses.dataclass(frozen=True)
class Plan:
    """The kernel's plan of a layer type or spectrum: where its pairs are and what multiplies them."""

    head_dim: int = json_field()
    rotary_offset: int = json_field()
    rotary_dims: int = json_field()
    layout: str = json_field()
    attention_factor: str = json_field()  # the exact decimal the kernel multiplies by
    description: str = json_field()
    identity_pairs: tuple[int, ...] = json_field(convert=tuple)  # block pairs copied (frequency 0, factor 1)
    scaling: str = json_field()  # the scaling rule's kind ("none", "linear", "llama3", "dynamic", "yarn", "longrope")
    scaling_factor: str = json_field()  # its factor as the config states it ("1" for none)
    context: Optional[int] = json_field()  # the request's context (a model layer type's span); None where not asked


def plan(layout: Optional[str] = None, **spectrum_options: Unpack[SpectrumRequest]) -> Plan:
    """The kernel's plan of a model's layer type or of a spectrum.

    Parameters
    ----------
    layout : {"interleaved", "half"}, optional
        The pairs' layout for a bare spectrum (a model's layer type has its own).
    **spectrum_options
        ``model``, ``layer_type``, or the spectrum keywords of ``spectrum``.

    Returns
    -------
    Plan

    Examples
    --------
    >>> import ropecheck
    >>> p = ropecheck.plan(model="deepseek-v3")
    >>> p.head_dim, p.rotary_offset, p.rotary_dims, p.layout
    (192, 128, 64, 'interleaved')
    """
    request, variant = args.spectrum_request(**spectrum_options)
    with args.VariantNames(variant):
        return from_json(Plan, _core.plan(request, args.layout(layout)))
