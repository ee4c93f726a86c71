"""A player's identity from their app's JWT (service/identity/): real keys made here (RSA 2048, EC P-256,
Ed25519), a real JWKS server on 127.0.0.1 that counts its requests and can be stopped or made to fail,
and the real clock (every ``iat``/``exp`` is relative to ``time.time()``).

What is shown: a good token of each algorithm names its player; each refusal has its own code
(expired, not yet valid, wrong audience, unknown issuer, refused algorithm including ``none`` and
HS256 keyed with the RSA public key's PEM, bad signature, unknown key, malformed) and is decided
before any key is fetched when it can be; an unknown ``kid`` fetches the JWKS once per interval
however many tokens name one; a rotated-in key is seen after the interval; a JWKS server that is down,
slow or answers garbage leaves the held keys in use, and with none held answers 503 with Retry-After;
the clock skew allowed; keys given as PEM (or a certificate, or a JWKS) without any URL; and the
settings refuse a wrong ``ATOUT_JWT_ISSUERS`` with a message naming what is wrong.
"""

from __future__ import annotations

import asyncio
import base64
import datetime
import hashlib
import hmac
import json
import re
import secrets
import threading
import time
import warnings
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.x509.oid import NameOID
from joserfc import jwt
from joserfc.errors import SecurityWarning
from joserfc.jwk import ECKey, OKPKey, RSAKey
from pydantic import ValidationError
from pydantic_settings import SettingsError
from starlette.testclient import TestClient

from service.base.counters import PROCESS
from service.base.problems import ProblemError
from service.base.settings import Settings
from service.identity import Identity, IdentityVerifier, looks_like_jwt

pytestmark = pytest.mark.anyio

ISSUER = "https://auth.example.test/"
AUDIENCE = "atout-players"
SIGN_ALG = {"RS256": "rsa-1", "ES256": "ec-1", "EdDSA": "ed-1"}


# --- the keys ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Keys:
    rsa: RSAKey
    rsa_next: RSAKey  # published later (rotation)
    rsa_forger: RSAKey  # never published; signs with rsa-1's kid
    ec: ECKey
    ed: OKPKey

    def signer(self, alg: str) -> RSAKey | ECKey | OKPKey:
        return {"RS256": self.rsa, "ES256": self.ec, "EdDSA": self.ed}[alg]


@pytest.fixture(scope="module")
def keys() -> Keys:
    return Keys(
        rsa=RSAKey.generate_key(2048, parameters={"kid": "rsa-1"}),
        rsa_next=RSAKey.generate_key(2048, parameters={"kid": "rsa-2"}),
        rsa_forger=RSAKey.generate_key(2048, parameters={"kid": "rsa-1"}),
        ec=ECKey.generate_key("P-256", parameters={"kid": "ec-1", "use": "sig", "alg": "ES256"}),
        ed=OKPKey.generate_key("Ed25519", parameters={"kid": "ed-1"}),
    )


def jwks(*published: RSAKey | ECKey | OKPKey) -> dict[str, Any]:
    return {"keys": [key.as_dict(private=False) for key in published]}


def pem(key: RSAKey | ECKey | OKPKey) -> str:
    return key.as_pem(private=False).decode()


def sign(key: RSAKey | ECKey | OKPKey, alg: str = "RS256", *, kid: str | None = "", **claims: Any) -> str:
    """A JWT signed by ``key``: good claims for ISSUER/AUDIENCE unless ``claims`` says otherwise (None
    leaves a claim out); ``kid`` "" is the key's own, None none."""
    now = int(time.time())
    body: dict[str, Any] = {"iss": ISSUER, "aud": AUDIENCE, "sub": "player-7", "iat": now, "exp": now + 300}
    body.update(claims)
    header = {"alg": alg}
    chosen = key.kid if kid == "" else kid
    if chosen is not None:
        header["kid"] = chosen
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SecurityWarning)  # joserfc: "EdDSA is deprecated via RFC 9864"
        return jwt.encode(header, {k: v for k, v in body.items() if v is not None}, key, algorithms=[alg])


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def handmade(header: dict[str, Any], claims: dict[str, Any], secret: bytes | None) -> str:
    """A JWT written by hand: HS256 with ``secret`` as the HMAC key, or no signature at all."""
    signing_input = f"{b64(json.dumps(header).encode())}.{b64(json.dumps(claims).encode())}"
    if secret is None:
        return signing_input + "."
    return signing_input + "." + b64(hmac.new(secret, signing_input.encode(), hashlib.sha256).digest())


