"""Play now through the API (issue 35; the pure matching: tests/service/test_matching.py): tickets queued
by players and bot accounts, the matcher's pass on the real store seating them at started games, parties
of partners, bot fill after the wait, cancelled tickets never matched, two matchers racing, a matcher that
died mid-table, and every refusal with its code."""

from __future__ import annotations

import asyncio
import functools
import json
import os
import signal
import subprocess
import sys
import time
from datetime import datetime
from typing import Any

import pytest
from starlette.testclient import TestClient
from svc_helpers import auth

from service.api.app import create_app
from service.base.settings import Settings
from service.games import Games
from service.store.matchmaking import CLAIM_LEASE
from service.store.ratings import rating_key


def games_of(client: TestClient) -> Games:
    games: Games = client.app.state.games  # type: ignore[attr-defined]
    return games


def player(client: TestClient, name: str = "p") -> str:
    answer = client.post("/v1/players", json={"name": name})
    assert answer.status_code == 201, answer.text
    token: str = answer.json()["token"]
    return token


def queue(client: TestClient, token: str, **body: Any) -> dict[str, Any]:
    answer = client.post("/v1/matchmaking/tickets", json={"kind": "rough", **body}, headers=auth(token))
    assert answer.status_code == 201, answer.text
    ticket: dict[str, Any] = answer.json()
    return ticket


def run_pass(client: TestClient, now: float | None = None) -> Any:
    """One pass of the matcher, in the app's own loop (the TestClient's portal)."""
    portal = client.portal  # type: ignore[attr-defined]
    return portal.call(games_of(client).matchmaking.run_pass, now)


def ticket(client: TestClient, token: str, tid: str) -> dict[str, Any]:
    answer = client.get(f"/v1/matchmaking/tickets/{tid}", headers=auth(token))
    assert answer.status_code == 200, answer.text
    found: dict[str, Any] = answer.json()
    return found


def notices(client: TestClient, token: str) -> list[dict[str, Any]]:
    ndjson = {**auth(token), "Accept": "application/x-ndjson"}
    text = client.get("/v1/me/events?follow=false", headers=ndjson).text
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def test_eight_players_queueing_for_le_rough_make_two_full_tables_with_no_bots(client: TestClient) -> None:
    tokens = [player(client, f"p{n}") for n in range(8)]
    tickets = [queue(client, token) for token in tokens]
    assert all(t["status"] == "waiting" and t["game_id"] is None for t in tickets)
    report = run_pass(client)
    assert (report.tables, report.bot_filled) == (2, 0)
    seen = [ticket(client, token, t["ticket_id"]) for token, t in zip(tokens, tickets, strict=True)]
    assert all(t["status"] == "matched" for t in seen)
    games = {t["game_id"] for t in seen}
    assert len(games) == 2
    for gid in games:
        summary = client.get(f"/v1/games/{gid}").json()
        assert summary["status"] == "active" and [s["seat_kind"] for s in summary["seats"]] == ["human"] * 4
    found = [n for n in notices(client, tokens[0]) if n["type"] == "match_found"]
    assert [(n["game_id"], n["seat"]) for n in found] == [(seen[0]["game_id"], seen[0]["seat"])]
    view = client.get(f"/v1/games/{seen[0]['game_id']}/view?seat={seen[0]['seat']}", headers=auth(tokens[0]))
    assert view.status_code == 200 and view.json()["seat"] == seen[0]["seat"]  # acts with its own credential


