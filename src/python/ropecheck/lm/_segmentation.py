"""The segmentation check: do two tokenizers of one vocabulary give the same ids on the same
passages? Where they first differ, with the pieces of both."""

from __future__ import annotations

import dataclasses
from typing import Any, Optional, Sequence

from .._errors import InputError
from ._tokenizers import Tokenizer

# ----------------------------------------------------------------------------------------------
# The segmentation check.

@dataclasses.dataclass(frozen=True)
class Disagreement:
    """Where two segmentations first differ: passage ``passage``, token index ``token`` (the first
    index whose ids differ, or the shorter one's length), and the ids and pieces of both from token
    ``start`` to a few past ``token``."""

    passage: int
    token: int
    start: int
    tokenizer_ids: tuple[int, ...]
    reference_ids: tuple[int, ...]
    tokenizer_pieces: tuple[str, ...]
    reference_pieces: tuple[str, ...]


@dataclasses.dataclass(frozen=True)
class SegmentationCheck:
    """Whether a tokenizer segments passages exactly as a reference does.

    Attributes
    ----------
    tokenizer, reference : str
        The two tokenizers' names.
    passages, characters : int
        How many passages, and their characters in all.
    tokens : int
        The reference's tokens in all.
    agree : bool
        Whether every passage has the same ids from both.
    agreeing : int
        How many passages do.
    tokenizer_counts, reference_counts : tuple of int
        Per passage, the tokens of each.
    first_disagreement : Disagreement or None
        The first difference (None when they agree).
    """

    tokenizer: str
    reference: str
    passages: int
    characters: int
    tokens: int
    agree: bool
    agreeing: int
    tokenizer_counts: tuple[int, ...]
    reference_counts: tuple[int, ...]
    first_disagreement: Optional[Disagreement]

    def to_dict(self) -> dict[str, Any]:
        """The check as JSON-ready values (tuples as lists, the disagreement as a mapping or None), with
        its ``statement``."""
        d: dict[str, Any] = dataclasses.asdict(self)
        d["statement"] = self.statement
        for key in ("tokenizer_counts", "reference_counts"):
            d[key] = list(d[key])
        if self.first_disagreement is not None:
            d["first_disagreement"] = {k: list(v) if isinstance(v, tuple) else v for k, v in d["first_disagreement"].items()}
        return d

    @property
    def statement(self) -> str:
        """One sentence saying what was found."""
        if self.agree:
            return (f"{self.tokenizer} gives the same ids as {self.reference} on all {self.passages} passages "
                    f"({self.characters} characters, {self.tokens} tokens).")
        d = self.first_disagreement
        assert d is not None
        return (f"{self.tokenizer} differs from {self.reference} on {self.passages - self.agreeing} of {self.passages} passages "
                f"({sum(self.tokenizer_counts)} tokens against the reference's {self.tokens} in {self.characters} characters); "
                f"first in passage {d.passage} at token {d.token}: {list(d.tokenizer_pieces[d.token - d.start:])} "
                f"against {list(d.reference_pieces[d.token - d.start:])}.")


def check_segmentation(tokenizer: Tokenizer, reference: Tokenizer, passages: Sequence[str]) -> SegmentationCheck:
    """Encodes each passage with both tokenizers (``encode``: no BOS) and compares the ids.

    Parameters
    ----------
    tokenizer : Tokenizer
        The encoder under test.
    reference : Tokenizer
        The one it must agree with.
    passages : sequence of str
        At least one text.

    Returns
    -------
    SegmentationCheck
    """
    if isinstance(passages, str) or len(passages) == 0:
        raise InputError("passages", "a sequence of at least one text", "a str" if isinstance(passages, str) else "none")
    counts: list[int] = []
    reference_counts: list[int] = []
    agreeing = 0
    first: Optional[Disagreement] = None
    for index, text in enumerate(passages):
        ours, theirs = tokenizer.encode(text), reference.encode(text)
        counts.append(len(ours))
        reference_counts.append(len(theirs))
        if ours == theirs:
            agreeing += 1
            continue
        if first is None:
            at = next((i for i, (a, b) in enumerate(zip(ours, theirs)) if a != b), min(len(ours), len(theirs)))
            start, end = max(0, at - 3), at + 5
            first = Disagreement(index, at, start, tuple(ours[start:end]), tuple(theirs[start:end]),
                                 tuple(tokenizer.piece(i) for i in ours[start:end]), tuple(reference.piece(i) for i in theirs[start:end]))
    return SegmentationCheck(tokenizer.name, reference.name, len(passages), sum(len(p) for p in passages), sum(reference_counts),
                             agreeing == len(passages), agreeing, tuple(counts), tuple(reference_counts), first)
