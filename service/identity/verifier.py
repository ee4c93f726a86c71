"""Who a player is, from a JWT their app got from an identity provider the operator trusts.

The order of the checks is the defence:

1. the token's shape, read without any key (``service.identity.unverified``): ``token_malformed``;
2. its ``iss`` picks the issuer's entry of ``ATOUT_JWT_ISSUERS``: ``token_unknown_issuer``;
3. its ``alg`` must be one that entry allows, **before any key is touched**: ``none``, ``HS256``
   (whatever its secret, a public key's PEM included) and every other one is ``token_algorithm_refused``;
4. a key of the issuer whose ``kid`` is the token's and whose type fits the algorithm; a ``kid`` not
   held fetches the JWKS again (at most once per interval, ``service.identity.keyring``):
   ``token_unknown_key``, or 503 ``identity_provider_unavailable`` when no key was ever fetched;
5. the signature, checked by joserfc with that key and that algorithm only: ``token_bad_signature``;
6. the claims, by joserfc's claims registry with ``ATOUT_JWT_LEEWAY_SECONDS`` of clock skew, in a
   fixed order so a token wrong twice always gets the same code: ``iss``, ``aud``
   (``token_wrong_audience``), ``exp`` (``token_expired``), ``nbf`` and ``iat``
   (``token_not_yet_valid``); ``sub`` and ``exp`` are required.

The player is then (issuer, subject); of the other claims only a string ``name`` is kept.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from joserfc import jwt
from joserfc.errors import BadSignatureError, ClaimError, ExpiredTokenError, JoseError
from joserfc.jwa import EdDSAAlgorithm
from joserfc.jws import JWSRegistry

from service.base.issuers import ALGORITHMS, PublicKey
from service.base.problems import ProblemError
from service.base.settings import Settings
from service.base.texts import Text
from service.identity.keyring import IssuerKeys
from service.identity.unverified import Unverified, read_unverified

MAX_SUBJECT_CHARS = 255
"""Longest ``sub`` accepted (OpenID Connect's limit): the subject names a player in storage."""
MAX_NAME_CHARS = 200
"""Longest ``name`` claim kept; a longer one is left out (the identity holds no name)."""
CLAIM_ORDER = ("iss", "aud", "exp", "nbf", "iat", "sub")
REQUIRED = frozenset({"iss", "aud", "sub", "exp"})


@dataclass(frozen=True)
class Identity:
    """A player as their identity provider names them: ``(issuer, subject)`` is the key; ``name`` is
    the token's ``name`` claim when it is a string of at most ``MAX_NAME_CHARS``."""

    issuer: str
    subject: str
    name: str | None = None


class _QuietEdDSA(EdDSAAlgorithm):
    """EdDSA without joserfc's warning on each use: RFC 9864 deprecates the name ``EdDSA`` (which does
    not say the curve) for ``Ed25519``, but providers still sign with it. The curve is not left to the
    token: only keys the issuer publishes are used, and each must be Ed25519 or Ed448."""

    security_warning = None  # type: ignore[assignment]  # joserfc's base class allows None


def _registry(alg: str) -> JWSRegistry:
    """A registry that knows ``alg`` alone, so no other algorithm can be reached whatever the token
    says; headers outside the registered ones are ignored (never used to find a key)."""
    registry = JWSRegistry(algorithms=[alg], strict_check_header=False)
    if alg == "EdDSA":
        registry.algorithms = {**JWSRegistry.algorithms, "EdDSA": _QuietEdDSA()}
    return registry


class IdentityVerifier:
    """Checks bearer JWTs against the issuers of ``settings.jwt_issuers``; one per process (its key
    caches are per issuer). ``await aclose()`` at shutdown stops a JWKS fetch under way."""

    def __init__(self, settings: Settings) -> None:
        self.leeway = settings.jwt_leeway_seconds
        self.issuers: Mapping[str, IssuerKeys] = {
            entry.issuer: IssuerKeys(
                entry,
                refetch_seconds=settings.jwks_refetch_seconds,
                max_age_seconds=settings.jwks_max_age_seconds,
                fetch_timeout=settings.jwks_fetch_timeout,
                max_bytes=settings.jwks_max_bytes,
            )
            for entry in settings.jwt_issuers
        }
        self._registries: dict[str, JWSRegistry] = {alg: _registry(alg) for alg in ALGORITHMS}

    @property
    def configured(self) -> bool:
        """Whether any issuer is trusted (without one every JWT is ``token_unknown_issuer``)."""
        return bool(self.issuers)

    async def prefetch(self) -> None:
        """Fetch every JWKS not held yet, all at once (at startup, so the first players do not wait
        for it; at most ``jwks_fetch_timeout``); a failure is counted and logged, and tried again when
        a token needs the keys and the refetch interval has passed."""
        await asyncio.gather(*(keys.prefetch() for keys in self.issuers.values()))

    async def aclose(self) -> None:
        for keys in self.issuers.values():
            await keys.aclose()

    async def verify(self, token: str) -> Identity:
        """The player ``token`` identifies; a ProblemError (401 ``token_*``, or 503
        ``identity_provider_unavailable`` with Retry-After) says why not."""
        claimed = read_unverified(token)
        keys = self.issuers.get(claimed.issuer)
        if keys is None:
            raise ProblemError(
                "token_unknown_issuer",
                Text("This server does not trust JWTs from {issuer!r}.", issuer=claimed.issuer[:100]),
            )
        entry = keys.issuer
        if claimed.alg not in entry.algorithms:
            raise ProblemError(
                "token_algorithm_refused",
                Text(
                    "JWTs from {issuer} must be signed with {allowed}, not {alg!r}.",
                    issuer=entry.issuer,
                    allowed=", ".join(entry.algorithms),
                    alg=claimed.alg[:20],
                ),
            )
        candidates = _fitting(await keys.current(), claimed)
        if not candidates:
            candidates = _fitting(await keys.after_unknown_key(), claimed)
        if not candidates:
            if claimed.kid is None:
                raise ProblemError(
                    "token_unknown_key",
                    Text("{issuer} publishes no {alg} key.", issuer=entry.issuer, alg=claimed.alg),
                )
            raise ProblemError(
                "token_unknown_key",
                Text(
                    "{issuer} publishes no {alg} key with the id {kid!r}.",
                    issuer=entry.issuer,
                    alg=claimed.alg,
                    kid=claimed.kid[:64],
                ),
            )
        claims = self._signed_claims(token, claimed.alg, candidates, entry.issuer)
        self._check_claims(claims, entry.issuer, entry.audience)
        name = claims.get("name")
        keep = isinstance(name, str) and 0 < len(name) <= MAX_NAME_CHARS
        return Identity(entry.issuer, claims["sub"], name if keep else None)

    def _signed_claims(
        self, token: str, alg: str, candidates: list[PublicKey], issuer: str
    ) -> dict[str, Any]:
        """The claims, once the signature verifies with one of ``candidates`` (few: the keys with the
        token's ``kid``, or of its algorithm when it names none)."""
        for candidate in candidates:
            try:
                return jwt.decode(token, candidate.key, registry=self._registries[alg]).claims
            except BadSignatureError:
                continue
            except (JoseError, ValueError):
                raise ProblemError(
                    "token_malformed", "The JWT does not decode as a signed JWT (JWS compact form)."
                ) from None
        raise ProblemError(
            "token_bad_signature",
            Text("The JWT's signature does not verify with the keys of {issuer}.", issuer=issuer),
        )

    def _check_claims(self, claims: dict[str, Any], issuer: str, audience: str) -> None:
        missing = sorted(name for name in REQUIRED if claims.get(name) is None)
        if "aud" in missing:
            raise _wrong_audience(audience)
        if missing:
            raise ProblemError(
                "token_malformed",
                Text("The JWT lacks {claims}, which this server requires.", claims=", ".join(missing)),
            )
        registry = jwt.JWTClaimsRegistry(
            leeway=self.leeway,
            iss={"essential": True, "value": issuer},
            aud={"essential": True, "value": audience},
            sub={"essential": True},
            exp={"essential": True},
        )
        try:
            for name in CLAIM_ORDER:
                if name in claims:
                    getattr(registry, f"validate_{name}")(claims[name])
            registry.validate(claims)  # the other registered claims (jti)
        except ExpiredTokenError:
            raise ProblemError(
                "token_expired", "The JWT has expired; get a fresh one from your app's sign-in."
            ) from None
        except ClaimError as error:
            raise _claim_problem(error.claim, claims, audience, self.leeway) from None
        if len(claims["sub"]) > MAX_SUBJECT_CHARS:
            raise ProblemError(
                "token_malformed",
                Text("The JWT's subject (sub) is longer than {most} characters.", most=MAX_SUBJECT_CHARS),
            )


def _fitting(keys: tuple[PublicKey, ...], claimed: Unverified) -> list[PublicKey]:
    return [key for key in keys if key.fits(claimed.alg) and key.matches(claimed.kid)]


def _wrong_audience(audience: str) -> ProblemError:
    return ProblemError(
        "token_wrong_audience",
        Text("The JWT is not meant for this server: its aud must name {audience!r}.", audience=audience),
    )


def _claim_problem(claim: str, claims: dict[str, Any], audience: str, leeway: int) -> ProblemError:
    """The problem of a claim joserfc refused (its value, or its form)."""
    if claim == "aud":
        return _wrong_audience(audience)
    value = claims.get(claim)
    numeric = not isinstance(value, bool) and (
        isinstance(value, int) or (isinstance(value, float) and math.isfinite(value))
    )
    if claim in ("nbf", "iat") and numeric:
        return ProblemError(
            "token_not_yet_valid",
            Text(
                "The JWT is not valid yet: its {claim} is more than {leeway} s ahead of this server's clock.",
                claim=claim,
                leeway=leeway,
            ),
        )
    return ProblemError(
        "token_malformed", Text("The JWT's {claim} claim is not of the right form.", claim=claim[:20])
    )
