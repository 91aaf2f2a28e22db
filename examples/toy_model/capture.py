"""Pre-rotation q/k captures of the toy model, written as .npz.

The hook point is the q_proj/k_proj output (Llama: nothing happens between it and the rotation,
notes Section 1). ``capture_qk`` is the one function to swap for ``ropecheck.capture.from_module``
once that exists.

.npz members: q float32 [sequences, layers, heads, tokens, head_dim], k float32
[sequences, layers, kv_heads, tokens, head_dim], positions int64 [sequences, tokens], token_ids int64
[sequences, tokens], source = np.array(<provenance JSON text>).
"""

import json

import numpy as np
import torch


@torch.no_grad()
def capture_qk(model, input_ids, position_ids):
    """(q, k) as float32 NumPy arrays [b, layers, heads or kv_heads, tokens, head_dim].

    Forward hooks on every layer's self_attn.q_proj and k_proj (positional calls: hookable on torch
    1.13, which lacks with_kwargs hooks); each output (b, s, H*d) is viewed (b, s, H, d).
    """
    cfg = model.config
    found = {"q": [None] * cfg.num_hidden_layers, "k": [None] * cfg.num_hidden_layers}
    handles = []
    for i, layer in enumerate(model.model.layers):
        for name, proj, heads in (("q", layer.self_attn.q_proj, cfg.num_attention_heads),
                                  ("k", layer.self_attn.k_proj, cfg.num_key_value_heads)):
            def hook(module, inputs, output, name=name, i=i, heads=heads):
                b, s, _ = output.shape
                found[name][i] = output.detach().view(b, s, heads, cfg.head_dim).transpose(1, 2).clone()
            handles.append(proj.register_forward_hook(hook))
    was_training = model.training
    model.eval()
    try:
        model(input_ids, position_ids)
    finally:
        for h in handles:
            h.remove()
        model.train(was_training)
    q = torch.stack(found["q"], dim=1).numpy().astype(np.float32)
    k = torch.stack(found["k"], dim=1).numpy().astype(np.float32)
    return q, k


def write_capture(path, model, input_ids, provenance, position_ids=None):
    """Captures q/k on input_ids and writes the .npz (np.savez_compressed) at path."""
    if position_ids is None:
        position_ids = torch.arange(input_ids.shape[1], dtype=torch.int64)[None].repeat(input_ids.shape[0], 1)
    q, k = capture_qk(model, input_ids, position_ids)
    np.savez_compressed(path, q=q, k=k, positions=position_ids.numpy().astype(np.int64),
                        token_ids=input_ids.numpy().astype(np.int64),
                        source=np.array(json.dumps(provenance, sort_keys=True)))
    return q, k
