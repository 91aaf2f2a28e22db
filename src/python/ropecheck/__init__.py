"""ropecheck from Python: the spectrum of any model's RoPE, the correctly rounded kernel, the exact
audit of anyone's RoPE output, and the paper's claims as certificates.

    import ropecheck
    print(ropecheck.spectrum(model="llama-3.1-8b"))        # the table `ropecheck spectrum` prints
    y = ropecheck.apply(q, positions, model="gpt-oss-20b")  # correctly rounded, any int64 position
    print(ropecheck.audit(q, positions, y_theirs, model="gpt-oss-20b"))
    cert = ropecheck.verify("thm-3.1")

ropecheck.testing.check_rope fuzzes a RoPE implementation against the exact map (see its doc).

Tensors: NumPy arrays of float32, or of uint16 holding bfloat16 bit patterns, or any CPU tensor
exposing __dlpack__ (a torch.bfloat16 tensor is read as bfloat16). Shapes are those of the CLI
(axes="auto": [..., tokens, heads, head_dim] or [tokens, head_dim]) or an axis order: "bshd",
"bhsd" (Hugging Face's q and k), "shd", "hsd", "sd" (vLLM's flattened [tokens, heads * head_dim]).
Bad input raises ropecheck.InputError (a ValueError) naming the parameter and the accepted range.
"""

import decimal as _dec
import fractions as _fractions
import json as _json
import numbers as _numbers

from ._errors import InputError
from . import _ropecheck as _core

__version__ = _core.VERSION
__all__ = ["InputError", "models", "spectrum", "apply", "apply_", "audit", "verify", "claims", "bfloat16",
           "Spectrum", "ModelSpectrum", "Audit", "Certificate", "Verification"]

_VARIANTS = ("nope", "p_rope", "reversed", "partial")
_AXES = ("auto", "bshd", "bhsd", "shd", "hsd", "sd")
_LAYOUTS = ("interleaved", "half")
_MAX_POSITION_ARG = 1 << 40


# ---------------------------------------------------------------- argument checks

def _integer(name, value, lo, hi):
    if isinstance(value, bool) or not isinstance(value, _numbers.Integral):
        raise InputError(name, f"an integer in [{lo}, {hi}]", repr(value))
    v = int(value)
    if not lo <= v <= hi:
        raise InputError(name, f"an integer in [{lo}, {hi}]", str(v))
    return v


def _text(name, value, accepted):
    if not isinstance(value, str):
        raise InputError(name, accepted, repr(value))
    return value