def rsa_jwk(public: rsa.RSAPublicKey, kid: str) -> dict[str, Any]:
    """The JWK of an RSA key written out by hand (joserfc warns on importing one under 2048 bits)."""
    numbers = public.public_numbers()
    modulus = numbers.n.to_bytes((numbers.n.bit_length() + 7) // 8, "big")
    return {"kty": "RSA", "kid": kid, "n": b64(modulus), "e": b64(numbers.e.to_bytes(3, "big"))}


def good_claims() -> dict[str, Any]:
    now = int(time.time())
    return {"iss": ISSUER, "aud": AUDIENCE, "sub": "player-7", "iat": now, "exp": now + 300}


# --- a real JWKS server --------------------------------------------------------------------------------


class JwksServer:
    """A JWKS endpoint on 127.0.0.1 served from a thread. ``mode``: ok, status (500), garbage (not
    JSON), trickle (a byte every 0.1 s), huge (more than 1 KiB); ``delay`` holds each answer back.
    ``stop()`` makes it down (connections refused) until ``start()`` binds the same port again."""

    def __init__(self) -> None:
        self.document: dict[str, Any] = {"keys": []}
        self.mode = "ok"
        self.delay = 0.0
        self.port = 0
        self._count = 0
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/.well-known/jwks.json"

    @property
    def requests(self) -> int:
        with self._lock:
            return self._count

    def start(self) -> None:
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                with outer._lock:
                    outer._count += 1
                time.sleep(outer.delay)
                body = json.dumps(outer.document).encode()
                if outer.mode == "garbage":
                    body = b"<html>502 Bad Gateway</html>"
                elif outer.mode == "huge":
                    body = json.dumps({"keys": [], "padding": "x" * 4096}).encode()
                self.send_response(500 if outer.mode == "status" else 200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                try:
                    if outer.mode == "trickle":
                        for byte in body[:40]:
                            self.wfile.write(bytes([byte]))
                            self.wfile.flush()
                            time.sleep(0.1)
                    else:
                        self.wfile.write(body)
                except OSError:
                    pass  # the client gave up

            def log_message(self, *args: Any) -> None:
                pass

        server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        server.daemon_threads = True
        server.block_on_close = False
        self.port = server.server_address[1]
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        if self._server is not None and self._thread is not None:
            self._server.shutdown()
            self._server.server_close()
            self._thread.join(timeout=5)
            self._server = self._thread = None


@pytest.fixture
def server(keys: Keys) -> Iterator[JwksServer]:
    jwks_server = JwksServer()
    jwks_server.document = jwks(keys.rsa, keys.ec, keys.ed)
    jwks_server.start()
    try:
        yield jwks_server
    finally:
        jwks_server.stop()


Factory = Callable[..., IdentityVerifier]


@pytest.fixture
async def make_verifier(server: JwksServer) -> AsyncIterator[Factory]:
    """Verifiers trusting ISSUER at the test's JWKS server (or as ``issuer`` says), closed after."""
    made: list[IdentityVerifier] = []

    def factory(issuer: dict[str, Any] | None = None, **settings: Any) -> IdentityVerifier:
        entry = issuer or {"issuer": ISSUER, "audience": AUDIENCE, "jwks_url": server.url}
        verifier = IdentityVerifier(Settings(jwt_issuers=[entry], **settings))
        made.append(verifier)
        return verifier

    yield factory
    for verifier in made:
        await verifier.aclose()


async def refused(verifier: IdentityVerifier, token: str) -> ProblemError:
    with pytest.raises(ProblemError) as caught:
        await verifier.verify(token)
    return caught.value


def fetches(outcome: str, issuer: str = ISSUER) -> float:
    return PROCESS.get_sample_value("atout_jwks_fetches_total", {"issuer": issuer, "outcome": outcome}) or 0.0


async def until(condition: Callable[[], bool], seconds: float = 5.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "the condition did not come true in time"
        await asyncio.sleep(0.02)


# --- accepted ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("alg", ["RS256", "ES256", "EdDSA"])
async def test_a_good_token_of_each_algorithm_names_its_player(
    alg: str, keys: Keys, server: JwksServer, make_verifier: Factory
) -> None:
    verifier = make_verifier()
    token = sign(keys.signer(alg), alg, name="Camille", email="c@example.test", sub=f"user-{alg}")
    assert looks_like_jwt(token)
    assert await verifier.verify(token) == Identity(ISSUER, f"user-{alg}", "Camille")
    assert server.requests == 1


async def test_the_name_is_kept_only_when_it_is_a_short_string(keys: Keys, make_verifier: Factory) -> None:
    verifier = make_verifier()
    assert (await verifier.verify(sign(keys.rsa, name=None))).name is None
    assert (await verifier.verify(sign(keys.rsa, name={"first": "C"}))).name is None
    assert (await verifier.verify(sign(keys.rsa, name="x" * 201))).name is None
    assert (await verifier.verify(sign(keys.rsa, aud=["other", AUDIENCE]))).subject == "player-7"


async def test_a_token_without_kid_is_checked_with_each_key_of_its_algorithm(
    keys: Keys, server: JwksServer, make_verifier: Factory
) -> None:
    server.document = jwks(keys.rsa_next, keys.rsa, keys.ec)
    verifier = make_verifier()
    assert (await verifier.verify(sign(keys.rsa, kid=None))).subject == "player-7"
    assert (await refused(verifier, sign(keys.rsa_forger, kid=None))).code == "token_bad_signature"


async def test_a_clock_skew_within_the_leeway_is_accepted(keys: Keys, make_verifier: Factory) -> None:
    verifier = make_verifier(jwt_leeway_seconds=60)
    now = int(time.time())
    assert await verifier.verify(sign(keys.rsa, exp=now - 30))
    assert await verifier.verify(sign(keys.rsa, nbf=now + 30, iat=now + 30))


# --- refused, each with its own code ------------------------------------------------------------------


async def test_an_expired_token_is_refused(keys: Keys, make_verifier: Factory) -> None:
    verifier = make_verifier(jwt_leeway_seconds=60)
    problem = await refused(verifier, sign(keys.rsa, exp=int(time.time()) - 90))
    assert (problem.code, problem.status) == ("token_expired", 401)


@pytest.mark.parametrize("claim", ["nbf", "iat"])
async def test_a_token_from_the_future_is_not_yet_valid(
    claim: str, keys: Keys, make_verifier: Factory
) -> None:
    verifier = make_verifier(jwt_leeway_seconds=60)
    problem = await refused(verifier, sign(keys.rsa, **{claim: int(time.time()) + 120}))
    assert (problem.code, problem.status) == ("token_not_yet_valid", 401)
    assert claim in problem.detail and "60 s" in problem.detail


@pytest.mark.parametrize("audience", ["someone-else", ["a", "b"], None])
async def test_a_token_for_another_audience_is_refused(
    audience: Any, keys: Keys, make_verifier: Factory
) -> None:
    problem = await refused(make_verifier(), sign(keys.rsa, aud=audience))
    assert (problem.code, problem.status) == ("token_wrong_audience", 401)
    assert AUDIENCE in problem.detail


async def test_an_unknown_issuer_is_refused_before_any_fetch(
    keys: Keys, server: JwksServer, make_verifier: Factory
) -> None:
    verifier = make_verifier()
    for issuer in ("https://evil.example.test/", ISSUER.rstrip("/")):
        problem = await refused(verifier, sign(keys.rsa, iss=issuer))
        assert (problem.code, problem.status) == ("token_unknown_issuer", 401)
    assert server.requests == 0


async def test_a_token_that_does_not_name_its_issuer_is_malformed(keys: Keys, make_verifier: Factory) -> None:
    assert (await refused(make_verifier(), sign(keys.rsa, iss=None))).code == "token_malformed"


async def test_alg_none_is_refused_before_any_key_is_fetched(
    server: JwksServer, make_verifier: Factory
) -> None:
    verifier = make_verifier()
    for alg in ("none", "None", "NONE"):
        token = handmade({"alg": alg, "typ": "JWT"}, good_claims(), None)
        assert looks_like_jwt(token)
        problem = await refused(verifier, token)
        assert (problem.code, problem.status) == ("token_algorithm_refused", 401)
    assert server.requests == 0


async def test_hs256_keyed_with_the_rsa_public_key_pem_is_refused(
    keys: Keys, server: JwksServer, make_verifier: Factory
) -> None:
    """The HS/RS confusion: the attacker signs with HMAC, using the public key as the secret."""
    by_url = make_verifier()
    by_pem = make_verifier({"issuer": ISSUER, "audience": AUDIENCE, "keys": [pem(keys.rsa)]})
    public = pem(keys.rsa).encode()
    for secret in (public, public.strip(), json.dumps(keys.rsa.as_dict(private=False)).encode()):
        token = handmade({"alg": "HS256", "kid": "rsa-1"}, good_claims(), secret)
        for verifier in (by_url, by_pem):
            problem = await refused(verifier, token)
            assert (problem.code, problem.status) == ("token_algorithm_refused", 401)
            assert "'HS256'" in problem.detail
    assert server.requests == 0


async def test_an_algorithm_the_issuer_is_not_allowed_is_refused(
    keys: Keys, server: JwksServer, make_verifier: Factory
) -> None:
    verifier = make_verifier(
        {"issuer": ISSUER, "audience": AUDIENCE, "jwks_url": server.url, "algorithms": ["RS256"]}
    )
    assert (await refused(verifier, sign(keys.ec, "ES256"))).code == "token_algorithm_refused"
    assert (await verifier.verify(sign(keys.rsa))).subject == "player-7"


async def test_a_signature_by_another_key_with_the_same_kid_is_refused(
    keys: Keys, make_verifier: Factory
) -> None:
    verifier = make_verifier()
    problem = await refused(verifier, sign(keys.rsa_forger))
    assert (problem.code, problem.status) == ("token_bad_signature", 401)
    header, _claims, signature = sign(keys.rsa).split(".")
    tampered = {**good_claims(), "sub": "someone-else"}
    forged = f"{header}.{b64(json.dumps(tampered).encode())}.{signature}"
    assert (await refused(verifier, forged)).code == "token_bad_signature"


async def test_a_key_of_the_wrong_type_for_the_algorithm_is_never_tried(
    keys: Keys, make_verifier: Factory
) -> None:
    """An ES256 token naming the RSA key's kid: no key with that kid fits ES256."""
    problem = await refused(make_verifier(), sign(keys.ec, "ES256", kid="rsa-1"))
    assert (problem.code, problem.status) == ("token_unknown_key", 401)


@pytest.mark.parametrize(
    "token",
    [
        "not-a-jwt",
        "a.b",
        "a.b.c.d",
        "e30.e30.",  # {} header: no alg
        b64(b'{"alg":"RS256"}') + "." + b64(b"[1, 2]") + ".c2ln",
        b64(b'{"alg":"RS256","kid":7}') + "." + b64(json.dumps({"iss": ISSUER}).encode()) + ".c2ln",
        b64(b'{"alg":"RS256"}') + "." + b64(b"[" * 3000) + ".c2ln",
        b64(b'{"alg":"RS256"}') + "." + b64(b"x" * 7000) + ".c2ln",
    ],
    ids=["one-part", "two-parts", "four-parts", "no-alg", "claims-array", "kid-number", "deep", "too-long"],
)
async def test_a_token_that_is_not_a_jwt_is_malformed(token: str, make_verifier: Factory) -> None:
    problem = await refused(make_verifier(), token)
    assert (problem.code, problem.status) == ("token_malformed", 401)


@pytest.mark.parametrize(
    ("claims", "said"),
    [({"sub": None}, "sub"), ({"exp": None}, "exp"), ({"sub": ""}, "sub"), ({"exp": "tomorrow"}, "exp"),
     ({"sub": "s" * 256}, "255")],
)  # fmt: skip
async def test_a_signed_token_without_a_usable_subject_or_expiry_is_malformed(
    claims: dict[str, Any], said: str, keys: Keys, make_verifier: Factory
) -> None:
    problem = await refused(make_verifier(), sign(keys.rsa, **claims))
    assert problem.code == "token_malformed" and said in problem.detail


def test_looks_like_jwt_tells_a_jwt_from_the_services_own_tokens(keys: Keys) -> None:
    assert looks_like_jwt(sign(keys.rsa)) and looks_like_jwt(sign(keys.ed, "EdDSA"))
    for opaque in (
        secrets.token_urlsafe(32),  # a seat token
        f"atb_{secrets.token_urlsafe(9)}_{secrets.token_urlsafe(32)}",  # a bot's API key
        f"atp_{secrets.token_urlsafe(32)}",
        "admin-secret-for-tests",
        "a.b.c",
        "e30.e30.e30",  # a JSON header without alg
        "eyJhbGciOiJSUzI1NiJ9..sig",  # no claims part
        "eyJhbGciOiJSUzI1NiJ9.e30.s+g",  # not base64url
    ):
        assert not looks_like_jwt(opaque), opaque


# --- keys: fetched once per interval, rotated, kept when the server fails ----------------------------


async def test_an_unknown_kid_fetches_the_jwks_exactly_once_per_interval(
    keys: Keys, server: JwksServer, make_verifier: Factory
) -> None:
    verifier = make_verifier(jwks_refetch_seconds=1)
    assert await verifier.verify(sign(keys.rsa))
    assert server.requests == 1
    problem = await refused(verifier, sign(keys.rsa, kid="rsa-new"))  # too soon after the first fetch
    assert (problem.code, problem.status, server.requests) == ("token_unknown_key", 401, 1)
    await asyncio.sleep(1.1)
    assert (await refused(verifier, sign(keys.rsa, kid="rsa-new"))).code == "token_unknown_key"
    assert server.requests == 2
    assert (await refused(verifier, sign(keys.rsa, kid="rsa-newer"))).code == "token_unknown_key"
    assert server.requests == 2
    assert "rsa-newer" in (await refused(verifier, sign(keys.rsa, kid="rsa-newer"))).detail


async def test_a_flood_of_unknown_kids_costs_one_fetch_per_interval(
    keys: Keys, server: JwksServer, make_verifier: Factory
) -> None:
    """500 concurrent tokens with random kids (and a few good ones) on a verifier holding no key yet
    share its first fetch; once the interval has passed another flood causes exactly one more."""
    verifier = make_verifier(jwks_refetch_seconds=2)
    server.delay = 0.3  # the fetch is still under way when the whole flood has arrived

    async def flood() -> list[str]:
        tokens = [
            sign(keys.rsa) if n % 50 == 0 else sign(keys.rsa, kid=secrets.token_hex(8)) for n in range(500)
        ]
        outcomes: list[str] = []

        async def one(token: str) -> None:
            try:
                outcomes.append((await verifier.verify(token)).subject)
            except ProblemError as problem:
                outcomes.append(problem.code)

        await asyncio.gather(*(one(token) for token in tokens))
        return outcomes

    first = await flood()
    assert sorted(set(first)) == ["player-7", "token_unknown_key"] and first.count("player-7") == 10
    assert server.requests == 1
    await asyncio.sleep(2.1)
    second = await flood()
    assert second.count("token_unknown_key") == 490
    assert server.requests == 2


async def test_a_key_rotated_in_is_seen_after_the_refetch_interval(
    keys: Keys, server: JwksServer, make_verifier: Factory
) -> None:
    verifier = make_verifier(jwks_refetch_seconds=1)
    assert await verifier.verify(sign(keys.rsa))
    server.document = jwks(keys.rsa, keys.rsa_next)  # the provider publishes its next key
    assert (await refused(verifier, sign(keys.rsa_next))).code == "token_unknown_key"
    await asyncio.sleep(1.1)
    assert (await verifier.verify(sign(keys.rsa_next, sub="rotated"))).subject == "rotated"
    assert server.requests == 2
    assert await verifier.verify(sign(keys.rsa))  # the old key still published: still good


async def test_keys_past_their_age_are_refreshed_in_the_background(
    keys: Keys, server: JwksServer, make_verifier: Factory
) -> None:
    """A withdrawn key stops verifying once the keys are older than their max age: the token that
    finds them old is still checked with the held keys (no wait), and the refresh replaces them."""
    verifier = make_verifier(jwks_refetch_seconds=1, jwks_max_age_seconds=1)
    assert await verifier.verify(sign(keys.rsa))
    server.document = jwks(keys.rsa_next)  # rsa-1 withdrawn
    await asyncio.sleep(1.1)
    assert await verifier.verify(sign(keys.rsa))  # held keys serve while the refresh runs
    held = verifier.issuers[ISSUER]
    await until(lambda: [key.kid for key in held.held] == ["rsa-2"])
    assert server.requests == 2
    assert (await refused(verifier, sign(keys.rsa))).code == "token_unknown_key"
    assert (await verifier.verify(sign(keys.rsa_next))).subject == "player-7"


async def test_a_jwks_server_that_is_down_leaves_the_held_keys_in_use(
    keys: Keys, server: JwksServer, make_verifier: Factory
) -> None:
    verifier = make_verifier(jwks_refetch_seconds=1)
    assert await verifier.verify(sign(keys.rsa))
    server.stop()
    await asyncio.sleep(1.1)
    before = fetches("unreachable")
    assert (await refused(verifier, sign(keys.rsa, kid="rsa-unknown"))).code == "token_unknown_key"
    assert fetches("unreachable") == before + 1  # the refetch was tried, failed, and was counted
    assert (await verifier.verify(sign(keys.rsa, sub="still-here"))).subject == "still-here"
    assert (await verifier.verify(sign(keys.ed, "EdDSA"))).subject == "player-7"


@pytest.mark.parametrize(
    ("mode", "outcome"),
    [("down", "unreachable"), ("status", "status"), ("garbage", "garbage"), ("huge", "too_large"),
     ("trickle", "timeout"), ("no-usable-key", "garbage")],
)  # fmt: skip
async def test_with_no_key_held_a_failing_jwks_answers_503_with_retry_after(
    mode: str, outcome: str, keys: Keys, server: JwksServer, make_verifier: Factory
) -> None:
    if mode == "down":
        server.stop()
    elif mode == "no-usable-key":
        small = rsa.generate_private_key(public_exponent=65537, key_size=1024)
        server.document = {
            "keys": [
                {"kty": "oct", "k": "c2VjcmV0", "kid": "hmac"},
                {**keys.rsa.as_dict(private=False), "use": "enc"},
                rsa_jwk(small.public_key(), "small"),
            ]
        }
    else:
        server.mode = mode
    verifier = make_verifier(jwks_refetch_seconds=5, jwks_fetch_timeout=0.5, jwks_max_bytes=1024)
    before = fetches(outcome)
    problem = await refused(verifier, sign(keys.rsa))  # a trickle ends as the "timeout" outcome below
    assert (problem.code, problem.status) == ("identity_provider_unavailable", 503)
    assert 1 <= int(problem.headers["Retry-After"]) <= 5
    assert fetches(outcome) == before + 1
    again = await refused(verifier, sign(keys.rsa))  # within the interval: no new attempt
    assert again.code == "identity_provider_unavailable" and fetches(outcome) == before + 1


async def test_a_jwks_back_up_serves_after_retry_after(
    keys: Keys, server: JwksServer, make_verifier: Factory
) -> None:
    server.stop()
    verifier = make_verifier(jwks_refetch_seconds=1)
    problem = await refused(verifier, sign(keys.rsa))
    assert problem.code == "identity_provider_unavailable"
    server.start()  # the same port
    await asyncio.sleep(int(problem.headers["Retry-After"]) + 0.1)
    assert (await verifier.verify(sign(keys.rsa))).subject == "player-7"
    assert server.requests == 1


@pytest.mark.parametrize("mode", ["garbage", "trickle", "huge"])
async def test_a_jwks_that_turns_bad_leaves_the_held_keys_in_use(
    mode: str, keys: Keys, server: JwksServer, make_verifier: Factory
) -> None:
    verifier = make_verifier(jwks_refetch_seconds=1, jwks_fetch_timeout=0.5, jwks_max_bytes=2048)
    assert await verifier.verify(sign(keys.rsa))
    server.mode = mode
    await asyncio.sleep(1.1)
    assert (await refused(verifier, sign(keys.rsa, kid="rsa-9"))).code == "token_unknown_key"
    assert server.requests == 2
    assert (await verifier.verify(sign(keys.ec, "ES256"))).subject == "player-7"


async def test_prefetch_fetches_every_jwks_once(server: JwksServer, make_verifier: Factory) -> None:
    verifier = make_verifier()
    before = fetches("ok")
    await verifier.prefetch()
    await verifier.prefetch()
    assert server.requests == 1 and fetches("ok") == before + 1
    assert verifier.configured and not IdentityVerifier(Settings()).configured


def test_an_operator_sees_the_fetches_and_failures_on_metrics(client: TestClient, server: JwksServer) -> None:
    issuer = "https://metrics.example.test/"
    settings = Settings(jwt_issuers=[{"issuer": issuer, "audience": AUDIENCE, "jwks_url": server.url}])
    asyncio.run(IdentityVerifier(settings).prefetch())
    server.stop()
    asyncio.run(IdentityVerifier(settings).prefetch())
    text = client.get("/metrics").text
    assert f'atout_jwks_fetches_total{{issuer="{issuer}",outcome="ok"}} 1.0' in text
    assert f'atout_jwks_fetches_total{{issuer="{issuer}",outcome="unreachable"}} 1.0' in text


# --- keys given in the settings ------------------------------------------------------------------------


def certificate(key: ec.EllipticCurvePrivateKey) -> str:
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "auth.example.test")])
    now = datetime.datetime.now(datetime.UTC)
    built = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now)
        .not_valid_after(now + datetime.timedelta(days=1))
        .sign(key, hashes.SHA256())
    )
    return built.public_bytes(serialization.Encoding.PEM).decode()


