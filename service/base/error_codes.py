"""The types of the problem catalogue (service/base/catalogue.py): a code, whether and when the same
request may succeed, an engine refusal's reason."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from service.base import languages


class Retry(StrEnum):
    """Whether the same request can succeed later, and when."""

    NO = "no"  # it fails the same way until the request (body, token, target) changes
    AGAIN = "yes"  # the same request, sent again whole and promptly (no delay is asked for)
    AFTER = "after Retry-After"  # the same request may succeed once the delay has passed
    RELOAD = "after reloading"  # read the game again, then decide (the answer may differ)
    RESUME = "resume"  # reconnect the stream after its last event, or resync from the view
    ONCE = "once"  # an unexpected fault: once more (same Idempotency-Key), then report it


@dataclass(frozen=True)
class ErrorCode:
    """One code of the catalogue. ``reserved`` says why a code no answer carries is kept."""

    code: str
    status: int
    retry: Retry
    title: str
    title_fr: str
    meaning: str
    action: str
    reserved: str = ""

    def title_in(self, language: str) -> str:
        return self.title_fr if language == languages.FRENCH else self.title


@dataclass(frozen=True)
class Reason:
    """An ``illegal_action``-family ``reason``: the engine's code for why it refused, and the problem
    code it is answered with."""

    reason: str
    code: str
    meaning: str
