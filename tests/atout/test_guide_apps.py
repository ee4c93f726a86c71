"""docs/apps.md, the app developers' guide, holds: its shell and Python blocks run in order against a
live ``atout serve`` (tests/atout/guide_blocks.py, as docs/bots.md's do), its TypeScript blocks
compile with ``tsc --strict`` against the generated types, its Kotlin and Swift blocks name only
paths, fields, headers and event types of the contract and only API names of a fixed list (no Kotlin
or Swift compiler installs here), its endpoint list is the one generated from openapi/openapi.json,
and its lifecycle tables name every phase and event of each game and nothing else: random matches of
the engine emit no event in a phase that the page does not list there."""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from guide_blocks import ROOT, Block, PageRun, blocks, reader_environment, saved_environment
from toolkit_live import ADMIN_TOKEN, Serve, env_of, stop

import engine
from schema.views.events import public_event
from service.api.rest import endpoint_doc
from service.runtime.embedded_redis import EmbeddedRedis

PAGE = ROOT / "docs" / "apps.md"
DOCUMENT = json.loads((ROOT / "openapi" / "openapi.json").read_text())
SCHEMAS: dict[str, Any] = DOCUMENT["components"]["schemas"]
SDL = (ROOT / "schema" / "schema.graphql").read_text()
LANGUAGES = ("sh", "python", "console", "typescript", "kotlin", "swift")
CHECKED_ELSEWHERE = frozenset({"typescript", "kotlin", "swift"})
KINDS = {"five_hundred": "Le 500", "rough": "Le Rough", "euchre5": "Five-handed euchre"}
VIEWS = {"five_hundred": "FiveHundredView", "rough": "RoughView", "euchre5": "EuchreView"}


def page_blocks(info: str) -> list[Block]:
    return [block for block in blocks(PAGE.read_text()) if block.info == info]


# --- the blocks that run against a live service --------------------------------------------------


@pytest.fixture(scope="module")
def apps_served(redis_server: EmbeddedRedis, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Serve]:
    """``atout serve`` and a worker (bots and webhook deliveries) against the session's redis-server,
    emptied first. Webhooks may go to a private address (the page's backend listens on 127.0.0.1), and
    guests are not rate limited below what one reader makes in a minute."""
    client = redis.Redis.from_url(redis_server.url)
    try:
        client.flushall()
    finally:
        client.close()
    folder = tmp_path_factory.mktemp("apps")
    env = env_of(redis_server.url, ATOUT_WEBHOOK_ALLOW_PRIVATE="true")
    env["ATOUT_RATE_CREATE_PLAYER_PER_ADDRESS"] = "600/minute"
    worker_env = env | {"ATOUT_BOT_BUDGET": "0.01", "ATOUT_BOT_TURN_TIMEOUT": "5"}
    with open(folder / "worker.log", "wb") as log:
        worker = subprocess.Popen(
            [sys.executable, "-m", "service.runtime.cli", "worker"], env=worker_env, stdout=log, stderr=log
        )
    served = Serve(env, folder)
    try:
        served.start()
        yield served
    finally:
        if served.proc is not None:
            stop(served.proc)
        stop(worker, signal.SIGTERM)


def test_every_fence_names_a_language_this_test_runs_or_checks() -> None:
    infos = [block.info for block in blocks(PAGE.read_text())]
    assert set(infos) <= set(LANGUAGES), infos
    assert set(infos) == set(LANGUAGES), "the page promises a block of each language"


