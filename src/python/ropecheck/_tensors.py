"""Tensors: NumPy arrays and DLPack tensors as the kernel reads them, and the kernel itself
(``apply``, ``apply_``, ``bfloat16``)."""

from __future__ import annotations

import numbers
from typing import TYPE_CHECKING, Any, Optional

from . import _arguments as args
from . import _core
from ._errors import InputError
from ._options import KernelArray, ModelOptions, TensorLike, WritableTensor

if TYPE_CHECKING:
    import numpy
    import numpy.typing as npt
    from typing_extensions import Unpack


class BFloat16Tensor:
    """A uint16 array of bfloat16 bit patterns exposed through DLPack as bfloat16 (no copy)."""

    def __init__(self, bits: Any) -> None:
        self.bits = bits

    def __dlpack__(self, stream: Optional[int] = None) -> object:
        return _core.bfloat16_capsule(self.bits)

    def __dlpack_device__(self) -> tuple[int, int]:
        return (1, 0)  # kDLCPU, device 0

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.bits.shape)

    def __repr__(self) -> str:
        return f"<ropecheck.bfloat16 tensor, shape {self.shape}>"


def bfloat16(bits: TensorLike) -> BFloat16Tensor:
    """A uint16 array of bfloat16 bit patterns as a DLPack bfloat16 tensor, without a copy.

    ``torch.from_dlpack(ropecheck.bfloat16(y))`` is a ``torch.bfloat16`` tensor; ropecheck's own
    functions read it as bfloat16.

    Parameters
    ----------
    bits : numpy.ndarray of uint16

    Returns
    -------
    BFloat16Tensor

    Raises
    ------
    InputError
        `bits` is not a uint16 array (parameter ``bits``).

    Examples
    --------
    >>> import numpy as np, ropecheck
    >>> ropecheck.bfloat16(np.array([0x3F80], dtype=np.uint16))
    <ropecheck.bfloat16 tensor, shape (1,)>
    """
    np = args.numpy()
    a = as_array(bits, "bits")
    if a.dtype != np.uint16:
        raise InputError("bits", "a uint16 array of bfloat16 bit patterns", str(a.dtype))
    return BFloat16Tensor(a)


def as_array(x: Any, name: str) -> Any:
    """x as a NumPy array: NumPy arrays as they are, DLPack tensors as a view of their memory."""
    np = args.numpy()
    if isinstance(x, np.ndarray):
        return x
    if isinstance(x, BFloat16Tensor):
        return x.bits
    if hasattr(x, "__dlpack__"):
        return _core.dlpack_to_numpy(x, name)
    raise InputError(name, "a NumPy array or a CPU tensor exposing __dlpack__", type(x).__name__)


def tensor(x: Any, name: str) -> Any:
    """x as a float32, float16 or uint16 (bfloat16 bits) array of either byte order, viewing x's memory."""
    a = as_array(x, name)
    if (a.dtype.kind, a.dtype.itemsize) in (("f", 4), ("f", 2), ("u", 2)):
        return a
    raise InputError(name, "float32, float16, or uint16 holding bfloat16 bit patterns, or a DLPack bfloat16 tensor", str(a.dtype))


def native_copy(a: Any) -> Any:
    """A C-contiguous copy of a in native byte order (no copy when a already is one)."""
    return args.numpy().ascontiguousarray(a, dtype=a.dtype.newbyteorder("="))


def positions_array(positions: Any) -> Any:
    """Positions as a contiguous array of one of the CLI's dtypes (int64, int32, float64, float32);
    other integer dtypes are widened to int64."""
    np = args.numpy()
    if isinstance(positions, numbers.Integral) and not isinstance(positions, bool):
        positions = [positions]
    try:
        p = as_array(positions, "positions") if hasattr(positions, "__dlpack__") else np.asarray(positions)
    except (OverflowError, ValueError):
        raise InputError("positions", "integers in [-2^63, 2^63)", "values outside it") from None
    if p.dtype.kind in "iu":
        if p.dtype.kind == "u" and p.size and int(p.max()) >= 1 << 63:
            raise InputError("positions", "integers in [-2^63, 2^63)", str(int(p.max())))
        if p.dtype not in (np.dtype("<i8"), np.dtype("<i4")):
            p = p.astype("<i8")
    elif not (p.dtype.kind == "f" and p.dtype in (np.dtype("<f8"), np.dtype("<f4"))):
        raise InputError("positions", "an array of integers (or of floats holding integers)", f"dtype {p.dtype}")
    return np.ascontiguousarray(p)


