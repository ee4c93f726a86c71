"""Rate limits, counted in the real test Redis: the request past a limit is 429 ``rate_limited`` with
Retry-After and RateLimit headers, in REST and GraphQL; replicas on one Redis share the counts; the
limit per token and the limit per address are separate; and the switch turns them all off."""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis
from starlette.testclient import TestClient

from service.api.app import create_app
from service.api.ratelimit import CATEGORIES, RateLimits
from service.base.problems import ProblemError
from service.base.settings import Settings
from service.runtime.embedded_redis import EmbeddedRedis

LOW = 3
HIGH = "100000/minute"


def limited(settings: Settings, **rates: str) -> Settings:
    """The test settings with every limit high except the ones given (e.g. ``act="3/hour"``)."""
    update: dict[str, Any] = {f"rate_{c}{s}": HIGH for c in CATEGORIES for s in ("", "_per_address")}
    update.update({f"rate_{name}": value for name, value in rates.items() if name != "rate_sync_ms"})
    if "rate_sync_ms" in rates:
        update["rate_sync_ms"] = int(rates["rate_sync_ms"])
    return settings.model_copy(update=update)


def clear_of_a_window_edge(period: int, margin: float = 3.0) -> None:
    """Counters are fixed windows aligned on the clock: a test that counts its hits in one window of
    ``period`` seconds first waits out the last seconds of the current one, rather than see its hits
    split across two windows now and then. (Tests that need no short window count per hour.)"""
    left = period - time.time() % period
    if left < margin:
        time.sleep(left + 0.05)


@pytest.fixture
def app_with(settings: Settings) -> Iterator[Any]:
    """Start an app with some limits low: ``app_with(act="3/hour")`` gives a started TestClient."""
    clients: list[TestClient] = []

    def start(address: str = "203.0.113.7", **rates: str) -> TestClient:
        client = TestClient(create_app(limited(settings, **rates)), client=(address, 40000))
        client.__enter__()
        clients.append(client)
        return client

    try:
        yield start
    finally:
        for client in clients:
            client.__exit__(None, None, None)


def assert_rate_limited(response: httpx.Response, limit: int = LOW) -> dict[str, Any]:
    assert response.status_code == 429, response.text
    assert response.headers["content-type"] == "application/problem+json"
    body: dict[str, Any] = response.json()
    assert body["code"] == "rate_limited"
    retry = int(response.headers["Retry-After"])
    assert 1 <= retry <= 3600
    assert response.headers["RateLimit-Limit"] == str(limit)
    assert response.headers["RateLimit-Remaining"] == "0"
    assert 1 <= int(response.headers["RateLimit-Reset"]) <= 3600
    assert f"retry in {retry} s" in body["detail"]
    return body


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def new_game(client: TestClient) -> str:
    response = client.post("/v1/games", json={"kind": "rough"})
    assert response.status_code == 201, response.text
    gid: str = response.json()["game"]["game_id"]
    return gid


# --- each category, REST ------------------------------------------------------------------------


def test_the_fourth_game_created_from_one_address_is_refused(app_with: Any) -> None:
    client = app_with(create_game_per_address=f"{LOW}/hour")
    for _ in range(LOW):
        new_game(client)
    body = assert_rate_limited(client.post("/v1/games", json={"kind": "rough"}))
    assert "this address" in body["detail"] and "create game" in body["detail"]


def test_the_fourth_join_is_refused(app_with: Any) -> None:
    client = app_with(join_per_address=f"{LOW}/hour")
    games = [new_game(client) for _ in range(LOW + 1)]
    for gid in games[:LOW]:
        assert client.post(f"/v1/games/{gid}/join", json={"seat": 0}).status_code == 201
    assert_rate_limited(client.post(f"/v1/games/{games[LOW]}/join", json={"seat": 0}))


def test_the_fourth_action_of_a_seat_is_refused_even_between_legal_moves(app_with: Any) -> None:
    client = app_with(act=f"{LOW}/hour")
    gid = new_game(client)
    tokens = [client.post(f"/v1/games/{gid}/join", json={"seat": s}).json()["token"] for s in range(4)]
    game = client.get(f"/v1/games/{gid}").json()
    seat = game["to_act"]
    for _ in range(LOW):  # refused moves count too: a rate limit counts requests
        response = client.post(f"/v1/games/{gid}/actions", json={"action": {"type": "keep"}},
                               headers=bearer(tokens[seat]))  # fmt: skip
        assert response.status_code in {409, 422}, response.text
    refused = client.post(
        f"/v1/games/{gid}/actions", json={"action": {"type": "pass"}}, headers=bearer(tokens[seat])
    )
    body = assert_rate_limited(refused)
    assert "this token" in body["detail"]
    assert client.get(f"/v1/games/{gid}").json()["version"] == game["version"]  # nothing was played


