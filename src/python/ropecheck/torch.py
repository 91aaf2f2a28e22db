"""ropecheck for PyTorch: the correctly rounded RoPE on torch tensors, forward and backward,
check_rope and profile for RoPE functions written in torch, and band ablations of any torch model
with RoPE measured as next-token loss.

    import torch, ropecheck.torch as rt
    y = rt.apply(q, positions, model="llama-3.1-8b")        # differentiable; q float32, bfloat16 or float16
    rt.check_rope(my_rope, model="llama-3.1-8b", dtype=torch.bfloat16)                 # forward
    rt.check_rope(my_rope_grad, model="llama-3.1-8b", dtype=torch.bfloat16, backward=True)
    print(rt.profile(my_rope, model="llama-3.1-8b", dtype=torch.bfloat16))            # per position decade
    print(rt.ablation_losses(hf_model, token_ids))   # next-token loss with each RoPE band still or removed

Tensors: torch.float32, torch.bfloat16 and torch.float16, shaped as ropecheck.apply reads them
(axes="auto": [..., tokens, heads, head_dim]; "bhsd" for Hugging Face's q and k). CPU tensors are
read and written in place through DLPack, without a copy. A tensor on another device (CUDA, ...) is
copied to the CPU, rotated there, and the result copied back to its device: a reference to test
against, not a fast path.

Gradient: y = a R(p g) x is linear in x, so dL/dx = a R(-p g) dL/dy, the same map at position -p,
computed by the same correctly rounded kernel (and itself differentiable). Positions are not
differentiable.

The engine is the NumPy API's (ropecheck.testing, _checking): the same generated inputs, checks and
reports; only the tensors fn sees differ. Bad arguments raise ropecheck.InputError naming the
parameter.

Ablations (they live in ropecheck.lm.bands and ropecheck.lm.losses, with the rest of the model
measurement; the names here are the same objects): band_ablation(model, band, mode) makes one of
ropecheck's bands (fast, middle, slow quarter of the model's own inv_freq) position-free ("still")
or removes it from every query ("removed") inside a with block; ablation_losses measures the
next-token loss of each (band, mode) against the model as trained on the same sequences, with
Student t-intervals.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Optional, Sequence, Union

import torch

from . import _arguments as args
from . import _check_engine, _checking, _profiling
from . import _tensors
from ._check_results import CheckResult, RopeCheckError  # RopeCheckError: exported once, by the package
from ._errors import InputError
from ._options import DTypeLike, TorchRope
from ._profiling import Profile
from ._statistics import MeanInterval
from .lm.bands import BandAblation, band_ablation, rotary_bands
from .lm.losses import AblationLosses, AblationRow, BucketLoss, ablation_losses

if TYPE_CHECKING:
    import numpy.typing as npt
    from typing_extensions import Unpack

    from ._options import ModelOptions  # under TYPE_CHECKING: not a public name of ropecheck.torch

#: Positions: a tensor of integers on any device, or what NumPy reads as an integer array.
Positions = Union[torch.Tensor, "npt.ArrayLike"]

__all__ = ["apply", "apply_", "check_rope", "profile", "gradient_map", "CheckResult", "Profile",
           "band_ablation", "ablation_losses", "rotary_bands", "BandAblation", "AblationLosses", "AblationRow", "BucketLoss",
           "MeanInterval"]

#: torch's dtypes of the kernel's formats, by ropecheck's names.
DTYPES: dict[str, torch.dtype] = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}
_NAMES = {v: k for k, v in DTYPES.items()}
_DTYPE_TEXT = "torch.float32, torch.bfloat16 or torch.float16"


def _format(x: Any, name: str) -> str:
    """The ropecheck dtype name of a torch tensor x, or InputError naming `name`."""
    if not isinstance(x, torch.Tensor):
        raise InputError(name, f"a torch.Tensor of {_DTYPE_TEXT}", type(x).__name__)
    if x.dtype not in _NAMES:
        raise InputError(name, f"a tensor of {_DTYPE_TEXT}", str(x.dtype))
    return _NAMES[x.dtype]


def _to_numpy(t: Any) -> Any:
    """A CPU tensor's memory as a NumPy array (bfloat16 as uint16 bits), without a copy."""
    return _tensors.as_array(t, "x")


