"""Every problem code the service answers: its HTTP status, its title in each language, what it
means and what a client should do. The one source of truth: ``service.base.problems`` reads statuses
and titles here, the OpenAPI document's ``Problem.code`` and the GraphQL ``ErrorCode`` enum list
exactly these codes, and ``docs/errors.md`` is generated from this table
(``python -m service.base.catalogue_doc``). tests/service/test_errors_catalogue.py scans the source
for every code produced and fails on one missing here, or on one here that nothing produces (unless
it is reserved, with the reason).

Codes are part of the API: never rename or remove one; a code no longer answered becomes reserved.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType

from service.base import languages


class Retry(StrEnum):
    """Whether the same request can succeed later, and when."""

    NO = "no"  # it fails the same way until the request (body, token, target) changes
    AGAIN = "yes"  # the same request, sent again whole and promptly (no delay is asked for)
    AFTER = "after Retry-After"  # the same request may succeed once the delay has passed
    RELOAD = "after reloading"  # read the game again, then decide (the answer may differ)
    RESUME = "resume"  # reconnect the stream after its last event, or resync from the view
    ONCE = "once"  # an unexpected fault: once more (same Idempotency-Key), then report it


@dataclass(frozen=True)
class ErrorCode:
    """One code of the catalogue. ``reserved`` says why a code no answer carries is kept."""

    code: str
    status: int
    retry: Retry
    title: str
    title_fr: str
    meaning: str
    action: str
    reserved: str = ""

    def title_in(self, language: str) -> str:
        return self.title_fr if language == languages.FRENCH else self.title


@dataclass(frozen=True)
class Reason:
    """An ``illegal_action``-family ``reason``: the engine's code for why it refused, and the problem
    code it is answered with."""

    reason: str
    code: str
    meaning: str


_ENTRIES = (
    # --- the request itself ----------------------------------------------------------------------
    ErrorCode("malformed_body", 400, Retry.NO,
        "The request body is not valid JSON",
        "Le corps de la requête n'est pas du JSON valide",
        "The body is not JSON, not a JSON object, nested too deep or holds a lone UTF-16 surrogate.",
        "Send one JSON object encoded as UTF-8, as the operation's request schema shows.",
    ),
    ErrorCode("invalid_request", 422, Retry.NO,
        "The request does not match the expected shape",
        "La requête n'a pas la forme attendue",
        "A field, query parameter or header is missing, of the wrong type or out of range; `errors` lists "
        "each issue with its `loc`.",
        "Fix the fields named in `errors` (the `detail` names the first) and send again.",
    ),
    ErrorCode("unsupported_media_type", 415, Retry.NO,
        "Unsupported content type",
        "Type de contenu non pris en charge",
        "A request with a body did not say `Content-Type: application/json`.",
        "Send the body as JSON with `Content-Type: application/json`.",
    ),
    ErrorCode("payload_too_large", 413, Retry.NO,
        "The request body is too large",
        "Le corps de la requête est trop grand",
        "The body is larger than `ATOUT_MAX_BODY_BYTES` (the limit is in `limit`).",
        "Send a smaller body; no request of the API needs a large one.",
    ),
    ErrorCode("header_too_large", 431, Retry.NO,
        "The request header is too large",
        "L'en-tête de la requête est trop grand",
        "The request line and headers are larger than `ATOUT_MAX_HEADER_BYTES`; the connection is closed.",
        "Send fewer or shorter headers (cookies of other sites are a usual cause).",
    ),
    ErrorCode("request_timeout", 408, Retry.AGAIN,
        "The request was not sent in time",
        "La requête n'a pas été envoyée à temps",
        "The header (`ATOUT_HEADER_TIMEOUT`) or body (`ATOUT_BODY_TIMEOUT`) did not arrive in time; the "
        "connection is closed.",
        "Retry on a new connection; send the whole request at once.",
    ),
    ErrorCode("not_found", 404, Retry.NO,
        "No such resource",
        "Ressource introuvable",
        "No route has this path.",
        "Check the URL: the REST API lives under /v1, GraphQL at /graphql (openapi/openapi.json lists the "
        "paths).",
    ),
    ErrorCode("method_not_allowed", 405, Retry.NO,
        "Method not allowed",
        "Méthode non autorisée",
        "The path exists but not with this method (GraphQL: a mutation sent with GET).",
        "Use a method the `Allow` header names.",
    ),
    # --- who is calling ------------------------------------------------------------------------------
    ErrorCode("missing_token", 401, Retry.NO,
        "A bearer token is required",
        "Un jeton d'accès (bearer) est requis",
        "The operation needs a seat token, a bot's API key or the administrator token, and none was sent.",
        "Send `Authorization: Bearer <token>` (the seat token from the join, or the bot's key).",
    ),
    ErrorCode("invalid_token", 401, Retry.NO,
        "The bearer token is not valid for this game",
        "Le jeton d'accès n'est pas valable pour cette partie",
        "The token holds no seat in this game (never did, or the seat was given up), is not a bot API key, "
        "or the `Authorization` header is not `Bearer <token>`.",
        "Use the token the join of this game returned, or join again; do not retry the same token.",
    ),
    ErrorCode("wrong_seat", 403, Retry.NO,
        "This seat token does not belong to that seat",
        "Ce jeton ne correspond pas à ce siège",
        "The token holds another seat of this game than the one asked for; `token_seat` is the one it holds.",
        "Ask for the seat in `token_seat`, or omit the seat.",
    ),
    ErrorCode("admin_required", 403, Retry.NO,
        "Only the administrator may do this",
        "Seul l'administrateur peut faire cela",
        "A chosen seed or explicit deal, deleting a bot account, managing webhooks, or /metrics where only "
        "the administrator may read it.",
        "Leave out `seed` and `deal` (add your own `client_seed` when you join), or use the administrator "
        "token.",
    ),
    ErrorCode("invalid_invite", 403, Retry.NO,
        "The invite code is missing or wrong",
        "Le code d'invitation est absent ou faux",
        "The game is private (unlisted) and the join did not carry its invite code.",
        "Ask the game's creator for the invite code and send it as `invite_code`.",
    ),
    # --- games and seats ------------------------------------------------------------------------------
    ErrorCode("game_not_found", 404, Retry.NO,
        "No such game",
        "Partie introuvable",
        "No game has this id: it never existed, or expired (an abandoned or finished game is dropped after a"
        " while).",
        "List the open games (GET /v1/games) or create one.",
    ),
    ErrorCode("unknown_game", 422, Retry.NO,
        "Unknown game id",
        "Identifiant de jeu inconnu",
        "The `game` is not one of the games this service plays.",
        "Use an id of GET /v1/rules: `five_hundred`, `rough` or `euchre5`.",
    ),
    ErrorCode("invalid_options", 422, Retry.NO,
        "Invalid game options",
        "Options de jeu invalides",
        "An option is unknown for this game or its value is not allowed (or the seed is not a whole number).",
        "Use the options and values GET /v1/rules lists for the game; `rule` names the rule they change.",
    ),
    ErrorCode("invalid_deal", 422, Retry.NO,
        "Invalid explicit deal",
        "Donne explicite invalide",
        "An administrator's explicit deal is not a dealer and a partition of the whole deck into hands and "
        "kitty.",
        "Deal each card of the game's deck exactly once (docs/rules.md ALL-3).",
    ),
    ErrorCode("invalid_seats", 422, Retry.NO,
        "Invalid seat list",
        "Liste de sièges invalide",
        "The seat list does not have one entry per player, or the seat asked for is not a seat of this game.",
        "Give one entry per player (GET /v1/rules: `players`), seats 0 to players - 1.",
    ),
    ErrorCode("seat_taken", 409, Retry.NO,
        "That seat is already taken",
        "Ce siège est déjà pris",
        "Someone holds the seat asked for (or, in a rematch, your old seat was taken).",
        "Join another seat, or omit `seat` to take the first open one.",
    ),
    ErrorCode("game_full", 409, Retry.NO,
        "Every seat is taken",
        "Tous les sièges sont pris",
        "The game has no open seat left.",
        "Watch it as a spectator, or join or create another game.",
    ),
    ErrorCode("game_not_started", 409, Retry.RELOAD,
        "The game waits for players",
        "La partie attend des joueurs",
        "The game deals when every seat is taken; nobody acts before.",
        "Wait for the `game_started` event (or reload the view), then act.",
    ),
    ErrorCode("game_over", 409, Retry.NO,
        "The match is over",
        "La partie est terminée",
        "The match has ended: no action, and no seat to give up.",
        "Read GET /v1/games/{id}/log for the replay, or offer a rematch.",
    ),
    ErrorCode("game_not_over", 409, Retry.RELOAD,
        "The match is not over yet",
        "La partie n'est pas encore terminée",
        "The replay log (with the seed) and a rematch wait for the end of the match.",
        "Ask again once the `match_over` event has come.",
    ),
    # --- playing ---------------------------------------------------------------------------------------
    ErrorCode("illegal_action", 422, Retry.RELOAD,
        "Illegal action",
        "Action illégale",
        "The rules forbid this action now, or it does not parse; `rule` is the docs/rules.md id it breaks "
        "and `reason` the engine's reason (below).",
        "Choose one of GET /v1/games/{id}/actions (the legal actions); show the `detail` to the player.",
    ),
    ErrorCode("not_your_turn", 409, Retry.RELOAD,
        "It is not your turn",
        "Ce n'est pas votre tour",
        "Another seat is to act.",
        "Wait for your turn (the event stream, or a bot's `your_turn`), then act on the new view.",
    ),
    ErrorCode("version_conflict", 409, Retry.RELOAD,
        "The game has moved on",
        "La partie a avancé",
        "`expected_version` is not the game's version (`current_version`), or the seats kept changing during"
        " a join.",
        "Reload the view, decide again on it, and send the new action with the new version.",
    ),
    ErrorCode("idempotency_key_reused", 422, Retry.NO,
        "This Idempotency-Key was used for a different request",
        "Cette clé d'idempotence a servi pour une autre requête",
        "The `Idempotency-Key` already named another action of this game.",
        "Use a fresh key for each new action; reuse a key only to retry the very same action.",
    ),
    # --- GraphQL ---------------------------------------------------------------------------------------
    ErrorCode("invalid_query", 400, Retry.NO,
        "The GraphQL request is not a valid document for this schema",
        "La requête GraphQL n'est pas un document valide pour ce schéma",
        "The GraphQL request has no query, does not parse, or does not validate against "
        "schema/schema.graphql.",
        "Fix the document against schema/schema.graphql; send one operation per HTTP request.",
    ),
    ErrorCode("query_too_complex", 400, Retry.NO,
        "The GraphQL query is too large or too deep",
        "La requête GraphQL est trop grande ou trop profonde",
        "The document is over a limit of its size, depth, aliases or cost (`limit` names the setting, `max` "
        "its value).",
        "Select fewer fields, or split the query in several.",
    ),
    ErrorCode("introspection_disabled", 400, Retry.NO,
        "GraphQL introspection is switched off",
        "L'introspection GraphQL est désactivée",
        "This server answers no `__schema` or `__type` (ATOUT_GRAPHQL_INTROSPECTION=false).",
        "Use the published schema/schema.graphql.",
    ),
    # --- limits and capacity -----------------------------------------------------------------------------
    ErrorCode("rate_limited", 429, Retry.AFTER,
        "Too many requests",
        "Trop de requêtes",
        "Too many requests of this kind from this token or address; the `RateLimit-*` headers say which "
        "limit.",
        "Wait `Retry-After` seconds, then send the same request.",
    ),
    ErrorCode("too_many_connections", 429, Retry.AFTER,
        "Too many open connections",
        "Trop de connexions ouvertes",
        "This address holds as many connections (or WebSockets) to the server as it may.",
        "Close some, reuse one connection (several subscriptions share one WebSocket), retry after `Retry-"
        "After`.",
    ),
    ErrorCode("too_many_streams", 429, Retry.AFTER,
        "Too many open streams",
        "Trop de flux ouverts",
        "This client holds as many event streams as it may (`limit`).",
        "Close a stream (a bot account needs one: GET /v1/bots/me/stream), then retry after `Retry-After`.",
    ),
    ErrorCode("too_many_games", 429, Retry.AFTER,
        "Too many open games",
        "Trop de parties en cours",
        "This creator already has as many unfinished games as one may (`limit`).",
        "Finish or leave a game (an abandoned one expires), then retry after `Retry-After`.",
    ),
    ErrorCode("server_full", 503, Retry.AFTER,
        "The server is at capacity",
        "Le serveur est à pleine capacité",
        "The server holds its most connections, streams or unfinished games, or its store is full.",
        "Retry after `Retry-After` seconds; another replica may have room.",
    ),
    ErrorCode("store_unavailable", 503, Retry.AFTER,
        "The game store is unavailable",
        "Le stockage des parties est indisponible",
        "Redis cannot be reached, is loading or is failing over; nothing was changed, or the change is safe "
        "to send again.",
        "Retry after `Retry-After` seconds with the same `Idempotency-Key`: a move is applied at most once.",
    ),
    # --- streams ---------------------------------------------------------------------------------------
    ErrorCode("stream_lagged", 503, Retry.RESUME,
        "The stream fell too far behind",
        "Le flux a pris trop de retard",
        "The client read events more slowly than they came; the stream was ended (`last_event_id` is its "
        "last).",
        "Reconnect after `retry_after` seconds with `Last-Event-ID` (GraphQL: `after`) = `last_event_id`: no"
        " gap.",
    ),
    ErrorCode("server_closing", 503, Retry.RESUME,
        "This server is shutting down; reconnect",
        "Ce serveur s'arrête ; reconnectez-vous",
        "The server is stopping (a rolling update); its streams end with this notice.",
        "Reconnect after `retry_after` seconds with `Last-Event-ID` = `last_event_id`; another replica "
        "resumes.",
    ),
    ErrorCode("stream_window_passed", 410, Retry.RESUME,
        "The events after this id are no longer kept",
        "Les événements après cet identifiant ne sont plus conservés",
        "A running match keeps only its last events, and the resume point is older.",
        "Read the view (GET /v1/games/{id}/view), then follow after `last_event_id`, skipping versions the "
        "view has.",
    ),
    ErrorCode("events_expired", 410, Retry.NO,
        "This finished game's events were compacted away",
        "Les événements de cette partie terminée ont été compactés",
        "The match is over and its event stream was dropped; the final state and the log remain.",
        "Read GET /v1/games/{id} for the final state and GET /v1/games/{id}/log for the whole match.",
    ),
    # --- bots ------------------------------------------------------------------------------------------
    ErrorCode("bot_not_found", 404, Retry.NO,
        "No such bot account",
        "Compte de bot introuvable",
        "No bot account has this id: it never existed, was deleted, or expired.",
        "Register a bot again (POST /v1/bots).",
    ),
    # --- webhooks (the administrator's endpoints) ------------------------------------------------------
    ErrorCode("webhook_not_found", 404, Retry.NO,
        "No such webhook endpoint",
        "Point de terminaison de webhook introuvable",
        "No webhook endpoint has this id: it never existed or was deleted.",
        "List the endpoints (GET /v1/admin/webhooks) or register one.",
    ),
    ErrorCode("dead_letter_not_found", 404, Retry.NO,
        "No such dead letter",
        "Lettre morte introuvable",
        "No dead letter has this id: it was redelivered already, or dropped as older than the last "
        "`ATOUT_WEBHOOK_DEAD_LETTERS`.",
        "List the dead letters (GET /v1/admin/webhooks/dead-letters) and use an id from the list.",
    ),
    ErrorCode("webhook_address_refused", 422, Retry.NO,
        "The webhook URL's host is not a public address",
        "L'hôte de l'URL du webhook n'est pas une adresse publique",
        "The URL's host does not resolve, or resolves to a loopback, private, link-local or other "
        "non-public address, which this server does not send to (`ATOUT_WEBHOOK_ALLOW_PRIVATE`).",
        "Register a URL whose host resolves to public addresses only.",
    ),
    ErrorCode("webhook_limit", 409, Retry.NO,
        "Too many webhook endpoints",
        "Trop de points de terminaison de webhook",
        "As many webhook endpoints are registered as `ATOUT_WEBHOOK_MAX_ENDPOINTS` allows (`limit`).",
        "Delete an endpoint you no longer use (DELETE /v1/admin/webhooks/{id}), then register again.",
    ),
    # --- the server ------------------------------------------------------------------------------------
    ErrorCode("internal_error", 500, Retry.ONCE,
        "Internal error",
        "Erreur interne",
        "A fault of the service; it is logged with the request's id.",
        "Retry once (with the same `Idempotency-Key`); if it persists, report the `instance`.",
    ),
    ErrorCode("client_closed", 499, Retry.NO,
        "The client closed the connection before the answer",
        "Le client a fermé la connexion avant la réponse",
        "The client left before the answer.",
        "Nothing: no client ever receives it.",
        reserved="No answer carries it (the client is gone): it is the 499 status of the server's metrics "
                  "and the `client_closed` log line.",
    ),
    ErrorCode("unavailable", 503, Retry.AFTER,
        "Service unavailable",
        "Service indisponible",
        "The service cannot serve now.",
        "Retry after `Retry-After` seconds.",
        reserved="What /readyz answered until `store_unavailable` named the store's faults; kept so that "
                  "a client's handling of it stays valid.",
    ),
)  # fmt: skip

CATALOGUE: Mapping[str, ErrorCode] = MappingProxyType({entry.code: entry for entry in _ENTRIES})

REASONS: Mapping[str, Reason] = MappingProxyType(
    {
        reason.reason: reason
        for reason in (
            Reason("illegal_action", "illegal_action", "Well-formed, your turn, but the rules forbid it."),
            Reason(
                "malformed_action",
                "illegal_action",
                "The action does not parse: unknown type, field or card.",
            ),
            Reason("not_your_turn", "not_your_turn", "A well-formed action from a seat that is not to act."),
            Reason("match_over", "game_over", "The match has ended; nobody acts any more."),
            Reason("not_started", "game_not_started", "The match deals when every seat is taken."),
            Reason("already_started", "illegal_action", "The match was already dealt."),
            Reason("unknown_game", "unknown_game", "No game has this id."),
            Reason("invalid_options", "invalid_options", "An option is unknown or its value not allowed."),
            Reason(
                "invalid_seed",
                "invalid_options",
                "The seed, match key or client seeds are not of the right form.",
            ),
            Reason("invalid_deal", "invalid_deal", "The explicit deal is not a partition of the deck."),
        )
    }
)
"""The engine's ``IllegalAction.code`` values, sent as the problem's ``reason``."""
