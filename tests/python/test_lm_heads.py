"""ropecheck.lm.heads: a head's mean is the mean of its slice of the output projection's input
over every position; mean ablation replaces exactly that slice and nothing else, and is undone on
exit; head_ablation_losses' numbers are the per-sequence losses under it, paired, with the
Bonferroni level of the call; random controls are disjoint, as large per layer and seeded; bad
input names its parameter. On test_ablation.py's TinyLM (2 layers of 2 heads, Debian's torch)."""

import pytest

torch = pytest.importorskip("torch")

import ropecheck  # noqa: E402
from ropecheck._statistics import mean_interval  # noqa: E402
from ropecheck.lm import heads as H  # noqa: E402
from test_ablation import SEQS, THETA_8, TinyLM  # noqa: E402


def _o_inputs(model, ids):
    """Per layer, the o_proj input [tokens, heads * width] of one forward pass."""
    seen = {}
    handles = [layer.self_attn.o_proj.register_forward_pre_hook(
        lambda m, inputs, i=i: seen.__setitem__(i, inputs[0][0].detach().clone())) for i, layer in enumerate(model.model.layers)]
    with torch.no_grad():
        logits = model(ids[None])
    for h in handles:
        h.remove()
    return seen, logits


def test_means_are_the_slices_mean_over_every_position():
    model = TinyLM(THETA_8)
    means = H.head_means(model, SEQS, [(0, 1), (1, 0)])
    rows = [_o_inputs(model, s)[0] for s in SEQS]
    for (layer, head), mean in means.items():
        want = torch.cat([r[layer].view(-1, 2, 16)[:, head] for r in rows]).double().mean(0)
        assert torch.allclose(mean, want, rtol=0, atol=1e-12) and mean.dtype == torch.float64


def test_ablation_replaces_that_slice_only_and_is_undone():
    model = TinyLM(THETA_8)
    ids = SEQS[0]
    means = H.head_means(model, SEQS, [(1, 0)])
    plain, plain_logits = _o_inputs(model, ids)
    with H.head_ablation(model, means) as heads:
        assert heads == ((1, 0),)
        ablated, ablated_logits = _o_inputs(model, ids)
    assert torch.equal(ablated[0], plain[0])  # layer 0 is before the ablated head
    a, p = ablated[1].view(-1, 2, 16), plain[1].view(-1, 2, 16)
    assert torch.equal(a[:, 1], p[:, 1])
    assert torch.allclose(a[:, 0], means[(1, 0)].float().expand_as(a[:, 0]), rtol=0, atol=0)
    assert not torch.equal(plain_logits, ablated_logits)
    # the hooks are gone: the model is as trained again
    assert torch.equal(_o_inputs(model, ids)[1], plain_logits)
    assert all(not layer.self_attn.o_proj._forward_pre_hooks for layer in model.model.layers)


def test_losses_are_the_per_sequence_losses_under_the_ablation_paired():
    model = TinyLM(THETA_8, vocab=13)
    sets = [("layer 0 head 0", [(0, 0)]), ("both of layer 1", [(1, 0), (1, 1)])]
    lines = []
    r = H.head_ablation_losses(model, SEQS, sets, log=lines.append)
    assert r.sequences == 4 and len(lines) == 4 and [x.name for x in r.rows] == ["layer 0 head 0", "both of layer 1"]
    assert r.comparisons == 2 and r.simultaneous_level == 1 - 0.05 / 2

    def per_sequence():
        out = []
        with torch.no_grad():
            for s in SEQS:
                logits = model(s[None])[0, :-1]
                out.append(float(torch.nn.functional.cross_entropy(logits, s[1:], reduction="none").double().mean()))
        return out
    assert r.as_trained_per_sequence == pytest.approx(per_sequence(), rel=1e-6)
    means = H.head_means(model, SEQS, [(0, 0), (1, 0), (1, 1)])
    for row, (_, heads) in zip(r.rows, sets):
        with H.head_ablation(model, {h: means[h] for h in heads}):
            assert row.per_sequence == pytest.approx(per_sequence(), rel=1e-6)
        diff = [a - b for a, b in zip(row.per_sequence, r.as_trained_per_sequence)]
        assert row.difference == mean_interval(diff) and row.simultaneous == mean_interval(diff, 1 - 0.05 / 2)
    assert r.row("both of layer 1").heads == ((1, 0), (1, 1))
    d = r.to_dict()
    assert d["rows"][1]["heads"] == [[1, 0], [1, 1]] and "mean ablation" in d["ablation"]


