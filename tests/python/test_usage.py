"""ropecheck.usage: the same JSON as `ropecheck usage --json`, bad input named by parameter, and the
attention it measures equal to the one the example model itself computes (examples/toy_model: the
committed rope capture re-run through the model's own torch forward pass with its weights)."""

import dataclasses
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import ropecheck
from conftest import as_json, assert_typed

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
EXAMPLE = os.path.join(ROOT, "examples", "toy_model")
CAPTURE = os.path.join(EXAMPLE, "captures", "rope_seed0.capture.npz")
CONFIG = os.path.join(EXAMPLE, "captures", "rope_seed0.config.json")


def _arrays():
    with np.load(CAPTURE) as z:
        return z["q"], z["k"], z["positions"], z["token_ids"]


def test_python_and_cli_give_the_same_json(tmp_path):
    q, k, positions, token_ids = _arrays()
    u = ropecheck.usage(q, k, positions, model=CONFIG, token_ids=token_ids, threads=2)
    out = tmp_path / "usage.json"
    printed = subprocess.run([os.environ["ROPECHECK_CLI"], "usage", "--model", CONFIG, "--capture", CAPTURE, "--json", str(out)],
                             check=True, capture_output=True, text=True).stdout
    # One printer: str(u) is the CLI's table, but for the first line (which names the capture).
    assert str(u).splitlines()[1:] == printed.splitlines()[1:]
    assert any(line.split()[3] in ropecheck.HEAD_KINDS for line in printed.splitlines()[3:11])
    cli = json.loads(out.read_text())
    mine = u.to_dict()
    # The capture's description names where it came from: the file for the CLI, memory for Python.
    assert cli["capture"].pop("description").startswith(CAPTURE)
    assert mine["capture"].pop("description").startswith("memory")
    assert mine == cli


def test_layers_are_frozen_dataclasses_of_the_json():
    q, k, positions, token_ids = _arrays()
    u = ropecheck.usage(q, k, positions, model=CONFIG, token_ids=token_ids, content_distance=16)
    layers = u.to_dict()["layers"]
    assert len(u.layers) == len(layers) > 1
    for layer, d in zip(u.layers, layers):
        assert isinstance(layer, ropecheck.UsageLayer) and all(isinstance(h, ropecheck.UsageHead) for h in layer.heads)
        with pytest.raises(dataclasses.FrozenInstanceError):
            layer.layer_type = "other"
        for head, h in zip(layer.heads, d["heads"], strict=True):
            assert head.layer == layer.layer == d["layer"]
            # Every field holds the JSON's value under the JSON's name (layer: the head's own layer).
            mine = as_json(head)
            del mine["layer"]
            for score in mine["scores"]["offsets"] + [mine["scores"]["first_token"]] + [mine["scores"]["induction"]]:
                if score is not None and score["offset"] is None:
                    del score["offset"]  # first_token and induction carry none
            assert mine == json.loads(json.dumps(h)), (layer.layer, head.head)
        assert as_json(layer)["q_norm"] == d["q_norm"] and len(layer.heads) == len(d["heads"])
    kinds = {h.kind for h in u.heads()}
    assert kinds <= set(ropecheck.HEAD_KINDS) and len(u.heads()) == sum(len(L.heads) for L in u.layers)
    assert any(h.scores.induction is not None for h in u.heads())  # token ids given
    assert any(h.breaks for h in u.heads()), "the capture certifies no break: the test checks no ContentBreak"


