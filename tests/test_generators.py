"""Third-party code generators take openapi/openapi.json whole, as a client author runs them: each
validates it and generates every operation with no error and no warning -- openapi-python-client,
openapi-generator (``validate``, then the ``kotlin`` and ``swift5`` clients) and openapi-typescript.
The generated Python client then plays a whole match against a live service (create, join, view,
legal actions, act, the log) and reads the game's stream through examples/client/atout_stream.py;
examples/client/stream.ts reads one too, compiled by tsc and run by Node.

Each generator runs once (module fixtures; the three openapi-generator runs at once, one JVM each).
The Kotlin and Swift clients are generated, not compiled: their builds need Gradle and Maven Central
(Debian packages only kotlin 1.3) and a Swift toolchain (no Debian package), which no test here has.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import json
import os
import random
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCUMENT = ROOT / "openapi" / "openapi.json"
CLIENT = ROOT / "examples" / "client"
BIN = Path(sys.executable).parent  # the tools of the test extra, installed beside this Python
PATHS: dict[str, dict[str, Any]] = json.loads(DOCUMENT.read_text())["paths"]
OPERATIONS = [operation["operationId"] for item in PATHS.values() for operation in item.values()]
PACKAGE = "atout_client"  # the generated Python package

# What openapi-generator logs about itself, whatever the document; anything else it warns of fails.
GENERATOR_NOTICES = (
    "OpenAPI 3.1 support is still in beta",  # for any 3.1 document
    "Generator 'swift5' is considered deprecated",  # the target asked for; swift6 succeeds it
    "This generator has been deprecated. Please use `swift6` instead",
    # Logged once a run by its normalizer (OpenAPINormalizer.fixSelfReferenceSchema), which reads a
    # component's boolean `additionalProperties` as if it were a $ref: our closed objects (`false`)
    # stay closed, schemathesis holds every answer to them.
    "Failed to get the schema name: null",
)
LOG_LINE = re.compile(r"^\[[^\]]+\] (?P<level>WARN|ERROR)\s+\S+ - (?P<message>.*)$")
LEAN = ["--global-property", "apiTests=false,modelTests=false,apiDocs=false,modelDocs=false"]
# /v1 may add enum values (docs/apps.md, "Versioning"): each generated enum gets a case for a
# value it does not know, so that a decoder reads a new one instead of failing (docs/apps.md's commands).
OPEN_ENUMS = ["--additional-properties=enumUnknownDefaultCase=true"]
ENUMS = {  # an enum's declaration, and its case for an unknown value
    "kotlin": (r"\benum class \w+\(val value", r"\bunknown_default_open_api\("),
    "swift5": (r"\benum \w+: (?:String|Int), Codable", r"\bcase unknownDefaultOpenApi = "),
}
# A Swift enum cannot be named `Type`: the `type` discriminator's enum gets a name of its own.
SWIFT_OPTIONS = ["--enum-name-mappings", "type=Kind"]
API_SOURCES = {
    "kotlin": ("src/main/kotlin/org/openapitools/client/apis/*.kt", "fun {}("),
    "swift5": ("OpenAPIClient/Classes/OpenAPIs/APIs/*.swift", "func {}("),
}


@dataclass(frozen=True)
class Run:
    """One tool run: its exit status, what it printed (stdout and stderr) and where it wrote."""

    returncode: int
    output: str
    out: Path


def snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def lines(output: str) -> list[str]:
    return [line for line in output.splitlines() if line.strip()]


def npx(*args: str | Path, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    assert (ROOT / "node_modules" / ".installed").exists(), "run `make test`: it installs the npm tools"
    command = ["npx", "--no-install", *map(str, args)]
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=240, check=False)


def java_or_skip() -> None:
    """openapi-generator runs on a JVM: `make test` installs Debian's JRE when there is none."""
    if shutil.which("java"):
        return
    if os.geteuid() == 0:
        pytest.fail("no java: `make test` installs Debian's default-jre-headless")
    pytest.skip("no java (Debian's default-jre-headless) and not root to install it: openapi-generator")


