"""Identity from the players' app: a bearer JWT signed by an identity provider the operator trusts
(``ATOUT_JWT_ISSUERS``) names a player by (issuer, subject), a player who lasts beyond one table.

Above ``service.base`` only (a sibling of ``service.store``): the API asks
:meth:`IdentityVerifier.verify` for the :class:`Identity` of a token that :func:`looks_like_jwt`,
and answers its ``ProblemError`` (401 ``token_*``, 503 ``identity_provider_unavailable``) as any
other. docs/operations.md ("Identity from your app") tells the operator how keys are cached.
"""

from __future__ import annotations

from service.identity.unverified import looks_like_jwt
from service.identity.verifier import Identity, IdentityVerifier

__all__ = ["Identity", "IdentityVerifier", "looks_like_jwt"]
