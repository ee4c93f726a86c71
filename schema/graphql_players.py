# mypy: disable-error-code="untyped-decorator,arg-type,valid-type,no-any-return"
"""Strawberry types of players in the GraphQL API: the same shapes as the REST bodies of
``schema.players`` (a guest created, the player's own record, their list of games, invitations, and the
notices of their stream), each built from its REST model so the two APIs say the same thing."""

from __future__ import annotations

from typing import Any

import strawberry

from schema import players, views
from schema.graphql_models import GameView, LegalAction, build


@strawberry.type(description="A guest player, just created: the token is shown once.")
class PlayerCreated:
    player_id: strawberry.ID
    name: str
    token: str = strawberry.field(
        description="Stored only hashed: send it as `Authorization: Bearer <token>` to join tables, play "
        "them from any device, and read `me`."
    )

    @classmethod
    def of(cls, p: players.PlayerCreated) -> PlayerCreated:
        return cls(player_id=strawberry.ID(p.player_id), name=p.name, token=p.token)


@strawberry.type(description="An identity of the app's identity provider: the issuer and the subject.")
class Identity:
    issuer: str
    subject: str


@strawberry.type(description="The player you are (your bearer token's).")
class Me:
    player_id: strawberry.ID
    name: str
    locale: str
    guest: bool = strawberry.field(
        description="True until the player is linked to an identity of the app's provider (linkIdentity)."
    )
    identity: Identity | None
    created_at: float
    invitations: str = strawberry.field(
        description="Who may invite you: `everyone` (but the players you block: myBlocks) or `nobody`."
    )

    @classmethod
    def of(cls, m: players.Me) -> Me:
        identity = (
            None if m.identity is None else Identity(issuer=m.identity.issuer, subject=m.identity.subject)
        )
        return cls(
            player_id=strawberry.ID(m.player_id),
            name=m.name,
            locale=m.locale,
            guest=m.guest,
            identity=identity,
            created_at=m.created_at,
            invitations=m.invitations,
        )


@strawberry.type(description="One of your games, as your list shows it.")
class MyGame:
    game_id: strawberry.ID
    game: str
    status: str = strawberry.field(description="waiting, active or finished.")
    version: int
    seat: int = strawberry.field(description="Your seat.")
    to_act: int | None
    your_turn: bool
    updated_at: float

    @classmethod
    def of(cls, g: players.MyGame) -> MyGame:
        return cls(
            game_id=strawberry.ID(g.game_id),
            game=g.game,
            status=g.status,
            version=g.version,
            seat=g.seat,
            to_act=g.to_act,
            your_turn=g.your_turn,
            updated_at=g.updated_at,
        )


@strawberry.type(description="A page of your games.")
class MyGamesPage:
    games: list[MyGame] = strawberry.field(
        description="Your turn first, then games waiting or in play, then over; each group most recently "
        "changed first."
    )
    next_cursor: str | None = strawberry.field(
        description="Pass it as `cursor` for the next page; null on the last page. Opaque."
    )

    @classmethod
    def of(cls, page: players.MyGamesPage) -> MyGamesPage:
        return cls(games=[MyGame.of(g) for g in page.games], next_cursor=page.next_cursor)


@strawberry.type(description="An invitation to a table: accept it to join, even a private table.")
class Invitation:
    invitation_id: strawberry.ID
    game_id: strawberry.ID
    game: str
    from_player: strawberry.ID = strawberry.field(description="The inviting player's id.")
    from_name: str = strawberry.field(description="Their name now (empty if they deleted their account).")
    expires_at: float

    @classmethod
    def of(cls, i: players.Invitation) -> Invitation:
        return cls(
            invitation_id=strawberry.ID(i.invitation_id),
            game_id=strawberry.ID(i.game_id),
            game=i.game,
            from_player=strawberry.ID(i.from_player),
            from_name=i.from_name,
            expires_at=i.expires_at,
        )


def _id(value: Any) -> strawberry.ID | None:
    return None if value is None else strawberry.ID(str(value))


@strawberry.type(
    description="A notice of `myEvents`. `your_turn`: your seat, its view and legal actions (answer with "
    "one submitAction); `invitation`: a table you are invited to (acceptInvitation); `game_started`; "
    "`game_over` (with the winners); `rematch_offered` (the rematch's id: join it with `rematch` on the "
    "old game); `reminder`: your turn's clock runs out at `deadline`."
)
class PlayerNotice:
    id: str = strawberry.field(description="The notice's stream id: resume after it with `after`.")
    type: str
    game_id: strawberry.ID
    game: str | None = strawberry.field(description="With invitation: the game played at the table.")
    version: int | None
    seat: int | None = strawberry.field(description="With your_turn and reminder: your seat to act.")
    view: GameView | None = strawberry.field(description="With your_turn: that seat's view.")
    legal_actions: list[LegalAction] | None = strawberry.field(description="With your_turn.")
    winners: list[int] | None = strawberry.field(description="With game_over.")
    invitation_id: strawberry.ID | None = strawberry.field(description="With invitation.")
    from_player: strawberry.ID | None = strawberry.field(description="With invitation.")
    from_name: str | None = strawberry.field(description="With invitation.")
    expires_at: float | None = strawberry.field(description="With invitation.")
    rematch_id: strawberry.ID | None = strawberry.field(description="With rematch_offered.")
    deadline: float | None = strawberry.field(
        description="With reminder: when the turn's clock runs out (seconds since the epoch)."
    )

    @classmethod
    def of(cls, n: dict[str, Any]) -> PlayerNotice:
        """A notice as the player's stream delivers it (``Games.account_notice``, with its ``id``)."""
        return cls(
            id=n["id"],
            type=n["type"],
            game_id=strawberry.ID(n["game_id"]),
            game=n.get("game"),
            version=n.get("version"),
            seat=n.get("seat"),
            view=build(views.View, n.get("view")),
            legal_actions=build(list[views.LegalAction], n.get("legal_actions")),
            winners=n.get("winners"),
            invitation_id=_id(n.get("invitation_id")),
            from_player=_id(n.get("from_player")),
            from_name=n.get("from_name"),
            expires_at=n.get("expires_at"),
            rematch_id=_id(n.get("rematch_id")),
            deadline=n.get("deadline"),
        )
