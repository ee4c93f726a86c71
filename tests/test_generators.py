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
    # a game to create is one of three (oneOf by `game`: each game's own options), typed each
    assert {"NewRoughGame", "NewFiveHundredGame", "NewEuchre5Game"} <= set(dir(models))
    assert {"BidMadeEvent", "BotNotice", "StreamEnd", "NextTurn"} <= set(dir(models))


# --- openapi-generator ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def openapi_generator(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Run]:
    """``validate``, and the Kotlin and Swift 5 clients: three JVMs started at once."""
    java_or_skip()
    where = tmp_path_factory.mktemp("openapi-generator")
    cli = [str(BIN / "openapi-generator-cli")]
    commands = {
        "validate": [*cli, "validate", "-i", str(DOCUMENT)],
        "kotlin": [*cli, "generate", "-i", str(DOCUMENT), "-g", "kotlin", "-o", str(where / "kotlin"), *LEAN],
        "swift5": [
            *[*cli, "generate", "-i", str(DOCUMENT), "-g", "swift5", "-o", str(where / "swift5")],
            *LEAN,
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
    request = models.NewRoughGame(game="rough", seats=["open"] * 4, options=options)
    created = api["create_game"].sync(client=anyone, body=request)
    assert isinstance(created, models.CreateGameResponse), created
    gid = created.game.id
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
        action = rng.choice(legal.actions)
        if isinstance(action, models.DiscardTemplate):
            action = models.DiscardAction(type_="discard", cards=rng.sample(action.from_, action.count))
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
    assert isinstance(whole[0], models.GameCreatedEvent) and isinstance(whole[-1], models.TurnEvent)
    assert any(isinstance(event, models.MatchOverEvent) for event in whole)
    plays = [event for event in whole if isinstance(event, models.CardPlayedEvent)]
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
    as the last item, decoded as the generated StreamEnd."""
    generated = importlib.import_module(PACKAGE)
    models = importlib.import_module(f"{PACKAGE}.models")
    streams = load(CLIENT / "atout_stream.py")
    document = json.loads(DOCUMENT.read_text())
    turn = {"type": "turn", "to_act": 1, "status": "active", "version": 3}
    lagged = {"type": "lagged", "code": "stream_lagged", "detail": "fell behind", "last_event_id": "2-0"}
    resync = {
        "type": "resync",
        "code": "stream_window_passed",
        "detail": "read the view",
        "last_event_id": "9-0",
    }
    answers = {
        None: sse({"id": "1-0", "event": "turn", "data": {**turn, "id": "1-0"}},
                  {"id": "2-0", "event": "turn", "data": {**turn, "id": "2-0"}},
                  {"event": "lagged", "retry": 10, "data": lagged}),
        "2-0": sse({"id": "3-0", "event": "turn", "data": {**turn, "id": "3-0"}},
                   {"event": "resync", "retry": 10, "data": resync}),
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
    assert [type(item).__name__ for item in got] == ["TurnEvent"] * 3 + ["StreamEnd"]
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
        gid = http.post("/v1/games", json={"game": "rough", "seats": ["open"] * 4}).json()["game"]["id"]
        tokens = [http.post(f"/v1/games/{gid}/join", json={"seat": s}).json()["token"] for s in range(4)]
        rng = random.Random(3)
        for _ in range(8):
            to_act = http.get(f"/v1/games/{gid}").json()["to_act"]
            seat = {"Authorization": f"Bearer {tokens[to_act]}"}
            legal = rng.choice(http.get(f"/v1/games/{gid}/actions", headers=seat).json()["actions"])
            if legal["type"] == "discard":
                legal = {"type": "discard", "cards": rng.sample(legal["from"], legal["count"])}
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
    plays = [f"seat {e['seat']} plays {e['card']}" for e in expected if e["type"] == "play"]
    assert [d for d in read["described"] if " plays " in d] == plays