def _from_numpy(a: Any, dtype: torch.dtype) -> Any:
    """A NumPy array (bfloat16: uint16 bits) as a CPU tensor of `dtype` sharing its memory."""
    np = args.numpy()
    if dtype == torch.bfloat16:
        return torch.from_numpy(np.ascontiguousarray(a).view(np.int16)).view(torch.bfloat16)
    return torch.from_numpy(a)


def _positions(positions: Any, grad: bool) -> Any:
    """Positions as the NumPy array the kernel reads (a torch tensor from any device)."""
    if isinstance(positions, torch.Tensor):
        if positions.dtype.is_floating_point or positions.dtype.is_complex or positions.dtype == torch.bool:
            raise InputError("positions", "integers (an integer tensor, array or list)", f"a tensor of {positions.dtype}")
        positions = positions.detach().to("cpu").to(torch.int64).contiguous().numpy()
    p = _tensors.positions_array(positions)
    if grad and p.dtype.kind == "i" and p.size and int(p.min()) == args.INT64[0]:
        raise InputError("positions", "integers in [-2^63 + 1, 2^63) when x requires grad (the gradient rotates at -p)",
                         str(args.INT64[0]))
    return p.astype("<i8") if grad else p


def _rotate(x: torch.Tensor, p: Any, options: dict[str, Any]) -> torch.Tensor:
    """x rotated into a new tensor on x's device: in place through DLPack on the CPU, through a
    CPU copy elsewhere."""
    src = x.detach()
    on_cpu = src.device.type == "cpu"
    if not on_cpu:
        try:
            src = src.to("cpu")
        except Exception as e:  # a device whose tensors hold no values (meta) or cannot reach the CPU
            raise InputError("x", "a tensor whose values can be copied to the CPU", f"a tensor on {x.device} ({type(e).__name__})") from None
    y: torch.Tensor = _from_numpy(_tensors.apply(_to_numpy(src), p, **options), src.dtype)
    return y if on_cpu else y.to(x.device)


class _Rope(torch.autograd.Function):
    """y = a R(p g) x; its backward is the same Function at -p (so twice differentiable too)."""

    @staticmethod
    def forward(ctx: Any, x: Any, positions: Any, options: dict[str, Any]) -> Any:  # type: ignore[override]
        ctx.positions, ctx.options = positions, options
        return _rotate(x, positions, options)

    @staticmethod
    def backward(ctx: Any, grad: Any) -> tuple[Any, None, None]:  # type: ignore[override]
        return _Rope.apply(grad, -ctx.positions, ctx.options), None, None