def test_sections_are_typed_dataclasses_of_the_json():
    q, k, positions, token_ids = _arrays()
    u = ropecheck.usage(q, k, positions, model=CONFIG, token_ids=token_ids, content_distance=16, null_repeats=2)
    d = u.to_dict()
    assert_typed(u)  # every field its type: ints, floats (never an int for a float), tuples of dataclasses, None where allowed
    assert isinstance(u.capture, ropecheck.UsageCapture) and as_json(u.capture) == d["capture"]
    assert (u.capture.sequences, u.capture.layers, u.capture.heads, u.capture.kv_heads, u.capture.tokens, u.capture.head_dim) == \
        (q.shape[0], q.shape[1], q.shape[2], k.shape[2], q.shape[3], q.shape[4])
    assert isinstance(u.positional_ranking, ropecheck.PositionalRanking) and as_json(u.positional_ranking) == d["positional_ranking"]
    assert isinstance(u.within_layers, ropecheck.WithinLayerRanking) and as_json(u.within_layers) == d["within_layers"]
    assert all(isinstance(r, ropecheck.LayerRanking) for r in u.within_layers.layers)
    assert isinstance(u.null, ropecheck.NullCheck) and as_json(u.null) == d["null"] and u.null.repeats == 2
    assert all(isinstance(n, ropecheck.NullKind) and n.kind in ropecheck.HEAD_KINDS for n in u.null.kinds)
    assert sum(n.heads for n in u.null.kinds) == u.null.flagged <= u.null.heads
    b = u.break_distribution
    assert isinstance(b, ropecheck.BreakDistribution) and as_json(b) == d["break_distribution"]
    assert b.rows == b.found + b.none + b.undecided and b.found > 0
    assert [q.level for q in b.quantiles] == [0.1, 0.25, 0.5, 0.75, 0.9]
    assert all(isinstance(q, ropecheck.BreakQuantile) and (q.distance is None or 0 <= q.distance <= b.limit) for q in b.quantiles)
    # The positional-component test over sequences, Section 5 with its labels, the breaks by mechanism.
    c = u.positional_component
    assert isinstance(c, ropecheck.ComponentTest) and as_json(c) == d["positional_component"]
    assert c.sequences == q.shape[0] and [p.cut for p in c.curve] == [0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5]
    assert all(p.interval[0] <= p.heads <= p.interval[1] for p in c.curve)
    assert c.with_component == sum(h.positional_component.offset is not None for h in u.heads()) > 0
    s5 = u.section5
    assert isinstance(s5, ropecheck.Section5)
    assert as_json(s5) == {key: value for key, value in d["section5"].items() if key not in ("label", "best_cut_rule")}
    assert s5.fast_removed.positional == c.with_component
    m = u.break_mechanisms
    assert isinstance(m, ropecheck.BreakMechanisms) and m.slow_only.rows == m.slow_still.rows == b.rows
    rows = [x for h in u.heads() for x in h.breaks]
    assert all(isinstance(x.slow_only, ropecheck.MechanismBreak) and isinstance(x.slow_still, ropecheck.MechanismBreak) for x in rows)
    assert m.slow_still.found == sum(x.slow_still.outcome == "found" for x in rows)
    # The theorem's own notion: every row certified again with the 1 - epsilon threshold.
    ch = u.break_channel
    assert isinstance(ch, ropecheck.ChannelBreaks) and ch.epsilon == 0.5 and isinstance(ch.breaks, ropecheck.BreakDistribution)
    assert all(isinstance(x.channel, ropecheck.MechanismBreak) for x in rows)
    assert ch.breaks.not_held == sum(x.channel.outcome == "not-held" for x in rows)
    assert ch.breaks.rows + ch.breaks.not_held == b.rows
    assert ch.breaks.found == sum(x.channel.outcome == "found" for x in rows)
    # A row whose key holds more than 1 - epsilon = 0.5 is held; the share falls to 0.5 no later than the runner-up wins.
    for x in rows:
        assert (x.channel.outcome == "not-held") == (x.weight <= 0.5)
        if x.channel.outcome == "found" and x.outcome == "found":
            assert x.key_distance < x.channel.distance <= x.distance
    w = ropecheck.usage(q, k, positions, model=CONFIG, token_ids=token_ids, content_distance=16, null_sequences=0, break_mechanisms=False,
                        certify_channel=False)
    assert w.break_mechanisms is None and all(x.slow_only is None for h in w.heads() for x in h.breaks)
    assert w.break_channel is None and all(x.channel is None for h in w.heads() for x in h.breaks)
    # The semantic-head criterion: every head tested (token ids given), the choice the largest lower bound above 0.
    sh = u.semantic_head
    assert isinstance(sh, ropecheck.SemanticHead) and sh.family == len(u.heads()) and 0 < sh.level < 1
    assert all(isinstance(h.same_token, ropecheck.SameTokenTest) and h.same_token.sequences == q.shape[0] for h in u.heads())
    assert all(h.same_token.excess == pytest.approx(h.same_token.mass - h.same_token.expected) for h in u.heads())
    passing = [h for h in u.heads() if h.same_token.interval[0] > 0]
    best = max(passing, key=lambda h: h.same_token.interval[0]) if passing else None
    assert (sh.layer, sh.head) == ((best.layer, best.head) if best else (None, None))
    # Skipped analyses are None.
    v = ropecheck.usage(q[:1], k[:1], positions[:1], model=CONFIG, certify_breaks=False, null_sequences=0)
    assert v.null is None and v.break_distribution is None and v.to_dict()["null"] is None
    assert v.semantic_head is None and all(h.same_token is None for h in v.heads())  # no token ids
    # One sequence: the component test decides nothing, and says so.
    assert v.positional_component.with_component == 0 and "at least 2 sequences" in v.positional_component.statement
    assert all(h.positional_component.offset is None for h in v.heads())
    assert_typed(v)


