"""The REST endpoints of players, declared as :mod:`service.api.rest.table` declares the games': a guest's
creation, ``/v1/me`` (read, change, link an identity, delete), the player's games and stream,
invitations, and the players they block."""

from __future__ import annotations

from schema.bodies import JoinResponse
from schema.players import (
    AcceptInvitationRequest,
    BlockList,
    BlockRequest,
    Invitation,
    InvitationList,
    InviteRequest,
    LinkIdentityRequest,
    Me,
    MyGamesPage,
    NewPlayerRequest,
    PlayerCreated,
    PlayerStreamFrame,
    UpdateMeRequest,
)
from service.api.rest.operation import BODY, GAME, LIMITED, SEAT, STREAMS, Op, Param, stream_params
from service.api.rest.players import (
    accept_invitation,
    block_player,
    create_player,
    decline_invitation,
    delete_me,
    get_me,
    invite,
    link_identity,
    my_blocks,
    my_games,
    my_invitations,
    unblock_player,
    update_me,
)
from service.api.rest.streams import player_stream

# A player's credential: a player token, or an identity provider's JWT (each refusal its own code).
PLAYER = (
    "missing_token",
    "invalid_token",
    "token_malformed",
    "token_unknown_issuer",
    "token_algorithm_refused",
    "token_unknown_key",
    "token_bad_signature",
    "token_expired",
    "token_not_yet_valid",
    "token_wrong_audience",
    "identity_provider_unavailable",
)
JOINED = ("game_full", "seat_taken", "already_seated", "invalid_seats", "too_many_games", "version_conflict")