def test_a_party_of_two_sits_opposite_in_a_partnership_game(client: TestClient) -> None:
    """Partners sit opposite: seats 0 & 2 against 1 & 3 (docs/rules.md RG-2)."""
    leader, friend = player(client, "lead"), player(client, "friend")
    party = client.post("/v1/matchmaking/parties", json={"kind": "rough"}, headers=auth(leader)).json()
    joined = client.post(
        f"/v1/matchmaking/parties/{party['party_id']}/members",
        json={"invite_code": party["invite_code"]},
        headers=auth(friend),
    )
    assert joined.status_code == 200 and len(joined.json()["members"]) == 2, joined.text
    assert joined.json()["invite_code"] is None  # shown to its leader alone, at creation
    ours = queue(client, leader, party_id=party["party_id"])
    strangers = [player(client, f"s{n}") for n in range(2)]
    for token in strangers:
        queue(client, token)
    assert run_pass(client).tables == 1
    mine = ticket(client, leader, ours["ticket_id"])
    found = [n for n in notices(client, friend) if n["type"] == "match_found"]
    assert len(found) == 1 and found[0]["game_id"] == mine["game_id"]
    assert abs(found[0]["seat"] - mine["seat"]) == 2  # partners: seats 0 & 2 or 1 & 3


def test_five_handed_euchre_fills_five_chairs(client: TestClient) -> None:
    tokens = [player(client, f"e{n}") for n in range(5)]
    tickets = [queue(client, token, kind="euchre5") for token in tokens]
    assert run_pass(client).tables == 1
    gid = ticket(client, tokens[0], tickets[0]["ticket_id"])["game_id"]
    assert [s["seat_kind"] for s in client.get(f"/v1/games/{gid}").json()["seats"]] == ["human"] * 5


def test_a_lone_player_is_bot_filled_after_the_configured_wait(client: TestClient) -> None:
    token = player(client, "alone")
    mine = queue(client, token)
    wait = games_of(client).matchmaking.settings.matchmaking_bot_fill_seconds
    assert run_pass(client, mine_created(client, token, mine) + wait - 1).tables == 0
    assert ticket(client, token, mine["ticket_id"])["status"] == "waiting"
    report = run_pass(client, mine_created(client, token, mine) + wait + 1)
    assert (report.tables, report.bot_filled) == (1, 1)
    gid = ticket(client, token, mine["ticket_id"])["game_id"]
    kinds = [s["seat_kind"] for s in client.get(f"/v1/games/{gid}").json()["seats"]]
    assert kinds.count("human") == 1 and kinds.count("bot") == 3


def mine_created(client: TestClient, token: str, mine: dict[str, Any]) -> float:
    return datetime.fromisoformat(ticket(client, token, mine["ticket_id"])["created_at"]).timestamp()


def test_a_cancelled_ticket_is_never_matched(client: TestClient) -> None:
    tokens = [player(client, f"c{n}") for n in range(4)]
    tickets = [queue(client, token) for token in tokens]
    cancelled = client.delete(f"/v1/matchmaking/tickets/{tickets[0]['ticket_id']}", headers=auth(tokens[0]))
    assert cancelled.status_code == 200 and cancelled.json()["status"] == "cancelled", cancelled.text
    assert run_pass(client).tables == 0  # three left: no table, and never the cancelled one
    again = client.delete(f"/v1/matchmaking/tickets/{tickets[0]['ticket_id']}", headers=auth(tokens[0]))
    assert again.status_code == 409 and again.json()["code"] == "ticket_not_waiting"


def test_rated_tickets_1000_points_apart_wait_until_the_window_reaches_them(settings: Settings) -> None:
    """The windows of this deployment: 100 points at once, 25 more a second, so 975 after 35 s and
    1,000 after 36 s (two tickets meet within the narrower of their windows; docs/apps.md "Matchmaking")."""
    curve = {
        "matchmaking_window_start": 100.0,
        "matchmaking_window_growth": 25.0,
        "matchmaking_window_max": 2000.0,
    }
    with TestClient(create_app(settings.model_copy(update=curve))) as client:
        tokens = [player(client, f"w{n}") for n in range(4)]
        for n, token in enumerate(tokens):
            owner = client.portal.call(games_of(client).matchmaking.account, token)  # type: ignore[attr-defined]
            key = rating_key(owner, "rough")
            ordinal = "1000" if n % 2 else "0"
            client.portal.call(
                functools.partial(games_of(client).matchmaking.store.ratings.r.hset, key, "ordinal", ordinal)
            )  # type: ignore[attr-defined]
        tickets = [queue(client, token, rated=True) for token in tokens]
        last = max(mine_created(client, token, t) for token, t in zip(tokens, tickets, strict=True))
        assert run_pass(client, last + 35).tables == 0
        assert {
            ticket(client, token, t["ticket_id"])["status"] for token, t in zip(tokens, tickets, strict=True)
        } == {"waiting"}
        report = run_pass(client, last + 36.5)
        assert (report.tables, report.bot_filled) == (1, 0)