def test_attention_equals_the_models_own(tmp_path):
    torch = pytest.importorskip("torch")
    sys.path.insert(0, os.path.abspath(EXAMPLE))
    import model as toy  # noqa: E402
    cfg = json.loads(open(CONFIG).read())
    q, k, positions, token_ids = _arrays()
    spectrum = ropecheck.spectrum(dim=cfg["head_dim"], theta=str(cfg["rope_theta"]))
    config = toy.make_config(vocab_size=cfg["vocab_size"], max_position_embeddings=cfg["max_position_embeddings"])
    net = toy.ToyLlama(config, np.asarray(spectrum.frequencies, dtype=np.float32))
    net.load_state_dict(torch.load(CAPTURE.replace(".capture.npz", ".weights.pt")))
    for layer in net.model.layers:
        layer.self_attn.keep_weights = True
    with torch.no_grad():
        net(torch.as_tensor(token_ids), torch.as_tensor(positions))
    u = ropecheck.usage(q, k, positions, model=CONFIG, certify_breaks=False)
    for layer, layer_usage in zip(net.model.layers, u.layers):
        w = layer.self_attn.last_weights.double().numpy()  # [sequences, heads, tokens, tokens]
        rows = np.arange(1, w.shape[-1])
        for h, head in enumerate(layer_usage.heads):
            # torch computes in float32 (angles float32(p) * inv_freq, products and softmax in
            # float32); ropecheck in binary64 from the exact frequencies: the means differ by the
            # float32 model's own error, ~1e-4 here, far above ropecheck's ~1e-12.
            assert head.diagonal == pytest.approx(w[:, h, rows, rows].mean(), abs=2e-3)
            assert head.previous_token == pytest.approx(w[:, h, rows, rows - 1].mean(), abs=2e-3)
            assert head.first_token == pytest.approx(w[:, h, rows, 0].mean(), abs=2e-3)


def test_bad_input_names_the_parameter():
    q, k, positions, _ = _arrays()
    with pytest.raises(ropecheck.InputError, match="q"):
        ropecheck.usage(q.astype(np.float64), k, positions, model=CONFIG)
    with pytest.raises(ropecheck.InputError, match="positions"):
        ropecheck.usage(q, k, positions[:, :-1], model=CONFIG)
    bad = q.copy()
    bad[0, 1, 2, 3, 4] = np.nan
    with pytest.raises(ropecheck.InputError, match=r"q\[0, 1, 2, 3, 4\]"):
        ropecheck.usage(bad, k, positions, model=CONFIG)
    with pytest.raises(ropecheck.InputError, match="threads"):
        ropecheck.usage(q, k, positions, model=CONFIG, threads=0)
    with pytest.raises(ropecheck.InputError, match="layers"):
        ropecheck.usage(q[:, :1], k[:, :1], positions, model=CONFIG)
    with pytest.raises(ropecheck.InputError, match="token_ids"):
        ropecheck.usage(q, k, positions, model=CONFIG, token_ids=np.zeros((3, 7), np.int64))
    with pytest.raises(ropecheck.InputError, match="token_ids"):
        ropecheck.usage(q, k, positions, model=CONFIG, token_ids=np.zeros(q.shape[3], np.float32))
    for name, value in (("alpha", 1.0), ("lift", 1.0), ("min_mass", 0.0), ("strong_match", 1.5), ("max_offset", 0), ("channel_epsilon", 1.0),
                        ("channel_epsilon", 0.0),
                        ("break_rows", 0), ("null_repeats", 0), ("null_sequences", -2)):
        with pytest.raises(ropecheck.InputError, match=name):
            ropecheck.usage(q, k, positions, model=CONFIG, **{name: value})
    with pytest.raises(ropecheck.InputError, match="null_sequences"):  # more than the capture has
        ropecheck.usage(q, k, positions, model=CONFIG, null_sequences=q.shape[0] + 1, certify_breaks=False)


