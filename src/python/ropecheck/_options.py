"""The package's typed keywords: the spectrum keywords as TypedDicts (what ``**spectrum_options``
may hold, so that a type checker rejects a misspelt keyword such as ``thetaa=``), and the types of
its array and dtype arguments.

The public functions take the spectrum keywords as ``**spectrum_options: Unpack[...]`` (PEP 692).
``Unpack`` is imported for the type checker only, so the package needs no typing_extensions at run
time. mypy before 1.7 checks such keywords only with ``--enable-incomplete-feature=Unpack`` (the
project's ctest passes it; without it mypy reports the annotation and reads the keywords as Any).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Optional, Protocol, TypedDict, TypeVar, Union

from ._arguments import DecimalLike

if TYPE_CHECKING:
    import numpy
    import numpy.typing as npt
    import torch


class SpectrumOptions(TypedDict, total=False):
    """The spectrum keywords of ``ropecheck.spectrum`` besides model, layer_type and context (each
    None means not given, as leaving it out does)."""

    config: Optional[str]
    dim: Optional[int]
    theta: Optional[DecimalLike]
    p_rope: Optional[DecimalLike]
    reversed: Optional[DecimalLike]
    partial: Optional[DecimalLike]
    nope: bool
    scaling: Optional[str]
    sequence_length: Optional[int]
    vllm_dynamic: bool


class ModelOptions(SpectrumOptions, total=False):
    """The spectrum keywords of a function that names model and layer_type itself (apply, audit,
    check_rope, ...)."""

    context: Optional[int]


class SpectrumRequest(ModelOptions, total=False):
    """Every spectrum keyword (plan, verify)."""

    model: Optional[str]
    layer_type: Optional[str]


class SupportsDLPack(Protocol):
    """A tensor exposing DLPack (a CPU torch tensor, ``ropecheck.bfloat16(bits)``)."""

    def __dlpack__(self, stream: Optional[int] = None) -> object: ...

    def __dlpack_device__(self) -> tuple[int, int]: ...


#: A tensor argument: anything NumPy reads as an array, or a DLPack tensor.
TensorLike = Union["npt.ArrayLike", SupportsDLPack]

#: A kernel output: x's dtype (float32, float16, or uint16 holding bfloat16 bit patterns).
KernelArray = Union["npt.NDArray[numpy.float32]", "npt.NDArray[numpy.float16]", "npt.NDArray[numpy.uint16]"]

#: apply_'s x, returned as given: an array or a DLPack tensor.
WritableTensor = TypeVar("WritableTensor", bound=Union["npt.NDArray[Any]", SupportsDLPack])

#: A dtype argument: its name ("float32", "bfloat16", "float16"), a NumPy dtype or scalar type
#: (numpy.float32), or a torch.dtype (torch.bfloat16). Normalised by _arguments.dtype_name.
DTypeLike = Union[str, "numpy.dtype[Any]", "type[numpy.generic]", "torch.dtype"]

#: The RoPE ``ropecheck.testing.check_rope`` and ``profile`` test: ``fn(x, positions)``, x a NumPy
#: array (float32, float16, or uint16 holding bfloat16 bits; [tokens, heads, head_dim] or as
#: ``axes`` says) and positions int64; it returns the rotated tensor (an array or DLPack tensor of
#: x's shape and dtype), or None after rotating x in place. A function typed for one dtype
#: (``x: npt.NDArray[numpy.float32]``) is one.
ArrayRope = Callable[["npt.NDArray[Any]", "npt.NDArray[numpy.int64]"], Union["npt.NDArray[Any]", SupportsDLPack, None]]

#: The RoPE ``ropecheck.torch.check_rope`` and ``profile`` test: ``fn(x, positions)``, x a torch
#: tensor of the dtype on the device asked for and positions int64 on that device; it returns the
#: rotated tensor, or None after rotating x in place.
TorchRope = Callable[["torch.Tensor", "torch.Tensor"], Optional["torch.Tensor"]]
