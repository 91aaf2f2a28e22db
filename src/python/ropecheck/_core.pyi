"""Type stub of ropecheck._core, the pybind11 extension over the C++ library (src/python/module.cpp).

Import the package (``import ropecheck``), not this module: the package checks every argument
against the names and limits below before it calls in, and shapes the results.
"""

from typing import Any

import numpy as np
import numpy.typing as npt

VERSION: str
MIN_PRECISION_BITS: int
MAX_PRECISION_BITS: int
DEFAULT_PRECISION_BITS: int
MAX_THREADS: int
MAX_LENGTH: int
KERNEL_DTYPES: tuple[str, ...]
IMPLEMENTATIONS: tuple[str, ...]
AXES: tuple[str, ...]
LAYOUTS: tuple[str, ...]
CONFIGS: tuple[str, ...]
INPUT_CLASSES: tuple[str, ...]

Request = dict[str, Any]

def zoo(sources: bool) -> tuple[str, str]: ...
def spectrum(request: Request, precision: int) -> tuple[str, str]: ...
def plan(request: Request, layout: str | None) -> dict[str, Any]: ...
def apply(x: npt.NDArray[Any], out: npt.NDArray[Any], positions: npt.NDArray[Any], request: Request, layout: str | None,
          axes: str, threads: int, impl: str) -> None: ...
def usage(q: npt.NDArray[Any], k: npt.NDArray[Any], positions: npt.NDArray[Any], model: str, threads: int,
          content_distance: int, break_limit: int, certify_breaks: bool) -> str: ...
def kernel_readable(a: npt.NDArray[Any]) -> bool: ...
def audit(x: npt.NDArray[Any], positions: npt.NDArray[Any], y: npt.NDArray[Any], request: Request, layout: str | None,
          axes: str, threads: int, precision: int) -> tuple[str, str]: ...
def claims() -> list[tuple[str, str]]: ...
def verify(claim: str, options: dict[str, Any]) -> tuple[str, str]: ...
def fuzz_tensor(request: Request, layout: str | None, dtype: str, seed: int, tokens: int, heads: int, min_position: int,
                max_position: int) -> tuple[npt.NDArray[np.int64], npt.NDArray[Any], dict[str, Any]]: ...
def check_elements(request: Request, layout: str | None, dtype: str, positions: npt.NDArray[np.int64], x: npt.NDArray[Any],
                   y: npt.NDArray[Any], max_ulp: float, canonical_nan: bool, signed_zeros: bool, rtol: float,
                   keep: int) -> dict[str, Any]: ...
def profile_tensor(request: Request, layout: str | None, dtype: str, seed: int, tokens: int, heads: int,
                   max_position: int) -> tuple[npt.NDArray[np.int64], npt.NDArray[Any]]: ...
def dlpack_to_numpy(tensor: object, parameter: str) -> npt.NDArray[Any]: ...
def bfloat16_capsule(bits: npt.NDArray[np.uint16]) -> object: ...
