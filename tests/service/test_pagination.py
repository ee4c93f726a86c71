"""Cursor pagination of the open games (issue 21): REST's `cursor`/`next_cursor` and GraphQL's
`games` connection (`after`/`endCursor`), newest first; paging through 1,000 games while others are
created and some start shows no game twice and misses none that stayed open; a bad cursor is 422
invalid_request."""

from __future__ import annotations

import asyncio
import base64
import threading
import time
from datetime import datetime
from typing import Any

import httpx
import pytest
import redis
from starlette.testclient import TestClient
from svc_helpers import admin_headers, create, served_app

from service.api.app import create_app
from service.base.settings import Settings
from service.games.cursors import encode_cursor
from service.store import Store
from service.store.keys import game_key
from service.store.records import GameRecord, ListPosition, Seat

INITIAL = 1_000


def page_through(get: Any, limit: int, between: Any = None, most: int = 1000) -> tuple[list[str], int]:
    """Every id the pages give, in order, and the number of pages (at most ``most``: a cursor that
    does not move on fails here); ``between(i)`` runs after page i."""
    seen: list[str] = []
    cursor: str | None = None
    pages = 0
    while True:
        assert pages < most, "the pages do not come to an end"
        body = get(limit, cursor)
        pages += 1
        seen += [g["game_id"] for g in body["games"]]
        assert len(body["games"]) <= limit
        cursor = body["next_cursor"]
        if cursor is None:
            return seen, pages
        assert body["games"], "a page with a next cursor has games"
        if between is not None:
            between(pages)


def test_paging_through_1000_games_while_games_are_created_and_started(settings: Settings) -> None:
    app = create_app(settings)
    with served_app(app) as base, httpx.Client(base_url=base, timeout=30) as http:
        admin = {"Authorization": f"Bearer {settings.admin_token}"}

        def new_game() -> str:
            response = http.post("/v1/games", json={"kind": "rough"}, headers=admin)
            assert response.status_code == 201, response.text
            return str(response.json()["game"]["game_id"])

        initial = [new_game() for _ in range(INITIAL)]
        created_meanwhile: list[str] = []
        stop = threading.Event()

        def keep_creating() -> None:  # another client, at the same time as the paging
            with httpx.Client(base_url=base, timeout=30) as other:
                while not stop.is_set():
                    response = other.post("/v1/games", json={"kind": "rough"}, headers=admin)
                    assert response.status_code == 201, response.text
                    created_meanwhile.append(response.json()["game"]["game_id"])

        started: list[str] = []

        def between(page: int) -> None:
            """After each page: a few more games, and one game not yet seen starts (leaves the list)."""
            created_meanwhile.extend(new_game() for _ in range(3))
            gid = initial[page * 97 % INITIAL]
            if gid not in seen_so_far and gid not in started:
                for seat in range(4):
                    assert http.post(f"/v1/games/{gid}/join", json={"seat": seat}).status_code == 201
                started.append(gid)

        seen_so_far: set[str] = set()

        def get(limit: int, cursor: str | None) -> dict[str, Any]:
            params: dict[str, Any] = {"limit": limit, **({"cursor": cursor} if cursor else {})}
            response = http.get("/v1/games", params=params)
            assert response.status_code == 200, response.text
            body: dict[str, Any] = response.json()
            seen_so_far.update(g["game_id"] for g in body["games"])
            return body

        creator = threading.Thread(target=keep_creating, daemon=True)
        creator.start()
        try:
            seen, pages = page_through(get, 37, between)
        finally:
            stop.set()
            creator.join(30)
        assert len(seen) == len(set(seen)), "a game was shown twice"
        missed = set(initial) - set(started) - set(seen)
        assert not missed, f"{len(missed)} games open all along were missed"
        assert not set(seen) - set(initial) - set(created_meanwhile)
        assert created_meanwhile and started and pages >= INITIAL // 37 - len(started)
        # newest first, and the order the pages gave is the index's own
        created_at = {
            g["game_id"]: datetime.fromisoformat(g["created_at"])
            for g in http.get("/v1/games", params={"limit": 100}).json()["games"]
        }
        assert list(created_at.values()) == sorted(created_at.values(), reverse=True)


def test_pages_end_with_a_null_cursor_and_skip_what_is_gone(
    client: TestClient, redis_client: redis.Redis
) -> None:
    ids = [create(client, "rough")["game"]["game_id"] for _ in range(7)]
    newest_first = ids[::-1]
    first = client.get("/v1/games", params={"limit": 3}).json()
    assert [g["game_id"] for g in first["games"]] == newest_first[:3] and first["next_cursor"]
    redis_client.delete(game_key(newest_first[3]))  # expired between two pages: skipped, unlisted
    second = client.get("/v1/games", params={"limit": 3, "cursor": first["next_cursor"]}).json()
    assert [g["game_id"] for g in second["games"]] == newest_first[4:7] and second["next_cursor"] is None
    exactly = client.get("/v1/games", params={"limit": 6}).json()  # six open games: one page, no more
    assert len(exactly["games"]) == 6 and exactly["next_cursor"] is None
    assert client.get("/v1/games").json()["next_cursor"] is None