def test_random_controls_are_disjoint_as_large_per_layer_and_seeded():
    heads = [(0, 3), (2, 1), (2, 5)]
    c = H.random_heads(heads, 8, seed=4)
    assert c == H.random_heads(heads, 8, seed=4)
    assert sorted(L for L, _ in c) == [0, 2, 2] and not set(c) & set(heads)
    assert len({H.random_heads(heads, 8, seed=s) for s in range(10)}) > 1  # 10 seeds agreeing: chance < 1e-9
    with pytest.raises(ropecheck.InputError) as e:
        H.random_heads([(0, 0), (0, 1), (0, 2)], 4)
    assert e.value.parameter == "heads"


def test_a_pooled_control_draws_as_many_from_the_same_layers_taken_together():
    crowded = [(0, 0), (0, 1), (0, 2), (3, 1)]  # layer 0 holds 3 of its 4: no per-layer control
    c = H.random_heads(crowded, 4, seed=2, pooled=True)
    assert c == H.random_heads(crowded, 4, seed=2, pooled=True) and len(c) == 4
    assert not set(c) & set(crowded) and {L for L, _ in c} <= {0, 3}
    assert set(c) == {(0, 3), (3, 0), (3, 2), (3, 3)}  # the 4 others of those layers are all there are
    assert len({H.random_heads([(0, 0), (5, 1)], 8, seed=s, pooled=True) for s in range(10)}) > 1
    with pytest.raises(ropecheck.InputError) as e:  # 3 others in the set's layer, 5 wanted
        H.random_heads([(0, 0), (0, 1), (0, 2), (0, 3), (0, 4)], 8, pooled=True)
    assert e.value.parameter == "heads"


@pytest.mark.parametrize("kwargs,name", [
    (dict(sets=[]), "sets"),
    (dict(sets=[("a", [(0, 0)]), ("a", [(1, 0)])]), "sets"),
    (dict(sets=[("a", [(0, 2)])]), "sets"),        # 2 heads per layer
    (dict(sets=[("a", [(5, 0)])]), "sets"),        # 2 layers
    (dict(sets=[("a", [(0, 0), (0, 0)])]), "sets"),
    (dict(sets=[("", [(0, 0)])]), "sets"),
    (dict(level=1.5), "level"),
    (dict(comparisons=0), "comparisons"),
    (dict(loss="ce"), "loss"),
    (dict(sequences=SEQS[:1]), "sequences"),
])
def test_bad_input_names_the_parameter(kwargs, name):
    kwargs = dict(kwargs)
    sets = kwargs.pop("sets", [("a", [(0, 0)])])
    sequences = kwargs.pop("sequences", SEQS)
    with pytest.raises(ropecheck.InputError) as e:
        H.head_ablation_losses(TinyLM(THETA_8), sequences, sets, **kwargs)
    assert e.value.parameter == name


def test_a_model_without_output_projections_or_in_training_is_refused():
    with pytest.raises(ropecheck.InputError) as e:
        H.head_ablation_losses(torch.nn.Linear(2, 2), SEQS, [("a", [(0, 0)])])
    assert e.value.parameter == "model"
    with pytest.raises(ropecheck.InputError) as e:
        H.head_ablation_losses(TinyLM(THETA_8).train(), SEQS, [("a", [(0, 0)])])
    assert e.value.parameter == "model" and "eval" in str(e.value)