PLAYER_OPS: tuple[Op, ...] = (
    Op(
        "POST",
        "/v1/players",
        create_player,
        "createPlayer",
        "Create a guest player: its id and token (shown once)",
        "players",
        PlayerCreated,
        201,
        NewPlayerRequest,
        (*BODY, LIMITED),
        description="For apps without an identity provider of their own, and for /play. Join tables "
        "with the token (`Authorization: Bearer <token>`): the seat is the player's, and the same token "
        "plays it from any device. Link the guest to an identity later with linkIdentity.",
    ),
    Op("GET", "/v1/me", get_me, "getMe", "The player you are", "players", Me, errors=PLAYER, auth="player"),
    Op(
        "PATCH",
        "/v1/me",
        update_me,
        "updateMe",
        "Change your display name, locale, or who may invite you",
        "players",
        Me,
        request=UpdateMeRequest,
        errors=(*PLAYER, *BODY),
        auth="player",
        description="Seats already taken keep the name they were taken with. `invitations`: `nobody` "
        "refuses every invitation (403 invitation_refused to the inviter), `everyone` takes them again "
        "(but the players you block).",
    ),
    Op(
        "DELETE",
        "/v1/me",
        delete_me,
        "deleteMe",
        "Delete your account: your name leaves every game, your credentials stop working",
        "players",
        None,
        204,
        errors=PLAYER,
        auth="player",
        description="Your seats in games not over are played out by a random bot; your finished games "
        "stay for the other players, with your seat nameless.",
    ),
    Op(
        "POST",
        "/v1/me/identity",
        link_identity,
        "linkIdentity",
        "Link this guest to an identity of your app's provider (a JWT)",
        "players",
        Me,
        request=LinkIdentityRequest,
        errors=(*PLAYER, *BODY, "identity_taken"),
        auth="player",
        description="From then on the guest token and the identity's JWTs are the same player.",
    ),
    Op(
        "GET",
        "/v1/me/games",
        my_games,
        "listMyGames",
        "Your games: those where it is your turn first, then waiting or in play, then over",
        "players",
        MyGamesPage,
        errors=(*PLAYER, "invalid_request"),
        auth="player",
        params=(
            Param(
                "status",
                "query",
                {"type": "string", "enum": ["waiting", "active", "finished"]},
                "Only games of this status.",
            ),
            Param("limit", "query", {"type": "integer", "minimum": 1, "maximum": 100}, "At most this many."),
            Param(
                "cursor", "query", {"type": "string", "maxLength": 200}, "The `next_cursor` of the last page."
            ),
        ),
    ),
    Op(
        "GET",
        "/v1/me/events",
        player_stream,
        "streamMyEvents",
        "One stream for all your games: your turns (with the legal actions), invitations, games started "
        "and over, rematches, reminders",
        "players",
        PlayerStreamFrame,
        errors=(*PLAYER, "invalid_request", LIMITED, *STREAMS),
        auth="player",
        params=(*stream_params("notice", "Your credential"),),
        stream=True,
        description="Server-Sent Events by default; NDJSON with `Accept: application/x-ndjson`. A "
        "`your_turn` whose game has moved on is left out. Resume after a drop with Last-Event-ID: no "
        "notice is missed or repeated (the last 10,000 are kept).",
    ),
    Op(
        "POST",
        "/v1/games/{game_id}/invitations",
        invite,
        "invitePlayer",
        "Invite a player, by id, to this table (from your seat)",
        "players",
        Invitation,
        201,
        InviteRequest,
        (
            *GAME,
            *SEAT,
            *BODY,
            LIMITED,
            "game_not_waiting",
            "game_full",
            "player_not_found",
            "already_seated",
            "invitation_needs_player",
            "invitation_refused",
            "too_many_invitations_sent",
            "too_many_pending_invitations",
            "too_many_invitations",
        ),
        auth="seat",
        description="The invitation reaches the player's stream and list, and expires after "
        "ATOUT_INVITATION_TTL seconds (7 days by default). Accepting it joins even a private table. Only "
        "a seat joined with a player's credential invites. Inviting the same player to the same table "
        "again refreshes the one invitation (same id, later expiry). Bounds: ATOUT_INVITATIONS_PER_HOUR "
        "sent an hour, ATOUT_INVITATIONS_PER_INVITER open in one player's list, "
        "ATOUT_PLAYER_NOTICES_PER_SENDER notices an hour to one player (past it the invitation is listed "
        "without a notice).",
    ),
    Op(
        "GET",
        "/v1/me/blocks",
        my_blocks,
        "listMyBlocks",
        "The players you block",
        "players",
        BlockList,
        errors=PLAYER,
        auth="player",
    ),
    Op(
        "POST",
        "/v1/me/blocks",
        block_player,
        "blockPlayer",
        "Block a player: refuse their invitations and rematch notices",
        "players",
        None,
        204,
        BlockRequest,
        (*PLAYER, *BODY, "player_not_found", "too_many_blocks"),
        auth="player",
        description="Their invitations you hold go; their next ones get 403 invitation_refused (which "
        "does not say they are blocked). At most ATOUT_PLAYER_MAX_BLOCKS players.",
    ),
    Op(
        "DELETE",
        "/v1/me/blocks/{player_id}",
        unblock_player,
        "unblockPlayer",
        "Unblock a player: take their invitations again",
        "players",
        None,
        204,
        errors=PLAYER,
        auth="player",
        description="204 also when they were not blocked, or are gone.",
    ),
    Op(
        "GET",
        "/v1/me/invitations",
        my_invitations,
        "listMyInvitations",
        "Your open invitations, soonest to expire first",
        "players",
        InvitationList,
        errors=PLAYER,
        auth="player",
    ),
    Op(
        "POST",
        "/v1/me/invitations/{invitation_id}/accept",
        accept_invitation,
        "acceptInvitation",
        "Accept an invitation: join its table with your player credential",
        "players",
        JoinResponse,
        201,
        AcceptInvitationRequest,
        (*PLAYER, *BODY, *GAME, "invitation_not_found", *JOINED),
        auth="player",
    ),
    Op(
        "POST",
        "/v1/me/invitations/{invitation_id}/decline",
        decline_invitation,
        "declineInvitation",
        "Decline an invitation",
        "players",
        None,
        204,
        errors=(*PLAYER, "invitation_not_found"),
        auth="player",
    ),
)
