"""ropecheck from Python: the spectrum of any model's RoPE, the correctly rounded kernel, the exact
audit of anyone's RoPE output, and the paper's claims as certificates.

    import ropecheck
    print(ropecheck.spectrum(model="llama-3.1-8b"))        # the table `ropecheck spectrum` prints
    y = ropecheck.apply(q, positions, model="gpt-oss-20b")  # correctly rounded, any int64 position
    print(ropecheck.audit(q, positions, y_theirs, model="gpt-oss-20b"))
    v = ropecheck.verify("thm-6.1")                         # certificates (ropecheck.claims() lists the ids)

ropecheck.testing.check_rope fuzzes a RoPE implementation against the exact map, and
ropecheck.testing.profile gives its error per position decade (see their docs); ropecheck.torch does
both, and apply with autograd, on torch tensors (import ropecheck.torch: it imports torch).
ropecheck.usage(q, k, positions, model=...) measures how a trained model uses its RoPE on such a
capture: frequency usage, positional heads, frequency ablations, certified breaking distances;
ropecheck.attention and ropecheck.attention_layer return the attention maps it measures them on.
ropecheck.capture records a torch model's queries and keys before the rotation and saves them as .npz
(from_module, save, load; torch is imported only when from_module runs).

Tensors: NumPy arrays of float32 or float16, or of uint16 holding bfloat16 bit patterns, or any CPU tensor
exposing __dlpack__ (a torch.bfloat16 tensor is read as bfloat16). Shapes are those of the CLI
(axes="auto": [..., tokens, heads, head_dim] or [tokens, head_dim]) or an axis order: "bshd",
"bhsd" (Hugging Face's q and k), "shd", "hsd", "sd" (vLLM's flattened [tokens, heads * head_dim]).
Bad input raises ropecheck.InputError (a ValueError) naming the parameter and the accepted range.

The package by concern: _arguments (checking every keyword against the library's names and
limits), _options (the typed keywords: spectrum keywords, tensors, dtypes), _spectra (models,
spectrum, plan), _tensors (apply, apply_, bfloat16), _audit, _certificates (verify, claims),
_checking (check_rope's and profile's engine), testing (check_rope, profile), torch (the same on
torch tensors), capture (from_module, save, load), _usage (usage, attention, attention_layer);
_core is the extension.
"""

from . import _core, capture
from ._audit import Audit, AuditDecade, AuditErrors, AuditFormulation, AuditWorst, audit
from ._certificates import (ArithmeticEnvironment, Bound, Certificate, CertificateDetails, CertificateParameters, Conjunct, Verification,
                            claims, verify)
from ._check_results import RopeCheckError
from ._errors import InputError
from ._spectra import LayerType, Models, ModelSpectrum, Plan, Spectrum, SpectrumRow, ZooLayerType, ZooModel, models, plan, spectrum
from ._tensors import BFloat16Tensor, apply, apply_, bfloat16
from ._usage import (HEAD_KINDS, BreakDistribution, BreakQuantile, ContentBreak, HeadAblation, HeadScores, LayerRanking, NullCheck,
                     NullKind, PositionalRanking, ScoreTest, Usage, UsageCapture, UsageHead, UsageLayer, UsageSimilarity,
                     WithinLayerRanking, attention, attention_layer, compare_usage, usage, OffsetEffect, HeadComponent, ComponentTest,
                     ComponentCurvePoint, LayerTypeComponents, CutQuality, Section5, BreakMechanisms, ChannelBreaks, SameTokenTest, SemanticHead, MechanismBreak,
                     HeadAttribution, MeanWithInterval, DistanceBucket, BandCount, AppendixE, LayerTypeDistance, Section3)

__version__: str = _core.VERSION

__all__ = [
    "InputError", "RopeCheckError",
    "models", "spectrum", "plan", "Models", "ZooModel", "ZooLayerType", "Spectrum", "SpectrumRow", "ModelSpectrum", "LayerType", "Plan",
    "apply", "apply_", "bfloat16", "BFloat16Tensor",
    "audit", "Audit", "AuditErrors", "AuditDecade", "AuditWorst", "AuditFormulation",
    "verify", "claims", "Verification", "ArithmeticEnvironment", "Certificate", "CertificateParameters", "CertificateDetails",
    "Conjunct", "Bound",
    "usage", "Usage", "UsageCapture", "UsageLayer", "UsageHead", "HeadScores", "ScoreTest", "HeadAblation", "ContentBreak",
    "PositionalRanking", "WithinLayerRanking", "LayerRanking", "NullCheck", "NullKind", "BreakDistribution", "BreakQuantile",
    "compare_usage", "UsageSimilarity", "attention", "attention_layer",
    "OffsetEffect", "HeadComponent", "ComponentTest", "ComponentCurvePoint", "LayerTypeComponents", "CutQuality", "Section5", "BreakMechanisms", "ChannelBreaks", "SameTokenTest", "SemanticHead", "MechanismBreak",
    "HeadAttribution", "MeanWithInterval", "DistanceBucket", "BandCount", "AppendixE", "LayerTypeDistance", "Section3",
]
