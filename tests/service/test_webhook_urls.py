"""Webhook URLs (issue 32, finding 7): the authority is parsed for real, once, by
``schema.webhooks.webhook_target``, and the address policy (service/base/destinations.py) is an
allow-list for IPv6. A malformed authority (``http://[00]``, ``http://[1.2.3]``, a host that is a
number) is 422 ``invalid_request`` in both APIs whatever ``ATOUT_WEBHOOK_ALLOW_PRIVATE`` says, never a
500; an address outside the public internet (site-local, unique-local, IPv4-mapped, NAT64 or 6to4 of
a private address, Teredo...) is 422 ``webhook_address_refused`` unless the operator allows private
destinations; and the worker parses the stored URL again before it resolves anything."""

from __future__ import annotations

import asyncio
import functools
import ipaddress
import logging
import re
import time
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as examples
from hypothesis import strategies as st
from pydantic import ValidationError
from starlette.testclient import TestClient
from svc_helpers import admin_headers, auth
from test_webhooks import TURN, Receiver, Worker, emit, log_of, receiver, wait_for, webhook_worker

from schema.webhooks import URL_PATTERN, RegisterWebhookRequest, WebhookTarget, webhook_target
from service.api.app import create_app
from service.base.destinations import DestinationRefused, _rfc6052, checked, is_public
from service.base.settings import Settings
from service.store.webhooks import WebhookEndpoint
from workers.jobs.deliveries import Answer, Bounds, post

__all__ = ["receiver", "webhook_worker"]  # the fixtures, shared with test_webhooks

MALFORMED = [
    "http://[00]",
    "http://[00]/hooks",
    "http://[1.2.3]",
    "http://[1.2.3.4]/hooks",  # an IPv4 address is not bracketed
    "http://[v1.fe]/hooks",  # IPvFuture
    "http://[fe80::1%25eth0]/hooks",  # a zone index names no host elsewhere
    "http://[::1/hooks",
    "http://[::1]x/hooks",
    "http://2130706433/hooks",  # 127.0.0.1 as one number
    "http://80/",  # 0.0.0.80
    "http://127.1/hooks",
    "http://0x7f.0.0.1/hooks",
    "http://0177.0.0.1/hooks",
    "http://1.2.3.4.5/hooks",
    "http://999.1.1.1/hooks",
    "http://hooks.example.123/x",
    "http://a..example.com/hooks",
    "http://-a.example.com/hooks",
    "http://" + "a" * 64 + ".example.com/hooks",
    "http://example.com:0/hooks",
    "http://example.com:65536/hooks",
    "http://example.com:/hooks",
    "http://example.com:80:80/hooks",
    "http:///hooks",
    "http://user@example.com/hooks",
]

NOT_PUBLIC_LITERALS = [
    "http://[fec0::1]/",  # site-local: "global" to Python's ipaddress
    "http://[fd12:3456::1]/",  # unique-local
    "http://[::ffff:10.0.0.1]/",  # IPv4-mapped
    "http://[::ffff:8.8.8.8]/",  # IPv4-mapped, even of a public address: a socket's form, not a host
    "http://[64:ff9b::10.0.0.1]/",  # NAT64 of a private address
    "http://[64:ff9b::127.0.0.1]/",
    "http://[64:ff9b:1::a00:1]/",  # local-use NAT64 (RFC 8215)
    "http://[2002:c0a8:101::1]/",  # 6to4 of 192.168.1.1
    "http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/",  # Teredo
    "http://[fe80::1]/",  # link-local
    "http://[::1]/",  # loopback
    "http://[::]/",
    "http://[2001:db8::1]/",  # documentation
    "http://[3fff::1]/",  # documentation (RFC 9637)
    "http://[100::1]/",  # discard
    "http://[ff02::1]/",  # multicast
    "http://[::10.0.0.1]/",  # IPv4-compatible (deprecated)
    "http://0.0.0.80/",
]


@pytest.fixture
def settings(settings: Settings) -> Settings:
    """Private destinations allowed (so that only the URL's form is judged); ``strict`` is the default."""
    return settings.model_copy(update={"webhook_allow_private": True})


@pytest.fixture
def strict(settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(settings.model_copy(update={"webhook_allow_private": False}))) as client:
        yield client


def rest(client: TestClient, url: str) -> Any:
    return client.post(
        "/v1/admin/webhooks", json={"url": url, "event_types": ["your_turn"]}, headers=admin_headers(client)
    )


