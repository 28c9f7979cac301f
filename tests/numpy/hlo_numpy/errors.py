"""The exceptions the reference raises for bad input text and for modules
it cannot evaluate."""


class HloParseError(Exception):
    pass


class EvaluationError(Exception):
    pass