def test_the_fourth_bot_registration_is_refused(app_with: Any) -> None:
    client = app_with(register_bot_per_address=f"{LOW}/hour")
    for n in range(LOW):
        assert client.post("/v1/bots", json={"name": f"bot{n}"}).status_code == 201
    assert_rate_limited(client.post("/v1/bots", json={"name": "one too many"}))


def test_the_fourth_stream_opened_is_refused_game_events_and_bot_stream_alike(app_with: Any) -> None:
    client = app_with(open_stream_per_address=f"{LOW}/hour")
    gid = new_game(client)
    key = client.post("/v1/bots", json={"name": "streamer"}).json()["api_key"]
    assert client.get(f"/v1/games/{gid}/events", params={"follow": "false"}).status_code == 200
    assert client.get(f"/v1/games/{gid}/events", params={"follow": "false"}).status_code == 200
    opened = client.get("/v1/bots/me/stream", params={"follow": "false"}, headers=bearer(key))
    assert opened.status_code == 200, opened.text
    assert_rate_limited(client.get("/v1/bots/me/stream", params={"follow": "false"}, headers=bearer(key)))
    assert_rate_limited(client.get(f"/v1/games/{gid}/events", params={"follow": "false"}))


# --- GraphQL ------------------------------------------------------------------------------------

CREATE_GQL = "mutation { createGame(input: {kind: ROUGH}) { game { gameId } } }"


def test_graphql_mutations_share_the_count_and_answer_rate_limited(app_with: Any) -> None:
    client = app_with(create_game_per_address=f"{LOW}/hour", register_bot_per_address="1/hour")
    new_game(client)  # REST and GraphQL count together
    for _ in range(LOW - 1):
        body = client.post("/graphql", json={"query": CREATE_GQL}).json()
        assert "errors" not in body, body
    refused = client.post("/graphql", json={"query": CREATE_GQL})
    error = refused.json()["errors"][0]
    assert error["extensions"]["code"] == "rate_limited" and error["extensions"]["status"] == 429
    assert 1 <= error["extensions"]["retry_after"] <= 3600
    assert refused.headers["Retry-After"] == str(error["extensions"]["retry_after"])
    register = 'mutation { registerBot(input: {name: "gql"}) { botId } }'
    assert "errors" not in client.post("/graphql", json={"query": register}).json()
    error = client.post("/graphql", json={"query": register}).json()["errors"][0]
    assert error["extensions"]["code"] == "rate_limited"


def test_graphql_submit_action_and_join_seat_are_limited(app_with: Any) -> None:
    client = app_with(act="1/hour", join_per_address="1/hour")
    gid = new_game(client)
    join = "mutation($id: ID!) { joinGame(input: {gameId: $id}) { token } }"
    token = client.post("/graphql", json={"query": join, "variables": {"id": gid}}).json()
    token = token["data"]["joinGame"]["token"]
    again = client.post("/graphql", json={"query": join, "variables": {"id": gid}}).json()
    assert again["errors"][0]["extensions"]["code"] == "rate_limited"
    submit = "mutation($id: ID!) { submitAction(input: {gameId: $id, action: {pass: true}}) { version } }"
    request = {"query": submit, "variables": {"id": gid}}
    for expected in ("game_not_started", "rate_limited"):
        body = client.post("/graphql", json=request, headers=bearer(token)).json()
        assert body["errors"][0]["extensions"]["code"] == expected


def test_the_fourth_subscription_is_refused(app_with: Any) -> None:
    client = app_with(open_stream_per_address=f"{LOW}/hour")
    gid = new_game(client)
    query = "subscription($id: ID!) { gameEvents(gameId: $id) { id event { __typename } } }"
    codes: list[str | None] = []
    for attempt in range(LOW + 1):
        with client.websocket_connect("/graphql", subprotocols=["graphql-transport-ws"]) as ws:
            ws.send_json({"type": "connection_init", "payload": {}})
            assert ws.receive_json()["type"] == "connection_ack"
            ws.send_json({"id": str(attempt), "type": "subscribe",
                          "payload": {"query": query, "variables": {"id": gid}}})  # fmt: skip
            message = ws.receive_json()
            errors = message["payload"].get("errors") if message["type"] == "next" else message["payload"]
            codes.append(errors[0]["extensions"]["code"] if errors else None)
    assert codes == [None] * LOW + ["rate_limited"]


# --- shared, separate, off ----------------------------------------------------------------------


def synced(*clients: TestClient) -> None:
    """Each app's counters synced with Redis now (in the background this happens every
    ATOUT_RATE_SYNC_MS): its new hits added there, every counter it uses read back."""
    for client in clients:
        assert client.portal is not None
        client.portal.call(client.app.state.rate_limits.sync)  # type: ignore[attr-defined]


