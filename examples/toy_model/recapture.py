"""Writes a capture of a committed toy model at another length: its weights (captures/NAME.weights.pt),
its encoding's frequencies (the same ropecheck spectrum train.py used) and the 'repeats' held-out
sequences at MULTIPLIER x the training length. The report's usage section uses the 1x capture
(in-distribution, like the paper's measurements); train.py's own capture is at 4x.

    PYTHONPATH=build/python /usr/bin/python3 examples/toy_model/recapture.py \
        --name rope_seed0 --multiplier 1 --sequences 16 --out examples/toy_model/captures/rope_seed0.1x.capture.npz
"""

import argparse
import json
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import capture  # noqa: E402
import model as toy  # noqa: E402
import train  # noqa: E402


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--name", required=True, help="e.g. rope_seed0 (captures/NAME.config.json and NAME.weights.pt)")
    p.add_argument("--multiplier", type=int, default=1)
    p.add_argument("--sequences", type=int, default=16)
    p.add_argument("--out", required=True)
    p.add_argument("--dir", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "captures"),
                   help="where NAME.config.json and NAME.weights.pt are (default: this example's captures/)")
    a = p.parse_args(argv)
    here = a.dir
    cfg = json.load(open(os.path.join(here, f"{a.name}.config.json")))
    prov = cfg["_ropecheck_example"]
    train.set_determinism()
    config = toy.make_config(vocab_size=cfg["vocab_size"], max_position_embeddings=cfg["max_position_embeddings"])
    inv_freq, _ = train.frequencies(prov["encoding"], config.head_dim, config.max_position_embeddings)
    net = toy.ToyLlama(config, inv_freq)
    net.load_state_dict(torch.load(os.path.join(here, f"{a.name}.weights.pt")))
    net.eval()
    ids = train.capture_inputs(config, a.sequences, a.multiplier)
    prov = dict(prov, capture={"script": "examples/toy_model/recapture.py", "family": "repeats", "multiplier": a.multiplier,
                               "sequences": a.sequences, "weights": f"{a.name}.weights.pt"})
    tmp = a.out + ".tmp.npz"
    with torch.no_grad():
        capture.write_capture(tmp, net, ids, prov)
    os.replace(tmp, a.out)


if __name__ == "__main__":
    main()
