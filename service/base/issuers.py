"""The issuers trusted to say who a player is (``ATOUT_JWT_ISSUERS``), and their public keys.

A player's app signs them in with its own identity provider and sends the provider's JWT; the
operator lists each provider it trusts: its ``iss``, the ``aud`` its tokens carry for this service,
where its public keys are (a JWKS URL, or the keys themselves) and which signature algorithms it may
use. Read here so that a wrong entry stops the service at startup with a message naming it, rather
than refusing every player later; ``service.identity`` verifies the tokens with these keys.

Only asymmetric algorithms are allowed (RS256, ES256, EdDSA): a public key can never be used as an
HMAC secret (the "HS/RS confusion"), and a key of a type that does not fit the algorithm a token
names is never tried. A key published with private parts, for encryption (``use: enc``) or shorter
than 2048 bits (RSA) is unusable: refused in the settings, skipped in a fetched JWKS.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from dataclasses import dataclass
from ipaddress import ip_address
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from cryptography import x509
from cryptography.hazmat.primitives.asymmetric import ec, ed448, ed25519, rsa
from cryptography.hazmat.primitives.serialization import load_pem_public_key
from joserfc import jwk
from joserfc.errors import JoseError
from joserfc.jwk import ECKey, OKPKey, RSAKey
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    field_validator,
    model_validator,
)

Algorithm = Literal["RS256", "ES256", "EdDSA"]
ALGORITHMS: tuple[Algorithm, ...] = ("RS256", "ES256", "EdDSA")
"""The signature algorithms a token may use; an issuer's list is a subset (all three by default)."""

MAX_KEYS = 32
"""Most keys kept for one issuer: a token without ``kid`` is tried against each key of its algorithm,
so this bounds the signature checks one token can cost."""
MIN_RSA_BITS = 2048
PRIVATE_MEMBERS = frozenset({"d", "p", "q", "dp", "dq", "qi", "oth", "k"})
LOOPBACK_NAMES = frozenset({"localhost"})


@dataclass(frozen=True)
class PublicKey:
    """One public key of an issuer: its ``kid`` (None: fits a token of any key id, as a PEM key does),
    the algorithm its JWK names (None: any that fits its type) and the key itself."""

    kid: str | None
    alg: str | None
    key: RSAKey | ECKey | OKPKey

    def fits(self, alg: str) -> bool:
        """Whether a token signed with ``alg`` may be checked with this key: the key's type and curve
        are those of the algorithm, and the JWK names no other algorithm."""
        if self.alg is not None and self.alg != alg:
            return False
        if alg == "RS256":
            return isinstance(self.key, RSAKey)
        if alg == "ES256":
            return isinstance(self.key, ECKey) and self.key.curve_name == "P-256"
        if alg == "EdDSA":
            return isinstance(self.key, OKPKey) and self.key.curve_name in ("Ed25519", "Ed448")
        return False

    def matches(self, kid: str | None) -> bool:
        """Whether this key may be the one a token's ``kid`` names (either side without one: yes)."""
        return self.kid is None or kid is None or self.kid == kid


def key_from_pem(text: str) -> PublicKey:
    """A public key (or the key of a certificate) in PEM; ValueError says what is wrong with it."""
    if "PRIVATE KEY" in text:
        raise ValueError("is a private key: give its public key (-----BEGIN PUBLIC KEY-----)")
    try:
        if "BEGIN CERTIFICATE" in text:
            native: Any = x509.load_pem_x509_certificate(text.encode()).public_key()
        else:
            native = load_pem_public_key(text.encode())
    except (ValueError, TypeError):
        raise ValueError("is not a PEM public key or certificate") from None
    if isinstance(native, rsa.RSAPublicKey):
        if native.key_size < MIN_RSA_BITS:
            raise ValueError(f"is an RSA key of {native.key_size} bits; at least {MIN_RSA_BITS} are needed")
        return PublicKey(None, None, RSAKey.import_key(native))
    if isinstance(native, ec.EllipticCurvePublicKey) and isinstance(native.curve, ec.SECP256R1):
        return PublicKey(None, None, ECKey.import_key(native))
    if isinstance(native, (ed25519.Ed25519PublicKey, ed448.Ed448PublicKey)):
        return PublicKey(None, None, OKPKey.import_key(native))
    raise ValueError("is not an RSA, EC P-256 or Ed25519 key (RS256, ES256, EdDSA)")


def key_from_jwk(data: object) -> PublicKey:
    """A public signature key from its JWK; ValueError says why it cannot be used."""
    if not isinstance(data, Mapping):
        raise ValueError("is not a JSON object")
    kty, kid, alg = data.get("kty"), data.get("kid"), data.get("alg")
    if kid is not None and not (isinstance(kid, str) and 0 < len(kid) <= 256):
        raise ValueError("has a kid that is not a string of 1 to 256 characters")
    if alg is not None and alg not in ALGORITHMS:
        raise ValueError(f"is for algorithm {str(alg)[:20]!r}, not one of {', '.join(ALGORITHMS)}")
    if data.get("use", "sig") != "sig" or "verify" not in data.get("key_ops", ["verify"]):
        raise ValueError("is not a signature verification key (use / key_ops)")
    if PRIVATE_MEMBERS & set(data):
        raise ValueError("holds private or secret members: publish the public key only")
    if kty == "RSA":
        if _bits(data.get("n")) < MIN_RSA_BITS:
            raise ValueError(f"is an RSA key shorter than {MIN_RSA_BITS} bits")
    elif not (kty == "EC" and data.get("crv") == "P-256") and not (
        kty == "OKP" and data.get("crv") in ("Ed25519", "Ed448")
    ):
        raise ValueError(f"is a {str(kty)[:10]} key; only RSA, EC P-256 and OKP Ed25519 keys are used")
    try:
        key = jwk.import_key(dict(data), kty)
    except (JoseError, ValueError, TypeError):
        raise ValueError(f"is not a valid {kty} public key") from None
    assert isinstance(key, (RSAKey, ECKey, OKPKey))
    return PublicKey(kid, alg, key)


