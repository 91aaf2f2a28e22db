"""ropecheck.lm.attention, the loss path: its blocked attention against an explicit float64 softmax
over the visible keys (causal, sliding windows of several widths, GQA, sequences shorter and longer
than a block), and its blocked output layer against one full matmul. torch >= 2 (its fused kernel);
Debian's torch 1.13 skips."""

import math

import pytest

torch = pytest.importorskip("torch")
# Collected and skipped (not skipped as a module: pytest would exit 5, no tests collected).
pytestmark = pytest.mark.skipif(not hasattr(torch.nn.functional, "scaled_dot_product_attention"),
                                reason="torch < 2.0 has no scaled_dot_product_attention (Debian's 1.13)")

from ropecheck import InputError  # noqa: E402
from ropecheck.lm import attention  # noqa: E402


def explicit(q, k, v, scale, window):
    """float64: softmax over keys j <= i (and j > i - window) of scale * q.k, times v; GQA by h // groups."""
    b, h, t, d = q.shape
    groups = h // k.shape[1]
    out = torch.empty(b, h, t, v.shape[-1], dtype=torch.float64)
    i = torch.arange(t)[:, None]
    j = torch.arange(t)[None, :]
    keep = (j <= i) & ((j > i - window) if window else True)
    for head in range(h):
        s = (q[:, head].double() @ k[:, head // groups].double().transpose(1, 2)) * scale
        s = s.masked_fill(~keep, -math.inf)
        out[:, head] = torch.softmax(s, -1) @ v[:, head // groups].double()
    return out


@pytest.mark.parametrize("tokens,window,heads,kv", [(40, None, 4, 2), (40, 7, 4, 1), (2600, 300, 2, 1), (2600, None, 2, 2)])
def test_blocked_attention_is_the_softmax_over_visible_keys(tokens, window, heads, kv, monkeypatch):
    monkeypatch.setattr(attention, "BLOCK", 1024)
    g = torch.Generator().manual_seed(31)  # seed 31
    q = torch.randn(1, heads, tokens, 16, generator=g)
    k = torch.randn(1, kv, tokens, 16, generator=g)
    v = torch.randn(1, kv, tokens, 8, generator=g)
    got, weights = attention.blocked_attention_forward(None, q, k, v, None, scaling=0.25, sliding_window=window)
    assert weights is None and got.shape == (1, tokens, heads, 8)
    want = explicit(q, k, v, 0.25, window).transpose(1, 2)
    # float32 softmax over at most `tokens` keys of values of size ~1: a few ulp of 1 per term
    assert float((got.double() - want).abs().max()) < 1e-5


def test_padding_masks_and_softcaps_are_refused():
    x = torch.zeros(1, 1, 4, 8)
    with pytest.raises(InputError):
        attention.blocked_attention_forward(None, x, x, x, torch.zeros(1, 1, 4, 4))
    with pytest.raises(InputError):
        attention.blocked_attention_forward(None, x, x, x, None, softcap=50.0)


def test_the_blocked_output_layer_is_one_matmul():
    class Decoder(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = torch.nn.Embedding(50, 12)

        def forward(self, input_ids, use_cache=False):
            return type("Out", (), {"last_hidden_state": self.embed(input_ids)})()

    class LM(torch.nn.Module):
        def __init__(self):
            super().__init__()
            torch.manual_seed(5)
            self.model = Decoder()
            self.lm_head = torch.nn.Linear(12, 50, bias=False)
            self.config = type("C", (), {"final_logit_softcapping": 30.0})()

        def get_decoder(self):
            return self.model

        def get_output_embeddings(self):
            return self.lm_head

    m = LM()
    ids = torch.randint(0, 50, (1, 37), generator=torch.Generator().manual_seed(6))
    logits = m.lm_head(m.model(ids).last_hidden_state)
    logits = torch.tanh(logits / 30.0) * 30.0
    want = torch.nn.functional.cross_entropy(logits[0, :-1], ids[0, 1:], reduction="none")
    got = attention.next_token_losses(m, ids, chunk=5)
    # the same products, blocked differently: float32 dot products of 12 terms, losses of size ~4
    assert got.shape == want.shape and float((got - want).abs().max()) < 1e-5


@pytest.mark.parametrize("tokens,window,heads,kv", [(40, None, 4, 2), (40, 7, 4, 1), (2600, 300, 2, 1)])
def test_first_token_mass_is_the_softmax_weight_on_key_0(tokens, window, heads, kv):
    """The recorded mass against the explicit float64 softmax's weight on key 0 (rows >= 1), and the
    output unchanged by the recording."""
    g = torch.Generator().manual_seed(37)  # seed 37
    q = torch.randn(1, heads, tokens, 16, generator=g)
    k = torch.randn(1, kv, tokens, 16, generator=g)
    v = torch.randn(1, kv, tokens, 8, generator=g)
    plain, _ = attention.blocked_attention_forward(None, q, k, v, None, scaling=0.25, sliding_window=window)
    with attention.first_token_mass() as outer:
        with attention.first_token_mass() as inner:
            got, _ = attention.blocked_attention_forward(None, q, k, v, None, scaling=0.25, sliding_window=window)
    assert torch.equal(got, plain)
    indicator = torch.zeros(1, kv, tokens, 1)
    indicator[:, :, 0, 0] = 1
    want = float(explicit(q, k, indicator, 0.25, window)[:, :, 1:, 0].mean())
    assert len(inner.per_call) == len(outer.per_call) == 1 and inner.mean == outer.mean
    # float32 weights (a few ulp each) averaged in float64
    assert abs(inner.mean - want) < 1e-6
    assert not attention._RECORDERS  # both blocks unregistered on exit
