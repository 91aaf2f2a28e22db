"""Argument checking for the whole package: every keyword is checked here, against the names and
limits the library exports (``_core``), before anything calls the extension; a bad one raises
InputError naming the Python parameter and the accepted range."""

from __future__ import annotations

import decimal
import fractions
import numbers
import sys
from types import ModuleType, TracebackType
from typing import Any, Literal, Optional, Sequence, Union

from . import _core
from ._errors import InputError

#: A decimal as the library reads it: the exact text of a str, the exact value of an int, a
#: Fraction with a terminating expansion, a Decimal, or a float (the binary value it holds).
DecimalLike = Union[str, int, float, fractions.Fraction, decimal.Decimal]

#: The library's own list of each name (C++: one constexpr list each).
LAYOUTS: tuple[str, ...] = _core.LAYOUTS
AXES: tuple[str, ...] = _core.AXES
IMPLEMENTATIONS: tuple[str, ...] = _core.IMPLEMENTATIONS
DTYPES: tuple[str, ...] = _core.KERNEL_DTYPES
CONFIGS: tuple[str, ...] = _core.CONFIGS
#: The library's variants (spectrum/variant.h) by the keyword that selects one: its name with "-"
#: written "_" (p_rope); rope, the default, has none.
VARIANTS: dict[str, str] = {name.replace("-", "_"): name for name in _core.VARIANTS if name != "rope"}
MAX_THREADS: int = _core.MAX_THREADS
MAX_LENGTH: int = _core.MAX_LENGTH
INT64 = (-(1 << 63), (1 << 63) - 1)
UINT64_MAX = (1 << 64) - 1


def or_list(names: Sequence[str]) -> str:
    """"a", "a or b", "a, b or c"."""
    return " or ".join(", ".join(names).rsplit(", ", 1))


def integer(name: str, value: object, lo: int, hi: int, accepted: Optional[str] = None) -> int:
    """value as an int in [lo, hi] (a bool is not an integer here); `accepted` words the range in
    the message when the bare interval would not say why."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise InputError(name, accepted or f"an integer in [{lo}, {hi}]", repr(value))
    v = int(value)
    if not lo <= v <= hi:
        raise InputError(name, accepted or f"an integer in [{lo}, {hi}]", str(v))
    return v


def threads(value: object) -> int:
    """A thread count in [1, MAX_THREADS]."""
    return integer("threads", value, 1, MAX_THREADS)


def text(name: str, value: object, accepted: str) -> str:
    if not isinstance(value, str):
        raise InputError(name, accepted, repr(value))
    return value


def decimal_text(name: str, value: object, accepted: str) -> str:
    """A number as the exact decimal text the library parses (a float is the binary value it holds)."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        raise InputError(name, accepted, repr(value))
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, fractions.Fraction):
        # Exact as a decimal only when the denominator divides a power of ten.
        d = value.denominator
        for p in (2, 5):
            while d % p == 0:
                d //= p
        if d != 1:
            raise InputError(name, accepted + " (a Fraction whose decimal expansion ends)", str(value))
        return format(decimal.Decimal(value.numerator) / decimal.Decimal(value.denominator), "f")
    if isinstance(value, (numbers.Real, decimal.Decimal)):
        x = value if isinstance(value, decimal.Decimal) else decimal.Decimal(float(value))  # a float is exact in decimal
        if not x.is_finite():
            raise InputError(name, accepted, repr(value))
        return format(x, "f")
    raise InputError(name, accepted, repr(value))


def choice(name: str, value: object, choices: Sequence[str]) -> str:
    if not isinstance(value, str) or value not in choices:
        raise InputError(name, or_list(choices), repr(value))
    return value


def layout(value: object) -> str | None:
    return None if value is None else choice("layout", value, LAYOUTS)


