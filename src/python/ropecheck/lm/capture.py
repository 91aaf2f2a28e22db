"""ropecheck.lm.capture: pre-rotation queries and keys of a Hugging Face-style torch model, saved as
.npz (``ropecheck.capture`` is the same module, kept under its first name).

    from ropecheck.lm import capture
    c = capture.from_module(model, input_ids)        # a Capture: c.q, c.k, c.positions, c.token_ids
    capture.save("capture.npz", **c, source="Qwen/Qwen3-0.6B, prompt set A")
    c = capture.load("capture.npz")                  # c.source: "Qwen/Qwen3-0.6B, prompt set A"

from_module hooks the submodules that produce q and k just before the rotation (after q_proj/k_proj
and any q/k norm; the family decides which, see _FAMILIES), runs one forward pass under
torch.no_grad() with explicit ``position_ids``, and removes the hooks. The arrays keep the model's
own channel order: the pairing of channels is the layout's business (half-split for most families,
interleaved for GLM-4 and DeepSeek-V3's rope part), not the capture's.

Neither torch nor NumPy is imported until a function needs them, so ``import ropecheck`` needs neither.
"""

from __future__ import annotations

import collections.abc
import dataclasses
import importlib
import os
import re
import tempfile
from typing import TYPE_CHECKING, Any, Iterator, Optional, Union

from .. import _arguments as args
from .. import _core
from .._errors import InputError

if TYPE_CHECKING:
    import numpy
    import numpy.typing as npt

__all__ = ["Capture", "from_module", "save", "load"]

#: A capture's q or k: float32, or float16 when the model computes them in float16.
CaptureArray = Union["npt.NDArray[numpy.float32]", "npt.NDArray[numpy.float16]"]


@dataclasses.dataclass(frozen=True, eq=False)
class Capture(collections.abc.Mapping[str, Any]):
    """A capture: pre-rotation queries and keys with their positions (what ``save`` writes, and
    ``from_module`` and ``load`` return).

    Also a read-only mapping of the arrays as ``save`` writes them (q, k, positions, and token_ids
    and source when present; source a 0-d unicode array), so that ``save(path, **c)`` writes it.

    Attributes
    ----------
    q : numpy.ndarray of float32 or float16, [sequences, layers, heads, tokens, head_dim]
    k : numpy.ndarray of q's dtype, [sequences, layers, kv_heads, tokens, head_dim]
    positions : numpy.ndarray of int64, [sequences, tokens] (from_module) or as saved
    token_ids : numpy.ndarray of int64, like positions, or None
    source : str or None
        Where the capture came from, as saved.
    """

    q: CaptureArray
    k: CaptureArray
    positions: npt.NDArray[numpy.int64]
    token_ids: Optional[npt.NDArray[numpy.int64]] = None
    source: Optional[str] = None

    def _names(self) -> list[str]:
        return ["q", "k", "positions"] + [n for n in ("token_ids", "source") if getattr(self, n) is not None]

    def __getitem__(self, name: str) -> Any:
        if name not in self._names():
            raise KeyError(name)
        return args.numpy().array(self.source) if name == "source" else getattr(self, name)

    def __iter__(self) -> Iterator[str]:
        return iter(self._names())

    def __len__(self) -> int:
        return len(self._names())