def test_a_ticket_past_its_time_expires_is_never_matched_and_frees_its_place(client: TestClient) -> None:
    tokens = [player(client, f"x{n}") for n in range(4)]
    old = queue(client, tokens[0])
    expires = datetime.fromisoformat(old["expires_at"]).timestamp()
    report = run_pass(client, expires + 1)  # the others are queued only now: they wait on
    assert (report.expired, report.tables) == (1, 0)
    assert ticket(client, tokens[0], old["ticket_id"])["status"] == "expired"
    again = queue(client, tokens[0])  # no longer held: queue again
    for token in tokens[1:]:
        queue(client, token)
    assert run_pass(client).tables == 1
    assert ticket(client, tokens[0], old["ticket_id"])["status"] == "expired"
    assert ticket(client, tokens[0], again["ticket_id"])["status"] == "matched"


def test_a_ticket_reads_expired_from_its_expires_at_on_before_any_pass(settings: Settings) -> None:
    """One second to wait (below the setting's floor of 10, set past its validation for time's sake)."""
    with TestClient(create_app(settings.model_copy(update={"matchmaking_ticket_seconds": 1}))) as client:
        token = player(client)
        mine = queue(client, token)
        assert mine["status"] == "waiting"
        time.sleep(max(0.0, datetime.fromisoformat(mine["expires_at"]).timestamp() - time.time()) + 0.05)
        assert ticket(client, token, mine["ticket_id"])["status"] == "expired"


def test_two_matchers_racing_never_put_one_ticket_in_two_games(client: TestClient) -> None:
    tokens = [player(client, f"r{n}") for n in range(12)]
    tickets = [queue(client, token) for token in tokens]
    matchmaking = games_of(client).matchmaking

    async def race() -> list[Any]:
        return list(await asyncio.gather(*(matchmaking.run_pass() for _ in range(3))))

    reports = client.portal.call(race)  # type: ignore[attr-defined]
    assert sum(r.tables for r in reports) == 3 and sum(r.lost_races for r in reports) > 0
    seen = [ticket(client, token, t["ticket_id"]) for token, t in zip(tokens, tickets, strict=True)]
    by_game: dict[str, list[int]] = {}
    for t in seen:
        by_game.setdefault(t["game_id"], []).append(t["seat"])
    assert len(by_game) == 3 and all(sorted(seats) == [0, 1, 2, 3] for seats in by_game.values())


class Killed(Exception):
    """The matcher's end, as a kill would come: between two of its writes."""


def test_a_matcher_that_died_mid_table_loses_no_ticket(client: TestClient) -> None:
    tokens = [player(client, f"k{n}") for n in range(4)]
    tickets = [queue(client, token) for token in tokens]
    matchmaking = games_of(client).matchmaking

    async def die_after_the_claim(claim: dict[str, Any]) -> None:
        raise Killed("between the claim and the game")

    opened = matchmaking._open
    matchmaking._open = die_after_the_claim  # type: ignore[method-assign]
    try:
        with pytest.raises(Killed):
            run_pass(client)
    finally:
        matchmaking._open = opened  # type: ignore[method-assign]
    assert ticket(client, tokens[0], tickets[0]["ticket_id"])["status"] == "waiting"  # claimed, not lost
    assert run_pass(client).recovered == 0  # its lease still runs
    report = run_pass(client, now=__import__("time").time() + CLAIM_LEASE + 1)
    assert report.recovered == 1
    seen = [ticket(client, token, t["ticket_id"]) for token, t in zip(tokens, tickets, strict=True)]
    assert {t["status"] for t in seen} == {"matched"} and len({t["game_id"] for t in seen}) == 1
    assert client.get(f"/v1/games/{seen[0]['game_id']}").json()["status"] == "active"


