"""What ropecheck.torch finds in three common torch RoPE styles (styles.py), forward and backward:
each style's profile table and check_rope's verdict, printed as the Markdown that docs/torch.md
quotes.

    PYTHONPATH=build/python python3 examples/torch_rope/findings.py [--seed N] [--tokens N]

Every figure is a measurement on sampled inputs (a lower bound of the implementation's error),
with its sample size; the seed is printed and the same seed prints the same bytes.
"""

import argparse
import re
import time

import torch

import ropecheck.torch as rt
from styles import GLM, LLAMA, LLAMA_CONTEXT, CachedRope, gptj_interleaved, hf_rotate_half

STYLES = [  # (title, fn, model, dtype)
    ("transformers rotate_half, float32 angles", hf_rotate_half, LLAMA, torch.bfloat16),
    ("transformers rotate_half, float32 angles, float32 activations", hf_rotate_half, LLAMA, torch.float32),
    ("GPT-J interleaved, complex64", gptj_interleaved, GLM, torch.bfloat16),
    ("bfloat16 cos/sin cache (serving engines)", CachedRope(), LLAMA, torch.bfloat16),
]


def table(p):
    rows = ["| positions | elements | max_ulp | max_rel | correctly_rounded |", "|---|---:|---:|---:|---:|"]
    for r in p.rows:
        rows.append(f"| {r.positions} | {r.elements} | {r.max_ulp:.4g} | {r.max_rel:.3g} | {r.correctly_rounded:.4f} |")
    return "\n".join(rows)


def verdict(fn, model, dtype, backward, seed, **bound):
    """check_rope's verdict at its defaults (positions to the model's context; `bound`'s keywords
    added): 'passes' or its class lines and the first class's shrunk failure."""
    r = rt.check_rope(fn, model=model, dtype=dtype, backward=backward, seed=seed, raise_on_failure=False, **bound)
    if r.passed:
        return f"passes: {r!r}"
    lines = r.message().splitlines()
    keep = [line for line in lines[1:] if not line.startswith("  replay")]
    first = next(i for i, line in enumerate(keep) if line.startswith("  ["))
    nxt = next((i for i, line in enumerate(keep) if i > first and line.startswith("  [")), len(keep))
    return "\n".join(keep[:first] + keep[first:nxt])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--tokens", type=int, default=64, help="positions per decade in the profile")
    a = ap.parse_args()
    start = time.time()
    print(f"torch {torch.__version__}; seed {a.seed}; positions up to {LLAMA_CONTEXT - 1} "
          f"(Llama 3.1's context); profile: {a.tokens} positions per decade x 4 heads, standard normal inputs\n")
    for title, fn, model, dtype in STYLES:
        for backward in (False, True):
            f = rt.gradient_map(fn) if backward else fn
            direction = "backward (through torch.autograd)" if backward else "forward"
            p = rt.profile(f, model=model, dtype=dtype, backward=backward, seed=a.seed, tokens=a.tokens,
                           max_position=LLAMA_CONTEXT - 1)
            n = sum(r.elements for r in p.rows)
            print(f"### {title}: {direction}\n")
            print(f"`{model}`, {str(dtype)[6:]}; profile measured on {n} elements (lower bounds):\n")
            print(table(p) + "\n")
            print("check_rope, default bound (16 rounds of 32 tokens x 2 heads, adversarial inputs):\n")
            print("```\n" + re.sub(r"\s+$", "", verdict(f, model, dtype, backward, a.seed), flags=re.M) + "\n```\n")
            if dtype != torch.float32:
                print('check_rope, tables="dtype" (the same formulation with cos and sin rounded to the dtype):\n')
                print("```\n" + re.sub(r"\s+$", "", verdict(f, model, dtype, backward, a.seed, tables="dtype"), flags=re.M)
                      + "\n```\n")
    print(f"({time.time() - start:.0f} s)")


if __name__ == "__main__":
    main()