# model_type -> how q and k are read. "proj": q_proj/k_proj outputs (b, s, H*d); "norm_bshd": q_norm/k_norm
# outputs (b, s, H, d) (Qwen3); "norm_bhsd": the same after the transpose, (b, H, s, d) (Gemma 3);
# "norm_flat": q_norm/k_norm on the flat (b, s, H*d) (OLMo 2); "qkv_proj": Phi-3's fused [Q | K | V];
# "neox": GPT-NeoX's query_key_value viewed (b, s, H, 3d), per head [q | k | v]; "mla": DeepSeek-V3.
_FAMILIES = {
    "llama": "proj", "mistral": "proj", "qwen2": "proj", "gemma": "proj", "gemma2": "proj", "glm": "proj",
    "glm4": "proj", "gpt_oss": "proj",
    "qwen3": "norm_bshd", "qwen3_moe": "norm_bshd",
    "gemma3": "norm_bhsd", "gemma3_text": "norm_bhsd",
    "olmo2": "norm_flat",
    "phi3": "qkv_proj",
    "gpt_neox": "neox",
    "deepseek_v3": "mla", "deepseek_v2": "mla",
}
# The submodules of one attention module each kind hooks ("q_b_proj" falls back to "q_proj" for MLA
# without a q LoRA).
_HOOKED = {
    "proj": ("q_proj", "k_proj"), "norm_bshd": ("q_norm", "k_norm"), "norm_bhsd": ("q_norm", "k_norm"),
    "norm_flat": ("q_norm", "k_norm"), "qkv_proj": ("qkv_proj",), "neox": ("query_key_value",),
    "mla": ("q_b_proj", "kv_b_proj", "kv_a_proj_with_mqa"),
}
_ATTENTION = re.compile(r"(^|\.)layers\.(\d+)\.(self_attn|attention)$")


def _torch() -> Any:
    try:
        return importlib.import_module("torch")
    except ImportError as e:  # pragma: no cover - scripts/setup installs python3-torch
        raise ImportError("ropecheck.capture needs PyTorch (Debian: apt install python3-torch)") from e


def _text_config(model: Any) -> Any:
    config = getattr(model, "config", None)
    if config is not None and getattr(config, "num_attention_heads", None) is None:
        config = getattr(config, "text_config", None) or config  # multimodal wrappers (Gemma 3)
    return config


def _family(model: Any, config: Any, attention: list[tuple[str, Any]]) -> str:
    """The kind of hook (a _FAMILIES value) from config.model_type, else from the module names."""
    for owner in (config, getattr(model, "config", None)):
        kind = _FAMILIES.get(str(getattr(owner, "model_type", "")))
        if kind is not None:
            return kind
    children = {n for _, a in attention for n, _ in a.named_children()}
    model_type = getattr(config, "model_type", None)
    for kind, child in (("mla", "kv_a_proj_with_mqa"), ("neox", "query_key_value"), ("qkv_proj", "qkv_proj")):
        if child in children:
            return kind
    if "q_norm" not in children and {"q_proj", "k_proj"} <= children:
        return "proj"
    raise InputError("model", "a model whose config.model_type is one of " + ", ".join(sorted(_FAMILIES)) +
                     " (or, without q_norm, whose attention has q_proj and k_proj)",
                     f"model_type {model_type!r}" + (" with q_norm (where it sits decides the axes)" if "q_norm" in children else ""))


