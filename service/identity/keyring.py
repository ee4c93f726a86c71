"""The keys of one trusted issuer, held between tokens: given in the settings, or fetched from its
JWKS URL, kept, and fetched again only as often as ``ATOUT_JWKS_REFETCH_SECONDS`` allows.

Why each rule:

- **One fetch at a time per issuer.** Concurrent tokens that need a fetch (the first ones, or a
  burst naming a new ``kid``) await the same fetch, shielded so that a client leaving does not
  cancel it for the others.
- **At most one fetch begun per interval per issuer**, whatever the reason (first keys, a ``kid``
  not held, keys past their age, a failed fetch): a flood of tokens with made-up key ids costs the
  issuer's server one request per interval, not one each.
- **Held keys outlive a failed fetch.** A JWKS endpoint that is down, slow or answers garbage leaves
  the keys already held in use (the failure is counted and logged); only an issuer of which no key
  was ever fetched answers 503 ``identity_provider_unavailable``, with the wait until the next try.
- **Keys past their age are refreshed in the background**: tokens keep being checked with the held
  keys meanwhile, so a slow endpoint never slows a request that has keys to use.
"""

from __future__ import annotations

import asyncio
import math
import time

from service.base.issuers import JwtIssuer, PublicKey
from service.base.problems import ProblemError
from service.base.texts import Text
from service.identity.jwks import FetchFailed, fetch_keys


class IssuerKeys:
    """The keys of ``issuer``; the intervals are the settings' ``jwks_*`` values."""

    def __init__(
        self,
        issuer: JwtIssuer,
        *,
        refetch_seconds: float,
        max_age_seconds: float,
        fetch_timeout: float,
        max_bytes: int,
    ) -> None:
        self.issuer = issuer
        self.refetch_seconds = refetch_seconds
        self.max_age_seconds = max_age_seconds
        self.fetch_timeout = fetch_timeout
        self.max_bytes = max_bytes
        self._keys: tuple[PublicKey, ...] = issuer.public_keys
        self._fetched_at: float | None = None  # time.monotonic() of the last fetch that gave keys
        self._tried_at: float | None = None  # time.monotonic() of the last fetch begun
        self._fetching: asyncio.Task[None] | None = None

    @property
    def held(self) -> tuple[PublicKey, ...]:
        """The keys held now (fetched or given), without fetching."""
        return self._keys

    async def current(self) -> tuple[PublicKey, ...]:
        """The keys to check a token with now: the first call fetches them (concurrent callers share
        the fetch); keys past their age are refreshed in the background while they keep serving.
        ``identity_provider_unavailable`` when no key is held and none could be fetched."""
        if self.issuer.jwks_url is None:
            return self._keys
        if not self._keys:
            await self._refresh()
            if not self._keys:
                raise ProblemError(
                    "identity_provider_unavailable",
                    Text(
                        "The keys of {issuer} cannot be fetched right now; retry after the delay in "
                        "Retry-After.",
                        issuer=self.issuer.issuer,
                    ),
                    headers={"Retry-After": str(self._wait())},
                )
        elif self._fetched_at is not None and time.monotonic() - self._fetched_at >= self.max_age_seconds:
            self._begin_fetch()
        return self._keys

    async def after_unknown_key(self) -> tuple[PublicKey, ...]:
        """The keys once a token named one not held (it may have just been rotated in): fetched again
        when the interval since the last fetch has passed, or the fetch under way awaited; else the
        keys held."""
        if self.issuer.jwks_url is not None:
            await self._refresh()
        return self._keys

    async def prefetch(self) -> None:
        """Fetch the keys now if none is held (a failure is only counted and logged)."""
        if self.issuer.jwks_url is not None and not self._keys:
            await self._refresh()

    async def aclose(self) -> None:
        """Stop a fetch under way (at shutdown)."""
        task, self._fetching = self._fetching, None
        if task is not None and not task.done():
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

    async def _refresh(self) -> None:
        task = self._begin_fetch()
        if task is not None:
            await asyncio.shield(task)

    def _begin_fetch(self) -> asyncio.Task[None] | None:
        """The fetch under way, or a new one when the last began at least ``refetch_seconds`` ago;
        None when it is too soon."""
        loop = asyncio.get_running_loop()
        running = self._fetching
        if running is not None and not running.done() and running.get_loop() is loop:
            return running
        now = time.monotonic()
        if self._tried_at is not None and now - self._tried_at < self.refetch_seconds:
            return None
        self._tried_at = now
        self._fetching = loop.create_task(self._fetch(), name=f"jwks {self.issuer.issuer}")
        return self._fetching

    async def _fetch(self) -> None:
        assert self.issuer.jwks_url is not None
        try:
            keys = await fetch_keys(
                self.issuer.issuer, self.issuer.jwks_url, timeout=self.fetch_timeout, max_bytes=self.max_bytes
            )
        except FetchFailed:
            return  # counted and logged; the keys held stay in use
        self._keys = keys
        self._fetched_at = time.monotonic()

    def _wait(self) -> int:
        """Whole seconds until the next fetch may begin (at least 1)."""
        since = time.monotonic() - (self._tried_at or 0.0)
        return max(1, math.ceil(self.refetch_seconds - since))