def test_two_replicas_on_one_redis_share_the_counts(app_with: Any) -> None:
    first = app_with(create_game_per_address=f"{LOW}/hour")
    second = app_with(create_game_per_address=f"{LOW}/hour")
    new_game(first)
    new_game(second)
    new_game(first)
    synced(first, second, first)
    assert_rate_limited(second.post("/v1/games", json={"kind": "rough"}))
    assert_rate_limited(first.post("/v1/games", json={"kind": "rough"}))


def test_one_process_enforces_its_own_count_before_any_sync(app_with: Any) -> None:
    client = app_with(create_game_per_address=f"{LOW}/hour", rate_sync_ms="5000")
    for _ in range(LOW):
        new_game(client)
    assert_rate_limited(client.post("/v1/games", json={"kind": "rough"}))


def seat_tokens(client: TestClient) -> tuple[str, list[str]]:
    gid = new_game(client)
    return gid, [client.post(f"/v1/games/{gid}/join", json={"seat": s}).json()["token"] for s in range(4)]


def test_the_limit_per_token_and_the_limit_per_address_are_separate(app_with: Any) -> None:
    here = app_with(act="2/hour", act_per_address="4/hour")
    elsewhere = app_with(address="198.51.100.9", act="2/hour", act_per_address="4/hour")
    gid, (a, b, c, d) = seat_tokens(here)
    url = f"/v1/games/{gid}/actions"
    action = {"action": {"type": "keep"}}  # never legal here: refused 409/422, counted all the same
    for _ in range(2):
        assert here.post(url, json=action, headers=bearer(a)).status_code in {409, 422}
    body = assert_rate_limited(here.post(url, json=action, headers=bearer(a)), limit=2)
    assert "this token" in body["detail"]
    # The same token from another address (another replica, once synced): still over its own limit.
    synced(here, elsewhere)
    assert_rate_limited(elsewhere.post(url, json=action, headers=bearer(a)), limit=2)
    # Other seats' tokens from the first address: allowed until the address has made 4 requests (the
    # refused ones do not count).
    assert here.post(url, json=action, headers=bearer(b)).status_code in {409, 422}
    assert here.post(url, json=action, headers=bearer(c)).status_code in {409, 422}
    body = assert_rate_limited(here.post(url, json=action, headers=bearer(d)), limit=4)
    assert "this address" in body["detail"]
    # The other address, with a fresh token, is not affected by the first one's count.
    assert elsewhere.post(url, json=action, headers=bearer(d)).status_code in {409, 422}


def test_made_up_tokens_count_for_their_address_and_make_no_counter(app_with: Any) -> None:
    """Issue 19: a token the service never issued is one more request of its address; it gets no
    counter of its own, so a flood of them cannot fill the counters or switch the limits off."""
    client = app_with(act="2/hour", act_per_address="30/hour")
    gid, tokens = seat_tokens(client)
    url = f"/v1/games/{gid}/actions"
    for n in range(20):
        response = client.post(url, json={"action": {"type": "pass"}}, headers=bearer(f"made-up-{n}"))
        assert response.status_code == 401, response.text
    for n in range(5):  # a game that does not exist: 404, counted for the address too
        assert client.post(f"/v1/games/nope-{n}/actions", json={}, headers=bearer("x")).status_code == 404
    counters = client.app.state.rate_limits.window_end  # type: ignore[attr-defined]
    assert [key for key in counters if ":token:" in key] == []
    assert sum(":address:" in key for key in counters if "{act:" in key) == 1
    # a real seat's token is limited as ever
    for _ in range(2):
        assert (
            client.post(url, json={"action": {"type": "keep"}}, headers=bearer(tokens[0])).status_code != 429
        )
    body = assert_rate_limited(
        client.post(url, json={"action": {"type": "keep"}}, headers=bearer(tokens[0])), 2
    )
    assert "this token" in body["detail"]
    # and the address limit counted every stranger's request: 20 + 5 + 2 = 27 of 30
    for token in (tokens[1], tokens[1], tokens[2]):
        assert client.post(url, json={"action": {"type": "keep"}}, headers=bearer(token)).status_code != 429
    body = assert_rate_limited(
        client.post(url, json={"action": {"type": "keep"}}, headers=bearer(tokens[3])), 30
    )
    assert "this address" in body["detail"]


def test_turning_rate_limits_off_lets_every_request_through(app_with: Any, settings: Settings) -> None:
    client = TestClient(create_app(limited(settings, create_game_per_address="1/hour").model_copy(
        update={"rate_limits": False})))  # fmt: skip
    with client:
        for _ in range(LOW + 1):
            new_game(client)


