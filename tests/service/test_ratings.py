"""Rated games, ratings and ladders (issue 24): a rated match moves exactly its accounts' ratings, by
openskill's Plackett-Luce computed here independently; the provisional flag clears; repeated pairings
count less, then not at all; a leaver is rated last; a retried finish never rates twice; identities
only at a rated table; the ladders' pages, ranks and neighbours. Real Redis, real HTTP (TestClient),
a real RQ worker where built-in bots play."""

from __future__ import annotations

import asyncio
import random
import time
from typing import Any

import pytest
from openskill.models import PlackettLuce
from starlette.testclient import TestClient
from svc_helpers import FAST_OPTIONS, Table, admin_headers, auth, fill, wait_for_human

from service.api.app import create_app
from service.base.settings import Settings
from service.games.ratings import Placing, rate
from service.store import Store
from service.store.ratings import RatingWrite

MODEL = PlackettLuce()


def guest(client: TestClient, name: str) -> dict[str, Any]:
    response = client.post("/v1/players", json={"name": name})
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body


def bot_account(client: TestClient, name: str) -> dict[str, Any]:
    response = client.post("/v1/bots", json={"name": name})
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body


def rated_table(client: TestClient, game: str, credentials: list[str | None], **body: Any) -> Table:
    """A rated game; seat i joined with ``credentials[i]`` (None: a built-in bot seat, given in ``body``)."""
    created = client.post(
        "/v1/games", json={"kind": game, "options": FAST_OPTIONS[game], "rated": True, **body}
    )
    assert created.status_code == 201, created.text
    assert created.json()["game"]["rated"] is True
    table = Table(client, created.json()["game"]["game_id"])
    for seat, credential in enumerate(credentials):
        if credential is None:
            continue
        joined = client.post(f"/v1/games/{table.game_id}/join", json={"seat": seat}, headers=auth(credential))
        assert joined.status_code == 201, joined.text
        table.tokens[seat] = joined.json()["token"]
    return table


def rating(client: TestClient, game: str, account: str) -> dict[str, Any]:
    response = client.get(f"/v1/ratings/{game}/{account}")
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def expected(teams: list[list[tuple[float, float]]], ranks: list[int]) -> list[list[tuple[float, float]]]:
    rated = MODEL.rate([[MODEL.rating(mu, sigma) for mu, sigma in team] for team in teams], ranks=ranks)
    return [[(r.mu, r.sigma) for r in team] for team in rated]


START = (MODEL.mu, MODEL.sigma)


