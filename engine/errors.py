"""The one failure an engine caller has to handle: an action that is not allowed here."""

from __future__ import annotations


class IllegalAction(ValueError):
    """An action refused by the rules, or one that does not even parse.

    ``rule`` is the docs/rules.md id the action breaks (``ALL-4``, ``RG-7`` ...) so a client can
    link to it; ``code`` is a stable machine-readable reason shared with the service's API:

    - ``malformed_action``: unknown type, missing field, bad card code (python-chess'
      "invalid" move);
    - ``not_your_turn``: a well-formed action from a seat that is not to act;
    - ``match_over``: the match has ended, nobody acts any more;
    - ``illegal_action``: well-formed, this seat's turn, but the rules forbid it.

    A rejected action never changes the match (both ``apply`` and ``push`` check before
    they write).
    """

    def __init__(self, message: str, rule: str, code: str = "illegal_action") -> None:
        super().__init__(message)
        self.rule = rule
        self.code = code

    def __reduce__(self) -> tuple[type[IllegalAction], tuple[str, str, str]]:
        return (IllegalAction, (str(self), self.rule, self.code))