REGISTER = """mutation($url: String!) {
  registerWebhook(input: {url: $url, eventTypes: [YOUR_TURN]}) { webhook { webhookId } }
}"""


def graphql(client: TestClient, url: str) -> dict[str, Any]:
    token = client.app.state.settings.admin_token  # type: ignore[attr-defined]
    response = client.post(
        "/graphql", json={"query": REGISTER, "variables": {"url": url}}, headers=auth(token)
    )
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


def graphql_code(client: TestClient, url: str) -> str | None:
    errors = graphql(client, url).get("errors")
    return None if not errors else str(errors[0]["extensions"]["code"])


def registered(client: TestClient) -> list[str]:
    hooks = client.get("/v1/admin/webhooks", headers=admin_headers(client)).json()["webhooks"]
    return [hook["url"] for hook in hooks]


# --- malformed authorities -------------------------------------------------------------------------


@pytest.mark.parametrize("url", MALFORMED)
def test_a_malformed_authority_is_422_in_both_apis_even_when_private_is_allowed(
    client: TestClient, strict: TestClient, url: str
) -> None:
    for app in (client, strict):
        response = rest(app, url)
        assert response.status_code == 422, response.text
        body = response.json()
        assert body["code"] == "invalid_request" and body["errors"][0]["loc"] == ["url"]
        assert graphql_code(app, url) == "invalid_request"
        assert registered(app) == []