def keys_from_jwks(document: object) -> tuple[list[PublicKey], list[str]]:
    """The usable keys of a JWKS (``{"keys": [...]}``) and why each other key is not (ValueError when
    the document itself is not a JWKS or holds more than ``MAX_KEYS`` keys)."""
    if not isinstance(document, Mapping) or not isinstance(document.get("keys"), list):
        raise ValueError('is not a JWKS: a JSON object {"keys": [...]}')
    members = document["keys"]
    if len(members) > MAX_KEYS:
        raise ValueError(f"holds {len(members)} keys; at most {MAX_KEYS} are accepted")
    keys, refused = [], []
    for index, member in enumerate(members):
        try:
            keys.append(key_from_jwk(member))
        except ValueError as error:
            refused.append(f"key {index}: {error}")
    return keys, refused


def _bits(modulus: object) -> int:
    if not isinstance(modulus, str):
        return 0
    try:
        raw = base64.urlsafe_b64decode(modulus + "=" * (-len(modulus) % 4))
    except (ValueError, binascii.Error):
        return 0
    return int.from_bytes(raw, "big").bit_length()


def _loopback(host: str) -> bool:
    try:
        return ip_address(host).is_loopback
    except ValueError:
        return host in LOOPBACK_NAMES


class JwtIssuer(BaseModel):
    """One trusted issuer of ``ATOUT_JWT_ISSUERS``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    issuer: str = Field(min_length=1, max_length=512, description="The tokens' `iss`, exactly.")
    audience: str = Field(min_length=1, max_length=512, description="The `aud` tokens carry for us.")
    jwks_url: str | None = Field(default=None, max_length=2048)
    keys: list[str] | dict[str, Any] | None = None
    algorithms: tuple[Algorithm, ...] = Field(default=ALGORITHMS, min_length=1)

    _public_keys: tuple[PublicKey, ...] = PrivateAttr(default=())

    @field_validator("jwks_url")
    @classmethod
    def _https(cls, url: str | None) -> str | None:
        """Keys fetched in clear could be swapped on the way: https, but for a server on this machine."""
        if url is None:
            return None
        parts = urlsplit(url)
        if not parts.hostname or parts.scheme not in ("https", "http"):
            raise ValueError(f"jwks_url {url!r} is not an http(s) URL")
        if parts.scheme == "http" and not _loopback(parts.hostname):
            raise ValueError(f"jwks_url {url!r} must be https (plain http only to a loopback address)")
        return url

    @model_validator(mode="after")
    def _one_source_of_keys(self) -> JwtIssuer:
        if (self.jwks_url is None) == (self.keys is None):
            raise ValueError(f"issuer {self.issuer!r}: give either jwks_url or keys, not both nor neither")
        if len(set(self.algorithms)) != len(self.algorithms):
            raise ValueError(f"issuer {self.issuer!r}: an algorithm is listed twice")
        self._public_keys = tuple(self._read_keys())
        return self

    def _read_keys(self) -> list[PublicKey]:
        """The keys given in the settings, each usable by one of the issuer's algorithms."""
        if self.keys is None:
            return []
        if isinstance(self.keys, dict):
            try:
                found, refused = keys_from_jwks(self.keys)
            except ValueError as error:
                raise ValueError(f"issuer {self.issuer!r}: keys {error}") from None
            if refused:
                raise ValueError(f"issuer {self.issuer!r}: {'; '.join(refused)}")
        else:
            if not 0 < len(self.keys) <= MAX_KEYS:
                raise ValueError(f"issuer {self.issuer!r}: give 1 to {MAX_KEYS} PEM keys")
            found = []
            for index, text in enumerate(self.keys):
                try:
                    found.append(key_from_pem(text))
                except ValueError as error:
                    raise ValueError(f"issuer {self.issuer!r}: key {index} {error}") from None
        if not found:
            raise ValueError(f"issuer {self.issuer!r}: keys holds no key")
        for index, key in enumerate(found):
            if not any(key.fits(alg) for alg in self.algorithms):
                raise ValueError(
                    f"issuer {self.issuer!r}: key {index} fits none of its algorithms "
                    f"({', '.join(self.algorithms)})"
                )
        return found

    @property
    def public_keys(self) -> tuple[PublicKey, ...]:
        """The keys given in the settings (none when they are fetched from ``jwks_url``)."""
        return self._public_keys


def distinct_issuers(issuers: list[JwtIssuer]) -> list[JwtIssuer]:
    """The list, once no issuer is named twice (a token's ``iss`` picks one entry)."""
    seen: set[str] = set()
    for entry in issuers:
        if entry.issuer in seen:
            raise ValueError(f"issuer {entry.issuer!r} is listed twice")
        seen.add(entry.issuer)
    return issuers


Issuers = Annotated[list[JwtIssuer], AfterValidator(distinct_issuers)]
"""``ATOUT_JWT_ISSUERS``: a JSON list of :class:`JwtIssuer`, each issuer once."""