def test_a_rated_partnership_match_moves_exactly_its_accounts_ratings(
    client: TestClient, rng: random.Random
) -> None:
    players = [guest(client, f"p{i}") for i in range(3)]
    bot = bot_account(client, "partner-bot")
    credentials: list[str | None] = [
        players[0]["token"],
        players[1]["token"],
        players[2]["token"],
        bot["api_key"],
    ]
    bystander = guest(client, "bystander")  # rated before, in another kind: must not move
    other = rated_table(
        client, "euchre5", [bystander["token"], *(guest(client, f"e{i}")["token"] for i in range(4))]
    )
    other.play_random(rng)
    before_bystander = rating(client, "euchre5", f"player:{bystander['player_id']}")

    table = rated_table(client, "five_hundred", credentials)
    final = table.play_random(rng)
    winners = set(final["winners"])
    team_won = [0 in winners or 2 in winners, 1 in winners or 3 in winners]
    accounts = [f"player:{p['player_id']}" for p in players] + [f"bot:{bot['bot_id']}"]
    want = expected([[START, START], [START, START]], [1 if team_won[0] else 2, 1 if team_won[1] else 2])
    for seat, account in enumerate(accounts):
        got = rating(client, "five_hundred", account)
        mu, sigma = want[seat % 2][seat // 2]
        assert got["rating"]["mu"] == pytest.approx(mu) and got["rating"]["sigma"] == pytest.approx(sigma)
        assert got["rating"]["rating"] == pytest.approx(mu - 3 * sigma)
        assert got["rating"]["matches"] == 1 and got["rating"]["provisional"] is True
        [change] = got["history"]
        assert change["game_id"] == table.game_id and change["weight"] == 1 and change["left"] is False
        assert change["rank"] == (1 if team_won[seat % 2] else 2)
    assert rating(client, "euchre5", f"player:{bystander['player_id']}") == before_bystander
    people = client.get("/v1/ladders/five_hundred?board=people").json()
    bots = client.get("/v1/ladders/five_hundred?board=bots").json()
    assert {e["account_id"] for e in people["entries"]} == set(accounts[:3]) and people["total"] == 3
    assert [e["account_id"] for e in bots["entries"]] == [accounts[3]] and bots["entries"][0][
        "name"
    ] == "partner-bot"
    assert [e["rank"] for e in people["entries"]] == [1, 2, 3]
    ordinals = [e["rating"] for e in people["entries"]]
    assert ordinals == sorted(ordinals, reverse=True)

    # a retried finish (the finish's rating called again) rates nothing twice
    games = client.app.state.games  # type: ignore[attr-defined]
    record = client.portal.call(games.core.get, table.game_id)  # type: ignore[union-attr]
    client.portal.call(games.ratings.rate_match, table.game_id, games.core.match_of(record))  # type: ignore[union-attr]
    assert len(rating(client, "five_hundred", accounts[0])["history"]) == 1

    # a deleted account leaves its ladders and its ratings go
    assert client.delete("/v1/me", headers=auth(players[0]["token"])).status_code == 204
    assert client.get(f"/v1/ratings/five_hundred/{accounts[0]}").status_code == 404
    assert client.get("/v1/ladders/five_hundred").json()["total"] == 2
    gone = client.delete(f"/v1/bots/{bot['bot_id']}", headers=admin_headers(client))
    assert gone.status_code in (200, 204), gone.text
    assert client.get("/v1/ladders/five_hundred?board=bots").json()["total"] == 0


@pytest.fixture
def strict_settings(settings: Settings) -> Settings:
    return settings.model_copy(
        update={"rating_provisional_matches": 2, "rating_repeat_full": 1, "rating_repeat_max": 2}
    )


def test_provisional_clears_and_repeated_pairings_count_less_then_not_at_all(
    strict_settings: Settings, rng: random.Random
) -> None:
    with TestClient(create_app(strict_settings)) as client:
        players = [guest(client, f"p{i}") for i in range(5)]
        accounts = [f"player:{p['player_id']}" for p in players]
        state = [START] * 5
        for n, weight in ((1, 1.0), (2, 0.5), (3, 0.0)):
            final = rated_table(client, "euchre5", [p["token"] for p in players]).play_random(rng)
            log = client.get(f"/v1/games/{final['game_id']}/log").json()
            scores = _final_scores(client, final["game_id"], log)
            ranks = [1 + sum(1 for t in scores if t > s) for s in scores]
            full = expected([[s] for s in state], ranks)
            state = [
                (mu0 + weight * (team[0][0] - mu0), s0 + weight * (team[0][1] - s0))
                for (mu0, s0), team in zip(state, full, strict=True)
            ]
            for seat, account in enumerate(accounts):
                got = rating(client, "euchre5", account)
                assert got["rating"]["mu"] == pytest.approx(state[seat][0])
                assert got["rating"]["sigma"] == pytest.approx(state[seat][1])
                assert got["history"][0]["weight"] == weight and got["history"][0]["rank"] == ranks[seat]
                assert got["rating"]["matches"] == min(n, 2)
                assert got["rating"]["provisional"] is (n < 2)


def _final_scores(client: TestClient, gid: str, log: dict[str, Any]) -> list[int]:
    """The final scores of a finished game, from its public view."""
    view = client.get(f"/v1/games/{gid}/view").json()["view"]
    scores: list[int] = view["scores"]
    return scores


@pytest.mark.parametrize("how", ["leave", "delete"])
def test_a_seat_given_up_is_rated_last_and_built_in_bots_are_rated(
    client: TestClient, rq_worker: str, rng: random.Random, how: str
) -> None:
    """Seat 0 leaves, or deletes its account (its seats are given up): its team is ranked last; a deleted
    account's rating is not written again."""
    players = [guest(client, f"p{i}") for i in range(3)]
    table = rated_table(
        client,
        "rough",
        [players[0]["token"], players[1]["token"], players[2]["token"], None],
        seats=["open", "open", "open", "bot:expert"],
    )
    if how == "leave":
        left = client.post(f"/v1/games/{table.game_id}/leave", headers=auth(table.tokens[0]))
        assert left.status_code == 200, left.text
    else:
        deleted = client.delete("/v1/me", headers=auth(players[0]["token"]))
        assert deleted.status_code == 204, deleted.text
    for _ in range(5000):
        game = wait_for_human(table, {1, 2})
        if game["status"] == "finished":
            break
        seat = game["to_act"]
        response = table.act(seat, fill(rng.choice(table.legal(seat)), rng), expected_version=game["version"])
        assert response.status_code == 200, response.text
    assert game["status"] == "finished"
    deadline = time.monotonic() + 30  # a bot's last move: the worker rates just after the commit shows
    while client.get("/v1/ratings/rough/builtin:expert").status_code == 404:
        assert time.monotonic() < deadline, "the worker did not rate the match"
        time.sleep(0.02)
    # the leaver's team (seats 0 and 2) loses whatever the score says
    want = expected([[START, START], [START, START]], [2, 1])
    accounts = [f"player:{p['player_id']}" for p in players] + ["builtin:expert"]
    for seat, account in enumerate(accounts):
        if seat == 0 and how == "delete":
            assert client.get(f"/v1/ratings/rough/{account}").json()["code"] == "rating_not_found"
            continue
        got = rating(client, "rough", account)
        assert got["rating"]["mu"] == pytest.approx(want[seat % 2][seat // 2][0])
        assert got["history"][0]["rank"] == (2 if seat % 2 == 0 else 1)
        assert got["history"][0]["left"] is (seat == 0)
    assert client.get("/v1/ratings/rough/builtin:random").json()["code"] == "rating_not_found"
    bots = client.get("/v1/ladders/rough?board=bots").json()
    assert [e["account_id"] for e in bots["entries"]] == ["builtin:expert"] and bots["entries"][0][
        "name"
    ] == "expert"


def test_only_identities_sit_at_a_rated_table(client: TestClient) -> None:
    created = client.post("/v1/games", json={"kind": "rough", "rated": True}).json()
    gid = created["game"]["game_id"]
    anonymous = client.post(f"/v1/games/{gid}/join", json={})
    assert anonymous.status_code == 403 and anonymous.json()["code"] == "rated_needs_identity"
    assert client.get(f"/v1/games/{gid}").json()["seats"][0]["filled"] is False
    french = client.post(f"/v1/games/{gid}/join", json={}, headers={"Accept-Language": "fr"})
    assert "classée" in french.json()["detail"]
    bot = bot_account(client, "twice")
    first = client.post(f"/v1/games/{gid}/join", json={}, headers=auth(bot["api_key"]))
    assert first.status_code == 201, first.text
    again = client.post(f"/v1/games/{gid}/join", json={}, headers=auth(bot["api_key"]))
    assert again.status_code == 409 and again.json()["code"] == "already_seated"
    # unrated, the same bot account may still hold two seats (its own bots' matches)
    unrated = client.post("/v1/games", json={"kind": "rough"}).json()["game"]["game_id"]
    for _ in range(2):
        joined = client.post(f"/v1/games/{unrated}/join", json={}, headers=auth(bot["api_key"]))
        assert joined.status_code == 201, joined.text


def test_a_rated_game_that_cannot_be_rated_is_refused(client: TestClient) -> None:
    twice = client.post(
        "/v1/games",
        json={"kind": "rough", "rated": True, "seats": ["open", "bot:expert", "open", "bot:expert"]},
    )
    assert twice.status_code == 422 and twice.json()["code"] == "rated_game_refused"
    seeded = client.post(
        "/v1/games", json={"kind": "rough", "rated": True, "seed": "4"}, headers=admin_headers(client)
    )
    assert seeded.status_code == 422 and seeded.json()["code"] == "rated_game_refused"
    mixed = client.post(
        "/v1/games",
        json={"kind": "rough", "rated": True, "seats": ["open", "bot:expert", "open", "bot:random"]},
    )
    assert mixed.status_code == 201, mixed.text


def _populate(settings: Settings, n: int) -> list[str]:
    """``n`` rated players of rough written through the store layer, some sharing an ordinal."""

    async def go() -> list[str]:
        store = Store.from_settings(settings)
        try:
            writes = []
            for i in range(n):
                value = float(i % 7)  # ties: the cursor must still see each entry once
                fields = {
                    "mu": repr(value + 3),
                    "sigma": "1.0",
                    "ordinal": repr(value),
                    "matches": str(i % 12),
                }
                writes.append(RatingWrite(f"player:p{i}", "rough", fields, {}, "people", value))
            await store.ratings.write_ratings(writes, 10)
        finally:
            await store.close()
        return [w.account for w in writes]

    return asyncio.run(go())


def test_a_ladder_pages_by_cursor_and_places_an_account_among_its_neighbours(
    client: TestClient, settings: Settings
) -> None:
    accounts = _populate(settings, 230)
    seen: list[dict[str, Any]] = []
    cursor = None
    for _ in range(10):
        url = "/v1/ladders/rough?limit=100" + (f"&cursor={cursor}" if cursor else "")
        page = client.get(url).json()
        seen += page["entries"]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert page["total"] == 230 and cursor is None
    assert sorted(e["account_id"] for e in seen) == sorted(accounts)
    assert [e["rank"] for e in seen] == list(range(1, 231))
    assert [e["rating"] for e in seen] == sorted((e["rating"] for e in seen), reverse=True)
    assert all(e["provisional"] is (e["matches"] < 10) for e in seen)
    middle = seen[117]
    around = client.get(f"/v1/ladders/rough/accounts/{middle['account_id']}?around=2").json()
    assert around["rank"] == 118 and [e["account_id"] for e in around["entries"]] == [
        e["account_id"] for e in seen[115:120]
    ]
    top = client.get(f"/v1/ladders/rough/accounts/{seen[0]['account_id']}?around=3").json()
    assert [e["rank"] for e in top["entries"]] == [1, 2, 3, 4]


@pytest.mark.parametrize(
    ("url", "status", "code"),
    [
        ("/v1/ladders/chess", 422, "unknown_game"),
        ("/v1/ladders/rough?board=cats", 422, "invalid_request"),
        ("/v1/ladders/rough?cursor=l1.bm90", 422, "invalid_request"),
        ("/v1/ladders/rough?limit=0", 422, "invalid_request"),
        ("/v1/ladders/rough/accounts/player:nobody", 404, "rating_not_found"),
        ("/v1/ladders/rough/accounts/someone", 404, "rating_not_found"),
        ("/v1/ladders/chess/accounts/player:x", 422, "unknown_game"),
        ("/v1/ratings/rough/bot:nobody", 404, "rating_not_found"),
        ("/v1/ratings/rough/player:x?limit=999", 422, "invalid_request"),
    ],
)
def test_ladder_and_rating_refusals(client: TestClient, url: str, status: int, code: str) -> None:
    response = client.get(url)
    assert response.status_code == status and response.json()["code"] == code, response.text


def test_tied_ranks_share_a_rating_change_and_a_last_place_loses_most() -> None:
    """The rating step alone, as a five-handed match with a tie and a leaver ranks it."""
    places = [Placing(f"player:{i}", i, r, i == 4) for i, r in enumerate([1, 2, 2, 4, 5])]
    after = rate(places, [{}] * 5, [1.0] * 5)
    want = expected([[START]] * 5, [1, 2, 2, 4, 5])
    assert [a[0] for a in after] == pytest.approx([w[0][0] for w in want])
    assert after[1] == after[2]


def gql(client: TestClient, query: str, **variables: Any) -> dict[str, Any]:
    response = client.post("/graphql", json={"query": query, "variables": variables})
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def test_graphql_says_what_rest_says_of_ladders_and_ratings(client: TestClient, settings: Settings) -> None:
    _populate(settings, 30)
    rest = client.get("/v1/ladders/rough?limit=10").json()
    page = gql(
        client,
        "query($c: String) { ladder(kind: ROUGH, first: 10, after: $c) { kind board total "
        "pageInfo { hasNextPage endCursor } "
        "nodes { rank accountId name rating mu sigma matches provisional } } }",
    )["data"]["ladder"]
    assert page["total"] == 30 and page["pageInfo"]["endCursor"] == rest["next_cursor"]
    assert (page["kind"], page["board"], page["pageInfo"]["hasNextPage"]) == ("ROUGH", "PEOPLE", True)
    assert [(e["accountId"], e["rank"], e["rating"]) for e in page["nodes"]] == [
        (e["account_id"], e["rank"], e["rating"]) for e in rest["entries"]
    ]
    second = gql(
        client,
        "query($c: String) { ladder(kind: ROUGH, first: 10, after: $c) { nodes { rank } } }",
        c=page["pageInfo"]["endCursor"],
    )["data"]["ladder"]
    assert [e["rank"] for e in second["nodes"]] == list(range(11, 21))
    place = gql(
        client,
        '{ ladderPosition(kind: ROUGH, accountId: "player:p3", around: 1) { rank entries { accountId } } }',
    )["data"]["ladderPosition"]
    assert place == {
        "rank": client.get("/v1/ladders/rough/accounts/player:p3").json()["rank"],
        "entries": [
            {"accountId": e["account_id"]}
            for e in client.get("/v1/ladders/rough/accounts/player:p3?around=1").json()["entries"]
        ],
    }
    missing = gql(client, '{ rating(kind: ROUGH, accountId: "bot:nobody") { rating { mu } } }')
    assert missing["errors"][0]["extensions"]["code"] == "rating_not_found"
    unknown = gql(client, "{ ladder(kind: CHESS) { total } }")
    assert unknown["errors"][0]["extensions"]["code"] == "invalid_query"  # not a GameKind: the schema says
    too_many = gql(client, "{ ladder(kind: ROUGH, first: 500) { total } }")
    assert too_many["errors"][0]["extensions"]["code"] == "invalid_request"
    created = gql(
        client,
        'mutation { createGame(input: {kind: ROUGH, rated: true, seats: ["open", "bot:expert", "open", '
        '"bot:expert"]}) { game { gameId } } }',
    )
    assert created["errors"][0]["extensions"]["code"] == "rated_game_refused"
    made = gql(
        client,
        "mutation { createGame(input: {kind: ROUGH, rated: true}) { game { gameId rated turnSeconds } } }",
    )
    # a rated game always has a clock (the settings' by default): nobody stalls it until it expires unrated
    assert made["data"]["createGame"]["game"] | {"gameId": ""} == {
        "gameId": "",
        "rated": True,
        "turnSeconds": 86_400,
    }
    timed = client.post("/v1/games", json={"kind": "rough", "rated": True, "turn_seconds": 60}).json()["game"]
    assert timed["turn_seconds"] == 60


def test_an_expired_rating_leaves_the_ladder_when_a_read_meets_it(
    client: TestClient, settings: Settings, redis_client: Any
) -> None:
    accounts = _populate(settings, 5)
    gone = accounts[2]
    redis_client.pexpire(f"atout:rating:{{{gone}}}:rough", 1)  # its account idle past its TTL
    time.sleep(0.05)
    first = client.get("/v1/ladders/rough").json()
    assert gone not in [e["account_id"] for e in first["entries"]] and len(first["entries"]) == 4
    assert client.get("/v1/ladders/rough").json()["total"] == 4
    missing = client.get(f"/v1/ladders/rough/accounts/{gone}")
    assert missing.status_code == 404 and missing.json()["code"] == "rating_not_found"


def test_two_rated_ends_at_once_lose_no_update(
    client: TestClient, redis_client: Any, rng: random.Random
) -> None:
    """Two rated games of the same five players are rated at the same moment: each account's rating is
    compare-and-set, so both changes land, the later one computed from the earlier one's result."""
    players = [guest(client, f"p{i}") for i in range(5)]
    accounts = [f"player:{p['player_id']}" for p in players]
    gids = [
        rated_table(client, "euchre5", [p["token"] for p in players]).play_random(rng)["game_id"]
        for _ in range(2)
    ]
    for key in redis_client.scan_iter("atout:rat*"):  # forget both ratings: rate them again, at once
        redis_client.delete(key)
    for key in redis_client.scan_iter("atout:ladder*"):
        redis_client.delete(key)
    games = client.app.state.games  # type: ignore[attr-defined]
    records = [client.portal.call(games.core.get, gid) for gid in gids]  # type: ignore[union-attr]
    finals = [games.core.match_of(record) for record in records]

    async def both() -> None:
        await asyncio.gather(*(games.ratings.rate_match(gid, m) for gid, m in zip(gids, finals, strict=True)))

    client.portal.call(both)  # type: ignore[union-attr]
    for account in accounts:
        got = rating(client, "euchre5", account)
        last, first = got["history"]
        assert {last["game_id"], first["game_id"]} == set(gids) and got["rating"]["matches"] == 2
        # the later change starts from the earlier one's result: neither was computed from a stale rating
        assert last["delta"] == pytest.approx(last["ordinal"] - first["ordinal"])
        assert first["delta"] == pytest.approx(first["ordinal"])  # from the start (ordinal 0)
        assert got["rating"]["mu"] == pytest.approx(last["mu"])


def test_a_seat_that_times_out_to_a_bot_is_rated_as_given_up(
    client: TestClient, rq_worker: str, rng: random.Random
) -> None:
    """Seat 0 never moves: its clock runs out, a bot takes the seat for good (timeouts_to_bot 1), and the
    match rates its account last, as a leaver."""
    players = [guest(client, f"p{i}") for i in range(3)]
    table = rated_table(
        client,
        "rough",
        [players[0]["token"], players[1]["token"], players[2]["token"], None],
        seats=["open", "open", "open", "bot:random"],
        turn_seconds=5,
        timeouts_to_bot=1,
    )
    for _ in range(5000):
        game = wait_for_human(table, {1, 2})
        if game["status"] == "finished":
            break
        seat = game["to_act"]
        response = table.act(seat, fill(rng.choice(table.legal(seat)), rng), expected_version=game["version"])
        assert response.status_code == 200, response.text
    assert game["status"] == "finished" and (
        game["seats"][0]["seat_kind"],
        game["seats"][0]["bot_level"],
    ) == ("bot", "heuristic")
    deadline = time.monotonic() + 30
    while client.get("/v1/ratings/rough/builtin:random").status_code == 404:
        assert time.monotonic() < deadline, "the match was not rated"
        time.sleep(0.02)
    got = rating(client, "rough", f"player:{players[0]['player_id']}")
    assert got["history"][0]["left"] is True and got["history"][0]["rank"] == 2
    assert rating(client, "rough", f"player:{players[1]['player_id']}")["history"][0]["rank"] == 1
