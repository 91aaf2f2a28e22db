"""ropecheck.capture: the capture helper under its first name (it lives in ropecheck.lm.capture,
with the rest of the model measurement): from_module, save, load and Capture are the same objects."""

from .lm.capture import Capture, CaptureArray, from_module, load, save

__all__ = ["Capture", "from_module", "save", "load"]