def test_compare_usage_is_one_number_for_two_captures():
    q, k, positions, token_ids = _arrays()
    a = ropecheck.usage(q, k, positions, model=CONFIG, certify_breaks=False, null_sequences=0)
    same = ropecheck.compare_usage(a, a)
    assert same.correlation == pytest.approx(1.0, abs=1e-15) and same.max_difference == 0 and same.kinds_agree == 1
    heads = sum(len(layer.heads) for layer in a.layers)
    assert f"{heads} of {heads} heads of the same kind" in same.statement  # the library's count, not a second one
    # The capture's first half against its second: the same model, so alike but not identical.
    b = ropecheck.usage(q[:2], k[:2], positions[:2], model=CONFIG, certify_breaks=False, null_sequences=0)
    c = ropecheck.usage(q[2:], k[2:], positions[2:], model=CONFIG, certify_breaks=False, null_sequences=0)
    half = ropecheck.compare_usage(b, c)
    assert 0.9 < half.correlation < 1 and half.points == len(a.layers) * len(a.layers[0].q_norm)
    with pytest.raises(ropecheck.InputError, match="b"):
        ropecheck.compare_usage(a, "not a usage")


def test_kinds_and_bands_are_the_librarys_own():
    # One definition across the boundary: Python's lists are read from the library, and what the
    # library writes uses exactly them.
    from ropecheck import _core
    from ropecheck._usage_results import CONTENT_KINDS, POSITIONAL_KINDS
    from ropecheck.lm import summaries
    assert ropecheck.HEAD_KINDS == ("diagonal", "previous-token", "offset", "first-token", "induction", "other")
    assert POSITIONAL_KINDS == summaries.POSITIONAL == ("diagonal", "previous-token", "offset")
    assert CONTENT_KINDS == summaries.CONTENT == ("induction", "other")
    assert _core.BANDS == ("fast", "middle", "slow", "still") and summaries.BANDS == _core.BANDS[:3]
    q, k, positions, token_ids = _arrays()
    d = ropecheck.usage(q, k, positions, model=CONFIG, token_ids=token_ids, certify_breaks=False, null_sequences=0).to_dict()
    assert {h["kind"] for L in d["layers"] for h in L["heads"]} <= set(ropecheck.HEAD_KINDS)
    assert {p["band"] for t in d["layer_types"] for p in t["pairs"]} <= set(_core.BANDS)


def test_the_head_dim_limit_is_the_librarys_own():
    """spectrum/limits.h's kMaxHeadDim, read once: the library refuses one more pair, and so does
    Python's band ablation, naming the same bound."""
    from ropecheck import _core
    assert _core.MAX_HEAD_DIM == 65536
    with pytest.raises(ropecheck.InputError, match=str(_core.MAX_HEAD_DIM)):
        ropecheck.spectrum(dim=_core.MAX_HEAD_DIM + 2, theta=10000)
    torch = pytest.importorskip("torch")
    import ropecheck.torch as rt

    class Attention(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("inv_freq", torch.tensor([1.0, 0.1, 0.01, 0.001]))
            self.q_proj = torch.nn.Linear(8, 8, bias=False)
    for bad in (_core.MAX_HEAD_DIM + 2, 1 << 20):
        with pytest.raises(ropecheck.InputError, match=str(_core.MAX_HEAD_DIM)) as e:
            with rt.band_ablation(Attention(), "fast", "removed", head_dim=bad):
                pass
        assert e.value.parameter == "head_dim"


def test_capture_dtypes_are_the_librarys_own():
    from ropecheck import _core
    assert _core.CAPTURE_DTYPES == ("float32", "float16")
    q, k, positions, _ = _arrays()
    with pytest.raises(ropecheck.InputError, match="float32 or float16"):
        ropecheck.usage(q.astype(np.float64), k, positions, model=CONFIG, certify_breaks=False, null_sequences=0)
