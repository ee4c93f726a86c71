"""Issue 19, the second hardening round: each attack replayed against the real HTTP server (uvicorn
with the options `atout serve` uses, service/runtime/http_server.py), over raw sockets where a client library
would not send what an attacker sends. WebSockets: tests/service/test_websocket_limits.py; rate
counters: tests/service/test_rate_limits.py; the whole set against a live `atout serve`:
``bench/abuse.py``.

No test judges a time: deadlines are set to a second and each wait is bounded by a generous limit."""

from __future__ import annotations

import contextlib
import json
import re
import socket
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from starlette.testclient import TestClient
from svc_helpers import served_app

from service.api.app import create_app
from service.base.addresses import address_key
from service.base.settings import Settings
from service.runtime.http_server import trusted_networks

WAIT = 30.0  # the longest any read here waits: a bound, never the thing tested


def server(settings: Settings, **update: Any) -> contextlib.AbstractContextManager[str]:
    return served_app(create_app(settings.model_copy(update=update)))


def port_of(base: str) -> int:
    return int(base.rsplit(":", 1)[1])


@contextlib.contextmanager
def raw(base: str) -> Iterator[socket.socket]:
    sock = socket.create_connection(("127.0.0.1", port_of(base)), timeout=WAIT)
    try:
        yield sock
    finally:
        sock.close()


def read_response(sock: socket.socket) -> tuple[int, dict[str, str], bytes]:
    """One HTTP/1.1 response with a Content-Length (what every refusal here has)."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        assert chunk, f"closed before a whole response: {data!r}"
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    length = int(headers.get("content-length", "0"))
    while len(body) < length:
        chunk = sock.recv(65536)
        assert chunk, "closed inside the body"
        body += chunk
    return status, headers, body[:length]


def closed_by_server(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection (bounded by WAIT)."""
    received = b""
    while chunk := sock.recv(65536):
        received += chunk
    return received


def problem(body: bytes) -> dict[str, Any]:
    decoded: dict[str, Any] = json.loads(body)
    return decoded


# --- client addresses ----------------------------------------------------------------------------


def test_an_ipv6_client_is_its_64_and_an_ipv4_client_its_address() -> None:
    assert address_key("203.0.113.7") == "203.0.113.7"
    assert address_key("2001:db8:1:2:aaaa::1") == address_key("2001:db8:1:2:ffff::9") == "2001:db8:1:2::/64"
    assert address_key("2001:db8:1:3::1") != address_key("2001:db8:1:2::1")
    assert address_key("::ffff:203.0.113.7") == "203.0.113.7"  # a dual-stack socket's IPv4 peer
    assert address_key("testclient") == "testclient"


def test_trusted_proxies_are_addresses_or_cidrs_and_a_typo_stops_the_server() -> None:
    assert [str(n) for n in trusted_networks(" 10.0.0.0/8, 127.0.0.1 ,::1")] == [
        "10.0.0.0/8",
        "127.0.0.1/32",
        "::1/128",
    ]
    assert trusted_networks("") == ()
    with pytest.raises(ValueError, match="ATOUT_TRUSTED_PROXIES"):
        trusted_networks("10.0.0.0/8,proxy.internal")


def create(http: httpx.Client, forwarded_for: str) -> int:
    response = http.post("/v1/games", json={"kind": "rough"}, headers={"X-Forwarded-For": forwarded_for})
    return response.status_code


def test_a_forwarded_for_header_is_not_believed_by_default(settings: Settings) -> None:
    """From loopback with a new spoofed address a request, the creations still all count for the one
    real peer: the fourth is refused (before: 400 spoofed creations in 0.9 s, cap 100)."""
    with (
        server(settings, rate_create_game_per_address="3/hour") as base,
        httpx.Client(base_url=base) as http,
    ):
        statuses = [create(http, f"198.51.100.{n}") for n in range(1, 6)]
    assert statuses == [201, 201, 201, 429, 429]


def test_a_trusted_proxy_forwards_the_client_address_and_ipv6_counts_per_64(settings: Settings) -> None:
    """Behind a proxy named in ATOUT_TRUSTED_PROXIES each forwarded client has its own count; an IPv6
    client's addresses in one /64 share one."""
    with (
        server(settings, rate_create_game_per_address="3/hour", trusted_proxies="127.0.0.1") as base,
        httpx.Client(base_url=base) as http,
    ):
        assert [create(http, f"198.51.100.{n}") for n in range(1, 6)] == [201] * 5
        assert [create(http, f"2001:db8:7:7::{n}") for n in range(1, 5)] == [201, 201, 201, 429]
        assert create(http, "2001:db8:7:8::1") == 201  # the next /64 is another client


# --- headers: size and deadline ------------------------------------------------------------------


