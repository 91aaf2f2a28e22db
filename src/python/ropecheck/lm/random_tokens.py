"""Random-token input: the second half of the paper's "positional head" (issue 54, item 1).

A head with a positional component (usage/positional_component.h) puts attention at a fixed
offset because of the rotation, on the captured text; the paper's purely positional heads keep that
pattern whatever the tokens are. This module makes the input that asks it and the test that
crosses the two captures:

* ``ordinary_ids(model)``: the ids a random sequence draws from: with a GGUF vocabulary those of
  type normal (1) or byte (6), below the model's embedding size, EOS, padding and unknown excluded;
  otherwise every id below it whose text is not empty (the Tokenizer contract: control tokens spell
  nothing). BOS is never drawn.
* ``random_sequences(model, count, tokens, seed, bos)``: `count` sequences of `tokens` ids, each
  id uniform over ``ordinary_ids`` (Python's ``random.Random(seed)``, ``randrange``: the same ids
  for the same seed on any machine), BOS first by measure.with_bos's rule.
* ``purely_positional(text, random)``: for every head with a positional component on the text
  capture at offset delta, whether the random-token capture's effect at the same delta has its
  simultaneous lower bound at least the same cut (its own family: heads x offsets, its own
  sequences). A head passing both is what the paper calls a positional head; one passing on text
  only puts its attention at delta because of position AND content.

Everything is a MEASUREMENT on the two captures; the random capture's intervals are its own
(Student t over its sequences, Bonferroni over its heads x offsets), not joint with the text's.
"""

from __future__ import annotations

import random
from typing import Any, Optional, Sequence

from .._errors import InputError


#: How the ids are drawn, for run.json.
DRAW = ("uniform over the ordinary ids (GGUF token types normal and byte, below the embedding size; without a GGUF "
        "vocabulary every id whose text is not empty), BOS excluded and first where the model's input starts with it, "
        "random.Random(seed).randrange")


def ordinary_ids(model: Any) -> list[int]:
    """The ids random-token input draws from (see the module docstring), ascending."""
    f = model.facts
    special = {f.bos_id}
    if model.gguf is not None:
        v = model.gguf.vocabulary()
        special |= {v.eos_id, v.pad_id, v.unk_id}
        ids = [i for i, t in enumerate(v.types[:f.vocab]) if t in (1, 6)]
    else:
        ids = [i for i in range(f.vocab) if model.tokenizer.decode([i]) != ""]
    ids = [i for i in ids if i not in special]
    if not ids:
        raise InputError("model", "a vocabulary with ordinary (non-control) tokens", "none found")
    return ids


def random_sequences(model: Any, count: int, tokens: int, seed: int, bos: str = "model",
                     ids: Optional[Sequence[int]] = None) -> list[list[int]]:
    """`count` sequences of `tokens` ids drawn uniformly from `ids` (default ``ordinary_ids(model)``)
    with ``random.Random(seed)``, BOS first when measure.with_bos would put it first."""
    from .measure import BOS_CHOICES
    if count < 1 or tokens < 2:
        raise InputError("random_sequences", "count >= 1 and tokens >= 2", f"count={count}, tokens={tokens}")
    if bos not in BOS_CHOICES:
        raise InputError("bos", "one of " + ", ".join(BOS_CHOICES), repr(bos))
    f = model.facts
    first = f.bos_id is not None and (bos == "always" or (bos == "model" and f.add_bos))
    ids = ordinary_ids(model) if ids is None else ids
    rng = random.Random(seed)
    body = tokens - 1 if first else tokens
    return [([f.bos_id] if first else []) + [ids[rng.randrange(len(ids))] for _ in range(body)] for _ in range(count)]


def _components(usage: dict[str, Any]) -> dict[tuple[int, int], dict[str, Any]]:
    return {(L["layer"], h["head"]): h["positional_component"] for L in usage["layers"] for h in L["heads"]
            if h.get("positional_component")}


def purely_positional(text: dict[str, Any], randomised: dict[str, Any]) -> dict[str, Any]:
    """The cross of the text capture's positional components with the random-token capture's
    (usage JSON documents of both, the random one run on the same model): per head with a
    component on text, its offset and the random capture's effect and interval there; the counts;
    and a one-line statement. Raises InputError when either capture lacks the component test."""
    t, r = text.get("positional_component"), randomised.get("positional_component")
    if not t or not r:
        raise InputError("usage", "captures with the positional-component test (at least 2 sequences)",
                         "text" if not t else "random tokens")
    cut = float(t["cut"])
    if float(r["cut"]) != cut:
        raise InputError("usage", f"the random-token capture at the text's cut {cut:g}", f"{float(r['cut']):g}")
    ct, cr = _components(text), _components(randomised)
    heads: list[dict[str, Any]] = []
    for key in sorted(ct):
        delta = ct[key].get("offset")
        if delta is None:
            continue
        at: Optional[dict[str, Any]] = next((o for o in cr.get(key, {}).get("offsets", []) if o["offset"] == delta), None)
        lo = None if at is None or at["interval"][0] is None else float(at["interval"][0])
        heads.append({"layer": key[0], "head": key[1], "offset": delta,
                      "text_effect": next(float(o["effect"]) for o in ct[key]["offsets"] if o["offset"] == delta),
                      "random_effect": None if at is None else float(at["effect"]),
                      "random_interval": None if at is None else [float(x) for x in at["interval"]],
                      "kept": lo is not None and lo >= cut,
                      "random_offset": cr.get(key, {}).get("offset")})
    kept = sum(h["kept"] for h in heads)
    random_only = sum(1 for key, c in cr.items() if c.get("offset") is not None and ct.get(key, {}).get("offset") is None)
    by_offset: dict[int, list[int]] = {}
    for h in heads:
        by_offset.setdefault(h["offset"], [0, 0])
        by_offset[h["offset"]][0] += 1
        by_offset[h["offset"]][1] += h["kept"]
    return {"cut": cut, "with_component": len(heads), "kept": kept, "random_only": random_only,
            "random_with_component": int(r["with_component"]), "random_sequences": int(r["sequences"]),
            "by_offset": [{"offset": d, "heads": n, "kept": k} for d, (n, k) in sorted(by_offset.items())],
            "heads": heads,
            "rule": "a head with a positional component at offset delta on the text keeps it on random tokens when the random-token "
                    "capture's simultaneous lower bound of the effect at the same delta is at least the same cut",
            "statement": f"{kept} of the {len(heads)} heads with a positional component on text keep it on uniformly random tokens "
                         f"(cut {cut:g}, {int(r['sequences'])} random sequences): the paper's positional heads; "
                         f"{random_only} heads have one on random tokens only"}

