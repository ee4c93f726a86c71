"""The problem codes of rated games and ladders (service/games/ratings.py): a part of the catalogue
(service/base/catalogue.py), which lists them with the others."""

from __future__ import annotations

from service.base.error_codes import ErrorCode, Retry

RATING_ENTRIES = (
    # --- rated games and ladders (service/games/ratings.py, README "Ratings and ladders") --------------
    ErrorCode(
        "rated_needs_identity",
        403,
        Retry.NO,
        "A rated game needs an identity",
        "Une partie classée exige une identité",
        "The game is rated and the join carries no player credential nor bot API key: an anonymous seat "
        "cannot be rated. On a server with `ATOUT_RATED_IDENTITIES=identified`, a guest player cannot "
        "either.",
        "Join with a player's token or JWT, or a bot account's API key (there: a JWT, or a guest linked "
        "to an identity with POST /v1/me/identity); or play an unrated game.",
    ),
    ErrorCode(
        "rated_game_refused",
        422,
        Retry.NO,
        "This game cannot be rated",
        "Cette partie ne peut pas être classée",
        "A rated game seats each built-in bot level at most once and is dealt from a fresh key (no "
        "chosen `seed` or `deal`).",
        "Change the seats (or drop `seed` and `deal`), or create the game unrated.",
    ),
    ErrorCode(
        "rating_not_found",
        404,
        Retry.NO,
        "No rating for this account",
        "Aucun classement pour ce compte",
        "The account has played no rated match of this game kind, is gone, or is not an account id "
        "(`player:<id>`, `bot:<id>`, `builtin:<level>`).",
        "Check the account id and game kind; a rating appears after the account's first rated match.",
    ),
)