def test_a_2mb_header_is_refused_431_and_a_header_under_the_limit_served(settings: Settings) -> None:
    with server(settings) as base:
        with raw(base) as sock:
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: a\r\nX-Big: " + b"a" * 2_000_000 + b"\r\n\r\n")
            status, headers, body = read_response(sock)
            assert status == 431 and headers["connection"] == "close"
            assert headers["content-type"] == "application/problem+json"
            assert problem(body)["code"] == "header_too_large"
        with raw(base) as sock:  # one read holding a whole header just over the limit: judged exactly
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: a\r\nX-Big: " + b"a" * 17_000 + b"\r\n\r\n")
            assert read_response(sock)[0] == 431
        with raw(base) as sock:
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: a\r\nX-Fine: " + b"a" * 8_000 + b"\r\n\r\n")
            assert read_response(sock)[0] == 200


def test_half_sent_headers_and_silent_connections_are_closed_after_the_header_deadline(
    settings: Settings,
) -> None:
    """Before: half-sent headers were still held after 301 s, and 19,900 silent connections took every
    file descriptor."""
    with server(settings, header_timeout=1.0) as base:
        with raw(base) as sock:
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: a\r\nX-Half: abc")
            status, _, body = read_response(sock)
            assert status == 408 and problem(body)["code"] == "request_timeout"
            assert closed_by_server(sock) == b""
        with raw(base) as sock:  # never says a word: closed without an answer
            assert closed_by_server(sock) == b""
        with raw(base) as sock:  # kept alive: the second request has its own deadline
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: a\r\n\r\n")
            assert read_response(sock)[0] == 200
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: a\r\n")
            assert read_response(sock)[0] == 408


def test_a_body_not_sent_in_time_is_408(settings: Settings) -> None:
    with server(settings, body_timeout=1.0) as base, raw(base) as sock:
        sock.sendall(
            b"POST /v1/games HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\n"
            b"Content-Length: 100\r\n\r\n" + b'{"kind": '
        )
        status, _, body = read_response(sock)
        assert status == 408 and problem(body)["code"] == "request_timeout"


# --- connections -----------------------------------------------------------------------------------


def test_connections_past_the_per_address_cap_are_refused_at_once(settings: Settings) -> None:
    with server(settings, max_connections_per_address=4) as base:
        held = [socket.create_connection(("127.0.0.1", port_of(base)), timeout=WAIT) for _ in range(4)]
        try:
            with raw(base) as sock:
                status, headers, body = read_response(sock)
                assert status == 429 and problem(body)["code"] == "too_many_connections"
                assert headers["retry-after"] == "1"
            held.pop().close()
            statuses = []
            for _ in range(100):  # the server sees the close on its own time: a bounded number of tries
                with raw(base) as sock:
                    sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: a\r\n\r\n")
                    statuses.append(read_response(sock)[0])
                if statuses[-1] == 200:
                    break
            assert statuses[-1] == 200 and set(statuses) <= {200, 429}
        finally:
            for sock in held:
                sock.close()


def test_connections_past_the_process_cap_are_answered_503(settings: Settings) -> None:
    with server(settings, max_connections=16, max_connections_per_address=1000) as base:
        held = [socket.create_connection(("127.0.0.1", port_of(base)), timeout=WAIT) for _ in range(16)]
        try:
            with raw(base) as sock:
                status, _, body = read_response(sock)
                assert status == 503 and problem(body)["code"] == "server_full"
        finally:
            for sock in held:
                sock.close()


# --- errors that are not ours ----------------------------------------------------------------------

LONE_SURROGATE_GAME = b'{"kind": "rough","options":{"\\ud800":1}}'
LONE_SURROGATE_QUERY = b'{"query":"{ __typename }","operationName":"\\ud800"}'


def post_raw(sock: socket.socket, path: str, body: bytes) -> tuple[int, dict[str, str], bytes]:
    sock.sendall(
        f"POST {path} HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n".encode()
        + body
    )
    return read_response(sock)


def test_a_lone_surrogate_is_400_in_both_apis_and_the_connection_lives_on(settings: Settings) -> None:
    """Before: 500 with a traceback and the kept-alive connection reset."""
    with server(settings) as base, raw(base) as sock:
        for path, body in (("/v1/games", LONE_SURROGATE_GAME), ("/graphql", LONE_SURROGATE_QUERY)):
            status, headers, answer = post_raw(sock, path, body)
            assert status == 400, answer
            assert problem(answer)["code"] == "malformed_body"
            assert "connection" not in headers  # kept alive
        assert post_raw(sock, "/v1/games", b'{"kind": "rough","options":{"\\ud83d\\ude00":1}}')[0] == 422
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: a\r\n\r\n")
        assert read_response(sock)[0] == 200