def test_every_shell_and_python_block_of_the_guide_runs(
    apps_served: Serve, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with saved_environment():
        os.environ.update(reader_environment(apps_served.base, tmp_path), ATOUT_ADMIN_TOKEN=ADMIN_TOKEN)
        PageRun(PAGE, tmp_path, apps_served.base, CHECKED_ELSEWHERE, shared_shell=True).run()
    said = capsys.readouterr().out
    # What the page says the reader sees.
    assert '"legal_actions"' in said and "event: bid_made" in said  # the walkthrough's move and stream
    assert re.search(r"^resume after \d+-\d+$", said, re.MULTILINE), said  # the Python stream's last id
    assert re.search(r"^pushed: your_turn \S+$", said, re.MULTILINE), said  # the webhook was verified
    assert re.search(r"^304$", said, re.MULTILINE), said  # If-None-Match on an unchanged view
    assert '"status": "waiting"' in said or '"status":"waiting"' in said, said  # the ticket


# --- TypeScript: compiled against the generated types --------------------------------------------


def test_the_typescript_blocks_compile_against_the_generated_types(tmp_path: Path) -> None:
    """Each block is a module of its own beside examples/client/atout-api.d.ts (what
    ``npx openapi-typescript`` writes), compiled as examples/client/tsconfig.json compiles the
    example clients: strict, no unchecked index, DOM and ES2022."""
    tsc = ROOT / "node_modules" / ".bin" / "tsc"
    assert tsc.exists(), "run `make test`: its npm ci installs TypeScript"
    shutil.copy(ROOT / "examples" / "client" / "atout-api.d.ts", tmp_path / "atout-api.d.ts")
    sources = []
    for block in page_blocks("typescript"):
        source = tmp_path / f"block{block.number}.ts"
        source.write_text(block.body)
        sources.append(source.name)
    assert len(sources) >= 2  # a stream over fetch, a GraphQL subscription
    options = ["--strict", "--noEmit", "--noUncheckedIndexedAccess", "--target", "ES2022"]
    options += ["--module", "ES2022", "--moduleResolution", "bundler", "--lib", "ES2022,DOM,DOM.Iterable"]
    built = subprocess.run(
        [str(tsc), *options, *sources], cwd=tmp_path, capture_output=True, text=True, timeout=240, check=False
    )
    assert built.returncode == 0, built.stdout + built.stderr


# --- Kotlin and Swift: checked against the contract and a fixed list of API names ---------------

STRING = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
COMMENT = re.compile(r"(^|\s)//[^\n]*")
IDENTIFIER = re.compile(r"\b[A-Za-z_]\w*\b")
DECLARED = (
    re.compile(r"\b(?:val|var|let|fun|func|class|struct|enum|object|interface)\s+(\w+)"),
    re.compile(r"\b(\w+)\s*:\s*[A-Z(\[]"),  # a parameter or property with its type
    re.compile(r"[(,]\s*(\w+)\s+\w+\s*:"),  # a Swift argument label before its parameter
    re.compile(r"\bfor\s+(?:try\s+await\s+)?(\w+)\s+in\b"),
    re.compile(r"\blet\s*\(([\w\s,]+)\)"),  # a tuple taken apart
)
KEYWORDS = {
    "kotlin": "import class private inner val var fun return if else when null override object true false "
    "this it in is as",
    "swift": "import struct let var func async throws throw try await guard else return for in as switch "
    "case default break continue if self true false",
}
API = {
    "kotlin": "okhttp3 OkHttpClient Request Builder url header build Response code sse EventSource "
    "EventSourceListener EventSources createFactory newEventSource onEvent onFailure onOpen onClosed cancel "
    "org json JSONObject JSONArray getString getInt getJSONObject getJSONArray length String Int Unit "
    "Throwable println",
    "swift": "Foundation URL URLRequest URLSession shared bytes lines setValue forHTTPHeaderField "
    "appendingPathComponent HTTPURLResponse statusCode URLError badServerResponse JSONSerialization "
    "jsonObject with Data utf8 String Int Any Void print url",
}
FIELD_READ = {
    "kotlin": re.compile(r'\.(?:get|opt)(?:String|Int|Long|Boolean|JSONObject|JSONArray)\("(\w+)"\)'),
    "swift": re.compile(r'\["(\w+)"\]'),
}
TYPE_NAMED = {
    "kotlin": re.compile(r'"(\w+)"\s*->|[!=]=\s*"(\w+)"'),
    "swift": re.compile(r'\bcase\s+"(\w+)"\s*:|[!=]=\s*"(\w+)"'),
}
HEADER_SET = {
    "kotlin": re.compile(r'\.header\("([^"]+)"'),
    "swift": re.compile(r'forHTTPHeaderField:\s*"([^"]+)"'),
}
INTERPOLATION = re.compile(r"\$\{?\w+\}?|\\\(\w+\)")


def contract_fields() -> set[str]:
    return {name for schema in SCHEMAS.values() for name in schema.get("properties", {})}


def contract_types() -> set[str]:
    """Every ``type`` a frame, an event or a notice of the contract may carry."""
    found: set[str] = set()
    for schema in SCHEMAS.values():
        found |= set(schema.get("discriminator", {}).get("mapping", {}))
        kind = schema.get("properties", {}).get("type", {})
        found |= set(kind.get("enum", [])) | ({kind["const"]} if "const" in kind else set())
    return found


def contract_path(literal: str) -> bool:
    """Whether a path written in a snippet (its interpolations standing for parameters) is one of the
    document's paths."""
    written = INTERPOLATION.sub("{}", literal[literal.index("/v1/") :])
    return any(re.sub(r"\{\w+\}", "{}", path) == written for path in DOCUMENT["paths"])


def header_names() -> set[str]:
    """The request headers the contract declares, and the two that HTTP itself defines for it."""
    named = {"Authorization", "Accept"}
    for item in DOCUMENT["paths"].values():
        for operation in item.values():
            for parameter in operation.get("parameters", []) if isinstance(operation, dict) else []:
                if parameter.get("in") == "header":
                    named.add(parameter["name"])
    return named


def unknown_names(language: str, code: str) -> set[str]:
    """The identifiers of ``code`` that are no keyword, no allowed API name and not declared in it."""
    bare = STRING.sub('""', COMMENT.sub(r"\1", code))
    declared = {
        name for rule in DECLARED for match in rule.findall(bare) for name in re.findall(r"\w+", match)
    }
    allowed = set(KEYWORDS[language].split()) | set(API[language].split()) | declared
    return set(IDENTIFIER.findall(bare)) - allowed


@pytest.mark.parametrize("language", ["kotlin", "swift"])
def test_the_mobile_stream_snippets_name_only_what_the_contract_and_their_platform_have(
    language: str,
) -> None:
    [block] = page_blocks(language)
    code = block.body
    assert unknown_names(language, code) == set(), "not an API name of the fixed list, nor declared"
    read = set(FIELD_READ[language].findall(code))
    assert {"type", "event", "version", "legal_actions", "seat", "card"} <= read
    assert read <= contract_fields(), read - contract_fields()
    typed = {name for pair in TYPE_NAMED[language].findall(code) for name in pair if name}
    assert {"your_turn", "card_played"} <= typed
    assert typed <= contract_types(), typed - contract_types()
    paths = [literal for literal in STRING.findall(code) if "/v1/" in literal]
    assert paths and all(contract_path(literal) for literal in paths), paths
    headers = set(HEADER_SET[language].findall(code))
    assert "Last-Event-ID" in headers and headers <= header_names(), headers - header_names()


def test_the_snippet_check_refuses_a_misspelt_api_name() -> None:
    code = "val client = OkHttpClient()\nEventSources.createFactori(client)"
    assert unknown_names("kotlin", code) == {"createFactori"}
    assert not contract_path("$base/v1/games/$gameId/event")


# --- generated and contract-checked sections -----------------------------------------------------


def test_the_endpoint_list_is_the_one_generated_from_the_openapi_document() -> None:
    page = PAGE.read_text()
    assert endpoint_doc.rewrite(page, endpoint_doc.load()) == page, (
        "docs/apps.md drifted: run `python -m service.api.rest.endpoint_doc docs/apps.md`"
    )
    for path, item in DOCUMENT["paths"].items():
        for method, operation in item.items():
            if method in endpoint_doc.METHODS:
                assert f"| `{method.upper()}` | `{path}` | `{operation['operationId']}` |" in page


def test_the_credentials_table_names_each_security_scheme_of_the_contract() -> None:
    section = PAGE.read_text().split("## Credentials", 1)[1].split("| Refusal |", 1)[0]
    kinds = re.findall(r"^\| `(\w+)` \|", section, re.MULTILINE)
    assert kinds == list(DOCUMENT["components"]["securitySchemes"])


# --- the lifecycle of a game: phases and events ---------------------------------------------------

EVENT_NAME = re.compile(r"`([a-z0-9_]+)`")
EVENT_NAME_OR_ID = re.compile(r"`(\w+)`")


def lifecycle() -> dict[str, dict[str, set[str]]]:
    """The page's lifecycle tables: for each game kind (and ``every`` for the table of every kind),
    each first-column entry (a phase, or a moment) with the event types its last column names."""
    section = PAGE.read_text().split("\n## Lifecycle\n", 1)[1].split("\n## ", 1)[0]
    tables: dict[str, dict[str, set[str]]] = {}
    for part in section.split("\n### ")[1:]:
        title, _, body = part.partition("\n")
        named = re.search(r"\(`(\w+)`\)", title)
        rows = [
            line.split(" | ") for line in body.splitlines() if line.startswith("| ") and "---" not in line
        ]
        column = [cell.strip("| ") for cell in rows[0]].index("Events")
        tables[named.group(1) if named else "every"] = {
            row[0].strip("| `"): set(EVENT_NAME.findall(row[column])) for row in rows[1:]
        }
    return tables


def test_the_lifecycle_lists_each_games_phases_as_its_view_declares_them() -> None:
    tables = lifecycle()
    assert set(tables) == {*KINDS, "every"}
    sdl_phases = set(re.search(r"enum Phase \{([^}]*)\}", SDL).group(1).split())  # type: ignore[union-attr]
    for kind, view in VIEWS.items():
        declared = SCHEMAS[view]["properties"]["phase"]["enum"]
        assert list(tables[kind]) == declared, kind
        assert {phase.upper() for phase in declared} <= sdl_phases


def test_the_lifecycle_names_every_event_type_of_the_contract_and_no_other() -> None:
    listed = set().union(*(events for table in lifecycle().values() for events in table.values()))
    in_openapi = set(SCHEMAS["GameEvent"]["discriminator"]["mapping"])
    in_sdl = set(re.search(r"enum EventType \{([^}]*)\}", SDL).group(1).split())  # type: ignore[union-attr]
    assert listed == in_openapi, (sorted(in_openapi - listed), sorted(listed - in_openapi))
    assert {name.upper() for name in listed} == in_sdl


def emitted(kind: str, moves: Iterator[Any] | None, seed: int) -> dict[str, set[str]]:
    """The public event types a match of ``kind`` emits, by the phase of the move that emitted them
    (the first deal's under ``waiting``: the last join deals it); random moves, or ``moves``."""
    m = engine.new_match(kind, seed=seed)
    found: dict[str, set[str]] = {"waiting": {public_event(dict(e), kind)["type"] for e in m.events}}
    rng = random.Random(seed)
    while m.to_act is not None:
        phase = engine.view(m, m.to_act)["phase"]
        action = next(moves) if moves is not None else engine.random_move(m, rng)
        if action is None:
            break
        m = engine.apply(m, m.to_act, action)
        found.setdefault(phase, set()).update(public_event(dict(e), kind)["type"] for e in m.events)
    return found


@pytest.mark.parametrize("kind", list(KINDS))
def test_every_event_a_phase_emits_is_listed_under_that_phase(kind: str) -> None:
    """Random matches of the engine, and for Le 500 and Le Rough a hand nobody takes (F5-9, RG-8:
    void, scored, and dealt again, all from the bidding): each event appears in its phase's row."""
    table = lifecycle()[kind]
    runs = [emitted(kind, None, seed) for seed in range(12)]
    if kind != "euchre5":
        runs.append(emitted(kind, iter([{"type": "pass"}] * 4 + [None]), 1))
    for run in runs:
        for phase, types in run.items():
            assert types <= table[phase], (phase, sorted(types - table[phase]))
    assert set().union(*(run.get("play", set()) for run in runs)) >= {"card_played", "trick_won"}


def root_fields() -> set[str]:
    """The fields of the GraphQL schema's Query, Mutation and Subscription types."""
    fields: set[str] = set()
    for root in ("Query", "Mutation", "Subscription"):
        body = re.search(rf"^type {root} \{{(.*?)^\}}", SDL, re.MULTILINE | re.DOTALL)
        assert body is not None, root
        fields |= set(re.findall(r"^  (\w+)[(:]", body.group(1), re.MULTILINE))
    return fields


def test_the_credential_table_says_what_each_operations_security_takes() -> None:
    """Each row's REST operations take exactly the kinds it marks (and answer without a credential
    exactly when its *none* column says so); every operation has its row, every GraphQL twin exists."""
    section = PAGE.read_text().split("| REST operation | GraphQL field |", 1)[1].split("\n\n", 1)[0]
    header = ["none", *DOCUMENT["components"]["securitySchemes"]]
    operations = {
        op["operationId"]: op
        for item in DOCUMENT["paths"].values()
        for method, op in item.items()
        if method in endpoint_doc.METHODS
    }
    seen: list[str] = []
    fields = root_fields()
    for line in section.splitlines()[1:]:
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        ids, twins, marks = EVENT_NAME_OR_ID.findall(cells[0]), EVENT_NAME_OR_ID.findall(cells[1]), cells[2:]
        assert set(twins) <= fields, set(twins) - fields
        taken = {kind for kind, mark in zip(header, marks, strict=True) if mark}
        for name in ids:
            security = operations[name].get("security", [])
            expected = {kind for requirement in security for kind in requirement}
            expected |= {"none"} if not security or {} in security else set()
            assert taken == expected, (name, taken, expected)
        seen += ids
    assert sorted(seen) == sorted(operations)


def anchors(text: str) -> set[str]:
    """The fragment ids a page has: its headings' (as GitHub and MkDocs make them: lower case, spaces
    as hyphens, punctuation dropped) and its explicit ``<a id="…">``."""
    headings = re.findall(r"^#{1,6} (.+)$", text, re.MULTILINE)
    slugs = {re.sub(r"[^\w\- ]", "", heading).strip().lower().replace(" ", "-") for heading in headings}
    return slugs | set(re.findall(r'<a id="([\w-]+)"></a>', text))


def test_every_link_within_the_guide_and_from_the_readme_lands_on_an_anchor() -> None:
    text = PAGE.read_text()
    within = set(re.findall(r"\]\(#([\w-]+)\)", text))
    from_readme = set(re.findall(r"\]\(docs/apps\.md#([\w-]+)\)", (ROOT / "README.md").read_text()))
    assert within and from_readme
    assert (within | from_readme) <= anchors(text), (within | from_readme) - anchors(text)
