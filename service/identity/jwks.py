"""One fetch of an issuer's JWKS over HTTP, bounded in time and size, with its outcome counted.

A fetch either returns the usable keys of the document or fails with an outcome (the label of
``atout_jwks_fetches_total``); the caller (``service.identity.keyring``) then keeps the keys it
held. Bounds: the whole fetch, connect to last byte, within ``ATOUT_JWKS_FETCH_TIMEOUT`` (a server
that trickles bytes cannot hold it longer); at most ``ATOUT_JWKS_MAX_BYTES`` read (the declared
length is checked first, and reading stops past the cap); no redirect followed and no compression
asked for, so the bytes counted are the bytes parsed.
"""

from __future__ import annotations

import asyncio
import json
import time

import httpx

from service.base import logs
from service.base.counters import count_jwks_fetch
from service.base.issuers import PublicKey, keys_from_jwks

log = logs.get_logger("atout.identity")


class FetchFailed(Exception):
    """A JWKS fetch that gave no usable key; ``outcome`` is its counter label."""

    def __init__(self, outcome: str, reason: str) -> None:
        super().__init__(reason)
        self.outcome = outcome


async def fetch_keys(issuer: str, url: str, *, timeout: float, max_bytes: int) -> tuple[PublicKey, ...]:
    """The usable keys of the JWKS at ``url`` (FetchFailed when there is none), counted and logged."""
    started = time.monotonic()
    try:
        async with asyncio.timeout(timeout):
            document = await _download(url, timeout, max_bytes)
        keys, refused = _parse(document)
    except FetchFailed as failure:
        count_jwks_fetch(issuer, failure.outcome)
        log.warning("jwks_fetch_failed", issuer=issuer, url=url, outcome=failure.outcome, reason=str(failure))
        raise
    except TimeoutError:
        count_jwks_fetch(issuer, "timeout")
        log.warning("jwks_fetch_failed", issuer=issuer, url=url, outcome="timeout", seconds=timeout)
        raise FetchFailed("timeout", f"no whole answer within {timeout:g} s") from None
    count_jwks_fetch(issuer, "ok")
    log.info(
        "jwks_fetched",
        issuer=issuer,
        keys=len(keys),
        skipped=refused,
        ms=round((time.monotonic() - started) * 1000, 1),
    )
    return keys


async def _download(url: str, timeout: float, max_bytes: int) -> bytes:
    headers = {"Accept": "application/json", "Accept-Encoding": "identity"}
    try:
        async with (
            httpx.AsyncClient(timeout=timeout, follow_redirects=False) as client,
            client.stream("GET", url, headers=headers) as response,
        ):
            if response.status_code != 200:
                raise FetchFailed("status", f"answered {response.status_code}")
            if response.headers.get("content-encoding", "identity").lower() != "identity":
                raise FetchFailed("garbage", "answered a compressed body though none was asked for")
            declared = response.headers.get("content-length", "")
            if declared.isdigit() and int(declared) > max_bytes:
                raise FetchFailed("too_large", f"declares {declared} bytes; at most {max_bytes} are read")
            body = bytearray()
            async for chunk in response.aiter_raw():
                body += chunk
                if len(body) > max_bytes:
                    raise FetchFailed("too_large", f"sent more than {max_bytes} bytes")
            return bytes(body)
    except httpx.TimeoutException:
        raise TimeoutError from None
    except httpx.HTTPError as error:
        raise FetchFailed("unreachable", f"{type(error).__name__}: {error}") from None


def _parse(document: bytes) -> tuple[tuple[PublicKey, ...], list[str]]:
    try:
        parsed = json.loads(document)
    except (ValueError, RecursionError) as error:
        raise FetchFailed("garbage", f"the document is not JSON ({error})") from None
    try:
        keys, refused = keys_from_jwks(parsed)
    except ValueError as error:
        raise FetchFailed("garbage", f"the document {error}") from None
    if not keys:
        raise FetchFailed("garbage", f"the JWKS holds no usable key ({'; '.join(refused) or 'empty'})")
    return tuple(keys), refused