def _geometry(config: Any, kind: str, heads: Optional[int], kv_heads: Optional[int], head_dim: Optional[int]) -> tuple[int, int, int]:
    def positive(name: str, value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise InputError(name, "a positive integer (an argument or model.config's)", repr(value))
        return value
    h = positive("heads", heads if heads is not None else getattr(config, "num_attention_heads", None))
    if kind == "mla":  # k is expanded to every query head; head_dim is qk_nope + qk_rope
        nope = getattr(config, "qk_nope_head_dim", None)
        rope = getattr(config, "qk_rope_head_dim", None)
        d = head_dim if head_dim is not None else (nope + rope if isinstance(nope, int) and isinstance(rope, int) else None)
        return h, positive("kv_heads", kv_heads if kv_heads is not None else h), positive("head_dim", d)
    kv = positive("kv_heads", kv_heads if kv_heads is not None else getattr(config, "num_key_value_heads", None) or h)
    if head_dim is None:
        head_dim = getattr(config, "head_dim", None)
        hidden = getattr(config, "hidden_size", None)
        if head_dim is None and isinstance(hidden, int):
            head_dim = hidden // h
    d = positive("head_dim", head_dim)
    if h % kv != 0:
        raise InputError("kv_heads", f"a divisor of heads = {h}", str(kv))
    return h, kv, d


def _per_head(t: Any, heads: int, width: int, parameter: str, layer: int, what: str) -> Any:
    """(b, s, heads * width) -> (b, s, heads, width), or InputError naming `parameter`."""
    if t.dim() != 3 or t.shape[-1] != heads * width:
        raise InputError(parameter, f"consistent with layer {layer}'s {what} (last axis heads * width = {heads} * {width})",
                         f"shape {tuple(t.shape)}")
    return t.reshape(t.shape[0], t.shape[1], heads, width)


def _extract(kind: str, out: dict[str, Any], layer: int, h: int, kv: int, d: int, config: Any) -> tuple[Any, Any]:
    """q (b, H, s, d) and k (b, Hkv, s, d) of one layer from its hooked outputs."""
    torch = _torch()
    if kind in ("proj", "norm_flat"):
        q = _per_head(out["q"], h, d, "head_dim", layer, "q")
        k = _per_head(out["k"], kv, d, "kv_heads", layer, "k")
    elif kind == "norm_bshd":
        q, k = out["q"], out["k"]
    elif kind == "norm_bhsd":
        q, k = out["q"].transpose(1, 2), out["k"].transpose(1, 2)
    elif kind == "qkv_proj":
        qkv = _per_head(out["qkv"], h + 2 * kv, d, "kv_heads", layer, "qkv_proj output [Q | K | V]")
        q, k = qkv[:, :, :h], qkv[:, :, h:h + kv]
    elif kind == "neox":
        qkv = _per_head(out["qkv"], h, 3 * d, "head_dim", layer, "query_key_value output")
        q, k = qkv[..., :d], qkv[..., d:2 * d]
    else:  # mla
        nope = getattr(config, "qk_nope_head_dim", None)
        v_dim = getattr(config, "v_head_dim", None)
        if not isinstance(nope, int) or not isinstance(v_dim, int) or not 0 <= nope < d:
            raise InputError("model", "an MLA config with integer qk_nope_head_dim < head_dim and v_head_dim",
                             f"qk_nope_head_dim {nope!r}, v_head_dim {v_dim!r}")
        q = _per_head(out["q"], h, d, "head_dim", layer, "q_b_proj output")
        kv_b = _per_head(out["kv_b"], kv, nope + v_dim, "kv_heads", layer, "kv_b_proj output [k_nope | v]")
        lora, width = getattr(config, "kv_lora_rank", None), out["kv_a"].shape[-1]
        if isinstance(lora, int) and width != lora + d - nope:
            raise InputError("model", f"a layer {layer} whose kv_a_proj_with_mqa output is config.kv_lora_rank + "
                             f"qk_rope_head_dim = {lora} + {d - nope} wide", str(width))
        rope = out["kv_a"][..., width - (d - nope):]
        k = torch.cat([kv_b[..., :nope], rope.unsqueeze(2).expand(-1, -1, kv, -1)], dim=-1)
    for name, t, n in (("heads", q, h), ("kv_heads", k, kv)):
        if t.dim() != 4 or t.shape[2] != n or t.shape[3] != d:
            raise InputError("head_dim" if t.dim() == 4 and t.shape[2] == n else name,
                             f"consistent with layer {layer}'s {name} x head_dim = ({n}, {d})", f"shape {tuple(t.shape)}")
    return q.transpose(1, 2), k.transpose(1, 2)


def _int_tensor(torch: Any, values: Any, parameter: str, sequences: Optional[int], tokens: Optional[int]) -> Any:
    t = values if isinstance(values, torch.Tensor) else torch.as_tensor(args.numpy().asarray(values))
    if t.dtype.is_floating_point or t.dtype.is_complex or t.dtype == torch.bool or t.dim() not in (1, 2) or t.numel() == 0:
        raise InputError(parameter, "integers, [tokens] or [sequences, tokens], not empty",
                         f"{t.dtype} of shape {tuple(t.shape)}")
    t = t.to(torch.int64).reshape(-1, t.shape[-1]).cpu()
    if sequences is not None and tokens is not None:
        if t.shape[-1] != tokens or t.shape[0] not in (1, sequences):
            raise InputError(parameter, f"of shape [{tokens}] or [{sequences}, {tokens}] like input_ids", f"shape {tuple(t.shape)}")
        t = t.expand(sequences, tokens).contiguous()
    return t


def from_module(model: Any, input_ids: Any, *, positions: Any = None, heads: Optional[int] = None,
                kv_heads: Optional[int] = None, head_dim: Optional[int] = None) -> Capture:
    """Queries and keys just before the rotation, from one forward pass of a Hugging Face-style model.

    Parameters
    ----------
    model : torch.nn.Module
        A model whose attention modules are named ``...layers.N.self_attn`` or ``...layers.N.attention``
        as in Hugging Face transformers (Llama, Mistral, Qwen2, Qwen3, Gemma 2/3, GLM-4, OLMo 2, Phi-3,
        GPT-NeoX, DeepSeek-V3, gpt-oss; the family is ``model.config.model_type``). It is called as
        ``model(input_ids=..., position_ids=...)`` under ``torch.no_grad()``.
    input_ids : integer tensor or array, [tokens] or [sequences, tokens]
    positions : integers, [tokens] or [sequences, tokens], optional
        The ``position_ids`` passed to the model; default ``arange(tokens)`` for every sequence.
    heads, kv_heads, head_dim : int, optional
        The geometry, by default ``model.config``'s num_attention_heads, num_key_value_heads (default
        heads) and head_dim (default hidden_size // heads; DeepSeek-V3: qk_nope_head_dim +
        qk_rope_head_dim, and k is given for every query head).

    Returns
    -------
    Capture
        ``q``: [sequences, layers, heads, tokens, head_dim], ``k``: [sequences, layers, kv_heads,
        tokens, head_dim], float16 when the model computes q and k in float16, else float32 (bfloat16
        exactly, float64 rounded); ``positions`` and ``token_ids``: int64 [sequences, tokens]; no
        ``source``. The channels are in the model's own order (DeepSeek-V3: per head [nope | rope]).

    Raises
    ------
    InputError
        Naming the parameter: no attention modules, an unknown family, a hooked submodule missing or
        not called exactly once, or shapes that disagree with the geometry. The hooks are removed on
        every exit.
    """
    torch = _torch()
    np = args.numpy()
    if not isinstance(model, torch.nn.Module):
        raise InputError("model", "a torch.nn.Module", type(model).__name__)
    config = _text_config(model)
    attention = [(n, m) for n, m in model.named_modules() if _ATTENTION.search(n)]
    kind = _family(model, config, attention)
    roles = {"q_proj": "q", "k_proj": "k", "q_norm": "q", "k_norm": "k", "qkv_proj": "qkv", "query_key_value": "qkv",
             "q_b_proj": "q", "kv_b_proj": "kv_b", "kv_a_proj_with_mqa": "kv_a"}
    layers: list[dict[str, Any]] = []  # per layer: role -> submodule
    for _, a in attention:
        children = dict(a.named_children())
        if kind == "mla" and "q_b_proj" not in children and "q_proj" in children:
            children["q_b_proj"] = children["q_proj"]
        if all(c in children for c in _HOOKED[kind]):  # skips e.g. a vision tower's attention
            layers.append({roles[c]: children[c] for c in _HOOKED[kind]})
    if not layers:
        raise InputError("model", "a module with attention modules ...layers.N.self_attn or ...layers.N.attention having "
                         + " and ".join(_HOOKED[kind]), f"{len(attention)} attention modules, none with them")
    expected = getattr(config, "num_hidden_layers", None)
    if isinstance(expected, int) and expected != len(layers):
        raise InputError("model", f"a module with config.num_hidden_layers = {expected} attention modules", str(len(layers)))
    h, kv, d = _geometry(config, kind, heads, kv_heads, head_dim)
    ids = _int_tensor(torch, input_ids, "input_ids", None, None)
    pos = _int_tensor(torch, positions if positions is not None else torch.arange(ids.shape[1]), "positions", *ids.shape)
    outputs: list[dict[str, list[Any]]] = [{r: [] for r in layer} for layer in layers]
    handles = []

    def recorder(store: list[Any]) -> Any:
        def hook(module: Any, inputs: Any, output: Any) -> None:
            store.append(output.detach().clone() if isinstance(output, torch.Tensor) else output)
        return hook

    try:
        for layer, out in zip(layers, outputs):
            for role, module in layer.items():
                handles.append(module.register_forward_hook(recorder(out[role])))
        device = next(iter(model.parameters()), torch.empty(0)).device
        with torch.no_grad():
            model(input_ids=ids.to(device), position_ids=pos.to(device))
    finally:
        for handle in handles:
            handle.remove()
    qs, ks = [], []
    for i, out in enumerate(outputs):
        for role, got in out.items():
            if len(got) != 1 or not isinstance(got[0], torch.Tensor):
                raise InputError("model", f"a model whose layer {i} computes its {role} hook point once per forward pass, as a tensor",
                                 f"{len(got)} calls" + (f" returning {type(got[0]).__name__}" if got else ""))
        q, k = _extract(kind, {r: got[0].cpu() for r, got in out.items()}, i, h, kv, d, config)
        if q.shape[0] != ids.shape[0] or q.shape[2] != ids.shape[1]:
            raise InputError("model", f"q of layer {i} with {ids.shape[0]} sequences of {ids.shape[1]} tokens",
                             f"shape {tuple(q.shape)}")
        qs.append(q)
        ks.append(k)
    dtype = torch.float16 if qs[0].dtype == torch.float16 and ks[0].dtype == torch.float16 else torch.float32
    return Capture(q=torch.stack(qs, 1).to(dtype).numpy(), k=torch.stack(ks, 1).to(dtype).numpy(),
                   positions=pos.numpy().astype(np.int64), token_ids=ids.numpy().astype(np.int64))


def _check(q: Any, k: Any, positions: Any, token_ids: Any, source: Any) -> dict[str, Any]:
    """The arrays save writes (and load returns), as np.savez writes them (C order, little-endian),
    checked by the library as ``ropecheck usage``'s reader checks the file (_core.check_capture: shapes,
    geometry, positions in [0, 2^40), token_ids, the source text, every q and k value finite)."""
    np = args.numpy()

    def array(name: str, value: Any, dtypes: tuple[str, ...]) -> Any:
        a = value if isinstance(value, np.ndarray) else np.asarray(value)
        if a.dtype.name not in dtypes:
            raise InputError(name, f"an array of {' or '.join(dtypes)}", f"{a.dtype.name} of shape {list(a.shape)}")
        return a.astype(a.dtype.newbyteorder("<"), order="C", copy=False)
    q = array("q", q, tuple(_core.CAPTURE_DTYPES))  # usage/capture.h's dtypes, from the library
    out = {"q": q, "k": array("k", k, (q.dtype.name,))}
    for name, value in (("positions", positions), ("token_ids", token_ids)):
        if value is not None or name == "positions":
            out[name] = array(name, value, ("int64",))
    if source is not None:
        if isinstance(source, np.ndarray) and source.ndim == 0 and source.dtype.kind == "U":
            source = str(source)
        if not isinstance(source, str):
            raise InputError("source", "a str", type(source).__name__)
        out["source"] = np.array(source)
    _core.check_capture(out["q"], out["k"], out["positions"], out.get("token_ids"), out.get("source"))
    return out


def _umask() -> int:
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)  # not thread-safe, hence the fallback only
    os.umask(mask)
    return mask


