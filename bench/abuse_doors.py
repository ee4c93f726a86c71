"""The third hardening round's attacks (issue 32), replayed by ``bench/abuse.py`` against its live
``atout serve``: the platform's new doors (tournaments, invitations, deletion, cursors, webhook URLs).

Each returns an :class:`Outcome` (``held`` when the server behaved as the issue requires), bounded in
requests and time, over the loopback only (127.0.0.1; the 33rd stream from 127.0.0.2). The server's
settings are its defaults but for ``ATOUT_PLAYER_MAX_GAMES=2`` (:data:`PLAYER_MAX_GAMES`, in abuse.py's
``SERVER_ENV``): the deletion attack needs a finished game to have dropped off a player's list, which
the default cap of 300 would take 300 games to show.

- ``tournament_caps``: a fresh bot account (registered before the registration budget is spent by
  abuse.py's spoofing attacks; the attack itself runs last) sends the finding's two tournaments (Swiss, 64 x
  ``bot:expert``, 1 round, 6 deals: 768 games), then the same at one deal (64 games) twice. Held when
  no more games start than the per-creator cap (``ATOUT_MAX_OPEN_GAMES_PER_CREATOR``) and every
  refusal is a 4xx or 503 problem (a 429/503 with ``Retry-After``).
- ``tournament_entrants``: ``bot:nosuchlevel``, a 3,000-character entrant of control and bidi
  characters, and another bot account entered without its consent. Held when each is a 4xx.
- ``invitation_lockout``: one seat invites one victim 120 times (8 at a time, over the tables of its
  own it may hold: two here); then a friend invites the victim. Held when the friend's invitation is
  accepted and the attacker holds at most ``ATOUT_INVITATIONS_PER_INVITER`` entries of the victim's list.
- ``tournament_streams``: 32 anonymous streams of one tournament's events from 127.0.0.1, then one
  from 127.0.0.2. Held when the 33rd client's stream opens.
- ``deleted_name``: a player sits at a table of three random bots and leaves it (the bots finish it),
  sits at another (the finished one drops off the player's list), then deletes itself. Held when the
  name was on the finished table's seat before and is gone after.
- ``deep_cursor``: a cursor nested 1,000 deep on ``/v1/me/games`` and GraphQL ``myGames``. Held on
  422 / ``invalid_request`` and no traceback in the server's log.
- ``webhook_urls``: ``http://[00]``, ``http://[1.2.3]``, ``http://[fec0::1]/``, ``http://2130706433/``
  and ``http://80/`` registered by the administrator, REST and GraphQL. Held when every one is a 4xx
  (GraphQL: an error coded), none a 5xx.
- ``small_doors``: a path id of 300 characters (404 with the resource's code), a problem's ``type``
  followed (its catalogue entry, 200), an explicit ``deal`` of any shape (422 as the administrator),
  and a seat left before the start joined again (201).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
from collections import Counter
from typing import Any, Protocol

import httpx

from service.base.settings import Settings

JSON = dict[str, Any]
PLAYER_MAX_GAMES = 2


class Served(Protocol):
    base: str
    admin_token: str
    log_path: Any

    def admin(self) -> dict[str, str]: ...


class Result(Protocol):
    def __call__(self, name: str, held: bool, figures: dict[str, object]) -> Any: ...


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def default(name: str) -> Any:
    return Settings.model_fields[name].default


async def guest(http: httpx.AsyncClient, name: str) -> JSON:
    response = await http.post("/v1/players", json={"name": name})
    response.raise_for_status()
    body: JSON = response.json()
    return body


async def bot_account(http: httpx.AsyncClient, name: str) -> JSON:
    response = await http.post("/v1/bots", json={"name": name})
    response.raise_for_status()
    body: JSON = response.json()
    return body


def statuses(answers: list[httpx.Response]) -> str:
    return "+".join(f"{n}x{s}" for s, n in sorted(Counter(a.status_code for a in answers).items()))


def clean_refusal(answer: httpx.Response) -> bool:
    """A refusal as the issue asks: a 4xx or 503 problem with a code; a 429/503 says when to retry."""
    if not (400 <= answer.status_code < 500 or answer.status_code == 503):
        return False
    coded = bool(answer.json().get("code"))
    return coded and (answer.status_code not in (429, 503) or int(answer.headers.get("Retry-After", 0)) > 0)


# --- tournaments --------------------------------------------------------------------------------


async def tournament_caps(http: httpx.AsyncClient, outcome: Result, key: str) -> Any:
    cap = int(default("max_open_games_per_creator"))
    answers = []
    for deals in (6, 6, 1, 1):
        body = {
            "kind": "rough",
            "format": "swiss",
            "rounds": 1,
            "deals": deals,
            "entrants": ["bot:expert"] * 64,
        }
        answers.append(await http.post("/v1/tournaments", json=body, headers=bearer(key)))
    started = 0
    for answer in answers:
        if answer.status_code == 201:
            started += len(answer.json()["games"])
    refusals = [a for a in answers if a.status_code != 201]
    held = started <= cap and all(clean_refusal(a) for a in refusals)
    codes = "+".join(sorted({a.json().get("code", "?") for a in refusals})) or "none"
    return outcome(
        "tournament_caps",
        held,
        {
            "tourn_games_started": started,
            "tourn_cap": cap,
            "tourn_answers": statuses(answers),
            "tourn_codes": codes,
        },
    )


async def tournament_entrants(http: httpx.AsyncClient, outcome: Result) -> Any:
    mine = await bot_account(http, "abuse-entrant")
    other = await bot_account(http, "abuse-stranger")
    long_name = ("\u202e\x07" + "x" * 10) * 250  # 3,000 characters: bidi overrides and bells
    bad = [
        ["bot:random", "bot:nosuchlevel"],
        ["bot:random", long_name],
        [f"account:{mine['bot_id']}", f"account:{other['bot_id']}"],
    ]
    answers = [
        await http.post(
            "/v1/tournaments", json={"kind": "rough", "entrants": e}, headers=bearer(mine["api_key"])
        )
        for e in bad
    ]
    held = all(400 <= a.status_code < 500 for a in answers)
    codes = "+".join(a.json().get("code", "?") for a in answers)
    return outcome(
        "tournament_entrants", held, {"entrant_answers": statuses(answers), "entrant_codes": codes}
    )


async def tournament_streams(server: Served, http: httpx.AsyncClient, outcome: Result) -> Any:
    created = await http.post(
        "/v1/tournaments",
        json={"kind": "rough", "entrants": ["bot:random", "bot:random"]},
        headers=server.admin(),
    )
    created.raise_for_status()
    url = f"{server.base}/v1/tournaments/{created.json()['tournament_id']}/events"
    cap = int(default("streams_per_client"))
    opened = 0
    async with contextlib.AsyncExitStack() as stack:
        crowd = await stack.enter_async_context(httpx.AsyncClient(timeout=30))
        for _ in range(cap):
            stream = await stack.enter_async_context(crowd.stream("GET", url))
            opened += stream.status_code == 200
        elsewhere = httpx.AsyncClient(
            timeout=30, transport=httpx.AsyncHTTPTransport(local_address="127.0.0.2")
        )
        async with elsewhere, elsewhere.stream("GET", url) as other:
            thirty_third = other.status_code
    held = thirty_third == 200
    return outcome("tournament_streams", held, {"streams_crowd": opened, "stream_33rd": thirty_third})


# --- players ------------------------------------------------------------------------------------


async def waiting_table(http: httpx.AsyncClient, token: str) -> str:
    created = await http.post("/v1/games", json={"kind": "rough"})
    created.raise_for_status()
    gid: str = created.json()["game"]["game_id"]
    (await http.post(f"/v1/games/{gid}/join", json={"seat": 0}, headers=bearer(token))).raise_for_status()
    return gid


async def invitation_lockout(http: httpx.AsyncClient, outcome: Result) -> Any:
    attacker, victim, friend = [await guest(http, n) for n in ("Mallory", "Victim", "Friend")]
    per_inviter = int(default("invitations_per_inviter"))
    tables = [
        await waiting_table(http, attacker["token"]) for _ in range(min(per_inviter + 1, PLAYER_MAX_GAMES))
    ]
    gate = asyncio.Semaphore(8)

    async def invite(i: int) -> httpx.Response:
        async with gate:
            return await http.post(
                f"/v1/games/{tables[i % len(tables)]}/invitations",
                json={"player_id": victim["player_id"]},
                headers=bearer(attacker["token"]),
            )

    answers = list(await asyncio.gather(*(invite(i) for i in range(120))))
    listed = (await http.get("/v1/me/invitations", headers=bearer(victim["token"]))).json()["invitations"]
    held_by_attacker = sum(1 for i in listed if i.get("game_id") in tables)
    own = await waiting_table(http, friend["token"])
    friendly = await http.post(
        f"/v1/games/{own}/invitations",
        json={"player_id": victim["player_id"]},
        headers=bearer(friend["token"]),
    )
    held = (
        friendly.status_code == 201
        and held_by_attacker <= per_inviter
        and all(a.status_code < 500 for a in answers)
    )
    return outcome(
        "invitation_lockout",
        held,
        {
            "invite_answers": statuses(answers),
            "invite_held_by_attacker": held_by_attacker,
            "invite_friend": friendly.status_code,
        },
    )


async def seat_name(http: httpx.AsyncClient, gid: str, seat: int) -> str:
    name: str = (await http.get(f"/v1/games/{gid}")).json()["seats"][seat]["name"]
    return name


async def wait_finished(http: httpx.AsyncClient, gid: str, seconds: float = 120.0) -> bool:
    async with asyncio.timeout(seconds):
        while (await http.get(f"/v1/games/{gid}")).json()["status"] != "finished":
            await asyncio.sleep(0.25)
    return True


async def deleted_name(http: httpx.AsyncClient, outcome: Result) -> Any:
    name = "Abuse Quatremains"
    player = await guest(http, name)
    token = player["token"]
    created = await http.post(
        "/v1/games",
        json={
            "kind": "rough",
            "seats": ["open", "bot:random", "bot:random", "bot:random"],
            "options": {"target_score": 200},
        },
    )
    created.raise_for_status()
    gid = created.json()["game"]["game_id"]
    (await http.post(f"/v1/games/{gid}/join", json={"seat": 0}, headers=bearer(token))).raise_for_status()
    (await http.post(f"/v1/games/{gid}/leave", headers=bearer(token))).raise_for_status()
    await wait_finished(http, gid)
    for _ in range(PLAYER_MAX_GAMES):  # the list, full, drops the finished game
        await waiting_table(http, token)
    listed = {g["game_id"] for g in (await http.get("/v1/me/games", headers=bearer(token))).json()["games"]}
    before = await seat_name(http, gid, 0)
    deleted = await http.delete("/v1/me", headers=bearer(token))
    after = await seat_name(http, gid, 0)
    held = gid not in listed and before == name and deleted.status_code == 204 and after == ""
    return outcome(
        "deleted_name",
        held,
        {
            "deleted_dropped_from_list": gid not in listed,
            "deleted_name_before": before == name,
            "deleted_name_after": after == name,
        },
    )


# --- encoded values and URLs ----------------------------------------------------------------------


def deep_cursor_value() -> str:
    body = base64.urlsafe_b64encode(("[" * 1000 + "]" * 1000).encode()).rstrip(b"=").decode()
    return "m1." + body  # a player's games list's form (service/games/cursors.py)


async def deep_cursor(server: Served, http: httpx.AsyncClient, outcome: Result) -> Any:
    token = (await guest(http, "Deep"))["token"]
    cursor = deep_cursor_value()
    rest = await http.get("/v1/me/games", params={"cursor": cursor}, headers=bearer(token))
    query = "query($c: String) { myGames(after: $c) { pageInfo { endCursor } } }"
    gql = await http.post(
        "/graphql", json={"query": query, "variables": {"c": cursor}}, headers=bearer(token)
    )
    errors = gql.json().get("errors") or [{}]
    gql_code = errors[0].get("extensions", {}).get("code", "none")
    traceback = "Traceback" in server.log_path.read_text(errors="replace")
    held = rest.status_code == 422 and gql_code == "invalid_request" and not traceback
    return outcome(
        "deep_cursor",
        held,
        {"cursor_rest": rest.status_code, "cursor_graphql": gql_code, "cursor_traceback": traceback},
    )


WEBHOOK_URLS = ("http://[00]", "http://[1.2.3]", "http://[fec0::1]/", "http://2130706433/", "http://80/")


async def webhook_urls(server: Served, http: httpx.AsyncClient, outcome: Result) -> Any:
    rest = [
        await http.post(
            "/v1/admin/webhooks", json={"url": url, "event_types": ["reminder"]}, headers=server.admin()
        )
        for url in WEBHOOK_URLS
    ]
    mutation = "mutation($u: String!) { registerWebhook(url: $u, eventTypes: [reminder]) { secret } }"
    codes = []
    for url in WEBHOOK_URLS:
        answer = await http.post(
            "/graphql", json={"query": mutation, "variables": {"u": url}}, headers=server.admin()
        )
        errors = answer.json().get("errors") or [{}]
        codes.append(errors[0].get("extensions", {}).get("code", "none"))
    held = all(400 <= a.status_code < 500 for a in rest) and all(
        c not in ("none", "internal_error") for c in codes
    )
    return outcome(
        "webhook_urls",
        held,
        {"webhook_rest": statuses(rest), "webhook_graphql": "+".join(sorted(set(codes)))},
    )


async def small_doors(server: Served, http: httpx.AsyncClient, outcome: Result) -> Any:
    long_id = await http.get("/v1/games/" + "x" * 300)
    followed = await http.get(long_id.json()["type"]) if long_id.status_code == 404 else long_id
    deal = await http.post(
        "/v1/games", json={"kind": "rough", "deal": {"anything": "at all"}}, headers=server.admin()
    )
    player = await guest(http, "Leaver")
    gid = await waiting_table(http, player["token"])
    left = await http.post(f"/v1/games/{gid}/leave", headers=bearer(player["token"]))
    again = await http.post(f"/v1/games/{gid}/join", json={"seat": 0}, headers=bearer(player["token"]))
    held = (
        long_id.status_code == 404
        and long_id.json().get("code") == "game_not_found"
        and followed.status_code == 200
        and deal.status_code == 422
        and left.status_code < 300
        and again.status_code == 201
    )
    return outcome(
        "small_doors",
        held,
        {
            "doors_long_id": long_id.status_code,
            "doors_problem_type": followed.status_code,
            "doors_any_deal": deal.status_code,
            "doors_rejoin": again.status_code,
        },
    )


async def foreign_tickets(http: httpx.AsyncClient, outcome: Result) -> Any:
    """Play now (issue 35): a ticket is its owner's alone, and a party's invite code is not guessed.
    Another player reads or cancels a ticket by its id (both 404 ``ticket_not_found``: ids are not
    secrets), the owner's second ticket for the kind is refused (409 ``ticket_held``), 50 made-up
    invite codes never join a party (403 ``invalid_invite``); the ticket still waits at the end."""
    owner, other = (await guest(http, "Ticket Owner"))["token"], (await guest(http, "Ticket Thief"))["token"]
    made = await http.post("/v1/matchmaking/tickets", json={"kind": "euchre5"}, headers=bearer(owner))
    made.raise_for_status()
    tid = made.json()["ticket_id"]
    read = await http.get(f"/v1/matchmaking/tickets/{tid}", headers=bearer(other))
    cancel = await http.delete(f"/v1/matchmaking/tickets/{tid}", headers=bearer(other))
    twice = await http.post("/v1/matchmaking/tickets", json={"kind": "euchre5"}, headers=bearer(owner))
    party = (await http.post("/v1/matchmaking/parties", json={"kind": "rough"}, headers=bearer(owner))).json()
    guesses = [
        await http.post(
            f"/v1/matchmaking/parties/{party['party_id']}/members",
            json={"invite_code": f"guess-{n}"},
            headers=bearer(other),
        )
        for n in range(50)
    ]
    after = await http.get(f"/v1/matchmaking/tickets/{tid}", headers=bearer(owner))
    members = (await http.get(f"/v1/matchmaking/parties/{party['party_id']}", headers=bearer(owner))).json()
    await http.delete(f"/v1/matchmaking/tickets/{tid}", headers=bearer(owner))  # no table for it later
    held = (
        (read.status_code, cancel.status_code, twice.status_code) == (404, 404, 409)
        and all(g.status_code == 403 for g in guesses)
        and after.json().get("status") == "waiting"
        and members.get("members") == [party["leader"]]
    )
    return outcome(
        "foreign_tickets",
        held,
        {
            "foreign_read": read.status_code,
            "foreign_cancel": cancel.status_code,
            "second_ticket": twice.status_code,
            "guessed_codes_refused": sum(g.status_code == 403 for g in guesses),
            "ticket_still_waiting": after.json().get("status") == "waiting",
        },
    )
