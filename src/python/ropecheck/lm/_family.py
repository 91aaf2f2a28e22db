"""What an architecture family tells ropecheck.lm beyond what transformers' config and modules say
(families/<name>.py holds one; families/__init__.py registers it).

Everything generic is read from the model itself: the geometry and RoPE from its config (through
ropecheck's own config reader), the attention scale from its attention modules, the frequencies
transformers rotates with from its ``*inv_freq`` buffers, q and k where ``ropecheck.lm.capture``
finds them (the family's model_type picks the hook point there). A family adds:

- how the GGUF file stores the tensors the capture depends on (q/k projections and norms), so that
  the weights transformers loaded are checked against the file bit for bit, with the convention
  stated and its wrong twin shown to fail;
- which GGUF metadata keys state what transformers' config must say (cross-checked on load);
- a control for the attention check: the same capture made wrong in the way this family's
  conversion could go wrong, which the check must reject.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, Optional

#: An array transform: the GGUF file's tensor (float32, NumPy's row order) to the module's layout.
Transform = Callable[[Any], Any]


@dataclasses.dataclass(frozen=True)
class WeightPair:
    """One GGUF tensor against one of transformers' tensors.

    Attributes
    ----------
    gguf_name, module_name : str
        The file's tensor and the module's parameter (``model.named_parameters()`` name).
    convention : str
        How the file stores it, in words ("rows permuted per head: ggml pairs 2i, 2i+1").
    to_module : Transform
        The file's tensor in the module's layout: must equal the module's bit for bit.
    wrong : Transform
        The plausible wrong reading (another pairing, the norm's offset forgotten): must not.
    """

    gguf_name: str
    module_name: str
    convention: str
    to_module: Transform
    wrong: Transform


@dataclasses.dataclass(frozen=True)
class AttentionControl:
    """A capture made wrong on purpose, for the attention check to reject.

    Attributes
    ----------
    what : str
        What was changed, in words.
    q, k : numpy arrays
        The capture's q and k as changed (or as captured).
    config : dict
        The config.json ropecheck reads for it (changed, or the model's).
    layers : tuple of int
        The layers the control checks.
    """

    what: str
    q: Any
    k: Any
    config: dict[str, Any]
    layers: tuple[int, ...]


@dataclasses.dataclass(frozen=True)
class Family:
    """One architecture family.

    Attributes
    ----------
    name : str
        The family's name (its file's).
    architecture : str
        GGUF ``general.architecture``.
    model_types : tuple of str
        transformers' ``config.model_type`` values it covers.
    description : str
        One line: what it is, with the transformers class it loads into.
    metadata : tuple of (GGUF key suffix, config reader, what)
        Each key ``<architecture>.<suffix>`` of the file against ``reader(config)``: both must agree.
    weights : callable (model, config) -> list of WeightPair
        The tensors to check, every layer.
    qk_norm : str or None
        The norm q and k pass through before the rotation, with its weight convention; None.
    control : callable (q, k, config dict) -> AttentionControl
        The control the attention check must fail (q, k: one sequence's capture).
    """

    name: str
    architecture: str
    model_types: tuple[str, ...]
    description: str
    metadata: tuple[tuple[str, Callable[[Any], Any], str], ...]
    weights: Callable[[Any, Any], list[WeightPair]]
    qk_norm: Optional[str]
    control: Callable[[Any, Any, dict[str, Any]], AttentionControl]


def rope_theta(config: Any, layer_type: Optional[str] = None) -> float:
    """The theta transformers' config states for a layer type (v5 ``rope_parameters``, per layer type
    or shared; older ``rope_theta``)."""
    params = getattr(config, "rope_parameters", None)
    if isinstance(params, dict):
        if layer_type is not None and isinstance(params.get(layer_type), dict):
            return float(params[layer_type]["rope_theta"])
        if "rope_theta" in params:
            return float(params["rope_theta"])
    return float(getattr(config, "rope_theta"))
