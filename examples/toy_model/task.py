"""The synthetic induction task and its held-out evaluation.

A sequence is a segment of uniformly random tokens followed by copies of the same segment. Once
the first copy has been seen, every later token is predictable by an induction circuit: a
previous-token head (positional: attends from i to i-1) writes the preceding token into each
position, and a content head in a later layer finds the earlier position whose preceding token
equals the current token and copies what followed it. Tokens of the first copy are unpredictable
(loss ln(vocab) at best), so the loss is taken only on targets after the first copy, excluding the
first repeated token (targets at positions S+1 .. L-1 for segment length S).

Training: length T; each sequence's segment length S is drawn from [8, T/2] and the segment is
repeated to fill T tokens (make_train_batch). Held-out lengths L = m*T for m in 1, 2, 4, 8, two
families (both from a fixed evaluation seed, the same for every run):
  "repeats":  the training segment length S, repeated L/S times (same copy distance, longer positions);
  "long":     one segment of L/2 tokens and one copy (copy distances up to L/2, beyond training).
"""

import torch

EVAL_SEED = 20241008  # fixed evaluation data seed (the paper's arXiv month), the same for every run
LENGTH_MULTIPLIERS = (1, 2, 4, 8)
FAMILIES = ("repeats", "long")


def make_batch(generator, batch, segment, copies, vocab_size):
    """(input_ids int64 [batch, segment*(copies+1)], loss mask bool [same]) for one batch.

    mask[b, t] is True where the target token input_ids[b, t] counts toward the loss.
    """
    seg = torch.randint(0, vocab_size, (batch, segment), generator=generator, dtype=torch.int64)
    ids = seg.repeat(1, copies + 1)
    mask = torch.zeros_like(ids, dtype=torch.bool)
    mask[:, segment + 1:] = True
    return ids, mask


def make_train_batch(generator, batch, length, vocab_size, min_segment=8):
    """A training batch: each sequence has its own segment length S in [min_segment, length/2],
    repeated to fill `length` tokens, so that the copy distance varies and a fixed-offset positional
    head cannot solve the task (with one fixed S the model learned "attend to i - S + 1" instead of
    an induction circuit). Returns (input_ids, mask) as make_batch does."""
    S = torch.randint(min_segment, length // 2 + 1, (batch, 1), generator=generator, dtype=torch.int64)
    tokens = torch.randint(0, vocab_size, (batch, length), generator=generator, dtype=torch.int64)
    t = torch.arange(length, dtype=torch.int64)[None]
    return tokens.gather(1, t % S), t > S


def masked_loss(logits, ids, mask):
    """Mean next-token cross entropy (nats) and accuracy over the masked targets."""
    pred, target, m = logits[:, :-1], ids[:, 1:], mask[:, 1:]
    ce = torch.nn.functional.cross_entropy(pred.reshape(-1, pred.shape[-1]), target.reshape(-1), reduction="none")
    m = m.reshape(-1)
    loss = ce[m].mean()
    acc = (pred.argmax(-1).reshape(-1) == target.reshape(-1))[m].float().mean()
    return loss, acc


def heldout_batch(family, multiplier, train_length, vocab_size, sequences):
    """The fixed held-out set of one family and length multiplier."""
    g = torch.Generator().manual_seed(EVAL_SEED + 1000 * FAMILIES.index(family) + multiplier)
    length = multiplier * train_length
    segment = train_length // 2 if family == "repeats" else length // 2
    return make_batch(g, sequences, segment, length // segment - 1, vocab_size)


@torch.no_grad()
def evaluate(model, train_length, vocab_size, sequences=8, chunk=4):
    """{family: {str(m): {"loss", "accuracy"}}} on the held-out sets (positions 0 .. L-1)."""
    model.eval()
    out = {}
    for family in FAMILIES:
        out[family] = {}
        for m in LENGTH_MULTIPLIERS:
            ids, mask = heldout_batch(family, m, train_length, vocab_size, sequences)
            losses, accs, counts = [], [], []
            for i in range(0, sequences, chunk):
                loss, acc = masked_loss(model(ids[i:i + chunk]), ids[i:i + chunk], mask[i:i + chunk])
                n = int(mask[i:i + chunk, 1:].sum())
                losses.append(float(loss) * n), accs.append(float(acc) * n), counts.append(n)
            total = sum(counts)
            out[family][str(m)] = {"loss": sum(losses) / total, "accuracy": sum(accs) / total}
    model.train()
    return out


@torch.no_grad()
def previous_token_scores(model, train_length, vocab_size, sequences=8):
    """Per layer and query head: mean over queries i >= 1 of the attention on key i-1 (held-out, 1x)."""
    ids, _ = heldout_batch("repeats", 1, train_length, vocab_size, sequences)
    attns = [layer.self_attn for layer in model.model.layers]
    for a in attns:
        a.keep_weights = True
    model.eval()
    model(ids)
    model.train()
    scores = []
    for a in attns:
        w = a.last_weights  # (b, H, s, s)
        idx = torch.arange(1, w.shape[-1])
        scores.append(w[:, :, idx, idx - 1].mean(dim=(0, 2)).tolist())
        a.keep_weights, a.last_weights = False, None
    return scores