def test_a_limit_that_is_not_a_rate_is_refused_at_startup(settings: Settings) -> None:
    with pytest.raises(ValueError, match="not a rate"):
        Settings(redis_url=settings.redis_url, rate_act="lots")


@pytest.mark.anyio
async def test_the_counts_reach_redis_in_one_round_trip_and_expire_with_their_window(
    settings: Settings, redis_client: Any
) -> None:
    clear_of_a_window_edge(60)
    limits = RateLimits(limited(settings, act="5/minute"))
    try:
        for _ in range(3):
            await limits.check("act", "token-a", "192.0.2.1")
        await limits.sync()
        counters = {k: int(redis_client.get(k)) for k in redis_client.keys("atout:ratelimit:{act:*}:token:*")}
        assert list(counters.values()) == [3]
        assert 0 < redis_client.ttl(next(iter(counters))) <= 61
    finally:
        await limits.close()


@pytest.mark.anyio
async def test_a_flood_of_tokens_keeps_a_bounded_number_of_counters_and_a_live_token_limited(
    settings: Settings,
) -> None:
    """Issue 19: past the cap the oldest counters are forgotten, not new ones refused a counter, so a
    token that comes after a flood is limited like any other (before, it was not limited at all)."""
    limits = RateLimits(limited(settings, act="5/hour", act_per_address="100000/hour"), max_counters=50)
    try:
        for n in range(200):
            await limits.check("act", f"token-{n}", "192.0.2.1")
            assert len(limits.window_end) <= 50
        await limits.sync()
        for _ in range(5):
            await limits.check("act", "live-token", "192.0.2.1")
        with pytest.raises(ProblemError) as refused:
            await limits.check("act", "live-token", "192.0.2.1")
        assert refused.value.code == "rate_limited" and "this token" in refused.value.detail
    finally:
        await limits.close()


@pytest.mark.anyio
async def test_a_forgotten_counter_is_read_back_from_redis(settings: Settings) -> None:
    limits = RateLimits(limited(settings, act="5/hour", act_per_address="100000/hour"), max_counters=20)
    try:
        for _ in range(4):
            await limits.check("act", "live-token", "192.0.2.1")
        await limits.sync()  # its 4 hits are in Redis
        for n in range(40):  # enough others to push it out of this process's memory
            await limits.check("act", f"token-{n}", "192.0.2.1")
        live = hashlib.sha256(b"live-token").hexdigest()[:32]
        assert not any(live in key for key in limits.window_end)  # forgotten here
        await limits.check("act", "live-token", "192.0.2.1")  # the fifth, counted from Redis's 4
        with pytest.raises(ProblemError):
            await limits.check("act", "live-token", "192.0.2.1")
    finally:
        await limits.close()


@pytest.mark.anyio
async def test_checks_read_redis_once_per_new_counter_and_never_per_hit(
    settings: Settings, tmp_path: Path
) -> None:
    # A Redis of this test's own: the shared one's command counts include whatever else is running
    # (a worker, a server still stopping). No periodic sync during the count either.
    with EmbeddedRedis(tmp_path / "redis") as own:
        counted = redis.Redis.from_url(own.url)

        def reads() -> int:
            stats = counted.info("commandstats").get("cmdstat_mget", {})
            return int(stats.get("calls", 0))

        limits = RateLimits(limited(settings.model_copy(update={"redis_url": own.url}), rate_sync_ms="5000"))
        try:
            before = reads()
            await limits.check("act", "token-a", "192.0.2.1")  # two new counters, one tag: one MGET
            first = reads() - before
            await asyncio.gather(*(limits.check("act", "token-a", "192.0.2.1") for _ in range(200)))
            assert (first, reads() - before) == (1, 1)
            assert sum(limits.pending.values()) == 402  # counted in memory until the next sync
        finally:
            await limits.close()
            counted.close()


@pytest.mark.anyio
async def test_hits_being_synced_still_count_until_redis_answers(settings: Settings) -> None:
    """Issue 19 (found by bench/abuse.py): a sync took its hits out of the count before its round
    trip, so a request arriving meanwhile saw the count without them (61 registrations of 60)."""
    limits = RateLimits(limited(settings, act="5/hour", rate_sync_ms="5000"))
    try:
        for _ in range(5):
            await limits.check("act", "token-a", "192.0.2.1")
        syncing = asyncio.create_task(limits.sync())
        await asyncio.sleep(0)  # the sync has taken its batch and waits for Redis
        assert not syncing.done()
        with pytest.raises(ProblemError):
            await limits.check("act", "token-a", "192.0.2.1")
        await syncing
        with pytest.raises(ProblemError):
            await limits.check("act", "token-a", "192.0.2.1")
    finally:
        await limits.close()
