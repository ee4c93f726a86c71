"""The problem codes of tournaments (service/games/tournaments.py): a part of the catalogue
(service/base/catalogue.py), which lists them with the others."""

from __future__ import annotations

from service.base.error_codes import ErrorCode, Retry

TOURNAMENT_ENTRIES = (
    ErrorCode(
        "tournament_not_found",
        404,
        Retry.NO,
        "No such tournament",
        "Tournoi introuvable",
        "No tournament has this id: it never existed, or its record expired (`ATOUT_TOURNAMENT_TTL`).",
        "Check the id the creation returned.",
    ),
    ErrorCode(
        "invalid_tournament",
        422,
        Retry.NO,
        "The tournament cannot be played as asked",
        "Le tournoi ne peut pas se jouer ainsi",
        "Its game is not a partnership game (Le 500, Le Rough), its rounds do not fit its format and "
        "entrants, an entrant is entered twice, or it would play more games than the server allows.",
        "Read `detail`, change the request and create it again.",
    ),
    ErrorCode(
        "too_many_tournaments",
        429,
        Retry.AFTER,
        "Too many tournaments running",
        "Trop de tournois en cours",
        "This bot account already has the most tournaments running that one account may "
        "(`ATOUT_TOURNAMENT_ACCOUNT_RUNNING`).",
        "Wait until one of them ends (its `tournament_finished` event), then retry after `Retry-After`.",
    ),
    ErrorCode(
        "tournament_forbidden",
        403,
        Retry.NO,
        "Only the administrator or a bot account creates a tournament",
        "Seuls l'administrateur ou un compte de bot créent un tournoi",
        "The token is neither the administrator's nor a bot account's API key.",
        "Send the administrator token or your bot's API key as `Authorization: Bearer <token>`.",
    ),
)
