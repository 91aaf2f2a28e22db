"""ropecheck.InputError: bad input, naming the parameter and the accepted range."""

from __future__ import annotations


class InputError(ValueError):
    """A parameter outside the range ropecheck accepts.

    Attributes
    ----------
    parameter : str
        The Python parameter, e.g. ``"theta"``.
    accepted : str
        The accepted range, e.g. ``"a decimal > 1"``.
    got : str
        What was given (``""`` when nothing was).

    Examples
    --------
    >>> import ropecheck
    >>> try:
    ...     ropecheck.spectrum(dim=7)
    ... except ropecheck.InputError as e:
    ...     print(e.parameter, "|", e)
    dim | dim must be an even integer in [2, 65536] (got 7)
    """

    def __init__(self, parameter: str, accepted: str, got: str = "") -> None:
        self.parameter = parameter
        self.accepted = accepted
        self.got = got
        super().__init__(f"{parameter} must be {accepted} (got {got if got != '' else 'nothing'})")

    def renamed(self, parameter: str) -> InputError:
        """The same error naming another parameter (the keyword the caller used)."""
        return InputError(parameter, self.accepted, self.got)
