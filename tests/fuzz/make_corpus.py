#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets, tests/fuzz/corpus/<target>/seed-*, from the
repository's own valid files (the model zoo, test data, the counterexample corpus, the reference
report) and a few hand-made inputs per format. Python's standard library only (the .npy and .npz
seeds are written byte by byte, as NumPy writes them).

Run from anywhere: python3 tests/fuzz/make_corpus.py [--cli build/ropecheck]
--cli: a built ropecheck, to add version-2 Monte Carlo partials (written with montecarlo --shard);
without it the committed ones are kept.

Only files named seed-* are rewritten; crash reproducers (crash-*, timeout-*, oom-*: the fuzz
runs' findings, kept as regression tests) are never touched. Each seed stays small (libFuzzer's
default -max_len follows the largest seed)."""

import argparse
import hashlib
import json
import pathlib
import re
import shutil
import struct
import subprocess
import tempfile
import zipfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "fuzz" / "corpus"
SEPARATOR = b"\n--8<--\n"  # fuzz_support.h kSeparator
MAX_SEED_BYTES = 64 * 1024


def write(target, name, data):
    if isinstance(data, str):
        data = data.encode()
    assert len(data) <= MAX_SEED_BYTES, f"{target}/{name}: {len(data)} bytes"
    d = CORPUS / target
    d.mkdir(parents=True, exist_ok=True)
    (d / f"seed-{name}").write_bytes(data)


def clear_seeds():
    for d in CORPUS.glob("*"):
        for f in d.glob("seed-*"):
            f.unlink()


# ---- .npy and .npz ----

def npy(descr, shape, data=b"", version=(1, 0), fortran=False, pad=True):
    shape_text = "(" + ", ".join(str(n) for n in shape) + ("," if len(shape) == 1 else "") + ")"
    header = "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (descr, "True" if fortran else "False", shape_text)
    length_bytes = 2 if version[0] == 1 else 4
    if pad:
        total = 6 + 2 + length_bytes + len(header) + 1
        header += " " * ((64 - total % 64) % 64)
    header += "\n"
    packed = struct.pack("<H" if length_bytes == 2 else "<I", len(header))
    return b"\x93NUMPY" + bytes(version) + packed + header.encode("latin-1") + data


def floats(values, fmt="f"):
    return struct.pack("<%d%s" % (len(values), fmt), *values)


def npz(members, compressed=False):
    path = pathlib.Path(tempfile.mkdtemp()) / "x.npz"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED if compressed else zipfile.ZIP_STORED) as z:
        for name, data in members:
            z.writestr(name, data)
    data = path.read_bytes()
    shutil.rmtree(path.parent)
    return data


def capture(seq=1, layers=1, heads=2, kv=1, tokens=3, dim=4, q_descr="<f4", positions_descr="<i8", extra=()):
    def values(n, scale):
        return [((i * 7) % 13 - 6) * scale for i in range(n)]
    qn, kn = seq * layers * heads * tokens * dim, seq * layers * kv * tokens * dim
    q = floats(values(qn, 0.25), "f" if q_descr == "<f4" else "e")
    k = floats(values(kn, 0.125))
    pos = struct.pack("<%d%s" % (tokens, "q" if positions_descr == "<i8" else "i"), *range(tokens))
    return [("q.npy", npy(q_descr, (seq, layers, heads, tokens, dim), q)),
            ("k.npy", npy("<f4", (seq, layers, kv, tokens, dim), k)),
            ("positions.npy", npy(positions_descr, (tokens,), pos))] + list(extra)


def npy_seeds():
    write("npy", "f4-tokens-heads-dim.npy", npy("<f4", (2, 2, 4), floats([i * 0.5 for i in range(16)])))
    write("npy", "f4-tokens-dim.npy", npy("<f4", (3, 4), floats([1.0, -2.0, 0.0, -0.0] * 3)))
    write("npy", "f4-batch.npy", npy("<f4", (2, 1, 1, 2), floats([1.0, 2.0, 3.0, 4.0])))
    write("npy", "u2-bf16.npy", npy("<u2", (2, 1, 4), struct.pack("<8H", *([0x3F80, 0xC040, 0x7F80, 0x0001] * 2))))
    write("npy", "i8-positions.npy", npy("<i8", (3,), struct.pack("<3q", 0, 1, -9223372036854775808)))
    write("npy", "i4-positions.npy", npy("<i4", (3,), struct.pack("<3i", 0, 7, -1)))
    write("npy", "f8-positions.npy", npy("<f8", (2,), floats([3.0, 1e18], "d")))
    write("npy", "f4-positions.npy", npy("<f4", (2,), floats([16777216.0, -5.0])))
    write("npy", "f2.npy", npy("<f2", (2,), floats([1.0, -2.0], "e")))
    write("npy", "scalar.npy", npy("<f4", (), floats([1.5])))
    write("npy", "empty.npy", npy("<f4", (0, 4)))
    write("npy", "version-2.npy", npy("<f4", (1, 2), floats([1.0, 2.0]), version=(2, 0)))
    write("npy", "version-3.npy", npy("<i8", (1,), struct.pack("<q", 5), version=(3, 0)))
    write("npy", "fortran.npy", npy("<f4", (2, 2), floats([1.0, 2.0, 3.0, 4.0]), fortran=True))
    write("npy", "big-endian.npy", npy(">f4", (2,), struct.pack(">2f", 1.0, 2.0)))
    write("npy", "unicode.npy", npy("<U3", (), "abc".encode("utf-32-le")))
    write("npy", "truncated.npy", npy("<f4", (4,), floats([1.0, 2.0])))


def npz_seeds():
    for f in sorted((ROOT / "tests" / "usage" / "data").glob("*.npz")):
        write("npz", f.name, f.read_bytes())
    write("npz", "capture-stored.npz", npz(capture()))
    write("npz", "capture-deflated.npz", npz(capture(seq=2, layers=2, heads=2, kv=2, tokens=2, dim=2), compressed=True))
    source = npy("<U12", (), "toy model 0".ljust(12).encode("utf-32-le"))
    token_ids = npy("<i4", (3,), struct.pack("<3i", 1, 2, 3))
    write("npz", "capture-f16-source.npz", npz(capture(q_descr="<f2", positions_descr="<i4",
                                                          extra=[("source.npy", source), ("token_ids.npy", token_ids)])))


# ---- JSON formats ----

def json_seeds():
    zoo = sorted((ROOT / "src" / "spectrum" / "zoo").glob("*.json"))
    for f in zoo:
        write("config_json", f.name, f.read_bytes())
        write("c_abi_plan", f.name, f.read_bytes())
    for f in sorted((ROOT / "examples" / "toy_model" / "captures").glob("*.config.json")):
        write("config_json", "toy-" + f.name, f.read_bytes())
    configs = re.findall(r'R"\((\{.*?)\)"', (ROOT / "tests" / "spectrum" / "hf_config_test.cpp").read_text(), re.S)
    for i, text in enumerate(configs):
        try:
            json.loads(text)
        except ValueError:
            continue
        write("config_json", "hf_config_test-%d.json" % i, text)
        write("c_abi_plan", "hf_config_test-%d.json" % i, text)
    gemma3 = (ROOT / "src" / "spectrum" / "zoo" / "gemma-3-27b.json").read_bytes()
    write("c_abi_plan", "layer-type-sliding.json", b"#layer_type sliding_attention\n" + gemma3)
    write("c_abi_plan", "layer-type-unknown.json", b"#layer_type no_such_layers\n" + gemma3)

    spectra = [
        {"config": "gemma-7b"},
        {"config": "llama-3.1-8b", "variant": "p-rope", "fraction": "0.75"},
        {"dim": 128, "theta": "500000", "scaling": "llama3"},
        {"dim": 64, "theta": 10000, "variant": "partial", "fraction": "0.25", "scaling": "linear:2"},
        {"dim": 32, "theta": "1e4", "variant": "nope"},
        {"dim": 16, "theta": "10000", "variant": "reversed", "fraction": "0.5", "scaling": {"kind": "none"}},
        {"dim": 128, "theta": "500000", "scaling": {"kind": "llama3", "factor": "8", "low_freq_factor": "1", "high_freq_factor": "4",
                                                    "original_context": 8192}},
        {"dim": 64, "theta": "10000", "scaling": {"kind": "dynamic", "factor": "2", "max_position": 4096, "sequence_length": 16384,
                                                  "vllm_static": False}},
        {"dim": 64, "theta": "1000000", "scaling": {"kind": "yarn", "factor": "4", "original_context": 32768, "beta_fast": "32",
                                                    "beta_slow": "1", "truncate": True, "mscale": "1", "mscale_all_dim": "1"}},
        {"dim": 8, "theta": "10000", "scaling": {"kind": "longrope", "original_context": 4096, "max_position": 131072,
                                                 "sequence_length": 131072, "short_factor": ["1", "1.5", "2", "3"],
                                                 "long_factor": ["1", "2", "4", "8"], "attention_factor": "1.2"}},
        {"model": "gpt-oss-20b", "layer_type": "sliding_attention"},
        {"model": "phi-3.5-mini", "sequence_length": 8192},
        {"model": "qwen2.5-7b", "vllm_dynamic": True},
    ]
    for i, s in enumerate(spectra):
        write("spectrum_json", "%02d.json" % i, json.dumps(s))

    cx = sorted((ROOT / "properties" / "regressions").glob("*/*.json")) + sorted((ROOT / "reports" / "reference" / "counterexamples").glob("*/*.json"))
    for f in cx:
        write("counterexample", f.parent.name + "-" + f.name[:16] + ".json", f.read_bytes())
    kernel = {"format": "ropecheck-kernel-counterexample/1", "target": "kernel", "spectrum": {"config": "gemma-7b"},
              "layout": "interleaved", "dtype": "f32", "path": "scalar", "position": "-1234567890123", "pair": 17,
              "input": ["0x3f800000", "0xc0400000"], "claim": "bound", "found": {}}
    write("counterexample", "kernel-bound.json", json.dumps(kernel))
    write("counterexample", "kernel-special.json", json.dumps(dict(kernel, dtype="bf16", input=["0x7f80", "0x0000"], claim="special")))
    write("counterexample", "kernel-paths.json", json.dumps(dict(kernel, path="avx2", claim="paths", position="9223372036854775807")))
    write("counterexample", "kernel-model.json", json.dumps(dict(kernel, spectrum={"model": "deepseek-v3"}, pair=3, position="65536")))

    for f in sorted((ROOT / "tests" / "montecarlo" / "data").glob("*shard*.json")):
        write("mc_partial", f.name, f.read_bytes())
    data = ROOT / "tests" / "montecarlo" / "data"
    write("mc_partial", "v1-fig9-both-shards.json",
          (data / "v1-fig9-shard0of2.json").read_bytes() + SEPARATOR + (data / "v1-fig9-shard1of2.json").read_bytes())


def trimmed(value, items=2):
    """The reference run.json cut to a few entries per object and array, for a small seed."""
    if isinstance(value, dict):
        keys = list(value)
        keep = keys[:items] + [k for k in keys[items:] if k in ("verdict", "as_paper_states", "timings", "seconds", "deterministic")]
        return {k: trimmed(value[k], items) for k in keep}
    if isinstance(value, list):
        return [trimmed(v, items) for v in value[:items]]
    return value


def run_json_seeds():
    run = json.loads((ROOT / "reports" / "reference" / "run.json").read_text())
    small = {k: trimmed(v) for k, v in run.items()}
    text = json.dumps(small, indent=1)
    write("run_json", "reference-trimmed.json", text)
    changed = json.loads(text)
    if changed.get("claims"):
        changed["claims"][0]["verdict"] = "inconclusive"
    changed["exit_status"] = 1
    changed.setdefault("timings", {})["total_seconds"] = 12.5
    write("run_json", "reference-vs-changed.json", text.encode() + SEPARATOR + json.dumps(changed, indent=1).encode())
    write("run_json", "minimal.json", '{"schema": "ropecheck-report/1"}')
    write("run_json", "minimal-pair.json", b'{"schema": "ropecheck-report/1", "a": [1, 2.5, "x"], "seconds": 3}' + SEPARATOR +
          b'{"schema": "ropecheck-report/1", "a": [1, 2.5], "seconds": 30, "environment": {"cpu": "y"}}')


# ---- text ----

def text_seeds():
    decimals = ["10000", "500000", "1e4", "0.75", "-12.5e-3", "  2", "1.", ".5", "8", "0.1", "1e-400", "1e400",
                "3.0e+2", "0", "-0", "0x1p3", "inf", "nan", "1e999999999", "0.1000000000000000055511151231257827",
                "2.2250738585072011e-308", "4.9406564584124654e-324", "1.7976931348623157e308", "340282356779733661637539395458142568448",
                "1.00000005960464477539062499", "123456789012345678901234567890"]
    for i, d in enumerate(decimals):
        write("decimal", "%02d" % i, d)
    # cli_flags: selector byte (cli_flags.cpp's switch), then the text.
    flags = [(0, "8192"), (0, "1099511627776"), (0, "007"), (1, "9223372036854775807"), (1, "-1"), (2, "18446744073709551615"),
             (3, "256"), (3, "53"), (4, "60,120,240"), (4, "11,"), (5, "2/3"), (5, "0/4294967296"), (6, "0.6"), (6, "1e30"),
             (6, "1000"), (7, "linear:2"), (7, "llama3:8:1:4:8192"), (7, "llama3"), (7, "none"),
             (8, "gemma-7b\n\n\n0.75\nnone\n8192\n"), (18, "\n128\n500000\n0.5\nllama3:8:1:4:8192\n131072\n"),
             (28, "\n64\n1e4\n0.25\nlinear:4\n2048\n"), (38, "llama-3.1-8b\n\n\n1\n\n\n4096"), (48, "\n16\n10000\n")]
    for i, (selector, text) in enumerate(flags):
        write("cli_flags", "%02d" % i, bytes([selector]) + text.encode())


def partials_from_cli(cli):
    tmp = pathlib.Path(tempfile.mkdtemp())
    runs = {"fig9": "montecarlo --experiment fig9 --dim 8 --trials 12 --max-distance 10 --seed 5",
            "fig2b": "montecarlo --experiment fig2b --dim 8 --trials 10 --max-distance 10 --scaling linear:2"}
    for name, args in runs.items():
        parts = []
        for k in range(2):
            out = tmp / f"{name}-{k}.json"
            subprocess.run([cli] + args.split() + ["--threads", "1", "--shard", f"{k}/2", "--out", str(out)], check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            parts.append(out.read_bytes())
            write("mc_partial", f"v2-{name}-shard{k}of2.json", parts[-1])
        write("mc_partial", f"v2-{name}-both-shards.json", parts[0] + SEPARATOR + parts[1])
    shutil.rmtree(tmp)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cli", help="a built ropecheck, for version-2 Monte Carlo partials")
    args = parser.parse_args()
    kept = {f.name: f.read_bytes() for f in (CORPUS / "mc_partial").glob("seed-v2-*")} if not args.cli else {}
    clear_seeds()
    npy_seeds()
    npz_seeds()
    json_seeds()
    run_json_seeds()
    text_seeds()
    if args.cli:
        partials_from_cli(args.cli)
    for name, data in kept.items():
        (CORPUS / "mc_partial" / name).write_bytes(data)
    total = sum(f.stat().st_size for f in CORPUS.glob("*/*"))
    print(f"{sum(1 for _ in CORPUS.glob('*/seed-*'))} seeds, {total} bytes in {CORPUS.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