def save(path: Union[str, "os.PathLike[str]"], q: npt.ArrayLike, k: npt.ArrayLike, positions: npt.ArrayLike, *,
         token_ids: Optional[npt.ArrayLike] = None,
         source: Optional[str] = None, compressed: bool = True) -> None:
    """Writes a capture as .npz, all at once: a temporary file in the same directory renamed into place.

    Parameters
    ----------
    path : str or os.PathLike
        The file written (its name as given; no ``.npz`` is appended). Its directory must exist.
    q : numpy.ndarray of float32 or float16, [sequences, layers, heads, tokens, head_dim]
        head_dim even.
    k : numpy.ndarray of q's dtype, [sequences, layers, kv_heads, tokens, head_dim]
        kv_heads dividing heads (query head h reads kv head h // (heads // kv_heads)).
    positions : numpy.ndarray of int64, [sequences, tokens] or [tokens]
    token_ids : numpy.ndarray of int64, like positions, optional
    source : str, optional
        Where the capture came from (model, revision, prompts), stored as a 0-d unicode array.
    compressed : bool
        numpy.savez_compressed (default) or numpy.savez.

    Returns
    -------
    None

    Raises
    ------
    InputError
        Naming the parameter whose value the reader would refuse (``ropecheck usage``'s checks, run
        by the library: shapes, positions in [0, 2^40), token_ids, every q and k value finite, a
        NaN named by its element); nothing is written then. The arrays are written in C order,
        little-endian, whatever their memory order.

    Examples
    --------
    >>> import numpy as np, os, tempfile
    >>> from ropecheck import capture
    >>> q = np.zeros((1, 2, 4, 3, 8), np.float32)
    >>> path = os.path.join(tempfile.mkdtemp(), "c.npz")
    >>> capture.save(path, q, q[:, :, :2], np.arange(3), source="zeros")
    >>> sorted(capture.load(path))
    ['k', 'positions', 'q', 'source']
    >>> capture.load(path).source
    'zeros'
    >>> capture.save(path, q, q[:, :, :3], np.arange(3))
    Traceback (most recent call last):
    ...
    ropecheck._errors.InputError: k must be an array whose kv_heads divides q's heads (4) (got shape (1, 2, 3, 3, 8), kv_heads 3)
    >>> q[0, 1, 2, 0, 5] = np.nan
    >>> capture.save(path, q, q[:, :, :2], np.arange(3))
    Traceback (most recent call last):
    ...
    ropecheck._errors.InputError: q must be finite values (no NaN or infinity) (got q[0, 1, 2, 0, 5] = nan)
    """
    np = args.numpy()
    arrays = _check(q, k, positions, token_ids, source)
    target = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(target))
    if not os.path.isdir(directory):
        raise InputError("path", "a file in an existing directory", target)
    fd, temporary = tempfile.mkstemp(prefix="." + os.path.basename(target) + ".", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            (np.savez_compressed if compressed else np.savez)(f, **arrays)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(temporary, 0o666 & ~_umask())  # mkstemp's 0600 would make captures private
        os.replace(temporary, target)
    except BaseException:
        try:
            os.unlink(temporary)
        except FileNotFoundError:
            pass
        raise


def load(path: Union[str, "os.PathLike[str]"]) -> Capture:
    """A capture save wrote: ``save(other, **load(path))`` copies it.

    Parameters
    ----------
    path : str or os.PathLike

    Returns
    -------
    Capture
        ``q``, ``k``, ``positions`` and, when saved, ``token_ids`` and ``source`` (a str; as a
        mapping, ``c["source"]`` is the 0-d unicode array the file holds), None when not saved.

    Raises
    ------
    InputError
        Naming ``path`` when the file lacks q, k or positions or has names save does not write, or
        the parameter whose array save would refuse.
    """
    np = args.numpy()
    with np.load(os.fspath(path), allow_pickle=False) as z:
        arrays = {name: z[name] for name in z.files}
    names = set(arrays)
    if not {"q", "k", "positions"} <= names or not names <= {"q", "k", "positions", "token_ids", "source"}:
        raise InputError("path", "a capture with arrays q, k, positions and optionally token_ids, source",
                         ", ".join(sorted(names)))
    checked = _check(arrays["q"], arrays["k"], arrays["positions"], arrays.get("token_ids"), arrays.get("source"))
    source = checked.get("source")
    return Capture(q=checked["q"], k=checked["k"], positions=checked["positions"], token_ids=checked.get("token_ids"),
                   source=None if source is None else str(source))