def spectrum_request(config: str | None = None, dim: int | None = None, theta: DecimalLike | None = None,
                     p_rope: DecimalLike | None = None, reversed: DecimalLike | None = None,
                     partial: DecimalLike | None = None, nope: bool = False, scaling: str | None = None,
                     context: int | None = None, model: str | None = None, layer_type: str | None = None,
                     sequence_length: int | None = None, vllm_dynamic: bool = False) -> tuple[dict[str, Any], str | None]:
    """The spectrum keywords as the dict the extension reads, and the keyword that carries a variant."""
    r: dict[str, Any] = {}
    if config is not None:
        r["config"] = text("config", config, "a configuration name (" + or_list(CONFIGS) + ")")
    if dim is not None:
        r["dim"] = integer("dim", dim, 2, 1 << 20)
    if theta is not None:
        r["theta"] = decimal_text("theta", theta, "a decimal > 1")
    fractions_given = {"p_rope": p_rope, "reversed": reversed, "partial": partial}
    given = [v for v, x in fractions_given.items() if x is not None]
    if nope:
        given.insert(0, "nope")
    if len(given) > 1:
        raise InputError(given[1], f"given alone (one variant at a time; {given[0]} is also given)",
                         repr(fractions_given[given[1]]))
    variant = given[0] if given else None
    if variant:
        r["variant"] = VARIANTS[variant]  # the library's name; it parses it (parse_variant)
        if variant != "nope":
            r["fraction"] = decimal_text(variant, fractions_given[variant], "a fraction in [0, 1]")
    if scaling is not None:
        r["scaling"] = text("scaling", scaling, "none, linear:F, llama3 or llama3:F:LOW:HIGH:C")
    if context is not None:
        r["context"] = integer("context", context, 1, MAX_LENGTH)
    if model is not None:
        r["model"] = text("model", model, "a zoo model name (ropecheck.models()) or a config.json path")
    for name, value in (("layer_type", layer_type), ("sequence_length", sequence_length), ("vllm_dynamic", vllm_dynamic or None)):
        if value is not None and model is None:
            raise InputError(name, "given with model", repr(value))
    if layer_type is not None:
        r["layer_type"] = text("layer_type", layer_type, "a layer type of the model")
    if sequence_length is not None:
        r["sequence_length"] = integer("sequence_length", sequence_length, 1, MAX_LENGTH)
    if vllm_dynamic:
        r["vllm_dynamic"] = True
    return r, variant


class VariantNames:
    """A context manager around an extension call: renames the library's names for the variant's
    fraction ("fraction", "variant") in an InputError to the keyword the caller used (p_rope, ...)."""

    def __init__(self, variant: str | None) -> None:
        self.variant = variant

    def __enter__(self) -> VariantNames:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> Literal[False]:
        if isinstance(error, InputError) and error.parameter in ("fraction", "variant") and self.variant:
            raise error.renamed(self.variant) from None
        return False


def numpy() -> ModuleType:
    """NumPy, or an ImportError saying which Debian package provides it."""
    try:
        import numpy as np
    except ImportError as e:  # pragma: no cover - numpy is a Debian dependency of the package
        raise ImportError("ropecheck needs NumPy for tensors and arrays (Debian: apt install python3-numpy)") from e
    return np


def dtype_name(value: object) -> str:
    """A dtype argument as the library's name of it (DTYPES: "float32", "bfloat16", "float16"):
    that name as a str, a NumPy dtype or scalar type of the format (numpy.float32,
    numpy.dtype("float16"), ml_dtypes' bfloat16), or a torch.dtype (torch.bfloat16). NumPy and torch
    are not imported here: a NumPy or torch dtype can only exist once its module is imported.
    Anything else raises InputError naming ``dtype`` and the accepted values."""
    accepted = or_list([repr(d) for d in DTYPES]) + " as a str, a NumPy dtype or scalar type, or a torch.dtype"
    if isinstance(value, str):
        if value in DTYPES:
            return value
        raise InputError("dtype", accepted, repr(value))
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(value, torch.dtype):
        name = str(value).removeprefix("torch.")
        if name in DTYPES:
            return name
        raise InputError("dtype", accepted, str(value))
    np = sys.modules.get("numpy")
    if np is not None and (isinstance(value, np.dtype) or (isinstance(value, type) and issubclass(value, np.generic))):
        d = np.dtype(value)
        if d.name in DTYPES:
            return str(d.name)
        raise InputError("dtype", accepted, f"numpy.dtype({d.str!r})" if isinstance(value, np.dtype) else f"numpy.{value.__name__}")
    raise InputError("dtype", accepted, f"{value!r} ({type(value).__name__})")
