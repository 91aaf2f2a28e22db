"""The measurement of one model, end to end: ``run(model, texts, settings, out)`` proves the
tokenization, the weights and the capture against the model, then measures the paper's Sections 4-5
per layer type, and the loss ablations; it writes ``out/`` (run.json with every number, usage.json,
config.json, section.md, figures/) through a staging directory renamed into place, so that a failed
run leaves nothing.

Stages, each timed (run.json ``timings``):
1. ``tokenization``: the model's tokenizer against the vocabulary's own rule, implemented
   independently (ropecheck.lm's reference encoders), on passages of every domain; transformers'
   GGUF tokenizer beside it as the control. A tokenizer that fails stops the run (InputError).
2. ``weights``: the file's q/k projections and norms against transformers' (GGUF models).
3. ``capture``: q, k before the rotation and v, every layer, one sequence at a time (the decoder
   alone: no logits), eager attention.
4. ``check``: ropecheck's attention from a capture against transformers' own on every layer and head
   of check sequences long enough to reach past every sliding window, within the float32 bound of
   ropecheck.lm.check; the family's control must fail it.
5. ``usage``: ``ropecheck usage`` (the CLI, timed, its peak memory read from /proc) on the whole
   capture; ``ropecheck.usage`` per domain, compared with the first (Fig. 19).
6. ``summaries``: ropecheck.lm.summaries per layer type.
7. ``ablations``: next-token loss as trained and under band ablations, paired, on the fast path
   (ropecheck.lm.attention), after checking it against eager on one sequence (``loss_agreement``).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import math
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from typing import TYPE_CHECKING, Any, Callable, Iterator, Optional, Protocol, Sequence

from .._errors import InputError
from . import attention as fast
from . import capture, check, summaries
from ._reference_tokenizers import reference_tokenizer
from ._segmentation import check_segmentation
from ._tokenizers import transformers_tokenizer
from .results import Run, run_from_json

if TYPE_CHECKING:
    from ._model import LanguageModel

SCHEMA = "ropecheck-lm-run/1"
#: Loss measured on the fast path against eager on one sequence: float32 reassociation moves a mean
#: loss by ~1e-7 nats here (measured on both models); 1e-4 is far below the 4 decimals reported
#: and far above that.
LOSS_AGREEMENT = 1e-4


class TextSource(Protocol):
    """Where the text comes from (examples/real_model/texts.py is one): named domains, each with its
    provenance, windows of token ids and raw passages."""

    DOMAINS: tuple[str, ...]

    def provenance(self, domain: str) -> dict[str, Any]: ...

    def sequences(self, domain: str, tokenizer: Any, count: int, tokens: int, *, seed: int = 0) -> list[list[int]]: ...

    def passages(self, domain: str, count: int) -> list[str]: ...


@dataclasses.dataclass(frozen=True)
class Ablations:
    """The loss ablations at one length: sequences of `length` tokens from `domain`, `count` of them,
    and the (band, mode) names measured (ropecheck.lm.bands: "slow-still", "fast-removed", ...)."""

    length: int
    count: int
    names: tuple[str, ...]


@dataclasses.dataclass(frozen=True)
class Settings:
    """What a run measures.

    Attributes
    ----------
    domains : tuple of str
    sequences, tokens : int
        Captured sequences per domain and tokens per sequence (BOS included where the model has one).
    check_sequences : int
        Sequences (one per domain, from the first) whose every layer and head is checked.
    check_tokens : int
        Their length: at least every sliding window plus 128, so that rows beyond it are checked.
    passages : int
        Raw passages per domain for the tokenization check.
    ablation_domain : str
    ablations : tuple of Ablations
    threads : int
    null_repeats : int
        Gaussian null captures for the head-kind rule (ropecheck usage --null-repeats).
    cli : str
        The ropecheck binary (build/ropecheck).
    bos : str
        ``"model"`` (BOS first when the model's sequences start so, the default), ``"always"`` (BOS
        first even where the model's tokenizer does not add it: Appendix E's BOS channel measured on
        such a model, out of its usual input, and said so) or ``"never"``.
    random_sequences : int
        Sequences of uniformly random tokens (ropecheck.lm.random_tokens, seed ``random_seed``) of
        `tokens` ids, captured for the positional-component test on random-token input: which heads
        with a component on the text keep it whatever the tokens are (the paper's positional
        heads). 0 skips it; fewer than 2 decide nothing.
    random_seed : int
    """

    domains: tuple[str, ...]
    sequences: int
    tokens: int
    check_sequences: int
    check_tokens: int
    passages: int
    ablation_domain: str
    ablations: tuple[Ablations, ...]
    threads: int
    null_repeats: int
    cli: str
    bos: str = "model"
    random_sequences: int = 8
    random_seed: int = 3


def _log(log: Optional[Callable[[str], None]], line: str) -> None:
    if log is not None:
        log(line)


@contextlib.contextmanager
def _stage(timings: dict[str, float], name: str) -> Iterator[None]:
    t = time.perf_counter()
    try:
        yield
    finally:
        timings[f"{name}_seconds"] = time.perf_counter() - t


BOS_CHOICES = ("model", "always", "never")


def with_bos(model: LanguageModel, texts: TextSource, domain: str, count: int, tokens: int, seed: int, bos: str = "model") -> list[list[int]]:
    """`count` windows of `tokens` ids from `domain`, BOS first when the model's sequences start so
    (``bos="model"``), always (``"always"``: the model must have a BOS id) or never."""
    f = model.facts
    if bos not in BOS_CHOICES:
        raise InputError("bos", "one of " + ", ".join(BOS_CHOICES), repr(bos))
    if bos == "always" and f.bos_id is None:
        raise InputError("bos", "'model' or 'never' for a vocabulary without a BOS id", "'always'")
    if f.bos_id is not None and (bos == "always" or (bos == "model" and f.add_bos)):
        return [[f.bos_id] + s for s in texts.sequences(domain, model.tokenizer, count, tokens - 1, seed=seed)]
    return texts.sequences(domain, model.tokenizer, count, tokens, seed=seed)


def capture_sequences(model: LanguageModel, seqs: Sequence[Sequence[int]]) -> dict[str, Any]:
    """q, k (ropecheck.lm.capture.from_module on the decoder: no logits) and v (a hook on every
    layer's v_proj) of each sequence alone; stacked [sequences, layers, heads, tokens, head_dim]."""
    import numpy as np
    import torch
    decoder = model.module.get_decoder()
    f = model.facts
    vproj = [m for n, m in decoder.named_modules() if n.endswith("self_attn.v_proj")]
    parts: dict[str, list[Any]] = {"q": [], "k": [], "v": [], "positions": [], "token_ids": []}
    for ids in seqs:
        values: list[Any] = []
        handles = [m.register_forward_hook(lambda mod, i, o: values.append(o.detach().clone())) for m in vproj]
        try:
            c = capture.from_module(decoder, torch.tensor([list(ids)]))
        finally:
            for h in handles:
                h.remove()
        v = torch.stack([x.view(1, len(ids), f.kv_heads, f.head_dim).transpose(1, 2) for x in values], 1)
        for key in ("q", "k", "positions", "token_ids"):
            parts[key].append(c[key])
        parts["v"].append(v.numpy().astype(np.float32))
    return {key: np.concatenate(v) for key, v in parts.items()}


def run_cli(cmd: list[str]) -> dict[str, Any]:
    """Runs the ropecheck CLI: its wall time and peak RSS (VmHWM of its own address space, read from
    /proc while it runs: getrusage's children figure would count this process's pages, which the
    child shares between fork and exec)."""
    t = time.time()
    out_file, err_file = tempfile.TemporaryFile("w+"), tempfile.TemporaryFile("w+")
    proc = subprocess.Popen(cmd, stdout=out_file, stderr=err_file, text=True)
    peak_kib = 0
    while proc.poll() is None:
        try:
            with open(f"/proc/{proc.pid}/status") as f:
                exe_done = False
                for line in f:
                    if line.startswith("Name:"):
                        exe_done = "ropecheck" in line
                    elif line.startswith("VmHWM:") and exe_done:
                        peak_kib = max(peak_kib, int(line.split()[1]))
        except (OSError, ValueError):
            pass
        time.sleep(0.1)
    wall = time.time() - t
    err_file.seek(0)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {proc.returncode}: {err_file.read().strip()}")
    return {"seconds": wall, "peak_rss_mib": peak_kib / 1024 if peak_kib else None}


def versions() -> dict[str, str]:
    import importlib.metadata as md

    import numpy as np
    import torch
    out = {"python": platform.python_version(), "torch": torch.__version__, "numpy": np.__version__}
    for name in ("transformers", "gguf", "tokenizers", "sentencepiece"):
        try:
            out[name] = md.version(name)
        except md.PackageNotFoundError:
            out[name] = "not installed"
    out["torch_threads"] = str(torch.get_num_threads())
    out["cpu"] = next((ln.split(":", 1)[1].strip() for ln in open("/proc/cpuinfo") if ln.startswith("model name")), "unknown")
    return out


def _tokenization(model: LanguageModel, texts: TextSource, s: Settings, log: Optional[Callable[[str], None]]) -> dict[str, Any]:
    passages = [p for d in s.domains for p in texts.passages(d, s.passages)]
    out: dict[str, Any] = {"tokenizer": model.tokenizer.name}
    if model.gguf is None:
        out["check"] = None
        out["note"] = "not a GGUF file: the folder's or the caller's tokenizer is taken as the model's own"
        return out
    ref = reference_tokenizer(model.gguf.vocabulary())
    ours = check_segmentation(model.tokenizer, ref, passages)
    out["check"] = ours.to_dict()
    _log(log, "tokenization: " + ours.statement)
    if not ours.agree:
        raise InputError("model", "a tokenizer that reproduces the vocabulary's own segmentation", ours.statement)
    try:
        theirs = check_segmentation(transformers_tokenizer(model.gguf.path), ref, passages)
        out["transformers_control"] = theirs.to_dict()
        _log(log, "tokenization control (transformers' GGUF tokenizer): " + theirs.statement)
    except InputError as e:
        out["transformers_control"] = {"error": str(e)}
    return out


def _check(model: LanguageModel, texts: TextSource, s: Settings, log: Optional[Callable[[str], None]]) -> dict[str, Any]:
    checks: list[dict[str, Any]] = []
    control: Optional[dict[str, Any]] = None
    for i, d in enumerate(s.domains[:s.check_sequences]):
        ids = with_bos(model, texts, d, 1, s.check_tokens, seed=2, bos=s.bos)[0]
        c = capture_sequences(model, [ids])
        hf = check.eager_attentions(model, ids)
        r = check.check_attention(model, c["q"][0], c["k"][0], c["positions"][0], hf, sequence=i)
        checks.append({"domain": d, "tokens": len(ids)} | r.to_dict())
        _log(log, f"check {d} ({len(ids)} tokens): {len(r.heads)} heads, passed {r.passed}, largest ratio {r.max_ratio:.3g}")
        if control is None:
            control = check.check_control(model, c["q"][0], c["k"][0], c["positions"][0], hf, log=log).to_dict()
    heads: list[dict[str, Any]] = [h for c in checks for h in c["heads"]]
    return {"sequences": checks, "heads_checked": len(heads), "passed": bool(heads) and all(c["passed"] for c in checks),
            "max_ratio": max((h["max_ratio"] for h in heads), default=None),
            "max_abs_difference": max((h["max_abs_difference"] for h in heads), default=None),
            "rows_beyond_window": max((c["rows_beyond_window"] for c in checks), default=0), "control": control}


def _query_modules(model: LanguageModel) -> list[str]:
    """The modules whose outputs are the queries the rotation reads (capture's hook point for q)."""
    kind = capture._FAMILIES[model.facts.model_type]
    q_name = capture._HOOKED[kind][0]
    return [n for n, _ in model.module.named_modules() if n.endswith(f"self_attn.{q_name}")]


def _controls(usage: dict[str, Any], layer_types: list[dict[str, Any]], names: set[str]) -> list[Any]:
    """The norm-matched random-pair control (ropecheck.lm.controls) of every band removed in the
    run: shares are each pair's q + k norm share, mean over layers (every layer type's, weighted by
    its layers), from the capture's usage."""
    from .bands import BANDS
    from .controls import norm_matched_control
    pairs = usage["pairs"]
    weights = [len(t["layers"]) for t in layer_types]
    shares = [math.fsum(w * t["location"]["profile"][i][3] for w, t in zip(weights, layer_types)) / sum(weights)
              for i in range(len(pairs))]
    rotating = [p["index"] for p in pairs if p["band"] in BANDS]
    out = []
    for band in BANDS:
        if f"{band}-removed" in names:
            out.append(norm_matched_control(band, [p["index"] for p in pairs if p["band"] == band], rotating, shares, seed=0))
    return out


def _ablations(model: LanguageModel, texts: TextSource, s: Settings, log: Optional[Callable[[str], None]],
               usage: dict[str, Any], layer_types: list[dict[str, Any]]) -> dict[str, Any]:
    from .bands import CONTROL
    from .losses import ablation_losses
    rows, agreement = [], None
    queries = _query_modules(model)
    # Every band removal has its norm-matched random-pair control, measured beside it.
    controls = _controls(usage, layer_types, {n for a in s.ablations for n in a.names})
    for c in controls:
        _log(log, f"control for {c.band}-removed: pairs {list(c.pairs)}, q + k norm share {c.share:.4f} against the band's "
                  f"{c.band_share:.4f} (closest of {c.draws} draws)")

    def measured(names: Sequence[str]) -> list[tuple[Any, ...]]:
        out: list[tuple[Any, ...]] = []
        for n in names:
            band, mode = n.split("-")
            out.append((band, mode))
            out += [(CONTROL, "removed", c.pairs) for c in controls if mode == "removed" and c.band == band]
        return out

    def edges_at(length: int) -> list[int]:
        return [e for e in (0, 512, 1024, 2048, 4096, 8192, 16384, 32768) if e < length] + [length]
    # The family of the simultaneous intervals: every paired difference of the run (each length's
    # rows, whole and per position bucket).
    family = sum(len(measured(a.names)) * len(edges_at(a.length)) for a in s.ablations)
    for a in s.ablations:
        seqs = with_bos(model, texts, s.ablation_domain, a.count, a.length, seed=1, bos=s.bos)
        if agreement is None and a.length <= 4096:  # eager fits: the fast path checked against it on one sequence
            import torch
            x = torch.tensor([seqs[0]])
            eager = fast.next_token_losses(model.module, x)
            with fast.blocked_attention(model.module):
                blocked = fast.next_token_losses(model.module, x)
            e, b = float(eager.double().mean()), float(blocked.double().mean())
            agreement = {"tokens": a.length, "eager": e, "fast": b, "difference": b - e, "bound": LOSS_AGREEMENT,
                         "passed": abs(b - e) <= LOSS_AGREEMENT}
            _log(log, f"fast path against eager at {a.length} tokens: loss difference {b - e:+.2e} nats")
            if not agreement["passed"]:
                raise RuntimeError(f"the fast attention path's loss differs from eager's by {b - e:+.3g} nats")
        edges = edges_at(a.length)
        t = time.perf_counter()

        def progress(line: str, n: int = a.length) -> None:
            _log(log, f"ablation at {n} tokens: {line}")
        with fast.blocked_attention(model.module):
            r = ablation_losses(model.module, seqs, ablations=measured(a.names),  # type: ignore[arg-type]
                                position_buckets=edges, loss=fast.next_token_losses, query_modules=queries,
                                head_dim=model.facts.head_dim, comparisons=family, first_token_mass=True,
                                log=progress)
        rows.append({"length": a.length, "domain": s.ablation_domain, "of_context": a.length / model.facts.context,
                     "ablations": list(a.names), "seconds": time.perf_counter() - t, "attention": fast.NAME} | r.to_dict())
    return {"lengths": rows, "loss_agreement": agreement, "query_modules": queries[:1] + (["..."] if len(queries) > 1 else []),
            "controls": [c.to_dict() for c in controls]}


def _head_sets(usage: dict[str, Any], heads_per_layer: int) -> tuple[list[tuple[str, list[tuple[int, int]]]], list[str]]:
    """The head sets the run ablates, from the capture's usage: the heads with a positional
    component, the first-token heads, each beside its random control (ropecheck.lm.heads), and
    the notes on what could not be formed."""
    from .heads import random_heads
    positional = [(L["layer"], h["head"]) for L in usage["layers"] for h in L["heads"]
                  if (h.get("positional_component") or {}).get("offset") is not None]
    sinks = [(L["layer"], h["head"]) for L in usage["layers"] for h in L["heads"] if h["kind"] == "first-token"]
    sets: list[tuple[str, list[tuple[int, int]]]] = []
    notes = []
    for name, heads in (("positional", positional), ("first-token", sinks)):
        if not heads:
            notes.append(f"no {name} heads in the capture: nothing to ablate")
            continue
        sets.append((name, heads))
        per_layer: dict[int, int] = {}
        for layer, _ in heads:
            per_layer[layer] = per_layer.get(layer, 0) + 1
        crowded = sorted(L for L, n in per_layer.items() if 2 * n > heads_per_layer)
        if not crowded:
            sets.append((f"random like {name}", list(random_heads(heads, heads_per_layer, seed=0))))
            continue
        why = (f"{len(crowded)} layers (the first, layer {crowded[0]}, with {per_layer[crowded[0]]} of its {heads_per_layer}) "
               "hold more than half their heads in the set")
        others = len(per_layer) * heads_per_layer - len(heads)
        if others >= len(heads):
            sets.append((f"random like {name}", list(random_heads(heads, heads_per_layer, seed=0, pooled=True))))
            notes.append(f"{name} heads: the random control is pooled, since {why}: as many heads ({len(heads)}) drawn from "
                         f"the {others} other heads of the same {len(per_layer)} layers taken together, not as many per layer")
        else:
            notes.append(f"{name} heads: no random control, since {why} and the set's {len(per_layer)} layers hold only "
                         f"{others} other heads, fewer than the set's {len(heads)}")
    return sets, notes


def _head_ablations(model: LanguageModel, texts: TextSource, s: Settings, log: Optional[Callable[[str], None]],
                    usage: dict[str, Any]) -> dict[str, Any]:
    """Per domain, on the captured sequences: next-token loss with each head set mean-ablated,
    paired against the model as trained; simultaneous intervals over every domain's sets."""
    from .heads import head_ablation_losses
    sets, notes = _head_sets(usage, model.facts.heads)
    out: dict[str, Any] = {"sets": [{"name": n, "heads": [list(h) for h in hs]} for n, hs in sets], "notes": notes,
                           "domains": {}}
    if not sets:
        return out
    family = len(sets) * len(s.domains)
    for d in s.domains:
        seqs = with_bos(model, texts, d, s.sequences, s.tokens, seed=0, bos=s.bos)  # the captured sequences

        def progress(line: str, domain: str = d) -> None:
            _log(log, f"head ablation, {domain}: {line}")
        with fast.blocked_attention(model.module):
            r = head_ablation_losses(model.module, seqs, sets, loss=fast.next_token_losses, comparisons=family, log=progress)
        out["domains"][d] = r.to_dict()
    return out


def _random_tokens(model: LanguageModel, s: Settings, config: str, usage: dict[str, Any],
                   log: Optional[Callable[[str], None]]) -> dict[str, Any]:
    """The random-token capture's positional-component test, crossed with the text capture's
    (ropecheck.lm.random_tokens)."""
    import ropecheck
    from . import random_tokens
    ids = random_tokens.ordinary_ids(model)
    seqs = random_tokens.random_sequences(model, s.random_sequences, s.tokens, seed=s.random_seed, bos=s.bos, ids=ids)
    _log(log, f"random tokens: {len(seqs)} x {s.tokens} ids, seed {s.random_seed}")
    c = capture_sequences(model, seqs)
    u = ropecheck.usage(c["q"], c["k"], c["positions"], model=config, token_ids=c["token_ids"], threads=s.threads,
                        certify_breaks=False, break_mechanisms=False, certify_channel=False, null_sequences=0).to_dict()
    out: dict[str, Any] = {"seed": s.random_seed, "sequences": len(seqs), "tokens": s.tokens, "ids": len(ids),
                           "draw": random_tokens.DRAW, "sample": model.tokenizer.decode(seqs[0][:40]),
                           "positional_component": u.get("positional_component")}
    if usage.get("positional_component") and u.get("positional_component"):
        out["cross"] = random_tokens.purely_positional(usage, u)
        _log(log, "random tokens: " + out["cross"]["statement"])
    return out


def run(model: LanguageModel, texts: TextSource, settings: Settings, out: str, *, command: str = "",
        log: Optional[Callable[[str], None]] = None, force: bool = False) -> Run:
    """Measures `model` on `texts` as `settings` says and writes `out/` (see the module docstring).

    Returns the run, typed (``Run.data``: the run.json document). Raises InputError (nothing
    written) for a bad setting, a tokenizer that fails its check or an existing `out` without
    `force`.
    """
    import numpy as np
    import torch

    import ropecheck
    from . import section
    s = settings
    if os.path.exists(out) and not force:
        raise InputError("out", "a directory that does not exist yet (or force)", out)
    parent = os.path.dirname(os.path.abspath(out))
    if not os.path.isdir(parent):
        raise InputError("out", "a path in an existing directory", out)
    for d in s.domains + (s.ablation_domain,):
        if d not in texts.DOMAINS:
            raise InputError("domains", "names among " + ", ".join(texts.DOMAINS), d)
    if not 0 <= s.random_sequences <= 64:
        raise InputError("random_sequences", "an integer in [0, 64]", str(s.random_sequences))
    windows = [t.window for t in model.facts.layer_types if t.window]
    if s.bos not in BOS_CHOICES or (s.bos == "always" and model.facts.bos_id is None):
        raise InputError("bos", "one of " + ", ".join(BOS_CHOICES) + " ('always' needs a BOS id)", repr(s.bos))
    if windows and s.check_tokens < max(windows) + 128:
        raise InputError("check_tokens", f"at least the sliding window + 128 = {max(windows) + 128} (rows beyond the window)",
                         str(s.check_tokens))
    torch.set_num_threads(s.threads)
    staging = tempfile.mkdtemp(prefix="." + os.path.basename(out) + ".", dir=parent)
    work = tempfile.mkdtemp(prefix="ropecheck-lm-")
    timings: dict[str, float] = {} if model.load_seconds is None else {"load_seconds": model.load_seconds}
    started = time.perf_counter()
    try:
        config_path = model.write_config(os.path.join(staging, "config.json"))
        with _stage(timings, "tokenization"):
            tokenization = _tokenization(model, texts, s, log)
        with _stage(timings, "weights"):
            weights = check.check_weights(model).to_dict() if model.gguf is not None else None
        if weights is not None:
            _log(log, "weights: " + weights["statement"])
        domains: dict[str, Any] = {}
        parts: dict[str, list[Any]] = {"q": [], "k": [], "v": [], "positions": [], "token_ids": []}
        with _stage(timings, "capture"):
            for d in s.domains:
                t = time.perf_counter()
                seqs = with_bos(model, texts, d, s.sequences, s.tokens, seed=0, bos=s.bos)
                c = capture_sequences(model, seqs)
                for key in parts:
                    parts[key].append(c[key])
                domains[d] = {"provenance": texts.provenance(d), "sequences": len(seqs), "tokens": s.tokens,
                              "seconds": time.perf_counter() - t, "sample": model.tokenizer.decode(seqs[0][:60])}
                _log(log, f"captured {d}: {len(seqs)} x {s.tokens} tokens in {domains[d]['seconds']:.1f} s")
        q, k, v = (np.concatenate(parts[x]) for x in ("q", "k", "v"))
        positions, token_ids = np.concatenate(parts["positions"]), np.concatenate(parts["token_ids"])
        del parts
        with _stage(timings, "check"):
            checked = _check(model, texts, s, log)
        cap = os.path.join(work, "capture.npz")
        capture.save(cap, q, k, positions, token_ids=token_ids, compressed=False,
                     source=json.dumps({"model": model.facts.name, "sha256": model.facts.provenance.sha256, "domains": list(s.domains)}))
        usage_json = os.path.join(staging, "usage.json")
        with _stage(timings, "usage"):
            cmd = [s.cli, "usage", "--model", config_path, "--capture", cap, "--json", usage_json, "--out", os.path.join(work, "usage"),
                   "--threads", str(s.threads), "--null-repeats", str(s.null_repeats)]
            _log(log, "running " + " ".join(cmd))
            usage_run = run_cli(cmd)
        with open(usage_json) as f:
            usage = json.load(f)
        with open(usage_json, "w") as f:  # compact: the CLI indents it
            json.dump(usage, f, separators=(",", ":"))
            f.write("\n")
        with _stage(timings, "usage_per_domain"):
            per_domain, first = {}, None
            for i, d in enumerate(s.domains):
                sl = slice(i * s.sequences, (i + 1) * s.sequences)
                u = ropecheck.usage(q[sl], k[sl], positions[sl], model=config_path, token_ids=token_ids[sl], threads=s.threads,
                                    certify_breaks=False, null_sequences=0)
                first = first or u
                sim = ropecheck.compare_usage(first, u)
                per_domain[d] = {"summaries": [x.to_dict() for x in summaries.summarise(model, u.to_dict(), q[sl], k[sl], v[sl])],
                                 "similarity_to_first": {"domain": s.domains[0], "correlation": sim.correlation,
                                                         "kinds_agree": sim.kinds_agree, "statement": sim.statement}}
        random_input = None
        if s.random_sequences:
            with _stage(timings, "random_tokens"):
                random_input = _random_tokens(model, s, config_path, usage, log)
        with _stage(timings, "summaries"):
            layer_types = [x.to_dict() for x in summaries.summarise(model, usage, q, k, v)]
        del q, k, v
        with _stage(timings, "ablations"):
            ablations = _ablations(model, texts, s, log, usage, layer_types)
        with _stage(timings, "head_ablations"):
            head_ablations = _head_ablations(model, texts, s, log, usage)
        timings["total_seconds"] = time.perf_counter() - started + (model.load_seconds or 0.0)
        doc = {
            "schema": SCHEMA, "measurement": "measurements on the captured text, not certificates (the breaking distances are "
                                             "certified for the captured vectors)",
            "command": command or " ".join(sys.argv), "versions": versions(), "facts": model.facts.to_dict(),
            "settings": dataclasses.asdict(s) | {"cli": os.path.basename(s.cli)}, "domains": domains, "tokenization": tokenization,
            "weights": weights, "check": checked, "usage_run": usage_run, "layer_types": layer_types, "per_domain": per_domain,
            "ablations": ablations, "head_ablations": head_ablations, "random_tokens": random_input,
            "timings": timings}
        with open(os.path.join(staging, "run.json"), "w") as f:
            json.dump(doc, f, indent=1, sort_keys=True)
        section.write(staging, doc, usage, os.path.join(work, "usage", "figures"))
        if os.path.exists(out):
            old = tempfile.mkdtemp(prefix="." + os.path.basename(out) + ".old.", dir=parent)
            os.rename(out, os.path.join(old, "x"))
            os.rename(staging, out)
            shutil.rmtree(old)
        else:
            os.rename(staging, out)
        _log(log, f"wrote {out} in {time.perf_counter() - started:.0f} s")
        return run_from_json(doc)
    finally:
        if os.path.isdir(staging):
            shutil.rmtree(staging)
        shutil.rmtree(work, ignore_errors=True)
