"""How the package's result objects are built: frozen dataclasses whose fields are read from the
library's JSON by name (``json_field`` says which key and how to convert it), keeping that JSON
for ``to_dict()`` (a deep copy of what the library produced, equal to the CLI's ``--json``)."""

from __future__ import annotations

import collections.abc
import copy
import dataclasses
import math
from typing import Any, Callable, Iterable, Iterator, Mapping, Optional, TypeVar, Union

T = TypeVar("T")

#: A JSON value as the library wrote it, read-only: an object is a read-only mapping, an array a
#: tuple (``frozen_json``).
JSONValue = Union[None, bool, int, float, str, tuple["JSONValue", ...], Mapping[str, "JSONValue"]]


def json_field(key: Optional[str] = None, *, convert: Optional[Callable[[Any], Any]] = None) -> Any:
    """A dataclass field read from the JSON key `key` (default: the field's name), through
    `convert` when the value is present; an absent key gives None."""
    return dataclasses.field(metadata={"json": key, "convert": convert})


def kept_json() -> Any:
    """The field holding the library's JSON itself (not compared, not shown)."""
    return dataclasses.field(default_factory=dict, repr=False, compare=False, metadata={"json_document": True})


def from_json(cls: type[T], data: Mapping[str, Any], **given: Any) -> T:
    """An instance of the dataclass `cls` whose json_field fields are read from `data`, whose
    kept_json field holds `data`, and whose other fields are `given`."""
    values: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        if f.name in given:
            values[f.name] = given[f.name]
        elif f.metadata.get("json_document"):
            values[f.name] = data
        elif "json" in f.metadata:
            value = data.get(f.metadata["json"] or f.name)
            convert = f.metadata["convert"]
            values[f.name] = convert(value) if convert is not None and value is not None else value
    return cls(**values)


def deep_copy(data: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of a JSON document the caller may change freely."""
    return copy.deepcopy(dict(data))


def number(value: Any) -> float:
    """A JSON number, or the library's "inf", "-inf", "nan" strings for the non-finite ones; null
    (what the JSON writer makes of a non-finite double the library did not spell) is NaN."""
    return math.nan if value is None else float(value)


def numbers(values: Iterable[Any]) -> tuple[float, ...]:
    """A JSON array of numbers (``number`` each)."""
    return tuple(number(v) for v in values)


def optional_number(value: Any) -> Optional[float]:
    """A JSON number that may be null (None: not measured, or not defined)."""
    return None if value is None else float(value)


def optional_int(value: Any) -> Optional[int]:
    return None if value is None else int(value)


def integers(values: Iterable[Any]) -> tuple[int, ...]:
    return tuple(int(v) for v in values)


def strings(values: Iterable[Any]) -> tuple[str, ...]:
    return tuple(str(v) for v in values)


class FrozenJSONObject(collections.abc.Mapping[str, JSONValue]):
    """A JSON object, read-only (no item assignment; equal to any mapping with the same items;
    copied and pickled as its items, unlike types.MappingProxyType)."""

    __slots__ = ("_items",)

    def __init__(self, items: Mapping[str, JSONValue]) -> None:
        self._items = dict(items)

    def __getitem__(self, key: str) -> JSONValue:
        return self._items[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __repr__(self) -> str:
        return repr(self._items)


def frozen_json(value: Any) -> JSONValue:
    """A JSON value (as json.loads gives it) made read-only: objects become FrozenJSONObjects,
    arrays tuples, recursively."""
    if isinstance(value, Mapping):
        return FrozenJSONObject({str(k): frozen_json(v) for k, v in value.items()})
    if isinstance(value, (list, tuple)):
        return tuple(frozen_json(v) for v in value)
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise TypeError(f"not a JSON value: {type(value).__name__}")
