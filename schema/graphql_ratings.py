# mypy: disable-error-code="untyped-decorator,misc"
"""Strawberry types of ratings and ladders: the same shapes as the REST models of ``schema.ratings``,
each built from its model so the two APIs say the same thing."""

from __future__ import annotations

import strawberry

from schema import ratings as r


@strawberry.type(description="An account's rating in one game kind (openskill: Plackett-Luce, Weng-Lin).")
class Rating:
    account_id: strawberry.ID = strawberry.field(
        description="`player:<id>`, `bot:<id>` (a bot account) or `builtin:<level>` (a built-in bot)."
    )
    game: str
    rating: float = strawberry.field(description="The display rating: mu - 3*sigma (openskill's ordinal).")
    mu: float
    sigma: float
    matches: int = strawberry.field(description="Rated matches that counted (weight above 0).")
    provisional: bool = strawberry.field(description="Fewer rated matches than the server's threshold.")

    @classmethod
    def of(cls, x: r.RatingInfo) -> Rating:
        return cls(
            account_id=strawberry.ID(x.account_id),
            game=x.game,
            rating=x.rating,
            mu=x.mu,
            sigma=x.sigma,
            matches=x.matches,
            provisional=x.provisional,
        )


@strawberry.type(description="A place on a ladder.")
class LadderEntry(Rating):
    rank: int = strawberry.field(description="1 for the best on this ladder.")
    name: str = strawberry.field(description="The player's or bot account's name; a built-in bot's level.")

    @classmethod
    def of_entry(cls, x: r.LadderEntry) -> LadderEntry:
        return cls(**vars(Rating.of(x)), rank=x.rank, name=x.name)


@strawberry.type(description="A page of a ladder, best first.")
class LadderPage:
    game: str
    board: str = strawberry.field(description="`people` or `bots`.")
    total: int
    entries: list[LadderEntry]
    next_cursor: str | None = strawberry.field(
        description="Pass it as `cursor` for the next page; null on the last page. Opaque."
    )

    @classmethod
    def of(cls, p: r.LadderPage) -> LadderPage:
        entries = [LadderEntry.of_entry(e) for e in p.entries]
        return cls(game=p.game, board=p.board, total=p.total, entries=entries, next_cursor=p.next_cursor)


@strawberry.type(description="An account's place on its ladder, with its neighbours either side.")
class LadderPosition:
    game: str
    board: str
    account_id: strawberry.ID
    rank: int
    entries: list[LadderEntry]

    @classmethod
    def of(cls, p: r.LadderPosition) -> LadderPosition:
        entries = [LadderEntry.of_entry(e) for e in p.entries]
        return cls(
            game=p.game, board=p.board, account_id=strawberry.ID(p.account_id), rank=p.rank, entries=entries
        )


@strawberry.type(description="One rated match's change to an account's rating.")
class RatingChange:
    game_id: strawberry.ID
    at: float = strawberry.field(description="POSIX seconds.")
    mu: float
    sigma: float
    ordinal: float
    delta: float = strawberry.field(description="The display rating's change.")
    rank: int = strawberry.field(description="The account's place in the match (a leaver comes last).")
    left: bool
    weight: float = strawberry.field(description="How much the match counted (less for repeated pairings).")

    @classmethod
    def of(cls, c: r.RatingChange) -> RatingChange:
        return cls(**{**c.model_dump(), "game_id": strawberry.ID(c.game_id)})


@strawberry.type(description="An account's rating and its latest changes, newest first.")
class RatingHistory:
    rating: Rating
    history: list[RatingChange]

    @classmethod
    def of(cls, h: r.RatingHistory) -> RatingHistory:
        return cls(rating=Rating.of(h.rating), history=[RatingChange.of(c) for c in h.history])