def test_refusals_say_what_to_do(client: TestClient) -> None:
    anonymous = client.post("/v1/matchmaking/tickets", json={"kind": "rough"})
    assert anonymous.status_code == 401 and anonymous.json()["code"] == "missing_token"
    token, other = player(client, "a"), player(client, "b")
    mine = queue(client, token)
    twice = client.post("/v1/matchmaking/tickets", json={"kind": "rough"}, headers=auth(token))
    assert twice.status_code == 409 and twice.json()["code"] == "ticket_held"
    assert twice.json()["ticket_id"] == mine["ticket_id"]
    theirs = client.get(f"/v1/matchmaking/tickets/{mine['ticket_id']}", headers=auth(other))
    assert theirs.status_code == 404 and theirs.json()["code"] == "ticket_not_found"  # its owner only
    gone = client.delete(f"/v1/matchmaking/tickets/{mine['ticket_id']}", headers=auth(other))
    assert gone.status_code == 404 and gone.json()["code"] == "ticket_not_found"
    bad = client.post(
        "/v1/matchmaking/tickets", json={"kind": "rough", "options": {"target_score": 7}}, headers=auth(other)
    )
    assert bad.status_code == 422 and bad.json()["code"] == "invalid_options", bad.text
    no_party = client.post(
        "/v1/matchmaking/tickets", json={"kind": "five_hundred", "party_id": "nope"}, headers=auth(other)
    )
    assert no_party.status_code == 404 and no_party.json()["code"] == "party_not_found"
    rated_bots = client.post(
        "/v1/matchmaking/tickets",
        json={"kind": "euchre5", "rated": True, "bots_for_the_rest": True},
        headers=auth(other),
    )
    assert rated_bots.status_code == 422 and rated_bots.json()["code"] == "bots_not_allowed"
    party = client.post("/v1/matchmaking/parties", json={"kind": "rough"}, headers=auth(token)).json()
    wrong = client.post(
        f"/v1/matchmaking/parties/{party['party_id']}/members", json={"invite_code": "x"}, headers=auth(other)
    )
    assert wrong.status_code == 403 and wrong.json()["code"] == "invalid_invite", wrong.text
    for n in range(3):
        joined = client.post(
            f"/v1/matchmaking/parties/{party['party_id']}/members",
            json={"invite_code": party["invite_code"]},
            headers=auth(player(client, f"m{n}")),
        )
        assert joined.status_code == 200, joined.text
    full = client.post(
        f"/v1/matchmaking/parties/{party['party_id']}/members",
        json={"invite_code": party["invite_code"]},
        headers=auth(other),
    )
    assert full.status_code == 409 and full.json()["code"] == "party_full"
    outsider = client.get(f"/v1/matchmaking/parties/{party['party_id']}", headers=auth(other))
    assert outsider.status_code == 404 and outsider.json()["code"] == "party_not_found"


def test_graphql_queues_reads_and_cancels_a_ticket_as_rest_does(client: TestClient) -> None:
    token = player(client, "gql")

    def gql(query: str, **variables: Any) -> dict[str, Any]:
        answer = client.post("/graphql", json={"query": query, "variables": variables}, headers=auth(token))
        body: dict[str, Any] = answer.json()
        return body

    made = gql(
        "mutation { createTicket(input: {kind: EUCHRE5, options: {euchre5: {targetScore: 5}}}) "
        "{ ticketId status kind options { ... on Euchre5GameOptions { targetScore } } } }"
    )
    assert made.get("data"), made
    ticket_id = made["data"]["createTicket"]["ticketId"]
    assert (
        made["data"]["createTicket"]["status"] == "WAITING"
        and made["data"]["createTicket"]["kind"] == "EUCHRE5"
    )
    assert made["data"]["createTicket"]["options"] == {"targetScore": 5}
    rest = ticket(client, token, ticket_id)
    assert rest["options"] == {
        "kind": "euchre5",
        "target_score": 5,
        "lone_march_points": 2,
    }  # as a game shows them
    read = gql("query($t: ID!) { ticket(ticketId: $t) { ticketId gameId } }", t=ticket_id)
    assert read["data"]["ticket"] == {"ticketId": ticket_id, "gameId": None}
    held = gql("mutation { createTicket(input: {kind: EUCHRE5}) { ticketId } }")
    assert held["errors"][0]["extensions"]["code"] == "ticket_held"
    cancelled = gql("mutation($t: ID!) { cancelTicket(input: {ticketId: $t}) { status } }", t=ticket_id)
    assert cancelled["data"]["cancelTicket"]["status"] == "CANCELLED"
    party = gql("mutation { createParty(input: {kind: ROUGH}) { partyId inviteCode members } }")
    assert party["data"]["createParty"]["inviteCode"] and len(party["data"]["createParty"]["members"]) == 1


