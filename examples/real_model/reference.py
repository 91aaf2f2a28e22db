"""The reference runs' settings, per registered model (scripts/real-model with no --model runs them all,
and the comparison), and CI's short run (--smoke). What is specific to a run lives here and in
texts.py; the measurement itself is the library's (ropecheck.lm.measure).

Ablation lengths: every ablation up to 4096 tokens; beyond, the slow quarter position-free (p-RoPE
0.75's change) and the fast quarter removed (the positional control) at the trained context of
SmolLM2 (8192), and for Gemma 3 at 8192 and, the slow quarter alone, at its trained context 32768 (its
global layers' span; the sliding layers see 512 tokens at any length). Sizes were chosen so that
both models' reference runs fit in 90 minutes on 2 cores (the closing note of the run gives the
stage times).
"""

from __future__ import annotations

ALL = ("fast-still", "fast-removed", "middle-still", "middle-removed", "slow-still", "slow-removed")
LONG = ("slow-still", "fast-removed")

#: name -> (length, sequences, ablation names) per ablation length, and the capture's sizes.
REFERENCE: dict[str, dict[str, object]] = {
    "smollm2-135m": {"sequences": 8, "tokens": 1024, "random_sequences": 8, "check_sequences": 4, "check_tokens": 1024,
                     "ablations": ((1024, 6, ALL), (4096, 3, ALL), (8192, 2, LONG))},
    "gemma3-270m": {"sequences": 8, "tokens": 1024, "random_sequences": 8, "check_sequences": 4, "check_tokens": 1024,
                    "ablations": ((1024, 6, ALL), (4096, 3, ALL), (8192, 2, LONG), (32768, 2, ("slow-still",)))},
}
#: A model given by path gets these.
DEFAULT: dict[str, object] = {"sequences": 8, "tokens": 1024, "random_sequences": 8, "check_sequences": 4, "check_tokens": 1024,
                              "ablations": ((1024, 6, ALL), (4096, 3, ALL))}
#: CI's size (--smoke): 2 sequences x 256 tokens per domain and of random tokens, one check sequence long enough to pass
#: a 512-token window, one ablation per band with both modes among them at 256 tokens.
SMOKE: dict[str, object] = {"sequences": 2, "tokens": 256, "random_sequences": 2, "check_sequences": 1, "check_tokens": 640,
                            "ablations": ((256, 2, ("fast-removed", "middle-removed", "slow-still")),)}