def _rotate(x: Any, positions: Any, out: Any, layout: Optional[str], axes: str, threads: int, impl: str,
            spectrum_options: dict[str, Any]) -> None:
    request, variant = args.spectrum_request(**spectrum_options)
    checked_layout = args.layout(layout)
    checked_axes = args.choice("axes", axes, args.AXES)
    checked_threads = args.threads(threads)
    checked_impl = args.choice("impl", impl, args.IMPLEMENTATIONS)
    p = positions_array(positions)
    with args.VariantNames(variant):
        _core.apply(x, out, p, request, checked_layout, checked_axes, checked_threads, checked_impl)


def apply(x: TensorLike, positions: npt.ArrayLike, *, model: Optional[str] = None, layer_type: Optional[str] = None,
          layout: Optional[str] = None, axes: str = "auto", threads: int = 1, impl: str = "kernel",
          **spectrum_options: Unpack[ModelOptions]) -> KernelArray:
    """Rotates x by RoPE at `positions` into a new array, bit-identical to ``ropecheck apply``.

    Every rotary output is the correctly rounded value of the exact map a(x_a cos(p g) - x_b
    sin(p g)), a(x_a sin(p g) + x_b cos(p g)) at any int64 position; pass-through channels and
    identity pairs are copied bit for bit. The GIL is released while the kernel runs.

    Parameters
    ----------
    x : numpy.ndarray or DLPack tensor
        float32, float16, or uint16 holding bfloat16 bit patterns, or a DLPack bfloat16 tensor (a
        ``torch.bfloat16`` CPU tensor). Read in place (no copy) when its last axis is contiguous
        and no stride is negative.
    positions : array_like of int
        One position per token (shared by the batch), or one per batch row and token.
    model, layer_type : str, optional
        A zoo name or config.json path, and its layer type; or give the spectrum keywords
        (``config``, ``dim``, ``theta``, ``p_rope``, ``scaling``, ...) with `layout`.
    layout : {"interleaved", "half"}, optional
        The pairs' layout (required for a bare spectrum; a model's layer type has its own).
    axes : {"auto", "bshd", "bhsd", "shd", "hsd", "sd"}
        x's axis order; "auto" is [..., tokens, heads, head_dim] or [tokens, head_dim].
    threads : int
        Threads splitting the tokens, in [1, 256]: the same bits for every count.
    impl : {"kernel", "f32-angle", "f64-angle"}
        The kernel, or a baseline for comparison ("f32-angle": float32 angle and sin/cos, as
        most inference engines compute it).

    Returns
    -------
    numpy.ndarray
        x's shape and dtype (uint16 bits for bfloat16).

    Raises
    ------
    InputError
        A bad argument, naming it (``x``, ``positions``, ``layout``, ``axes``, ...).

    Examples
    --------
    >>> import numpy as np, ropecheck
    >>> x = np.ones((2, 1, 4), dtype=np.float32)            # [tokens, heads, head_dim]
    >>> ropecheck.apply(x, [0, 1], dim=4, layout="interleaved")[1, 0]
    array([-0.30116868,  1.3817732 ,  0.9899502 ,  1.0099498 ], dtype=float32)
    """
    np = args.numpy()
    a = tensor(x, "x")
    if not _core.kernel_readable(a):  # a negative stride, a strided last axis, another byte order
        a = native_copy(a)
    out: KernelArray = np.empty(a.shape, dtype=a.dtype)
    _rotate(a, positions, out, layout, axes, threads, impl, dict(model=model, layer_type=layer_type, **spectrum_options))
    return out


def apply_(x: WritableTensor, positions: npt.ArrayLike, *, model: Optional[str] = None, layer_type: Optional[str] = None,
           layout: Optional[str] = None, axes: str = "auto", threads: int = 1, **spectrum_options: Unpack[ModelOptions]) -> WritableTensor:
    """``apply`` in place: rotates x's own memory and returns x.

    Parameters
    ----------
    x : numpy.ndarray or DLPack tensor
        Writeable (a ``torch.bfloat16`` tensor, say). An array the kernel cannot read in place (a
        negative stride, a non-contiguous last axis, another byte order) is rotated through a copy
        and written back.
    positions, model, layer_type, layout, axes, threads, **spectrum_options
        As for ``apply``.

    Returns
    -------
    x
        The same object, rotated.

    Raises
    ------
    InputError
        x is read-only, or any of ``apply``'s errors.
    """
    a = tensor(x, "x")
    if not a.flags.writeable:
        raise InputError("x", "a writeable array (apply_ rotates in place)", "a read-only array")
    options = dict(model=model, layer_type=layer_type, **spectrum_options)
    if _core.kernel_readable(a):
        _rotate(a, positions, a, layout, axes, threads, "kernel", options)
    else:
        c = native_copy(a)
        _rotate(c, positions, c, layout, axes, threads, "kernel", options)
        a[...] = c
    return x