def test_a_problem_quoting_a_lone_surrogate_is_still_encodable() -> None:
    from service.api.problems import problem_response
    from service.base.problems import ProblemError

    response = problem_response(ProblemError("invalid_request", "bad key '\ud800'"))
    assert b"\\ud800" in response.body and response.status_code == 422


def requests_by_status(metrics_text: str, route: str) -> dict[str, float]:
    found: dict[str, float] = {}
    pattern = re.compile(r"atout_http_requests_total\{([^}]*)\} ([0-9.e+]+)")
    for labels, value in pattern.findall(metrics_text):
        if f'route="{route}"' in labels:
            status = re.search(r'status="(\d+)"', labels)
            assert status is not None
            found[status.group(1)] = found.get(status.group(1), 0.0) + float(value)
    return found


def test_aborted_uploads_are_client_aborts_not_our_errors(
    settings: Settings, capfd: pytest.CaptureFixture[str]
) -> None:
    """Before: each cut upload was one more 500 in /metrics and a ~4 KB traceback in the log."""
    paths = ["/v1/games", "/graphql"] * 5
    with server(settings) as base:
        for path in paths:
            with raw(base) as sock:
                sock.sendall(
                    f"POST {path} HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\n".encode()
                    + b"Content-Length: 1000\r\n\r\n"
                    + b'{"kind": "r'
                )
        with httpx.Client(base_url=base) as http:
            for _ in range(100):  # the server notices each disconnect on its own time: bounded wait
                metrics = http.get("/metrics").text
                counted = {path: requests_by_status(metrics, path) for path in set(paths)}
                if all(c.get("499", 0) >= 5 for c in counted.values()):
                    break
                with raw(base) as sock:  # a round trip to let the server's loop run
                    sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: a\r\n\r\n")
                    read_response(sock)
    assert all(c.get("499") == 5 for c in counted.values()), counted
    assert not any(status.startswith("5") for c in counted.values() for status in c), counted
    log = capfd.readouterr()
    assert "client_closed" in log.out + log.err
    assert "Traceback" not in log.out + log.err and "unhandled_error" not in log.out + log.err


# --- pages and what they tell ----------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/play", "/docs", "/graphql"])
def test_pages_forbid_other_origins_inline_scripts_and_framing(client: TestClient, path: str) -> None:
    response = client.get(path, headers={"Accept": "text/html"})
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/html")
    policy = {d.split()[0]: d.split()[1:] for d in response.headers["content-security-policy"].split("; ")}
    assert policy["default-src"] == ["'self'"] and policy["script-src"] == ["'self'"]
    assert policy["frame-ancestors"] == ["'none'"] and policy["object-src"] == ["'none'"]
    assert response.headers["x-frame-options"] == "DENY"
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["referrer-policy"] == "no-referrer"


def test_every_answer_says_nosniff(client: TestClient) -> None:
    for path in ("/healthz", "/v1/rules", "/static/play/app.js", "/no-such-page"):
        assert client.get(path).headers["x-content-type-options"] == "nosniff", path


def test_metrics_can_be_kept_for_the_administrator(settings: Settings, admin_token: str) -> None:
    with TestClient(create_app(settings)) as client:
        assert client.get("/metrics").status_code == 200  # public by default
    with TestClient(create_app(settings.model_copy(update={"metrics_admin_only": True}))) as client:
        refused = client.get("/metrics")
        assert refused.status_code == 403 and refused.json()["code"] == "admin_required"
        assert client.get("/metrics", headers={"Authorization": "Bearer wrong"}).status_code == 403
        answered = client.get("/metrics", headers={"Authorization": f"Bearer {admin_token}"})
        assert answered.status_code == 200 and "atout_http_requests_total" in answered.text


def test_a_token_in_the_query_string_opens_streams_only_and_is_never_logged(
    client: TestClient, capfd: pytest.CaptureFixture[str]
) -> None:
    gid = client.post("/v1/games", json={"kind": "rough"}).json()["game"]["game_id"]
    token = client.post(f"/v1/games/{gid}/join", json={"seat": 0}).json()["token"]
    legal = client.get(f"/v1/games/{gid}/actions", params={"access_token": token})
    assert legal.status_code == 401 and legal.json()["code"] == "missing_token"
    view = client.get(f"/v1/games/{gid}/view", params={"access_token": token})
    assert view.status_code == 200 and view.json()["seat"] is None  # a spectator's: the token unread
    stream = client.get(f"/v1/games/{gid}/events", params={"access_token": token, "follow": "false"})
    assert stream.status_code == 200 and "seat_joined" in stream.text
    log = capfd.readouterr()
    assert token not in log.out + log.err
