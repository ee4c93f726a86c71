"""When to send a request again, and after how long: one policy for the sync and the async client.

What is retried. ``429`` (a rate limit or a cap refused the request before doing anything) on any
request; ``503`` and a connection that failed or broke only on a request that is safe to send again:
a read (GET), and a move, which always carries an ``Idempotency-Key`` (the server plays it at most
once and answers a retry with the first result, ``replayed``). A create, a join or a registration
is not sent twice on a doubt: two games, or two seats, would be worse than an error.

How long. A ``Retry-After`` is honoured as given; without one the wait doubles from ``backoff`` up to
``max_backoff``. Bounded twice: at most ``max_attempts`` tries, and never more than ``max_wait``
seconds of waiting in all (a ``Retry-After`` beyond what is left is not waited for: the error is
raised at once, with its ``retry_after``)."""

from __future__ import annotations

from dataclasses import dataclass

RETRIED_STATUSES = frozenset({429, 503})


@dataclass(frozen=True)
class RetryPolicy:
    max_attempts: int = 5
    """Tries in all, the first included (1: never retry)."""
    max_wait: float = 30.0
    """Seconds of waiting, in all, between the tries of one request (or of one stream between events)."""
    backoff: float = 0.25
    """The first wait without a Retry-After, doubled at each try."""
    max_backoff: float = 5.0

    def __post_init__(self) -> None:
        if self.max_attempts < 1 or self.max_wait < 0 or self.backoff < 0 or self.max_backoff < 0:
            raise ValueError("a retry policy needs max_attempts >= 1 and waits >= 0")

    def delay(self, attempt: int, waited: float, retry_after: float | None) -> float | None:
        """The wait before try ``attempt + 1`` (``attempt`` tries made, ``waited`` seconds waited
        so far), or None: give up."""
        if attempt >= self.max_attempts:
            return None
        wait = (
            retry_after
            if retry_after is not None
            else min(self.max_backoff, self.backoff * 2 ** (attempt - 1))
        )
        if waited + wait > self.max_wait:
            return None
        return wait


NO_RETRY = RetryPolicy(max_attempts=1, max_wait=0)


def retryable(safe: bool, status: int | None) -> bool:
    """Whether a failed try may be made again: ``status`` None is a connection that failed or broke."""
    return status == 429 or (safe and (status is None or status == 503))