def test_bracketed_nonsense_is_refused_without_a_traceback(
    client: TestClient, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    """The two hosts of the report: a 500 and a traceback each before (urlsplit raised ValueError)."""
    caplog.set_level(logging.INFO)
    capsys.readouterr()
    for url in ("http://[00]", "http://[1.2.3]"):
        response = rest(client, url)
        assert response.status_code == 422 and "is not an IPv6 address" in response.json()["detail"]
        answer = graphql(client, url)
        assert answer["errors"][0]["extensions"]["code"] == "invalid_request"
        assert "is not an IPv6 address" in answer["errors"][0]["message"]
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err + caplog.text and "unhandled_error" not in out + err


def test_a_host_that_is_a_number_is_refused_as_what_it_would_reach(client: TestClient) -> None:
    """``2130706433`` was refused as a bad port, and ``80`` accepted as a host: both are IPv4 addresses
    to a resolver (127.0.0.1, 0.0.0.80), written in a form URL parsers disagree on."""
    detail = rest(client, "http://2130706433/hooks").json()["detail"]
    assert "2130706433" in detail and "127.0.0.1" in detail and "port" not in detail
    detail = rest(client, "http://80/").json()["detail"]
    assert "0.0.0.80" in detail
    assert "port must be" in rest(client, "http://example.com:99999/").json()["detail"]


# --- addresses that are not public -------------------------------------------------------------------


@pytest.mark.parametrize("url", NOT_PUBLIC_LITERALS)
def test_an_address_outside_the_public_internet_is_refused_in_both_apis(strict: TestClient, url: str) -> None:
    response = rest(strict, url)
    assert response.status_code == 422, response.text
    assert response.json()["code"] == "webhook_address_refused"
    assert "not a public address" in response.json()["detail"]
    assert graphql_code(strict, url) == "webhook_address_refused"
    assert registered(strict) == []


def test_the_operator_may_still_allow_private_destinations(client: TestClient) -> None:
    """ATOUT_WEBHOOK_ALLOW_PRIVATE keeps its meaning: any well-formed address may be registered."""
    for url in ("http://[fec0::1]:8080/hooks", "http://[::ffff:10.0.0.1]/", "http://10.0.0.7/h"):
        assert rest(client, url).status_code == 201
    assert graphql_code(client, "http://[fd00::7]/hooks") is None
    assert len(registered(client)) == 4


@pytest.mark.parametrize(
    ("address", "public"),
    [
        ("8.8.8.8", True),
        ("1.1.1.1", True),
        ("2606:4700:4700::1111", True),
        ("2001:4860:4860::8888", True),
        ("64:ff9b::8.8.8.8", True),  # NAT64 of a public address: how an IPv6-only network reaches it
        ("2002:808:808::1", True),  # 6to4 of 8.8.8.8
        ("fec0::1", False),
        ("feff::1", False),
        ("fc00::1", False),
        ("fd00::1", False),
        ("fe80::1", False),
        ("::1", False),
        ("::", False),
        ("::ffff:10.0.0.1", False),
        ("::ffff:8.8.8.8", False),
        ("64:ff9b::a00:1", False),
        ("64:ff9b::c0a8:101", False),
        ("64:ff9b::6440:1", False),  # NAT64 of shared 100.64.0.1
        ("64:ff9b:1::a00:1", False),
        ("64:ff9b:1:a00:1::", False),  # local-use NAT64, a /48 prefix reading 10.0.0.1
        ("2002:a00:1::1", False),
        ("2002:7f00:1::", False),
        ("2002:a9fe:a9fe::1", False),  # 6to4 of 169.254.169.254
        ("2001::1", False),  # Teredo
        ("2001:0:4136:e378:8000:63bf:3fff:fdd2", False),
        ("2001:2::1", False),  # benchmarking
        ("2001:10::1", False),  # ORCHID
        ("2001:db8::1", False),
        ("3fff::1", False),
        ("100::1", False),
        ("ff02::1", False),
        ("ff0e::1", False),
        ("4000::1", False),  # reserved: outside 2000::/3
        ("::8.8.8.8", False),
        ("0.0.0.80", False),
        ("127.0.0.1", False),
        ("192.0.0.9", False),
        ("192.88.99.1", False),
        ("100.64.0.1", False),
        ("198.18.0.1", False),
        ("240.0.0.1", False),
        ("224.0.0.1", False),
    ],
)
def test_which_addresses_are_public(address: str, public: bool) -> None:
    assert is_public(ipaddress.ip_address(address)) is public


def test_the_nat64_readings_follow_rfc_6052() -> None:
    """RFC 6052, 2.4: 192.0.2.33 under each prefix length."""
    for text, length in [
        ("2001:db8:c000:221::", 32),
        ("2001:db8:1c0:2:21::", 40),
        ("2001:db8:122:c000:2:2100::", 48),
        ("2001:db8:122:3c0:0:221::", 56),
        ("2001:db8:122:344:c0:2:2100::", 64),
        ("2001:db8:122:344::192.0.2.33", 96),
    ]:
        assert _rfc6052(ipaddress.IPv6Address(text), length) == ipaddress.IPv4Address("192.0.2.33")


def test_an_address_literal_is_checked_as_it_is() -> None:
    assert checked("2606:4700::1", ["2606:4700::1"], False) == ["2606:4700::1"]
    with pytest.raises(DestinationRefused, match="address_refused"):
        checked("fec0::1", ["fec0::1"], False)
    assert checked("fec0::1", ["fec0::1"], True) == ["fec0::1"]


# --- the parser ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "target"),
    [
        ("https://Hooks.Example.com/atout", ("https", "hooks.example.com", 443, None)),
        ("http://hooks.example.com./x?y=1", ("http", "hooks.example.com.", 80, None)),
        ("http://8.8.8.8:8080", ("http", "8.8.8.8", 8080, "8.8.8.8")),
        ("https://[2606:4700:0:0::1]:8443/h", ("https", "2606:4700::1", 8443, "2606:4700::1")),
        ("http://[::ffff:1.2.3.4]/", ("http", "::ffff:102:304", 80, "::ffff:102:304")),
        ("http://xn--bcher-kva.example/", ("http", "xn--bcher-kva.example", 80, None)),
        (
            "http://0x7f.example/",
            ("http", "0x7f.example", 80, None),
        ),  # a name: its last label is not a number
    ],
)
def test_a_well_formed_url_gives_its_scheme_host_and_port(url: str, target: tuple[Any, ...]) -> None:
    address = None if target[3] is None else ipaddress.ip_address(target[3])
    assert webhook_target(url) == WebhookTarget(target[0], target[1], target[2], address)


def test_the_pattern_no_longer_lets_bracketed_nonsense_through() -> None:
    pattern = re.compile(URL_PATTERN)
    for url in ("http://[00]", "http://[1.2.3]", "http://[1:2]/", "http://[1.2.3.4]/"):
        assert not pattern.fullmatch(url)
    for url in (
        "http://[::1]/",
        "http://[::ffff:1.2.3.4]:80/",
        "http://[1:2:3:4:5:6:7::]/",
        "http://[::1.2.3.4]",
    ):
        assert pattern.fullmatch(url)


PROPERTY = examples(max_examples=300, deadline=None, derandomize=True)


