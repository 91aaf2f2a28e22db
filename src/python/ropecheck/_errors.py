"""ropecheck.InputError: bad input, naming the parameter and the accepted range."""


class InputError(ValueError):
    """A parameter outside the range ropecheck accepts.

    Attributes: ``parameter`` (the Python parameter, e.g. ``"theta"``), ``accepted`` (the accepted
    range, e.g. ``"a decimal > 1"``) and ``got`` (what was given).
    """

    def __init__(self, parameter, accepted, got=""):
        self.parameter = parameter
        self.accepted = accepted
        self.got = got
        super().__init__(f"{parameter} must be {accepted} (got {got if got != '' else 'nothing'})")

    def renamed(self, parameter):
        """The same error naming another parameter (the keyword the caller used)."""
        return InputError(parameter, self.accepted, self.got)