def _decimal(name, value, accepted):
    """A number as the exact decimal text the library parses (a float is the binary value it holds)."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        raise InputError(name, accepted, repr(value))
    if isinstance(value, _numbers.Integral):
        return str(int(value))
    if isinstance(value, _fractions.Fraction):
        # Exact as a decimal only when the denominator divides a power of ten.
        d = value.denominator
        for p in (2, 5):
            while d % p == 0:
                d //= p
        if d != 1:
            raise InputError(name, accepted + " (a Fraction whose decimal expansion ends)", str(value))
        value = _dec.Decimal(value.numerator) / _dec.Decimal(value.denominator)
        return format(value, "f")
    if isinstance(value, (_numbers.Real, _dec.Decimal)):
        x = value if isinstance(value, _dec.Decimal) else _dec.Decimal(float(value))  # a float is exact in decimal
        if not x.is_finite():
            raise InputError(name, accepted, repr(value))
        return format(x, "f")
    raise InputError(name, accepted, repr(value))


def _choice(name, value, choices):
    if value not in choices:
        raise InputError(name, " or ".join(", ".join(choices).rsplit(", ", 1)), repr(value))
    return value


def _spectrum_request(config=None, dim=None, theta=None, p_rope=None, reversed=None, partial=None, nope=False,
                      scaling=None, context=None, model=None, layer_type=None, sequence_length=None, vllm_dynamic=False):
    """The spectrum keywords as the dict the extension reads, and the keyword that carries a variant."""
    r = {}
    if config is not None:
        r["config"] = _text("config", config, "a configuration name (gemma-7b, gemma-2b, llama-3.1-8b, llama-3.1-8b-unscaled, roformer)")
    if dim is not None:
        r["dim"] = _integer("dim", dim, 2, 1 << 20)
    if theta is not None:
        r["theta"] = _decimal("theta", theta, "a decimal > 1")
    given = [v for v, x in (("p_rope", p_rope), ("reversed", reversed), ("partial", partial)) if x is not None]
    if nope:
        given.insert(0, "nope")
    if len(given) > 1:
        raise InputError(given[1], f"given alone (one variant at a time; {given[0]} is also given)",
                         repr({"p_rope": p_rope, "reversed": reversed, "partial": partial}[given[1]]))
    variant = given[0] if given else None
    if variant:
        r["variant"] = variant
        if variant != "nope":
            r["fraction"] = _decimal(variant, {"p_rope": p_rope, "reversed": reversed, "partial": partial}[variant],
                                     "a fraction in [0, 1]")
    if scaling is not None:
        r["scaling"] = _text("scaling", scaling, "none, linear:F, llama3 or llama3:F:LOW:HIGH:C")
    if context is not None:
        r["context"] = _integer("context", context, 1, _MAX_POSITION_ARG)
    if model is not None:
        r["model"] = _text("model", model, "a zoo model name (ropecheck.models()) or a config.json path")
    if layer_type is not None:
        if model is None:
            raise InputError("layer_type", "given with model", repr(layer_type))
        r["layer_type"] = _text("layer_type", layer_type, "a layer type of the model")
    if sequence_length is not None:
        if model is None:
            raise InputError("sequence_length", "given with model", repr(sequence_length))
        r["sequence_length"] = _integer("sequence_length", sequence_length, 1, _MAX_POSITION_ARG)
    if vllm_dynamic:
        if model is None:
            raise InputError("vllm_dynamic", "given with model", repr(vllm_dynamic))
        r["vllm_dynamic"] = True
    return r, variant


class _Call:
    """Runs an extension call, renaming the library's names for the variant ('fraction') to the
    keyword the caller used."""

    def __init__(self, variant):
        self.variant = variant

    def __enter__(self):
        return self

    def __exit__(self, kind, error, tb):
        if isinstance(error, InputError) and error.parameter in ("fraction", "variant") and self.variant:
            raise error.renamed(self.variant) from None
        return False


def _np():
    try:
        import numpy
    except ImportError as e:  # pragma: no cover - numpy is a Debian dependency of the package
        raise ImportError("ropecheck needs NumPy for tensors and arrays (Debian: apt install python3-numpy)") from e
    return numpy


# ---------------------------------------------------------------- models and spectra

class Models(list):
    """The model zoo: a list of dicts (model, title, model_type, layer_types, sources, unconfirmed);
    printed as `ropecheck models` prints it."""

    def __init__(self, rows, text):
        super().__init__(rows)
        self.text = text

    def names(self):
        return [m["model"] for m in self]

    def __repr__(self):
        return self.text.rstrip("\n")


def models():
    """The model zoo, as `ropecheck models --json` gives it."""
    text, data = _core.zoo(False)
    return Models(_json.loads(data), text)


class Spectrum:
    """One spectrum's table: a row per pair k (status, g, wavelength, rotations over the context,
    quarter-turn horizon, semantic), as `ropecheck spectrum` prints it.

    Frequencies: ``frequencies`` (NumPy float64, g rounded to nearest), ``frequency_floats`` (the
    same as Python floats) and ``frequencies_exact`` (decimal strings, the library's values).
    """

    def __init__(self, data, text=None):
        self.data = data
        self.text = text
        for key in ("dim", "theta", "variant", "fraction", "scaling", "context", "rotated_pairs", "semantic_pairs",
                    "semantic_pairs_undecided"):
            setattr(self, key, data.get(key))
        self.name = data.get("configuration")
        self.description = data.get("spectrum")
        self.rows = data.get("rows", [])

    @property
    def frequencies_exact(self):
        return [r["g"] for r in self.rows]

    @property
    def frequency_floats(self):
        return [float(r["g_float64"]) for r in self.rows]

    @property
    def frequencies(self):
        return _np().array(self.frequency_floats, dtype="float64")

    @property
    def wavelengths_exact(self):
        return [r["wavelength"] for r in self.rows]

    @property
    def wavelengths(self):
        return _np().array([float(w) for w in self.wavelengths_exact], dtype="float64")

    @property
    def semantic(self):
        return [r["semantic"] for r in self.rows]

    def to_dict(self):
        return _json.loads(_json.dumps(self.data))

    def __len__(self):
        return len(self.rows)

    def __repr__(self):
        if self.text:
            return self.text.rstrip("\n")
        return f"<ropecheck.Spectrum {self.name}: {self.description}, context {self.context}, {len(self.rows)} pairs>"


class ModelSpectrum:
    """Every layer type of a model, each with its geometry (head_dim, rotary_offset, rotary_dims,
    layout, pass_through_pairs, layers, span, attention_factor) and its Spectrum (None without
    RoPE). Indexing by layer type name gives the Spectrum; ``frequencies`` and friends are the first
    RoPE layer type's."""

    def __init__(self, data, text):
        self.data = data
        self.text = text
        self.model = data["model"]
        self.layer_types = []
        for t in data["layer_types"]:
            entry = dict(t)
            entry["spectrum"] = Spectrum(t["spectrum"]) if "spectrum" in t else None
            self.layer_types.append(entry)

    def __getitem__(self, layer_type):
        for t in self.layer_types:
            if t["layer_type"] == layer_type:
                return t["spectrum"]
        raise KeyError(layer_type)

    def _first(self):
        for t in self.layer_types:
            if t["spectrum"] is not None:
                return t["spectrum"]
        raise ValueError(f"{self.model} has no layer type with RoPE")

    frequencies = property(lambda self: self._first().frequencies)
    frequency_floats = property(lambda self: self._first().frequency_floats)
    frequencies_exact = property(lambda self: self._first().frequencies_exact)
    rows = property(lambda self: self._first().rows)

    def to_dict(self):
        return _json.loads(_json.dumps(self.data))

    def __repr__(self):
        return self.text.rstrip("\n")


def spectrum(model=None, layer_type=None, context=None, *, precision=_core.DEFAULT_PRECISION_BITS, **spectrum_options):
    """The spectrum table `ropecheck spectrum` prints, as an object (a ModelSpectrum for a model
    alone: every layer type, or `layer_type`'s; a Spectrum otherwise).

    Keywords: model, layer_type, context, sequence_length, vllm_dynamic; or config, dim, theta,
    p_rope / reversed / partial (a fraction) / nope=True, scaling ("linear:8", "llama3", ...);
    precision in bits (default 256)."""
    precision = _integer("precision", precision, _core.MIN_PRECISION_BITS, _core.MAX_PRECISION_BITS)
    request, variant = _spectrum_request(model=model, layer_type=layer_type, context=context, **spectrum_options)
    with _Call(variant):
        text, data = _core.spectrum(request, precision)
    data = _json.loads(data)
    return ModelSpectrum(data, text) if "layer_types" in data else Spectrum(data, text)


def plan(layout=None, **spectrum_options):
    """The kernel's plan of a model's layer type or a spectrum: head_dim, rotary_offset, rotary_dims,
    layout, attention_factor (exact decimal), description, identity_pairs."""
    request, variant = _spectrum_request(**spectrum_options)
    with _Call(variant):
        return _core.plan(request, None if layout is None else _choice("layout", layout, _LAYOUTS))


# ---------------------------------------------------------------- tensors

def bfloat16(bits):
    """A uint16 array of bfloat16 bit patterns as a DLPack bfloat16 tensor (no copy):
    torch.from_dlpack(ropecheck.bfloat16(y)) is a torch.bfloat16 tensor; ropecheck's own functions
    read it as bfloat16."""
    np = _np()
    bits = _as_array(bits, "bits")
    if bits.dtype != np.uint16:
        raise InputError("bits", "a uint16 array of bfloat16 bit patterns", str(bits.dtype))
    return _BFloat16(bits)


class _BFloat16:
    def __init__(self, bits):
        self.bits = bits

    def __dlpack__(self, stream=None):
        return _core.bfloat16_capsule(self.bits)

    def __dlpack_device__(self):
        return (1, 0)

    @property
    def shape(self):
        return self.bits.shape

    def __repr__(self):
        return f"<ropecheck.bfloat16 tensor, shape {tuple(self.bits.shape)}>"


def _as_array(x, name):
    """x as a NumPy array: NumPy arrays as they are, DLPack tensors as a view of their memory."""
    np = _np()
    if isinstance(x, np.ndarray):
        return x
    if isinstance(x, _BFloat16):
        return x.bits
    if hasattr(x, "__dlpack__"):
        return _core.dlpack_to_numpy(x, name)
    raise InputError(name, "a NumPy array or a CPU tensor exposing __dlpack__", type(x).__name__)


def _tensor(x, name):
    """x as a float32 or uint16 (bfloat16 bits) array of either byte order, viewing x's memory."""
    a = _as_array(x, name)
    if (a.dtype.kind, a.dtype.itemsize) in (("f", 4), ("u", 2)):
        return a
    raise InputError(name, "float32, or uint16 holding bfloat16 bit patterns, or a DLPack bfloat16 tensor", str(a.dtype))


def _native_copy(a):
    """A C-contiguous copy of a in native byte order (no copy when a already is one)."""
    return _np().ascontiguousarray(a, dtype=a.dtype.newbyteorder("="))


def _positions(positions):
    """Positions as a contiguous array of one of the CLI's dtypes (int64, int32, float64, float32);
    other integer dtypes are widened to int64."""
    np = _np()
    if isinstance(positions, _numbers.Integral) and not isinstance(positions, bool):
        positions = [positions]
    try:
        p = _as_array(positions, "positions") if hasattr(positions, "__dlpack__") else np.asarray(positions)
    except (OverflowError, ValueError):
        raise InputError("positions", "integers in [-2^63, 2^63)", "values outside it") from None
    if p.dtype.kind in "iu":
        if p.dtype.kind == "u" and p.size and int(p.max()) >= 1 << 63:
            raise InputError("positions", "integers in [-2^63, 2^63)", str(int(p.max())))
        if p.dtype not in (np.dtype("<i8"), np.dtype("<i4")):
            p = p.astype("<i8")
    elif p.dtype.kind == "f" and p.dtype in (np.dtype("<f8"), np.dtype("<f4")):
        pass
    else:
        raise InputError("positions", "an array of integers (or of floats holding integers)", f"dtype {p.dtype}")
    return np.ascontiguousarray(p)


def _layout_arg(layout):
    return None if layout is None else _choice("layout", layout, _LAYOUTS)


def _rotate(x, positions, out, layout, axes, threads, impl, spectrum_options):
    request, variant = _spectrum_request(**spectrum_options)
    layout = _layout_arg(layout)
    axes = _choice("axes", axes, _AXES)
    threads = _integer("threads", threads, 1, 256)
    impl = _choice("impl", impl, ("kernel", "f32-angle", "f64-angle"))
    p = _positions(positions)
    with _Call(variant):
        return _core.apply(x, out, p, request, layout, axes, threads, impl)


def apply(x, positions, *, model=None, layer_type=None, layout=None, axes="auto", threads=1, impl="kernel",
          **spectrum_options):
    """Rotates x by RoPE at `positions` and returns a new array (float32, or uint16 bfloat16 bits;
    bit-identical to `ropecheck apply`).

    Every rotary output is the correctly rounded value of the exact map a*(x_a cos(p g) - x_b
    sin(p g)), a*(x_a sin(p g) + x_b cos(p g)) at any int64 position; pass-through channels and
    identity pairs are copied bit for bit. x is read in place (no copy) when its last axis is
    contiguous and no stride is negative. positions: one per token (shared by the batch) or one
    per batch row and token. model / layer_type: a zoo name or config.json path; or config, dim,
    theta, p_rope, scaling... with layout ("interleaved" or "half"). threads in [1, 256] split the
    tokens (same bits). impl: "kernel", or a baseline for comparison ("f32-angle": float32 angle
    and sin/cos as most inference engines; "f64-angle"). The GIL is released while it runs."""
    np = _np()
    a = _tensor(x, "x")
    if not _core.kernel_readable(a):  # a negative stride, a strided last axis, another byte order
        a = _native_copy(a)
    out = np.empty(a.shape, dtype=a.dtype)
    _rotate(a, positions, out, layout, axes, threads, impl,
            dict(model=model, layer_type=layer_type, **spectrum_options))
    return out


def apply_(x, positions, *, model=None, layer_type=None, layout=None, axes="auto", threads=1, **spectrum_options):
    """apply() in place: rotates x's own memory (a NumPy array, or a DLPack tensor such as a
    torch.bfloat16 tensor) and returns x. An array the kernel cannot read in place (a negative
    stride, a non-contiguous last axis, another byte order) is rotated through a copy and written
    back."""
    a = _tensor(x, "x")
    if not a.flags.writeable:
        raise InputError("x", "a writeable array (apply_ rotates in place)", "a read-only array")
    if _core.kernel_readable(a):
        _rotate(a, positions, a, layout, axes, threads, "kernel", dict(model=model, layer_type=layer_type, **spectrum_options))
    else:
        c = _native_copy(a)
        _rotate(c, positions, c, layout, axes, threads, "kernel", dict(model=model, layer_type=layer_type, **spectrum_options))
        a[...] = c
    return x


# ---------------------------------------------------------------- audit

class Audit:
    """The audit of one RoPE output against the exact map (the report `ropecheck audit` prints).

    Attributes: max_ulp, median_ulp, share_correctly_rounded (share of elements equal to the
    correctly rounded value), elements, specials, special_mismatches, pass_through,
    pass_through_mismatches, decades (a row per position decade), worst (the worst element:
    position, token, head, pair, component, inputs in hex, got, exact). Figures are exhaustive over
    the given tensor: the exact maximum for this input, a lower bound for the implementation."""

    def __init__(self, data, text):
        self.data = data
        self.text = text
        errors = data.get("errors", {})
        self.errors = errors
        self.max_ulp = errors.get("max_ulps")
        self.median_ulp = errors.get("median_ulps")
        self.share_correctly_rounded = errors.get("share_correctly_rounded")
        self.elements = errors.get("elements")
        self.specials = errors.get("specials")
        self.special_mismatches = errors.get("special_mismatches")
        self.pass_through = errors.get("pass_through")
        self.pass_through_mismatches = errors.get("pass_through_mismatches")
        self.decades = errors.get("decades", [])
        self.worst = errors.get("worst")

    @property
    def correctly_rounded(self):
        """Every element equal to its correctly rounded value, every special and copy as expected."""
        e = self.errors
        return (e.get("correctly_rounded") == e.get("elements") and not e.get("special_mismatches")
                and not e.get("pass_through_mismatches"))

    def to_dict(self):
        return _json.loads(_json.dumps(self.data))

    def __repr__(self):
        return self.text.rstrip("\n")


def audit(x, positions, y, *, model=None, layer_type=None, layout=None, axes="auto", threads=1,
          precision=None, **spectrum_options):
    """Audits y, another implementation's RoPE of x at `positions`, against the exact map (every
    element; the same figures as `ropecheck audit` on the same arrays). x and y: float32 or
    bfloat16 (uint16 bits, or DLPack bfloat16), same shape and dtype; axes as for apply; a model's
    layer type, or a spectrum with layout. threads split the tokens (same result); precision: the
    reference's working precision in bits (default 200)."""
    a = _native_copy(_tensor(x, "x"))
    b = _native_copy(_tensor(y, "y"))
    if a.dtype != b.dtype:
        raise InputError("y", f"an array of x's dtype {a.dtype}", str(b.dtype))
    request, variant = _spectrum_request(model=model, layer_type=layer_type, **spectrum_options)
    threads = _integer("threads", threads, 1, 256)
    precision = 200 if precision is None else _integer("precision", precision, 64, 65536)
    with _Call(variant):
        text, data = _core.audit(a, _positions(positions), b, request, _layout_arg(layout), _choice("axes", axes, _AXES),
                                 threads, precision)
    return Audit(_json.loads(data), text)


# ---------------------------------------------------------------- certificates

class Bound:
    """A certified quantity: the exact value lies in [lower, upper]. ``lower_text`` and
    ``upper_text`` are the certificate's decimal strings (lower rounded down, upper up);
    ``lower`` and ``upper`` the same as exact fractions.Fraction (never a float, which could round
    a bound inward). kind: "enclosure" (certified), "exact" (an integer) or "estimate"."""

    def __init__(self, q):
        self.name = q.get("name")
        self.kind = q.get("kind", "enclosure")
        self.lower_text = q.get("lower")
        self.upper_text = q.get("upper")
        self.lower = _fraction(self.lower_text)
        self.upper = _fraction(self.upper_text)

    def __repr__(self):
        return f"{self.name} in [{self.lower_text}, {self.upper_text}] ({self.kind})"


def _fraction(text):
    if text is None:
        return None
    try:
        return _fractions.Fraction(text)
    except (ValueError, ZeroDivisionError):
        return None  # "inf", "-inf", "nan": not a rational bound


class Certificate:
    """One certificate: claim, statement, verdict (as the CLI prints it: "holds", "fails",
    "counterexample", "confirmed", "not-confirmed", "inconclusive"), expected (the paper's),
    as_paper_states, method, parameters, quantities (a list of Bound), details, seconds."""

    def __init__(self, c):
        self.data = c
        self.claim = c.get("claim")
        self.statement = c.get("statement")
        self.verdict = c.get("verdict")
        self.expected = c.get("expected")
        self.as_paper_states = c.get("as_paper_states")
        self.method = c.get("method")
        self.parameters = c.get("parameters")
        self.details = c.get("details")
        self.seconds = c.get("seconds")
        self.quantities = [Bound(q) for q in c.get("quantities", [])]

    def to_dict(self):
        return _json.loads(_json.dumps(self.data))

    def __repr__(self):
        lines = [f"{self.claim}: {self.verdict} (the paper: {self.expected}) -- {self.statement}", f"  method: {self.method}"]
        lines += [f"  {q!r}" for q in self.quantities]
        return "\n".join(lines)


class Verification(list):
    """The certificates of one claim check (a list of Certificate); as_paper_states is true when
    every one agrees with the paper (an inconclusive one never does). Printed as the CLI's table."""

    def __init__(self, claim, title, certificates, text, arithmetic):
        super().__init__(certificates)
        self.claim = claim
        self.title = title
        self.text = text
        self.arithmetic = arithmetic

    @property
    def as_paper_states(self):
        return len(self) > 0 and all(c.as_paper_states for c in self)

    @property
    def verdicts(self):
        return [c.verdict for c in self]

    def to_dict(self):
        return {"claim": self.claim, "title": self.title, "arithmetic": self.arithmetic,
                "certificates": [c.to_dict() for c in self]}

    def __repr__(self):
        return self.text.rstrip("\n")


def claims():
    """The claim ids and titles (`ropecheck verify --list`), as a dict."""
    return dict(_core.claims())


def verify(claim, *, precision=_core.DEFAULT_PRECISION_BITS, max_precision=None, seed=None, epsilon=None,
           frequency=None, phase=None, tolerance=None, max_n=None, trials=None, ledger=None, distances=None,
           query_lengths=None, query=None, **spectrum_options):
    """Runs one claim check (`ropecheck verify --claim CLAIM`) and returns its certificates.

    Parameters as the CLI's flags: precision, max_precision (bits), seed, epsilon, frequency, phase,
    tolerance (decimals: str, int, float or Fraction with a terminating decimal), max_n, trials,
    ledger (a path), distances, query_lengths (lists of integers), query (decimals), and the
    spectrum keywords (config, dim, theta, p_rope, scaling, context, model, ...)."""
    claim = _text("claim", claim, "a claim id (ropecheck.claims())")
    o = {"precision": _integer("precision", precision, _core.MIN_PRECISION_BITS, _core.MAX_PRECISION_BITS)}
    o["max_precision"] = max(o["precision"], 4096) if max_precision is None else \
        _integer("max_precision", max_precision, o["precision"], _core.MAX_PRECISION_BITS)
    if seed is not None:
        o["seed"] = _integer("seed", seed, 0, (1 << 64) - 1)
    for name, value, accepted in (("epsilon", epsilon, "a decimal in (0, 1/2)"), ("frequency", frequency, "a decimal > 0 or K*pi/M"),
                                  ("phase", phase, "an angle in radians (decimal or K*pi/M)"), ("tolerance", tolerance, "a decimal > 0")):
        if value is not None:
            o[name] = _decimal(name, value, accepted)
    if max_n is not None:
        o["max_n"] = _integer("max_n", max_n, 1, _MAX_POSITION_ARG)
    if trials is not None:
        o["trials"] = _integer("trials", trials, 1, 1000000)
    if ledger is not None:
        o["ledger"] = _text("ledger", str(ledger) if hasattr(ledger, "__fspath__") else ledger, "a path")
    if distances is not None:
        o["distances"] = [_integer("distances", d, 0, _MAX_POSITION_ARG) for d in distances]
    if query_lengths is not None:
        o["query_lengths"] = [_integer("query_lengths", s, 1, _MAX_POSITION_ARG) for s in query_lengths]
    if query is not None:
        o["query"] = [_decimal("query", q, "decimals") for q in query]
    request, variant = _spectrum_request(**spectrum_options)
    o["spectrum"] = request
    with _Call(variant):
        text, data = _core.verify(claim, o)
    data = _json.loads(data)
    return Verification(data["claim"], data["title"], [Certificate(c) for c in data["certificates"]], text, data["arithmetic"])
