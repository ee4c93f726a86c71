"""The French of every sentence the service says to people, keyed by its English template.

One module per source of sentences: :mod:`.details` (the service's own problem details and stream
notices), :mod:`.rules` (the engine's refusals, ``engine.IllegalAction`` templates) and
:mod:`.validation` (pydantic's messages, by error type, and the phrases of a refused display name).
A French template uses only fields of its English template, in any order; tests/service/
test_errors_catalogue.py fails when a sentence raised anywhere has no French here.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from service.base.french.details import DETAILS
from service.base.french.rules import RULES
from service.base.french.validation import VALIDATION, VALIDATION_KEY

FRENCH: Mapping[str, str] = MappingProxyType({**DETAILS, **RULES, **VALIDATION})

__all__ = ["FRENCH", "VALIDATION_KEY"]
