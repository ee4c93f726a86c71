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
        "entrants, an entrant is entered twice, it would play more games than the server allows, or a "
        "round would start more games at once than may run at once (`ATOUT_MAX_OPEN_GAMES_PER_CREATOR` "
        "for a bot account, `ATOUT_TOURNAMENT_MAX_RUNNING_GAMES`).",
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
        "tournaments_full",
        503,
        Retry.AFTER,
        "The server runs its most tournament games",
        "Le serveur joue déjà le plus de parties de tournoi",
        "Starting this tournament's round would take the server past the tournament games it runs at "
        "once (`ATOUT_TOURNAMENT_MAX_RUNNING_GAMES`); nothing was created.",
        "Retry after `Retry-After`, once other tournaments' games have finished, or enter fewer entrants "
        "or deals.",
    ),
    ErrorCode(
        "entrant_not_allowed",
        403,
        Retry.NO,
        "This bot account may not be entered by you",
        "Vous ne pouvez pas inscrire ce compte de bot",
        "A bot account creating a tournament entered another bot account: an account plays in a "
        "tournament only with its consent, so a bot account enters itself and built-in bots only; the "
        "administrator may enter any account.",
        "Leave the other account out, or ask the administrator to create the tournament.",
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