def load(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def closing() -> Iterator[contextlib.ExitStack]:
    """What a test opens on it (a generated client and its connections) is closed after the test."""
    with contextlib.ExitStack() as stack:
        yield stack


# --- openapi-python-client ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def python_client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Run]:
    """The Python client, generated once and importable as ``atout_client``."""
    where = tmp_path_factory.mktemp("python-client")
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}  # its ruff hooks
    command = [BIN / "openapi-python-client", "generate", "--path", DOCUMENT, "--meta", "none"]
    made = subprocess.run(
        [*map(str, command), "--output-path", str(where / PACKAGE)],
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    sys.path.insert(0, str(where))
    try:
        yield Run(made.returncode, made.stdout + made.stderr, where / PACKAGE)
    finally:
        sys.path.remove(str(where))
        for name in [m for m in sys.modules if m == PACKAGE or m.startswith(f"{PACKAGE}.")]:
            del sys.modules[name]


def test_openapi_python_client_generates_every_operation_with_no_warning(python_client: Run) -> None:
    assert python_client.returncode == 0, python_client.output
    # it prints what it generates and, below, every warning (a schema it could not read, an
    # endpoint left out, a post-hook that did not run): here nothing but the first line
    assert lines(python_client.output) == [f"Generating {python_client.out}"], python_client.output
    modules = {
        p.relative_to(python_client.out / "api").with_suffix("") for p in python_client.out.glob("api/*/*.py")
    }
    by_name = {module.name: module for module in modules if module.name != "__init__"}
    assert sorted(by_name) == sorted(snake(operation) for operation in OPERATIONS)
    for module in by_name.values():
        generated = importlib.import_module(f"{PACKAGE}.api.{module.parent.name}.{module.name}")
        assert callable(generated.sync_detailed)
    models = importlib.import_module(f"{PACKAGE}.models")
    # a game to create is one of three (oneOf by `kind`: each game's own options), typed each
    assert {"NewRoughGame", "NewFiveHundredGame", "NewEuchre5Game"} <= set(dir(models))
    assert {"BidMade", "EventEnvelope", "YourTurnNotice", "StreamEnd", "NextTurn"} <= set(dir(models))


# --- openapi-generator ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def openapi_generator(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Run]:
    """``validate``, and the Kotlin and Swift 5 clients: three JVMs started at once."""
    java_or_skip()
    where = tmp_path_factory.mktemp("openapi-generator")
    cli = [str(BIN / "openapi-generator-cli")]
    commands = {
        "validate": [*cli, "validate", "-i", str(DOCUMENT)],
        "kotlin": [
            *[*cli, "generate", "-i", str(DOCUMENT), "-g", "kotlin", "-o", str(where / "kotlin")],
            *LEAN,
            *OPEN_ENUMS,
        ],
        "swift5": [
            *[*cli, "generate", "-i", str(DOCUMENT), "-g", "swift5", "-o", str(where / "swift5")],
            *LEAN,
            *OPEN_ENUMS,
            *SWIFT_OPTIONS,
        ],
    }
    started = {
        name: subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        for name, command in commands.items()
    }
    runs = {}
    for name, process in started.items():
        output, _ = process.communicate(timeout=300)
        runs[name] = Run(process.returncode, output, where / name)
    return runs


def validation_issues(output: str) -> dict[str, list[str]]:
    """The errors and warnings ``validate`` lists, each a ``- `` line under its heading."""
    issues: dict[str, list[str]] = {"Errors": [], "Warnings": []}
    heading = None
    for line in output.splitlines():
        if line.rstrip().rstrip(":") in issues:
            heading = line.rstrip().rstrip(":")
        elif heading and line.strip().startswith("- "):
            issues[heading].append(line.strip())
    return issues


def complaints(output: str) -> list[str]:
    """The WARN and ERROR lines openapi-generator logged, but for its notices about itself."""
    found = [m for m in map(LOG_LINE.match, output.splitlines()) if m]
    return [m.group(0) for m in found if not any(n in m.group("message") for n in GENERATOR_NOTICES)]


def test_openapi_generator_validates_the_document_with_no_error_and_no_warning(
    openapi_generator: dict[str, Run],
) -> None:
    run = openapi_generator["validate"]
    assert validation_issues(run.output) == {"Errors": [], "Warnings": []}, run.output
    assert run.returncode == 0 and "No validation issues detected." in run.output, run.output


@pytest.mark.parametrize("target", ["kotlin", "swift5"])
def test_openapi_generator_generates_every_operation_with_no_warning(
    openapi_generator: dict[str, Run], target: str
) -> None:
    run = openapi_generator[target]
    assert run.returncode == 0, run.output[-4000:]
    assert complaints(run.output) == []
    assert "Exception" not in run.output, run.output[-4000:]
    pattern, declaration = API_SOURCES[target]
    sources = "".join(path.read_text() for path in run.out.glob(pattern))
    assert [op for op in OPERATIONS if declaration.format(op) not in sources] == []


@pytest.mark.parametrize("target", ["kotlin", "swift5"])
def test_every_generated_enum_reads_a_value_it_does_not_know(
    openapi_generator: dict[str, Run], target: str
) -> None:
    """With enumUnknownDefaultCase, each enum of the models has a case for a value a newer service adds
    within /v1 (a seat kind, a game status, an event type): the decoder maps it there, not failing."""
    declaration, unknown = ENUMS[target]
    sources = [path.read_text() for path in run_models(openapi_generator[target])]
    enums = sum(len(re.findall(declaration, text)) for text in sources)
    assert enums > 100, "the models hold the document's enums"
    assert sum(len(re.findall(unknown, text)) for text in sources) == enums


def run_models(run: Run) -> list[Path]:
    return [
        path
        for path in run.out.rglob("*")
        if path.suffix in {".kt", ".swift"} and "models" in path.parts[-2].lower()
    ]


# --- openapi-typescript --------------------------------------------------------------------------


def test_openapi_typescript_generates_every_path_with_no_warning(tmp_path: Path) -> None:
    made = npx("openapi-typescript", DOCUMENT, "-o", tmp_path / "atout-api.d.ts")
    assert made.returncode == 0, made.stdout + made.stderr
    said = lines(made.stdout + made.stderr)
    # its banner and the file it wrote; a warning would be a line of its own
    assert len(said) == 2 and said[0].startswith("✨ openapi-typescript"), said
    assert said[1].startswith("🚀") and "atout-api.d.ts" in said[1], said
    types = (tmp_path / "atout-api.d.ts").read_text()
    assert [path for path in PATHS if f'    "{path}": {{' not in types] == []
    assert [op for op in OPERATIONS if f"    {op}: {{" not in types] == []


# --- the generated Python client against a live service -------------------------------------------


def test_the_generated_python_client_plays_a_whole_match(
    python_client: Run, live_server: str, closing: contextlib.ExitStack
) -> None:
    """Le Rough, four seats joined through the client, every move chosen from its legal actions
    after reading the seat's view, until the match is over; then the log, and the seat's stream read
    with examples/client/atout_stream.py (once whole, once in two parts resumed by Last-Event-ID)."""
    generated = importlib.import_module(PACKAGE)
    models = importlib.import_module(f"{PACKAGE}.models")
    api = {
        name: importlib.import_module(f"{PACKAGE}.api.{tag}.{name}")
        for tag, name in [
            ("games", "create_game"),
            ("games", "join_game"),
            ("games", "get_replay_log"),
            ("play", "get_view"),
            ("play", "get_legal_actions"),
            ("play", "submit_action"),
        ]
    }
    anyone = closing.enter_context(generated.Client(base_url=live_server))
    options = models.NewRoughGameOptions(target_score=models.NewRoughGameOptionsTargetScore.VALUE_200)
    request = models.NewRoughGame(kind="rough", seats=["open"] * 4, options=options)
    created = api["create_game"].sync(client=anyone, body=request)
    assert isinstance(created, models.CreateGameResponse), created
    gid = created.game.game_id
    seats = {}
    for seat in range(4):
        joined = api["join_game"].sync(
            gid, client=anyone, body=models.JoinRequest(seat=seat, name=f"gen {seat}")
        )
        assert isinstance(joined, models.JoinResponse), joined
        seats[seat] = closing.enter_context(
            generated.AuthenticatedClient(base_url=live_server, token=joined.token)
        )
    assert joined.started
    rng, moves, to_act = random.Random(21), 0, 0  # the first view read is seat 0's
    while True:
        view = api["get_view"].sync(gid, client=seats[to_act])
        assert isinstance(view, models.ViewResponse) and isinstance(view.view, models.RoughView), view
        assert view.seat == to_act, view
        if view.status == "finished":
            break
        to_act = view.view.to_act
        legal = api["get_legal_actions"].sync(gid, client=seats[to_act])
        assert isinstance(legal, models.LegalActionsResponse) and legal.seat == legal.to_act == to_act, legal
        action = rng.choice(legal.legal_actions)
        if isinstance(action, models.DiscardTemplate):
            action = models.DiscardAction(type_="discard", cards=rng.sample(action.choices, action.count))
        body = models.ActionRequest(action=action, expected_version=legal.version)
        moved = api["submit_action"].sync(gid, client=seats[to_act], body=body)
        assert isinstance(moved, models.ActionResponse) and moved.version == legal.version + 1, moved
        moves += 1
        assert moves < 3000, "the match did not end"
        to_act = to_act if moved.to_act is None else moved.to_act  # the next view: the seat to act
    log = api["get_replay_log"].sync(gid, client=anyone)
    assert isinstance(log, models.LogResponse), log
    assert len(log.actions) == moves and log.winners and view.view.to_act is None

    streams = load(CLIENT / "atout_stream.py")
    document = anyone.get_httpx_client().get("/openapi.json").json()  # the service's own document
    whole = list(streams.game_events(seats[0], gid, models, document, follow=False))
    assert all(isinstance(frame, models.EventEnvelope) for frame in whole)
    assert isinstance(whole[0].event, models.GameCreated) and isinstance(whole[-1].event, models.Turn)
    assert any(isinstance(frame.event, models.GameFinished) for frame in whole)
    plays = [frame for frame in whole if isinstance(frame.event, models.CardPlayed)]
    assert len(plays) == sum(entry.action.type_ == "play" for entry in log.actions)
    first = streams.game_events(seats[0], gid, models, document)
    events = iter(first)
    head = [next(events) for _ in range(10)]
    events.close()  # the connection too
    rest = list(streams.game_events(seats[0], gid, models, document, last_event_id=first.last_event_id))
    assert [event.id for event in head + rest] == [event.id for event in whole]


def sse(*frames: dict[str, Any]) -> bytes:
    """Server-Sent Events text as the service writes it (CRLF line ends, a ping comment first)."""
    text = ": ping\r\n\r\n"
    for frame in frames:
        fields = {k: frame[k] for k in ("id", "event", "retry") if k in frame}
        text += (
            "".join(f"{k}: {v}\r\n" for k, v in fields.items()) + f"data: {json.dumps(frame['data'])}\r\n\r\n"
        )
    return text.encode()


def test_the_python_stream_helper_reconnects_after_a_lagged_end_and_delivers_a_resync(
    python_client: Run, closing: contextlib.ExitStack
) -> None:
    """The ends a live test cannot cause at will, served by an httpx transport: after ``lagged`` the
    helper reconnects with the last id it delivered (no gap, no duplicate); ``resync`` it delivers
    as the last item, decoded as the generated StreamEnd. An event of a type the document does not
    name (one added within v1) is skipped, and the stream goes on."""
    generated = importlib.import_module(PACKAGE)
    models = importlib.import_module(f"{PACKAGE}.models")
    streams = load(CLIENT / "atout_stream.py")
    document = json.loads(DOCUMENT.read_text())
    turn = {"type": "turn", "to_act": 1, "status": "active"}
    future = {"type": "comet_seen", "seat": 2}  # an event type added after the client was generated
    lagged = {"type": "lagged", "code": "stream_lagged", "detail": "fell behind", "last_event_id": "2-0"}
    resync = {
        "type": "resync",
        "code": "stream_window_passed",
        "detail": "read the view",
        "last_event_id": "9-0",
    }

    def frame(eid: str, version: int, event: dict[str, Any]) -> dict[str, Any]:
        data = {"type": "event", "id": eid, "version": version, "event": event}
        return {"id": eid, "event": event["type"], "data": data}

    answers = {
        None: sse(frame("1-0", 3, turn), frame("1-1", 3, future), frame("2-0", 4, turn),
                  {"event": "lagged", "retry": 10, "data": lagged}),
        "2-0": sse(frame("3-0", 5, turn), {"event": "resync", "retry": 10, "data": resync}),
    }  # fmt: skip
    asked: list[str | None] = []

    def serve(request: httpx.Request) -> httpx.Response:
        asked.append(request.headers.get("last-event-id"))
        assert request.headers["authorization"] == "Bearer seat-token"
        body = answers[asked[-1]]
        return httpx.Response(200, content=body, headers={"content-type": "text/event-stream"})

    transport = httpx.MockTransport(serve)
    client = closing.enter_context(
        generated.AuthenticatedClient(
            base_url="http://atout.test", token="seat-token", httpx_args={"transport": transport}
        )
    )
    stream = streams.game_events(client, "g1", models, document)
    got = list(stream)
    assert asked == [None, "2-0"]
    assert [type(item).__name__ for item in got] == ["EventEnvelope"] * 3 + ["StreamEnd"]
    assert [type(item.event).__name__ for item in got[:3]] == ["Turn"] * 3
    assert [item.id for item in got[:3]] == ["1-0", "2-0", "3-0"] and stream.last_event_id == "3-0"
    assert got[-1].code == "stream_window_passed" and got[-1].last_event_id == "9-0"


READ_TWICE = """
import { gameEvents, describeFrame } from "./stream.js";
const [base, gameId, token] = process.argv.slice(2);
const whole = [];
for await (const event of gameEvents(base, gameId, { token, follow: false })) whole.push(event);
const head = [];
for await (const event of gameEvents(base, gameId, { token, follow: false })) {
  head.push(event);
  if (head.length === 3) break;
}
const rest = [];
const lastEventId = head[head.length - 1].id;
for await (const event of gameEvents(base, gameId, { token, follow: false, lastEventId })) rest.push(event);
console.log(JSON.stringify({ whole, resumed: [...head, ...rest], described: whole.map(describeFrame) }));
"""


def test_the_typescript_stream_helper_reads_and_resumes_a_game_stream(
    live_server: str, tmp_path: Path
) -> None:
    """examples/client/stream.ts, compiled by tsc and run by Node against a live service: a seat's
    stream read whole equals the SSE frames' data; read in two parts, resumed by Last-Event-ID, the
    same; every frame narrows by its type."""
    with httpx.Client(base_url=live_server, timeout=30) as http:
        gid = http.post("/v1/games", json={"kind": "rough", "seats": ["open"] * 4}).json()["game"]["game_id"]
        tokens = [http.post(f"/v1/games/{gid}/join", json={"seat": s}).json()["token"] for s in range(4)]
        rng = random.Random(3)
        for _ in range(8):
            to_act = http.get(f"/v1/games/{gid}").json()["to_act"]
            seat = {"Authorization": f"Bearer {tokens[to_act]}"}
            legal = rng.choice(http.get(f"/v1/games/{gid}/actions", headers=seat).json()["legal_actions"])
            if legal["type"] == "discard":
                legal = {"type": "discard", "cards": rng.sample(legal["choices"], legal["count"])}
            assert (
                http.post(f"/v1/games/{gid}/actions", json={"action": legal}, headers=seat).status_code == 200
            )
        sse = http.get(
            f"/v1/games/{gid}/events?follow=false", headers={"Authorization": f"Bearer {tokens[0]}"}
        )
    expected = [json.loads(line[6:]) for line in sse.text.splitlines() if line.startswith("data: ")]
    # emitted without a second type check: test_contract_tools type-checks examples/client whole
    emit = ["--noCheck", "--target", "ES2022", "--module", "ES2022", "--moduleResolution", "bundler"]
    built = npx("tsc", *emit, "--outDir", tmp_path, CLIENT / "stream.ts")
    assert built.returncode == 0, built.stdout + built.stderr
    (tmp_path / "package.json").write_text('{"type": "module"}')
    (tmp_path / "read.mjs").write_text(READ_TWICE)
    ran = subprocess.run(
        ["node", "read.mjs", live_server, gid, tokens[0]],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert ran.returncode == 0, ran.stderr
    read = json.loads(ran.stdout)
    assert read["whole"] == expected and len(expected) > 8
    assert read["resumed"] == expected
    events = [frame["event"] for frame in expected]
    plays = [f"seat {e['seat']} plays {e['card']}" for e in events if e["type"] == "card_played"]
    assert [d for d in read["described"] if " plays " in d] == plays


# --- an answer from a later /v1: each generated client reads it ----------------------------------

FUTURE_FIELD = {"table_colour": "green"}  # a field a later /v1 adds to an answer
FUTURE_EVENT = {"type": "card_vanished", "seat": 2}  # an event type a later /v1 adds
FUTURE_PROBLEM = {
    "type": "about:blank",
    "title": "The seat is on fire",
    "status": 409,
    "code": "seat_on_fire",  # a problem code a later /v1 adds
    "detail": "Wait for the fire to go out.",
    **FUTURE_FIELD,
}
TURN = {"type": "turn", "to_act": 1, "status": "active"}
FUTURE_STREAM = [  # a game's stream: a known event with a new field, an event of a new type, a known one
    {"type": "event", "id": "1-0", "version": 3, "event": {**TURN, **FUTURE_FIELD}, **FUTURE_FIELD},
    {"type": "event", "id": "2-0", "version": 4, "event": FUTURE_EVENT},
    {"type": "event", "id": "3-0", "version": 5, "event": {**TURN, "to_act": 2}},
]


def test_the_generated_python_client_reads_an_answer_from_a_later_v1(
    python_client: Run, closing: contextlib.ExitStack
) -> None:
    """docs/apps.md, "Versioning": a new field is kept aside (``additional_properties``), a
    new problem code read as any string (handled by its status), an event of a new type skipped by the
    stream helper, its id still the place to resume after."""
    generated = importlib.import_module(PACKAGE)
    models = importlib.import_module(f"{PACKAGE}.models")
    problem = models.Problem.from_dict(FUTURE_PROBLEM)
    assert (problem.code, problem.status) == ("seat_on_fire", 409)
    assert problem.additional_properties == FUTURE_FIELD

    def serve(request: httpx.Request) -> httpx.Response:
        body = sse(
            *({"id": frame["id"], "event": frame["event"]["type"], "data": frame} for frame in FUTURE_STREAM)
        )
        return httpx.Response(200, content=body, headers={"content-type": "text/event-stream"})

    transport = httpx.MockTransport(serve)
    client = closing.enter_context(
        generated.Client(base_url="http://atout.test", httpx_args={"transport": transport})
    )
    stream = load(CLIENT / "atout_stream.py").game_events(
        client, "g1", models, json.loads(DOCUMENT.read_text()), follow=False
    )
    got = list(stream)
    assert [(frame.id, frame.event.to_act) for frame in got] == [("1-0", 1), ("3-0", 2)]
    assert got[0].additional_properties == FUTURE_FIELD == got[0].event.additional_properties
    assert stream.last_event_id == "3-0"

    # a move's answer holding an event of a new type: the generated model alone refuses it, the
    # helper docs/apps.md names reads it without that event
    answer = {
        "game_id": "g1",
        "version": 4,
        "seat": 0,
        "action": {"type": "pass"},
        "events": [{**TURN, **FUTURE_FIELD}, FUTURE_EVENT],
        "to_act": 1,
        "status": "active",
        "winners": None,
        "next_turn": None,
        "replayed": False,
        **FUTURE_FIELD,
    }
    with pytest.raises((TypeError, ValueError, KeyError)):
        models.ActionResponse.from_dict(answer)
    moved = load(CLIENT / "atout_stream.py").move_answer(models, json.loads(DOCUMENT.read_text()), answer)
    assert [event.to_act for event in moved.events] == [1] and moved.additional_properties == FUTURE_FIELD


READ_THE_FUTURE_REST = """
import type { components } from "./atout-api";
type Envelope = components["schemas"]["EventEnvelope"];
type GameEvent = components["schemas"]["GameEvent"];
type Problem = components["schemas"]["Problem"];

/** What this client shows of an event, or null for a type it does not know: skipped. */
function describe(event: GameEvent): string | null {
  switch (event.type) {
    case "turn":
      return `seat ${event.to_act} to act`;
    default:
      return null;
  }
}

/** A problem handled by its code when known, else by its HTTP status. */
function handle(problem: Problem): string {
  const code: Problem["code"] = problem.code;  // a string: "seat_on_fire" type-checks
  return code === "version_conflict" ? "reload" : problem.status >= 500 ? "retry" : `show ${code}`;
}

const [stream, problem] = JSON.parse(process.argv[2]) as [Envelope[], Problem];
const later: Problem["code"] = "seat_on_fire";
console.log(JSON.stringify({
  said: stream.map((frame) => describe(frame.event)).filter((line) => line !== null),
  ids: stream.map((frame) => frame.id),
  handled: handle(problem),
  later,
}));
"""


def run_typescript(tmp_path: Path, program: str, types: Path, *args: str) -> Any:
    """``program`` beside ``types``, type-checked by ``tsc --strict``, compiled and run by Node with
    ``args``: what it printed, as JSON."""
    if types.parent != tmp_path:
        shutil.copy(types, tmp_path / types.name)
    (tmp_path / "read.ts").write_text(program)
    (tmp_path / "package.json").write_text('{"type": "module"}')
    options = ["--strict", "--target", "ES2022", "--module", "ES2022", "--moduleResolution", "bundler"]
    built = npx("tsc", *options, "--types", "node", "--outDir", tmp_path / "out", tmp_path / "read.ts")
    assert built.returncode == 0, built.stdout + built.stderr
    (tmp_path / "out" / "package.json").write_text('{"type": "module"}')
    ran = subprocess.run(
        ["node", str(tmp_path / "out" / "read.js"), *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert ran.returncode == 0, ran.stderr
    return json.loads(ran.stdout)


def test_openapi_typescript_types_read_an_answer_from_a_later_v1(tmp_path: Path) -> None:
    """The generated types hold a program that narrows events by ``type`` with a default that skips
    the unknown, and reads ``Problem.code`` as an open string (a closed union would refuse the new
    code at compile time)."""
    made = npx("openapi-typescript", DOCUMENT, "-o", tmp_path / "atout-api.d.ts")
    assert made.returncode == 0, made.stdout + made.stderr
    read = run_typescript(
        tmp_path,
        READ_THE_FUTURE_REST,
        tmp_path / "atout-api.d.ts",
        json.dumps([FUTURE_STREAM, FUTURE_PROBLEM]),
    )
    assert read == {
        "said": ["seat 1 to act", "seat 2 to act"],
        "ids": ["1-0", "2-0", "3-0"],
        "handled": "show seat_on_fire",
        "later": "seat_on_fire",
    }


READ_THE_FUTURE_GRAPHQL = """
import type { ActMutation } from "./atout-graphql";
type Event = ActMutation["submitAction"]["events"][number];
type Answer = { data: ActMutation | null; errors?: { message: string; extensions: { code: string } }[] };

/** What this client shows of an event, or null for a type it does not know (a later v1's): skipped. */
function describe(event: Event): string | null {
  switch (event.__typename) {
    case "CardPlayed":
      return `seat ${event.seat} plays ${event.card}`;
    default:
      return null;
  }
}

const answer = JSON.parse(process.argv[2]) as Answer;
console.log(JSON.stringify({
  said: (answer.data?.submitAction.events ?? []).map(describe).filter((line) => line !== null),
  codes: (answer.errors ?? []).map((error) => error.extensions.code),
}));
"""


def test_graphql_codegen_types_read_an_answer_from_a_later_v1(tmp_path: Path) -> None:
    """GraphQL Code Generator's types of the example client's operations (examples/client/atout-graphql.ts,
    current: test_contract_tools): a move's events narrowed by ``__typename`` with a default that
    skips a type of a later /v1; an error's unknown ``extensions.code`` read as a string."""
    events = [
        {"__typename": "CardPlayed", "type": "card_played", "seat": 0, "card": "AS", **FUTURE_FIELD},
        {"__typename": "CardVanished", "type": "card_vanished", "seat": 2},
    ]
    answer = {
        "data": {"submitAction": {"events": events, **FUTURE_FIELD}},
        "errors": [{"message": "The seat is on fire", "extensions": {"code": "seat_on_fire"}}],
    }
    read = run_typescript(tmp_path, READ_THE_FUTURE_GRAPHQL, CLIENT / "atout-graphql.ts", json.dumps(answer))
    assert read == {"said": ["seat 0 plays AS"], "codes": ["seat_on_fire"]}