def apply(x: torch.Tensor, positions: Positions, *, model: Optional[str] = None, layer_type: Optional[str] = None,
          out: Optional[torch.Tensor] = None, layout: Optional[str] = None, axes: str = "auto", threads: int = 1, impl: str = "kernel",
          **spectrum_options: Unpack[ModelOptions]) -> torch.Tensor:
    """RoPE of a torch tensor: ``ropecheck.apply``'s correctly rounded map, differentiable.

    Parameters
    ----------
    x : torch.Tensor
        torch.float32, torch.bfloat16 or torch.float16, on any device (not the CPU: copied there
        and back), shaped as `axes` says.
    positions : torch.Tensor, array_like or int
        Integer positions, one per token (shared by the batch) or one per batch row and token; a
        tensor may be on any device.
    model, layer_type, layout, axes, threads, impl, **spectrum_options
        As for ``ropecheck.apply``.
    out : torch.Tensor, optional
        Written with the result (x's shape, dtype and device); not with a gradient.

    Returns
    -------
    torch.Tensor
        On x's device, x's shape and dtype: bit-identical to ``ropecheck.apply`` on x's values.
        When x requires grad, its backward is a R(-p g) grad, correctly rounded.

    Raises
    ------
    InputError
        A bad argument, naming it: ``x`` (not a tensor of those dtypes), ``positions`` (not
        integers; -2^63 when x requires grad), ``out``, and ``ropecheck.apply``'s own.

    Examples
    --------
    >>> import torch, ropecheck.torch as rt
    >>> x = torch.ones(2, 1, 4, requires_grad=True)
    >>> y = rt.apply(x, [0, 1], dim=4, layout="interleaved")
    >>> y[1, 0]
    tensor([-0.3012,  1.3818,  0.9900,  1.0099], grad_fn=<SelectBackward0>)
    >>> y.sum().backward(); x.grad[1, 0]
    tensor([ 1.3818, -0.3012,  1.0099,  0.9900])
    """
    _format(x, "x")
    grad = torch.is_grad_enabled() and x.requires_grad
    options: dict[str, Any] = dict(model=model, layer_type=layer_type, layout=layout, axes=axes, threads=threads, impl=impl,
                                   **spectrum_options)
    p = _positions(positions, grad)
    if out is not None:
        _format(out, "out")
        if grad:
            raise InputError("out", "None when x requires grad (out= is not differentiable)", "a tensor")
        if out.shape != x.shape or out.dtype != x.dtype or out.device != x.device:
            raise InputError("out", f"a tensor of x's shape {tuple(x.shape)}, dtype {x.dtype} and device {x.device}",
                             f"shape {tuple(out.shape)}, dtype {out.dtype}, device {out.device}")
        with torch.no_grad():
            return out.copy_(_rotate(x, p, options))
    if grad:
        y: torch.Tensor = _Rope.apply(x, p, options)
        return y
    return _rotate(x, p, options)


def apply_(x: torch.Tensor, positions: Positions, *, model: Optional[str] = None, layer_type: Optional[str] = None,
           layout: Optional[str] = None, axes: str = "auto", threads: int = 1, **spectrum_options: Unpack[ModelOptions]) -> torch.Tensor:
    """``apply`` in place: rotates x's own memory and returns x.

    A CPU tensor is rotated where it lies (through DLPack, its version counter bumped as torch's own
    in-place operations do); a tensor on another device through a CPU copy. A tensor that requires
    grad and is not a leaf is rotated by copy_, so that its gradient flows (a R(-p g) grad).

    Parameters
    ----------
    x : torch.Tensor
        As for ``apply``, writeable.
    positions, model, layer_type, layout, axes, threads, **spectrum_options
        As for ``apply``.

    Returns
    -------
    torch.Tensor
        x itself, rotated.

    Raises
    ------
    InputError
        ``x``: a leaf that requires grad (as torch refuses in-place changes to one); ``apply``'s
        errors otherwise.
    """
    _format(x, "x")
    options: dict[str, Any] = dict(model=model, layer_type=layer_type, layout=layout, axes=axes, threads=threads, **spectrum_options)
    if torch.is_grad_enabled() and x.requires_grad:
        if x.is_leaf:
            raise InputError("x", "a tensor apply_ may change in place (not a leaf that requires grad: use apply)",
                             "a leaf that requires grad")
        return x.copy_(apply(x, positions, **options))
    p = _positions(positions, False)
    with torch.no_grad():
        if x.device.type == "cpu":
            _tensors.apply_(_to_numpy(x), p, **options)
            x.copy_(x)  # bumps x's version counter (the copy onto itself is skipped), as an in-place op must
        else:
            x.copy_(_rotate(x, p, options | {"impl": "kernel"}))
    return x