@PROPERTY
@given(value=st.integers(0, 2**128 - 1), exploded=st.booleans())
def test_every_ipv6_address_fits_the_pattern_and_the_parser(value: int, exploded: bool) -> None:
    """The pattern and the parser agree on IPv6 literals: the server refuses none the document allows
    and parses every one the pattern lets through."""
    address = ipaddress.IPv6Address(value)
    url = f"http://[{address.exploded if exploded else address.compressed}]:8080/hooks"
    assert re.fullmatch(URL_PATTERN, url)
    assert webhook_target(url).address == address


AUTHORITY_CHARS = st.sampled_from([*"0123456789abcdefxX.:[]-%@ ", "é", "\u202e", "\x00"])


@PROPERTY
@given(
    authority=st.one_of(
        st.text(AUTHORITY_CHARS, max_size=60),
        st.text(max_size=60),
        st.from_regex(URL_PATTERN, fullmatch=True),
    )
)
def test_any_url_is_parsed_or_refused_with_a_value_error(authority: str) -> None:
    """Whatever follows the scheme, the model answers a ValidationError or a request, never another
    exception (what became a 500)."""
    url = authority if authority.startswith("http") else f"http://{authority}/hooks"
    try:
        RegisterWebhookRequest.model_validate({"url": url, "event_types": ["your_turn"]})
    except ValidationError:
        pass
    else:
        target = webhook_target(url)  # what registration and delivery read: it parses
        assert target.address is not None or not target.host.rstrip(".").split(".")[-1].isdigit()


@examples(max_examples=40, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(authority=st.text(AUTHORITY_CHARS, min_size=1, max_size=40))
def test_any_authority_is_never_a_5xx(strict: TestClient, authority: str) -> None:
    """The REST and GraphQL registrations of any authority: 201, or a 4xx problem (never a 500)."""
    url = f"http://{authority}/hooks"
    response = rest(strict, url)
    assert response.status_code in (201, 409, 422), response.text
    assert graphql_code(strict, url) in (None, "invalid_request", "webhook_address_refused", "webhook_limit")


# --- the delivery side -----------------------------------------------------------------------------

BOUNDS = Bounds(connect=1, read=1, max_bytes=1024, allow_private=True)


@pytest.mark.parametrize("url", ["http://[00]", "http://[1.2.3]/", "http://2130706433:9/", "http://80/"])
def test_a_delivery_to_a_url_of_an_older_rule_is_refused_before_any_resolution(url: str) -> None:
    """An endpoint stored before the strict parse: the attempt is refused, not a failed job."""
    answer = asyncio.run(post(url, {}, "{}", BOUNDS))
    assert answer == Answer(None, "address_refused")


def test_a_delivery_to_a_literal_outside_the_public_internet_is_refused() -> None:
    strict_bounds = Bounds(connect=1, read=1, max_bytes=1024, allow_private=False)
    for url in ("http://[fec0::1]:9/", "http://[64:ff9b::a00:1]/", "http://[2002:a00:1::1]/"):
        assert asyncio.run(post(url, {}, "{}", strict_bounds)) == Answer(None, "address_refused")


def test_the_worker_refuses_an_endpoint_stored_under_the_older_rule(
    client: TestClient, receiver: Receiver, webhook_worker: Worker
) -> None:
    """``http://2130706433:<port>/`` was accepted by the old pattern (the port check read the host as a
    port only when there was none): the worker, private destinations allowed, still sends nothing to
    what the resolver would have made of it (the receiver on 127.0.0.1) and dead-letters the message."""
    url = f"http://2130706433:{receiver.port}/hooks"
    endpoint = WebhookEndpoint(
        "wh_0123456789abcdef", url, ("your_turn",), "whsec_" + "A" * 43, "", True, time.time()
    )
    assert client.portal is not None
    store = client.app.state.store  # type: ignore[attr-defined]
    assert client.portal.call(functools.partial(store.webhooks.add_webhook, endpoint, 10))
    webhook_worker()
    mid = emit(client, "your_turn", TURN)
    log = wait_for(lambda: log_of(client, endpoint.id), "the refused attempt")
    assert [(a["status"], a["error"]) for a in log] == [(None, "address_refused")]
    dead = client.get("/v1/admin/webhooks/dead-letters", headers=admin_headers(client)).json()
    assert [(d["message_id"], d["error"]) for d in dead["dead_letters"]] == [(mid, "address_refused")]
    assert receiver.received == []
