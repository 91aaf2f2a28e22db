"""scripts/real-model's program: the paper's Sections 4-5 on real trained language models, through
ropecheck.lm (one seam for any model), on the texts of texts.py with the settings of reference.py.

    run.py --out DIR [--model NAME|PATH ...] [--smoke] [flags]

writes DIR/<model>/ (run.json, usage.json, config.json, section.md, figures/) for each model,
DIR/comparison.md and comparison.json (the models on a common axis, ropecheck.lm.compare) and
DIR/index.json (the models in order, the command), through a staging directory renamed into place.
Exit 0 when every check passed, 1 when one did not (the directory is written: it says which), 2 on
bad input (one line naming it, nothing written).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import reference  # noqa: E402
import texts  # noqa: E402


def log(line: str) -> None:
    print("real-model:", line, file=sys.stderr, flush=True)


def fail(name: str, accepted: str, got: Any) -> None:
    print(f"scripts/real-model: {name} must be {accepted} (got {got})", file=sys.stderr)
    sys.exit(2)


def parse(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="scripts/real-model", description=__doc__.splitlines()[0])
    p.add_argument("--out", help="the directory written (must not exist unless --force)")
    p.add_argument("--render", metavar="DIR", help="write the sections and the comparison of a run directory again from its JSON, "
                                                   "measuring nothing (a change of text or figures)")
    p.add_argument("--force", action="store_true")
    p.add_argument("--model", nargs="+", default=None, metavar="NAME|PATH",
                   help="registered names (default: every one, the reference run) or GGUF files / transformers folders")
    p.add_argument("--smoke", action="store_true", help="CI's size (reference.SMOKE)")
    p.add_argument("--domains", nargs="+", default=list(texts.DOMAINS), help=f"of {', '.join(texts.DOMAINS)}")
    p.add_argument("--sequences", type=int)
    p.add_argument("--tokens", type=int)
    p.add_argument("--random-sequences", type=int,
                   help="sequences of uniformly random tokens for the positional-component test on random input (0: skip)")
    p.add_argument("--check-sequences", type=int)
    p.add_argument("--check-tokens", type=int)
    p.add_argument("--passages", type=int, default=2, help="raw passages per domain for the tokenization check")
    p.add_argument("--ablation-domain", default="english")
    p.add_argument("--ablation-lengths", type=int, nargs="*")
    p.add_argument("--ablation-sequences", type=int, nargs="*")
    p.add_argument("--ablations", nargs="*", metavar="SPEC",
                   help="per length (or one for all): 'all' or comma-separated names among " + ", ".join(reference.ALL))
    p.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    p.add_argument("--null-repeats", type=int, default=1)
    p.add_argument("--bos", choices=("model", "always", "never"), default="model",
                   help="BOS first as the model does (default), always (the BOS channel of Appendix E on a model whose tokenizer "
                        "does not add one), or never")
    p.add_argument("--cli", default=os.environ.get("ROPECHECK_CLI", ""))
    p.add_argument("--command", default="")
    a = p.parse_args(argv)
    if a.render is not None:
        if not os.path.isfile(os.path.join(a.render, "index.json")):
            fail("--render", "a directory scripts/real-model wrote (with index.json)", a.render)
        return a
    if a.out is None:
        fail("--out", "a directory to write (or --render DIR)", "none")
    for d in a.domains + [a.ablation_domain]:
        if d not in texts.DOMAINS:
            fail("--domains" if d in a.domains else "--ablation-domain", "names among " + ", ".join(texts.DOMAINS), d)
    if not a.cli or not os.access(a.cli, os.X_OK):
        fail("--cli", "the ropecheck binary (build/ropecheck)", repr(a.cli))
    if os.path.exists(a.out) and not a.force:
        fail("--out", "a directory that does not exist yet (or --force)", a.out)
    if not os.path.isdir(os.path.dirname(os.path.abspath(a.out))):
        fail("--out", "a path in an existing directory", a.out)
    for name, lo, hi in (("sequences", 2, 64), ("tokens", 64, 32768), ("random_sequences", 0, 64), ("check_sequences", 0, 4),
                         ("check_tokens", 64, 8192),
                         ("passages", 1, 16), ("threads", 1, 256), ("null_repeats", 0, 16)):
        v = getattr(a, name)
        if v is not None and not lo <= v <= hi:
            fail("--" + name.replace("_", "-"), f"an integer in [{lo}, {hi}]", v)
    settings(a, "")  # every flag checked before a model is loaded
    return a


def ablations(a: argparse.Namespace, base: dict[str, Any]) -> tuple[Any, ...]:
    from ropecheck.lm.measure import Ablations
    plan = list(base["ablations"])
    lengths = a.ablation_lengths if a.ablation_lengths is not None else [x[0] for x in plan]
    counts = a.ablation_sequences if a.ablation_sequences is not None else [x[1] for x in plan]
    names = a.ablations if a.ablations is not None else [",".join(x[2]) for x in plan]
    if len(counts) == 1:
        counts = counts * len(lengths)
    if len(names) == 1:
        names = names * len(lengths)
    if any(not 64 <= n <= 32768 for n in lengths):
        fail("--ablation-lengths", "integers in [64, 32768]", lengths)
    if len(counts) != len(lengths) or any(not 2 <= n <= 64 for n in counts):
        fail("--ablation-sequences", "one integer in [2, 64] per length (or one for all)", counts)
    if len(names) != len(lengths):
        fail("--ablations", "one SPEC per length (or one for all)", names)
    out = []
    for n, c, spec in zip(lengths, counts, names):
        chosen = list(reference.ALL) if spec == "all" else [x.strip() for x in spec.split(",")]
        if not chosen or any(x not in reference.ALL for x in chosen) or len(set(chosen)) != len(chosen):
            fail("--ablations", "'all' or comma-separated names among " + ", ".join(reference.ALL) + ", each once", spec)
        out.append(Ablations(n, c, tuple(x for x in reference.ALL if x in chosen)))
    return tuple(out)


def settings(a: argparse.Namespace, name: str) -> Any:
    from ropecheck.lm.measure import Settings
    base = dict(reference.SMOKE if a.smoke else reference.REFERENCE.get(name, reference.DEFAULT))
    keys = ("sequences", "tokens", "random_sequences", "check_sequences", "check_tokens")
    pick = {k: getattr(a, k) if getattr(a, k) is not None else base[k] for k in keys}
    return Settings(domains=tuple(a.domains), passages=1 if a.smoke else a.passages, ablation_domain=a.ablation_domain,
                    ablations=ablations(a, base), threads=a.threads, null_repeats=a.null_repeats, cli=a.cli, bos=a.bos, **pick)


def render(directory: str) -> int:
    from ropecheck import lm
    index = json.load(open(os.path.join(directory, "index.json")))
    runs = []
    for name in index["models"]:
        lm.section.render(os.path.join(directory, name))
        runs.append(json.load(open(os.path.join(directory, name, "run.json"))))
    comparison = lm.compare.write(directory, runs)
    with open(os.path.join(directory, "comparison.json"), "w") as f:
        json.dump(comparison, f, indent=1, sort_keys=True)
    log(f"rendered {directory} again ({', '.join(index['models'])})")
    return 0


def main(argv: list[str]) -> int:
    a = parse(argv)
    if a.render is not None:
        return render(a.render)
    from ropecheck import InputError
    from ropecheck import lm
    names = a.model or list(lm.MODELS)
    parent = os.path.dirname(os.path.abspath(a.out))
    staging = tempfile.mkdtemp(prefix="." + os.path.basename(a.out) + ".", dir=parent)
    started = time.time()
    try:
        runs, passed = [], True
        for name in names:
            t = time.time()
            model = lm.load(name)
            log(f"loaded {model!r} in {time.time() - t:.0f} s")
            s = settings(a, model.facts.name)
            run = lm.measure.run(model, texts, s, os.path.join(staging, model.facts.name), command=a.command or " ".join(sys.argv),
                                 log=log)
            runs.append(run.to_dict())
            passed &= run.checks.passed
            del model
        comparison = lm.compare.write(staging, runs)
        with open(os.path.join(staging, "comparison.json"), "w") as f:
            json.dump(comparison, f, indent=1, sort_keys=True)
        with open(os.path.join(staging, "index.json"), "w") as f:
            json.dump({"models": [r["facts"]["name"] for r in runs], "command": a.command or " ".join(sys.argv),
                       "seconds": time.time() - started, "passed": passed}, f, indent=1)
        if os.path.exists(a.out):
            shutil.rmtree(a.out)
        os.rename(staging, a.out)
        log(f"wrote {a.out} in {(time.time() - started) / 60:.1f} min; every check passed: {passed}")
        return 0 if passed else 1
    except InputError as e:
        print(f"scripts/real-model: {e}", file=sys.stderr)
        return 2
    except FileNotFoundError as e:  # texts.py: a Debian package of the texts not installed
        print(f"scripts/real-model: {e}", file=sys.stderr)
        return 2
    finally:
        if os.path.isdir(staging):
            shutil.rmtree(staging)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