def gradient_map(fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor]) -> TorchRope:
    """The gradient map of a differentiable RoPE fn(x, positions): g -> d<fn(x, positions), g>/dx,
    through torch.autograd (fn's own backward), for check_rope(..., backward=True).

    RoPE is linear, so its gradient is the same at every x; it is taken at x = 0 (an
    implementation whose gradient depends on x is checked there).

    Parameters
    ----------
    fn : callable
        fn(x, positions) -> y, differentiable in x with torch.autograd.

    Returns
    -------
    callable
        grad_map(g, positions) -> dx, x's gradient for the output gradient g.

    Examples
    --------
    >>> import torch, ropecheck.torch as rt
    >>> def rope(x, positions):
    ...     return rt.apply(x, positions, model="llama-3.1-8b")
    >>> rt.check_rope(rt.gradient_map(rope), model="llama-3.1-8b", backward=True, budget=2).direction
    'backward'
    """
    if not callable(fn):
        raise InputError("fn", "a callable fn(x, positions)", type(fn).__name__)

    def grad_map(g: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
        x = torch.zeros_like(g, requires_grad=True)
        with torch.enable_grad():
            y = fn(x, positions)
            (dx,) = torch.autograd.grad(y, x, g)
        return dx

    grad_map.__qualname__ = f"gradient_map({_checking.function_name(fn)})"
    return grad_map


class _TorchAdapter(_checking.Adapter):
    """fn's tensors: torch tensors of a dtype on a device; positions int64 on that device."""

    api = "ropecheck.torch"

    def __init__(self, dtype: str, device: torch.device) -> None:
        super().__init__(dtype)
        self.torch_dtype, self.device = DTYPES[dtype], device
        self.dtype_text = f"torch.{dtype}"

    def to_fn(self, x: Any, positions: Any) -> tuple[Any, Any]:
        t = _from_numpy(x.copy(), self.torch_dtype).to(self.device)
        return t, torch.from_numpy(positions.astype("<i8")).to(self.device)

    def describe(self, value: Any) -> str:
        if isinstance(value, torch.Tensor):
            return f"a tensor of shape {tuple(value.shape)}, {value.dtype} on {value.device}"
        return super().describe(value)

    def from_fn(self, y: Any, shape: tuple[int, ...]) -> Any:
        if not isinstance(y, torch.Tensor):
            raise AssertionError(f"check_rope: fn returned {type(y).__name__}, not a torch.Tensor (nor None after rotating x in place)")
        if tuple(y.shape) != shape or y.dtype != self.torch_dtype:
            raise AssertionError(f"check_rope: fn returned a tensor of shape {tuple(y.shape)}, {y.dtype} for an input of shape "
                                 f"{shape}, {self.torch_dtype}")
        try:
            c = y.detach().to("cpu").contiguous()
        except Exception as e:  # a device whose tensors cannot reach the CPU (meta, ...)
            raise AssertionError(f"check_rope: fn returned a tensor on {y.device} that could not be copied to the CPU "
                                 f"({type(e).__name__}: {e})") from None
        return _to_numpy(c).copy()


def _device(device: Any) -> torch.device:
    try:
        d = torch.device(device)
    except (RuntimeError, TypeError) as e:
        raise InputError("device", 'a torch device ("cpu", "cuda", "cuda:1", ...)', repr(device)) from e
    try:
        torch.empty(1, device=d)
    except Exception as e:  # no such device on this machine
        raise InputError("device", "a device this torch can allocate on", f"{device!r}: {type(e).__name__}: {str(e)[:120]}") from None
    return d


def check_rope(fn: TorchRope, *, model: Optional[str] = None, layer_type: Optional[str] = None,
               dtype: DTypeLike = torch.bfloat16, device: Any = "cpu", layout: Optional[str] = None, axes: str = "shd",
               bound: str = "standard", max_ulp: Optional[float] = None, rtol: Optional[float] = None, signed_zeros: bool = True,
               backward: bool = False, seed: int = 0, budget: int = 16, tokens: int = 32, heads: int = 2, min_position: int = 0,
               max_position: Optional[int] = None, beyond_context: bool = False, mode: str = "rounds",
               permutation: Optional[Sequence[int]] = None, raise_on_failure: bool = True, canonical_nan: bool = False,
               tables: str = "float32",
               **spectrum_options: Unpack[ModelOptions]) -> CheckResult:
    """Fuzzes fn, a RoPE written in torch, against the exact map: ropecheck.testing.check_rope with
    torch tensors.

    fn(x, positions) receives x, a tensor of `dtype` on `device` shaped as `axes` says, and
    positions, int64 on the same device; it returns the rotated tensor (x's shape and dtype, on any
    device) or None after rotating x in place. With backward=True, fn(grad_y, positions) is held to
    the gradient a R(-p g) grad_y.

    Parameters
    ----------
    fn : callable
    model, layer_type, layout, axes, bound, max_ulp, rtol, signed_zeros, backward, seed, budget, tokens,
    heads, min_position, max_position, beyond_context, mode, permutation, raise_on_failure, canonical_nan, tables,
    **spectrum_options
        As for ropecheck.testing.check_rope: by default fn is held to what the standard float32
        formulation can produce, at positions up to the model's trained context.
    dtype : torch.dtype, {"float32", "bfloat16", "float16"}, or numpy dtype or scalar type
        torch.bfloat16 (default), torch.float32 or torch.float16, or the same format named
        otherwise ("float16", numpy.float16).
    device : str or torch.device
        Where fn's inputs live ("cuda" on a GPU machine).

    Returns
    -------
    CheckResult
        The full result (``passed``; per input class counts and maxima; failures).

    Raises
    ------
    RopeCheckError (an AssertionError)
        The failures per input class, each class's worst element shrunk and described, its kind,
        a replay line; ``result`` is the CheckResult. Or an AssertionError saying what fn
        returned or raised when that is not a tensor of x's shape and dtype.
    InputError
        A bad argument, naming it (``dtype``, ``device``, ``rtol``, ...).

    Examples
    --------
    >>> import torch, ropecheck.torch as rt
    >>> def rope(x, positions):
    ...     return rt.apply(x, positions, model="llama-3.1-8b")
    >>> rt.check_rope(rope, model="llama-3.1-8b", dtype=torch.bfloat16, budget=2).rounds
    2
    """
    s = _checking.settings(model=model, layer_type=layer_type, layout=layout, dtype=dtype, axes=axes,
                           backward=backward, spectrum_options=spectrum_options)
    return _check_engine.check(fn, _TorchAdapter(s.dtype, _device(device)), s, bound=bound, max_ulp=max_ulp, rtol=rtol,
                               signed_zeros=signed_zeros, canonical_nan=canonical_nan, seed=seed, budget=budget, tokens=tokens,
                               heads=heads, min_position=min_position, max_position=max_position,
                               beyond_context=beyond_context, mode=mode, permutation=permutation,
                               raise_on_failure=raise_on_failure, tables=tables)


def profile(fn: TorchRope, *, model: Optional[str] = None, layer_type: Optional[str] = None,
            dtype: DTypeLike = torch.bfloat16, device: Any = "cpu", layout: Optional[str] = None, axes: str = "shd",
            backward: bool = False, seed: int = 0, tokens: int = 64, heads: int = 4, max_position: int = 10 ** 7 - 1,
            threads: int = 1, **spectrum_options: Unpack[ModelOptions]) -> Profile:
    """fn's error per position decade on ordinary inputs (the audit's table for a function), fn
    receiving torch tensors as in check_rope: ropecheck.testing.profile for torch.

    Parameters
    ----------
    fn, model, layer_type, layout, axes, backward, seed, tokens, heads, max_position, threads, **spectrum_options
        As for ropecheck.testing.profile.
    dtype, device
        As for check_rope.

    Returns
    -------
    Profile
        Rows with positions, elements, max_ulp, max_rel, correctly_rounded; ``to_dict()``; the repr
        is the table. Measured on sampled inputs: lower bounds of fn's error.

    Examples
    --------
    >>> import torch, ropecheck.torch as rt
    >>> def rope(x, positions):
    ...     return rt.apply(x, positions, model="llama-3.1-8b")
    >>> [r.max_ulp <= 0.5 for r in rt.profile(rope, model="llama-3.1-8b", tokens=2, heads=1, max_position=99).rows]
    [True, True]
    """
    s = _checking.settings(model=model, layer_type=layer_type, layout=layout, dtype=dtype, axes=axes,
                           backward=backward, spectrum_options=spectrum_options)
    return _profiling.profile(fn, _TorchAdapter(s.dtype, _device(device)), s, seed=seed, tokens=tokens, heads=heads,
                             max_position=max_position, threads=threads)