def test_the_matchmaker_process_seats_waiting_players_and_stops_cleanly_on_sigterm(
    client: TestClient, redis_url: str
) -> None:
    """``atout matchmaker`` as a Deployment runs it: passes every interval until SIGTERM (exit 0)."""
    tokens = [player(client, f"m{n}") for n in range(4)]
    tickets = [queue(client, token) for token in tokens]
    env = {
        **os.environ,
        "REDIS_URL": redis_url,
        "ATOUT_MATCHMAKING_INTERVAL": "0.2",
        "ATOUT_LOG_LEVEL": "warning",
    }
    matcher = subprocess.Popen(
        [sys.executable, "-m", "service.runtime.cli", "matchmaker", "--metrics-port", "0"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 60
        while ticket(client, tokens[0], tickets[0]["ticket_id"])["status"] != "matched":
            assert matcher.poll() is None and time.monotonic() < deadline, (
                matcher.stdout and matcher.stdout.read()
            )
            time.sleep(0.1)
        seen = [ticket(client, token, t["ticket_id"]) for token, t in zip(tokens, tickets, strict=True)]
        assert len({t["game_id"] for t in seen}) == 1 and sorted(t["seat"] for t in seen) == [0, 1, 2, 3]
        matcher.send_signal(signal.SIGTERM)
        assert matcher.wait(30) == 0
    finally:
        if matcher.poll() is None:
            matcher.kill()
            matcher.wait(30)
        if matcher.stdout is not None:
            matcher.stdout.close()


def test_a_table_recovered_after_its_game_was_written_still_tells_and_lists_everyone(
    client: TestClient,
) -> None:
    """A matcher killed after the game's creation: the next pass finds the game written and does the
    rest (tickets matched, the game in each player's list, match_found): nothing is skipped for good."""
    tokens = [player(client, f"w{n}") for n in range(4)]
    tickets = [queue(client, token) for token in tokens]
    matchmaking = games_of(client).matchmaking

    async def die_right_after_the_game(*args: Any) -> None:
        raise Killed("after the game's creation, before anything else")

    indexed = matchmaking._index
    matchmaking._index = die_right_after_the_game  # type: ignore[method-assign]
    try:
        with pytest.raises(Killed):
            run_pass(client)
    finally:
        matchmaking._index = indexed  # type: ignore[method-assign]
    assert all(not notices(client, token) for token in tokens)  # no one told yet
    assert run_pass(client, now=time.time() + CLAIM_LEASE + 1).recovered == 1
    seen = [ticket(client, token, t["ticket_id"]) for token, t in zip(tokens, tickets, strict=True)]
    gid = seen[0]["game_id"]
    assert {t["status"] for t in seen} == {"matched"} and {t["game_id"] for t in seen} == {gid}
    for token in tokens:
        assert gid in [g["game_id"] for g in client.get("/v1/me/games", headers=auth(token)).json()["games"]]
        assert [n["game_id"] for n in notices(client, token) if n["type"] == "match_found"] == [gid]


def test_a_player_deleted_while_waiting_is_never_seated_and_the_others_wait_on(client: TestClient) -> None:
    tokens = [player(client, f"d{n}") for n in range(4)]
    tickets = [queue(client, token) for token in tokens]
    assert client.delete("/v1/me", headers=auth(tokens[0])).status_code in (200, 204)
    report = run_pass(client)
    assert report.tables == 0
    assert all(
        ticket(client, token, t["ticket_id"])["status"] == "waiting"
        for token, t in zip(tokens[1:], tickets[1:], strict=True)
    )
    queue(client, player(client, "late"))
    assert run_pass(client).tables == 1  # the three and the newcomer


def test_bot_accounts_play_in_a_pool_of_their_own(client: TestClient) -> None:
    """Bots queue with their API key and meet bots (a continuous bot ladder); people meet people."""
    keys = [client.post("/v1/bots", json={"name": f"mm-bot-{n}"}).json()["api_key"] for n in range(4)]
    people = [player(client, f"h{n}") for n in range(4)]
    bot_tickets = [queue(client, key) for key in keys]
    people_tickets = [queue(client, token) for token in people]
    assert run_pass(client).tables == 2
    bot_games = {ticket(client, k, t["ticket_id"])["game_id"] for k, t in zip(keys, bot_tickets, strict=True)}
    people_games = {
        ticket(client, p, t["ticket_id"])["game_id"] for p, t in zip(people, people_tickets, strict=True)
    }
    assert len(bot_games) == len(people_games) == 1 and bot_games != people_games
    stream = client.get(
        "/v1/bots/me/stream?follow=false", headers={**auth(keys[0]), "Accept": "application/x-ndjson"}
    ).text
    found = [json.loads(line) for line in stream.splitlines() if '"match_found"' in line]
    assert [n["game_id"] for n in found] == list(bot_games)


def test_a_pass_is_measured_by_pool_wait_and_bot_fill() -> None:
    from prometheus_client import REGISTRY

    from service.games.matchmaking import PassReport
    from workers.jobs.matchmaker import observe

    def sample(name: str, **labels: str) -> float:
        return REGISTRY.get_sample_value(name, labels) or 0.0

    before = (
        sample("atout_matchmaking_tables_total", bot_filled="yes"),
        sample("atout_matchmaking_wait_seconds_count"),
    )
    observe(PassReport(tables=3, bot_filled=1, waited=[2.0, 40.0], waiting={"rough/casual": 7}))
    assert sample("atout_matchmaking_tables_total", bot_filled="yes") == before[0] + 1
    assert sample("atout_matchmaking_wait_seconds_count") == before[1] + 2
    assert sample("atout_matchmaking_waiting_tickets", pool="rough/casual") == 7


def strings_in(value: Any) -> set[str]:
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set().union(*(strings_in(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(strings_in(v) for v in value)) if value else set()
    return set()


@pytest.mark.parametrize("kind", ["five_hundred", "rough", "euchre5"])
def test_a_matched_seat_sees_its_own_cards_and_no_one_elses_all_7(client: TestClient, kind: str) -> None:
    """docs/rules.md ALL-7 on matchmade tables: each account's view of its seat holds its hand and none
    of the other hands' cards, nor do its notices; its match_found notice names no card at all."""
    for _table in range(3):  # several deals
        players = 5 if kind == "euchre5" else 4
        tokens = [player(client, f"{kind}{n}") for n in range(players)]
        tickets = [queue(client, token, kind=kind) for token in tokens]
        run_pass(client)
        seen = [ticket(client, token, t["ticket_id"]) for token, t in zip(tokens, tickets, strict=True)]
        views = [
            client.get(f"/v1/games/{t['game_id']}/view?seat={t['seat']}", headers=auth(token)).json()["view"]
            for token, t in zip(tokens, seen, strict=True)
        ]
        hands = [set(view["hand"]) for view in views]
        assert all(hands) and sum(map(len, hands)) == len(set().union(*hands))  # dealt, disjoint
        for n, view in enumerate(views):
            others = set().union(*(hand for m, hand in enumerate(hands) if m != n))
            assert not strings_in(view) & others, (kind, n)
            for notice in notices(client, tokens[n]):  # your_turn holds the seat's own view
                assert not strings_in(notice) & others, (kind, n, notice["type"])
                if notice["type"] == "match_found":
                    assert not strings_in(notice) & set().union(*hands)
