"""Provably fair deals: the seed material of every hand and the shuffle it drives.

A match has a secret key ``K`` (32 random bytes from :mod:`secrets` in the service). Its
commitment ``SHA-256(K)`` is published when the game is created, before any seat has joined,
so the server is bound to ``K`` before it can know the seats' client seeds. Hand ``n`` is
shuffled from::

    server_part_n = HMAC-SHA256(K, "atout-hand/v1" || n as 4 bytes big-endian)
    hand_seed_n   = SHA-256("atout-deal/v1" || server_part_n || canonical JSON of the client seeds)

Why one committed key and HMAC, not fresh entropy per hand: fresh entropy drawn after the
client seeds are known would let a dishonest server try many values ("grind") until it liked
the deal. With ``K`` fixed first, every hand's seed is determined the moment the last client
seed arrives; and HMAC makes each revealed ``server_part_n`` useless for predicting the next.

The hand's commitment ``SHA-256(hand_seed_n)`` is published before its first card is dealt;
``server_part_n`` and ``hand_seed_n`` are revealed when the hand is scored, ``K`` when the match
ends. The byte-exact specification, for clients in other languages, is docs/fairness.md.

Standard library only: a verifier needs nothing but this module.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import struct
from collections.abc import Iterator, Sequence
from functools import lru_cache
from typing import Final, TypeVar

T = TypeVar("T")

HAND_LABEL: Final = b"atout-hand/v1"
DEAL_LABEL: Final = b"atout-deal/v1"
DRBG_LABEL: Final = b"atout-drbg/v1"
DEALER_LABEL: Final = b"atout-dealer/v1"
INT_SEED_PREFIX: Final = b"atout-int-seed:"


def key_of_int(seed: int) -> bytes:
    """The match key of a whole-number seed (tests, the administrator, benches, the arena).

    Such a key is public by construction: whoever knows the number knows every deal.
    """
    return INT_SEED_PREFIX + str(seed).encode()


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def match_commitment(key: bytes) -> str:
    """Published at creation: binds the server to ``K`` before any client seed is known."""
    return sha256_hex(key)


def canonical_client_seeds(client_seeds: Sequence[str]) -> bytes:
    """The seats' client seeds in seat order ("" for a seat without one) as compact UTF-8 JSON."""
    return _canonical(tuple(client_seeds))


@lru_cache(maxsize=1024)
def _canonical(client_seeds: tuple[str, ...]) -> bytes:
    # Memoised: a match's seeds never change, and the encoding was most of a hand seed's cost.
    return json.dumps(list(client_seeds), separators=(",", ":"), ensure_ascii=False).encode()


def server_part(key: bytes, hand: int) -> bytes:
    """The server's share of hand ``hand`` (1-based): revealed after the hand, it tells nothing
    about the next hand's share without ``K``."""
    if not 1 <= hand < 2**32:
        raise ValueError(f"hand number must be 1..2**32-1, got {hand}")
    return _keyed(key).digest(HAND_LABEL + hand.to_bytes(4, "big"))


@lru_cache(maxsize=256)
def _keyed(key: bytes) -> _HmacSha256:
    # Two server parts a hand under the same match key: its padded states are kept (bounded; the
    # key lives in the match anyway).
    return _HmacSha256(key)


def hand_seed(server: bytes, client_seeds: Sequence[str]) -> bytes:
    """The seed a hand is shuffled from: the server's share mixed with every seat's client seed."""
    return hashlib.sha256(DEAL_LABEL + server + canonical_client_seeds(client_seeds)).digest()


def hand_seed_of(key: bytes, hand: int, client_seeds: Sequence[str]) -> bytes:
    return hand_seed(server_part(key, hand), client_seeds)


def hand_commitment(seed: bytes) -> str:
    """Published before the hand's first card: SHA-256 of the hand seed, hex."""
    return sha256_hex(seed)