async def test_pem_keys_without_any_url_verify_each_algorithm(
    keys: Keys, server: JwksServer, make_verifier: Factory
) -> None:
    signing = ec.generate_private_key(ec.SECP256R1())
    by_certificate = ECKey.import_key(signing)
    verifier = make_verifier(
        {
            "issuer": ISSUER,
            "audience": AUDIENCE,
            "keys": [pem(keys.rsa), pem(keys.ec), pem(keys.ed), certificate(signing)],
        }
    )
    for alg in SIGN_ALG:
        assert (await verifier.verify(sign(keys.signer(alg), alg, sub=alg))).subject == alg
        assert (await verifier.verify(sign(keys.signer(alg), alg, kid=None))).subject == "player-7"
    assert (await verifier.verify(sign(by_certificate, "ES256", kid="cert"))).subject == "player-7"
    assert (await refused(verifier, sign(keys.rsa_forger))).code == "token_bad_signature"
    assert server.requests == 0


async def test_a_jwks_given_in_the_settings_selects_keys_by_kid(keys: Keys, make_verifier: Factory) -> None:
    verifier = make_verifier({"issuer": ISSUER, "audience": AUDIENCE, "keys": jwks(keys.rsa, keys.rsa_next)})
    assert await verifier.verify(sign(keys.rsa_next))
    problem = await refused(verifier, sign(keys.rsa, kid="rsa-3"))
    assert problem.code == "token_unknown_key" and "'rsa-3'" in problem.detail