def test_games_created_at_the_same_instant_page_by_id(redis_url: str) -> None:
    """The index orders games of the same creation time by id: a page ending among them resumes
    after the last one given, never repeating or skipping one."""

    async def run() -> None:
        store = Store.from_url(redis_url, 3600, 3600, 60)
        try:
            now = time.time()
            gids = [f"tie{i:02d}" for i in range(10)]
            for gid in [*gids, "older", "newer"]:
                at = now - 5 if gid == "older" else now + 5 if gid == "newer" else now
                record = GameRecord(
                    id=gid, game="rough", players=4, options={}, seed="00", version=0, state="{}",
                    status="waiting", seats=[Seat(kind="open") for _ in range(4)], created_at=at,
                )  # fmt: skip
                assert await store.games.create(record, [])
            seen: list[str] = []
            after = None
            for _ in range(10):  # 12 games, 3 a page
                page = await store.games.open_page(3, after)
                seen += [r.id for r in page.records]
                if page.next is None:
                    break
                after = page.next
            assert seen == ["newer", *sorted(gids, reverse=True), "older"]
        finally:
            await store.close()

    asyncio.run(run())


@pytest.mark.parametrize(
    "cursor",
    [
        "nonsense",
        "o1.",
        "o1.!!!!",
        "o1." + base64.urlsafe_b64encode(b'[1.5,"bad id!"]').decode(),
        "o1." + base64.urlsafe_b64encode(b'["1.5","g"]').decode(),
        "o1." + base64.urlsafe_b64encode(b'[true,"g"]').decode(),
        "o1." + base64.urlsafe_b64encode(b'[NaN,"g"]').decode(),
        "o1." + base64.urlsafe_b64encode(b'{"at":1}').decode(),
        "o1." + base64.urlsafe_b64encode(b"\xff\xfe").decode(),
        encode_cursor(ListPosition(1.5, "g" * 64)) + "x" * 200,
    ],
)
def test_a_bad_cursor_is_422_invalid_request(client: TestClient, cursor: str) -> None:
    response = client.get("/v1/games", params={"cursor": cursor})
    assert response.status_code == 422, response.text
    body = response.json()
    assert body["code"] == "invalid_request" and "next_cursor" in body["detail"]
    assert body["errors"][0]["loc"] == ["query", "cursor"]
    assert response.headers["cache-control"] == "no-store"


def test_a_cursor_of_a_game_gone_since_still_pages_on(client: TestClient) -> None:
    """A cursor is a position, not a game: the page after a game that started (or expired) since still
    follows it."""
    ids = [create(client, "rough")["game"]["game_id"] for _ in range(3)]
    cursor = encode_cursor(ListPosition(time.time() + 60, "zzz"))  # after a game newer than all of them
    body = client.get("/v1/games", params={"cursor": cursor}).json()
    assert [g["game_id"] for g in body["games"]] == ids[::-1]


GAMES_PAGE = """query($after: String) {
  games(first: 2, after: $after) { edges { cursor node { gameId } } pageInfo { hasNextPage endCursor } }
}"""


def test_graphql_pages_the_same_way(client: TestClient) -> None:
    ids = [create(client, "rough")["game"]["game_id"] for _ in range(5)]
    seen: list[str] = []
    after = None
    pages = 0
    while pages < 10:
        response = client.post("/graphql", json={"query": GAMES_PAGE, "variables": {"after": after}})
        page = response.json()["data"]["games"]
        seen += [edge["node"]["gameId"] for edge in page["edges"]]
        pages += 1
        after = page["pageInfo"]["endCursor"]
        assert page["edges"][-1]["cursor"] == after and page["pageInfo"]["hasNextPage"] is (after is not None)
        if after is None:
            break
    assert seen == ids[::-1] and pages == 3
    first = client.get("/v1/games", params={"limit": 2}).json()["next_cursor"]
    via_rest = client.post("/graphql", json={"query": GAMES_PAGE, "variables": {"after": first}}).json()
    edges = via_rest["data"]["games"]["edges"]
    assert [edge["node"]["gameId"] for edge in edges] == ids[::-1][2:4]  # one cursor, both APIs


def test_graphql_refuses_a_bad_cursor_with_the_same_code(client: TestClient) -> None:
    response = client.post("/graphql", json={"query": GAMES_PAGE, "variables": {"after": "nonsense"}})
    error = response.json()["errors"][0]
    assert error["extensions"]["code"] == "invalid_request"
    assert error["extensions"]["errors"][0]["loc"] == ["after"]
    limit = client.post("/graphql", json={"query": "{ games(first: 0) { nodes { gameId } } }"}).json()
    assert limit["errors"][0]["extensions"]["code"] == "invalid_request"


def test_the_admin_sees_the_same_pages(client: TestClient) -> None:
    ids = [create(client, "rough")["game"]["game_id"] for _ in range(3)]
    body = client.get("/v1/games", params={"limit": 2}, headers=admin_headers(client)).json()
    assert [g["game_id"] for g in body["games"]] == ids[::-1][:2] and body["next_cursor"]
