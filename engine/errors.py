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
    - ``illegal_action``: well-formed, this seat's turn, but the rules forbid it;
    - ``unknown_game``, ``invalid_options``, ``invalid_seed``, ``invalid_deal``, ``not_started``,
      ``already_started``: a match that cannot be made or started so.

    The message is an English ``template`` with named fields filled from ``params`` (``str.format``;
    a template without params is plain text, never formatted). Both stay on the error, so a caller
    that speaks to people in another language (the service answers in French on request) renders
    the same sentence from its own translation of the template, without parsing the English.

    A rejected action never changes the match (both ``apply`` and ``push`` check before
    they write).
    """

    def __init__(self, template: str, rule: str, code: str = "illegal_action", **params: object) -> None:
        super().__init__(template.format(**params) if params else template)
        self.rule = rule
        self.code = code
        self.template = template
        self.params = params

    def __reduce__(self) -> tuple[object, tuple[str, str, str, dict[str, object]]]:
        return (_rebuilt, (self.template, self.rule, self.code, self.params))


def _rebuilt(template: str, rule: str, code: str, params: dict[str, object]) -> IllegalAction:
    """An unpickled error (a bot's refusal crossing a process), its template and params intact."""
    return IllegalAction(template, rule, code, **params)