# --- the settings ----------------------------------------------------------------------------------


def entry(**changes: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "issuer": ISSUER,
        "audience": AUDIENCE,
        "jwks_url": "https://auth.example.test/jwks",
    }
    base.update(changes)
    return {k: v for k, v in base.items() if v is not None}


NOT_PEM = "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----"
OCT = {"kty": "oct", "k": "c2VjcmV0"}


def small_rsa_pem() -> str:
    small = rsa.generate_private_key(public_exponent=65537, key_size=1024).public_key()
    return small.public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    ).decode()


@pytest.mark.parametrize(
    ("issuers", "said"),
    [
        ("not json", "jwt_issuers"),
        ('{"issuer": "x"}', "list"),
        (json.dumps([entry(audience=None)]), "audience"),
        (json.dumps([entry(keys=["x"])]), "either jwks_url or keys"),
        (json.dumps([entry(jwks_url=None)]), "either jwks_url or keys"),
        (json.dumps([entry(algorithms=["HS256"])]), "'RS256', 'ES256' or 'EdDSA'"),
        (json.dumps([entry(algorithms=["none"])]), "'RS256', 'ES256' or 'EdDSA'"),
        (json.dumps([entry(algorithms=[])]), "at least 1"),
        (json.dumps([entry(algorithms=["RS256", "RS256"])]), "listed twice"),
        (json.dumps([entry(jwks_url="http://auth.example.test/jwks")]), "must be https"),
        (json.dumps([entry(jwks_url="ftp://auth.example.test/jwks")]), "not an http(s) URL"),
        (json.dumps([entry(jwks_url=None, keys=[NOT_PEM])]), "not a PEM public key"),
        (json.dumps([entry(jwks_url=None, keys=[small_rsa_pem()])]), "1024 bits"),
        (json.dumps([entry(jwks_url=None, keys=[])]), "1 to 32 PEM keys"),
        (json.dumps([entry(jwks_url=None, keys={"keys": [OCT]})]), "private or secret"),
        (json.dumps([entry(jwks_url=None, keys={"not": "a jwks"})]), "is not a JWKS"),
        (json.dumps([entry(), entry()]), "listed twice"),
        (json.dumps([entry(audiance="typo")]), "audiance"),
    ],
    ids=["not-json", "not-a-list", "no-audience", "both-sources", "no-source", "hs256", "none",
         "no-algorithm", "algorithm-twice", "plain-http", "ftp", "bad-pem", "short-rsa", "no-pem", "oct-key",
         "not-jwks", "issuer-twice", "unknown-field"],
)  # fmt: skip
def test_a_wrong_jwt_issuers_setting_stops_the_service_with_a_clear_message(
    issuers: str, said: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ATOUT_JWT_ISSUERS", issuers)
    with pytest.raises((ValidationError, SettingsError)) as caught:
        Settings()
    assert said in str(caught.value)


def test_the_settings_refuse_private_keys_and_keys_no_algorithm_fits(
    keys: Keys, monkeypatch: pytest.MonkeyPatch
) -> None:
    private = keys.rsa.as_pem(private=True).decode()
    for given, said in (
        ([private], "is a private key"),
        ([pem(keys.ec)], "fits none of its algorithms (RS256)"),
        ({"keys": [keys.rsa.as_dict(private=True)]}, "private or secret"),
    ):
        monkeypatch.setenv(
            "ATOUT_JWT_ISSUERS", json.dumps([entry(jwks_url=None, keys=given, algorithms=["RS256"])])
        )
        with pytest.raises(ValidationError, match=re.escape(said)):
            Settings()


def test_good_settings_read_from_the_environment(keys: Keys, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(
        "ATOUT_JWT_ISSUERS",
        json.dumps([entry(), entry(issuer="pem", jwks_url=None, keys=[pem(keys.ed)], algorithms=["EdDSA"])]),
    )
    monkeypatch.setenv("ATOUT_JWKS_REFETCH_SECONDS", "10")
    settings = Settings()
    assert [issuer.issuer for issuer in settings.jwt_issuers] == [ISSUER, "pem"]
    assert settings.jwt_issuers[0].algorithms == ("RS256", "ES256", "EdDSA")
    assert settings.jwks_refetch_seconds == 10 and settings.jwt_leeway_seconds == 60
    monkeypatch.setenv("ATOUT_JWT_LEEWAY_SECONDS", "3600")
    with pytest.raises(ValidationError, match="jwt_leeway_seconds"):
        Settings()