class Drbg:
    """A deterministic random bit stream: HMAC-SHA256(seed, label || i as 8 bytes), i = 0, 1, 2, …

    ``randbelow`` takes 4 bytes at a time and rejects the top sliver of the 32-bit range, so
    every value below ``k`` is exactly equally likely.
    """

    __slots__ = ("_block", "_buffer", "_label", "_pos", "_seed")

    def __init__(self, seed: bytes, label: bytes = DRBG_LABEL) -> None:
        self._seed, self._label = seed, label
        self._block = 0
        self._buffer = b""
        self._pos = 0

    def read(self, n: int) -> bytes:
        while len(self._buffer) - self._pos < n:
            msg = self._label + self._block.to_bytes(8, "big")
            # hmac.digest: the one-shot C path, several times faster than hmac.new(...).digest()
            self._buffer = self._buffer[self._pos :] + hmac.digest(self._seed, msg, "sha256")
            self._pos = 0
            self._block += 1
        out = self._buffer[self._pos : self._pos + n]
        self._pos += n
        return out

    def randbelow(self, k: int) -> int:
        if not 1 <= k <= 2**32:
            raise ValueError(f"randbelow needs 1 <= k <= 2**32, got {k}")
        limit = 2**32 - (2**32 % k)
        while True:
            u = int.from_bytes(self.read(4), "big")
            if u < limit:
                return u % k

    def words(self) -> Iterator[int]:
        """The raw 32-bit words, for known-answer tests."""
        while True:
            yield int.from_bytes(self.read(4), "big")


def shuffle(items: Sequence[T], seed: bytes) -> list[T]:
    """Fisher-Yates from the end, driven by ``Drbg(seed)``: for i = len-1 down to 1, swap i with
    j = randbelow(i + 1).

    The same draws as ``Drbg.randbelow``, word for word (tests/engine/test_fair.py checks it),
    but the blocks a deck needs are computed up front and cut into words at once: the shuffle is
    done once per hand, and was most of a hand's cost in a playout."""
    out = list(items)
    pads = _HmacSha256(seed)
    words: list[int] = []
    for block in range((len(out) + 6) // 8):  # one word per swap, 8 words a block
        words.extend(_block_words(pads, block))
    w = 0
    for i in range(len(out) - 1, 0, -1):
        k = i + 1
        limit = 4294967296 - 4294967296 % k
        while True:
            if w == len(words):  # a rejected word (rare): the stream goes on
                words.extend(_block_words(pads, len(words) // 8))
            u = words[w]
            w += 1
            if u < limit:
                break
        j = u % k
        out[i], out[j] = out[j], out[i]
    return out


def _block_words(pads: _HmacSha256, block: int) -> tuple[int, ...]:
    """The eight 32-bit words of DRBG block ``block`` (big-endian, as ``Drbg.read`` cuts them)."""
    return struct.unpack(">8I", pads.digest(DRBG_LABEL + block.to_bytes(8, "big")))


class _HmacSha256:
    """HMAC-SHA256 (RFC 2104) under one key for many messages: the padded key's two SHA-256 states
    are computed once and copied per message, which costs a third of a one-shot ``hmac.digest``
    (that one looks its digest up in OpenSSL at every call). tests/engine/test_fair.py checks it
    against ``hmac.digest``."""

    __slots__ = ("_inner", "_outer")

    def __init__(self, key: bytes) -> None:
        if len(key) > 64:
            key = hashlib.sha256(key).digest()
        key = key.ljust(64, b"\0")
        self._inner = hashlib.sha256(key.translate(_IPAD))
        self._outer = hashlib.sha256(key.translate(_OPAD))

    def digest(self, message: bytes) -> bytes:
        inner = self._inner.copy()
        inner.update(message)
        outer = self._outer.copy()
        outer.update(inner.digest())
        return outer.digest()


_IPAD: Final = bytes(b ^ 0x36 for b in range(256))
_OPAD: Final = bytes(b ^ 0x5C for b in range(256))


def first_dealer(seed: bytes, players: int) -> int:
    """ALL-2: the first dealer, drawn from hand 1's seed with a DRBG of its own label, so the draw
    and the shuffle never share a byte."""
    return Drbg(seed, DEALER_LABEL).randbelow(players)


def deal_packets(order: Sequence[T], targets: Sequence[int], players: int) -> tuple[list[list[T]], list[T]]:
    """Give the shuffled deck out top first: ``targets[i]`` is a seat, or -1 for the kitty."""
    hands: list[list[T]] = [[] for _ in range(players)]
    kitty: list[T] = []
    for c, seat in zip(order, targets, strict=True):
        (kitty if seat < 0 else hands[seat]).append(c)
    return hands, kitty
