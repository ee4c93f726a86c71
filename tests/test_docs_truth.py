"""Spot checks that a guide cannot state what the code contradicts (issue 37).

The operator's guide (docs/operations.md) names the queues, the worker Deployments and the prod
replica counts: they are checked against the queues ``atout serve`` starts its workers on (its own
code, run with its children faked), the ``queues`` function ``atout worker --queues`` reads, and the
manifests as ``kubectl kustomize`` renders them. A setting's default stated in a guide, as
``ATOUT_X`` (value), is the settings model's; every ``ATOUT_*`` a guide names exists; the settings
page is what its generator makes now. The glossary's words are the contract's (openapi/openapi.json,
schema/schema.graphql), but for the words of the rules only, which must stay out of it. The engine
guide's Python runs; the benchmarks guide lists every benchmark and which `make bench` runs; and
every page's links to repository files and to its sibling pages' headings resolve."""

from __future__ import annotations

import contextlib
import io
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from service.base.settings import Settings, environment_name, with_table
from service.runtime import cli
from workers.jobs.queue import queues

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
OPERATIONS = DOCS / "operations.md"
GUIDES = [
    "apps.md",
    "bots.md",
    "operations.md",
    "configuration.md",
    "engine.md",
    "architecture.md",
    "benchmarks.md",
    "glossary.md",
]
KUBECTL = shutil.which("kubectl")
needs_kubectl = pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed (tests/k8s skips too)")


def table(page: str, first_header: str) -> list[list[str]]:
    """The body rows of the table of ``page`` whose header's first cell is ``first_header``, each
    cell stripped of its backticks."""
    lines = page.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"| {first_header} |"))
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        cells = re.split(r"(?<!\\)\|", line.strip().strip("|"))
        rows.append([cell.strip().replace("`", "") for cell in cells])
    return rows


def render(overlay: str) -> list[dict[str, Any]]:
    assert KUBECTL is not None
    out = subprocess.run(
        [KUBECTL, "kustomize", str(ROOT / "k8s" / "overlays" / overlay)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout
    return [doc for doc in yaml.safe_load_all(out) if doc]


def args_of(deployment: dict[str, Any]) -> list[str]:
    args: list[str] = deployment["spec"]["template"]["spec"]["containers"][0].get("args", [])
    return args


def worker_deployments(objects: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The Deployments that run ``atout worker`` (the matcher, ``atout matchmaker``, is not one)."""
    return {
        o["metadata"]["name"]: o
        for o in objects
        if o["kind"] == "Deployment" and args_of(o)[1:2] == ["worker"]
    }


def of_kind(objects: list[dict[str, Any]], kind: str) -> dict[str, dict[str, Any]]:
    return {o["metadata"]["name"]: o for o in objects if o["kind"] == kind}


def default(name: str) -> Any:
    return Settings.model_fields[name].default


def test_the_guide_names_the_queues_atout_serve_and_atout_worker_use() -> None:
    """`make serve` runs one worker per queue: the guide's queue table has exactly those, in the
    order `--queues all` takes them, each row's queue the one its `--queues` value names."""
    rows = table(OPERATIONS.read_text(), "Queue")
    bot_queue, webhook_queue = default("bot_queue"), default("webhook_queue")
    assert [which for _, which, *_ in rows] == list(cli.SERVED_QUEUES)
    assert [queue for queue, *_ in rows] == queues(bot_queue, "all", webhook_queue)
    for queue, which, *_ in rows:
        assert queues(bot_queue, which, webhook_queue) == [queue], f"--queues {which} is not {queue}"


@needs_kubectl
def test_the_worker_deployments_named_are_those_of_the_manifests() -> None:
    """Every `atout-worker…` the guide names is a worker Deployment of an overlay, and every one is
    named; the queue table's prod Deployment runs that queue and is scaled on its length."""
    page = OPERATIONS.read_text()
    prod = render("prod")
    workers = worker_deployments(prod)
    every = set(workers) | set(worker_deployments(render("dev")))
    assert set(re.findall(r"`(atout-worker[a-z-]*)`", page)) == every
    rows = table(page, "Queue")
    assert {row[3] for row in rows} == set(workers), "prod runs one worker Deployment per queue"
    scaled = {o["spec"]["scaleTargetRef"]["name"]: o for o in of_kind(prod, "ScaledObject").values()}
    for queue, which, _, deployment in rows:
        assert args_of(workers[deployment])[-2:] == ["--queues", which]
        trigger = scaled[deployment]["spec"]["triggers"][0]["metadata"]
        assert trigger["listName"] == f"rq:queue:{queue}"


def counts(text: str) -> tuple[int, int]:
    """``"3 to 20"`` as (3, 20), ``"2"`` as (2, 2)."""
    numbers = [int(n) for n in re.findall(r"\d+", text)]
    return (numbers[0], numbers[-1])


@needs_kubectl
def test_the_prod_replica_counts_stated_are_the_overlays() -> None:
    page = OPERATIONS.read_text()
    rows = {name: (replicas, how) for name, replicas, how in table(page, "Workload")}
    prod = render("prod")
    assert set(rows) == set(of_kind(prod, "Deployment")), "the table lists every prod Deployment"
    hpas = {
        o["spec"]["scaleTargetRef"]["name"]: o["spec"]
        for o in of_kind(prod, "HorizontalPodAutoscaler").values()
    }
    scaled = {o["spec"]["scaleTargetRef"]["name"]: o["spec"] for o in of_kind(prod, "ScaledObject").values()}
    for name, (replicas, how) in rows.items():
        if name in hpas:
            assert counts(replicas) == (hpas[name]["minReplicas"], hpas[name]["maxReplicas"]), name
        elif name in scaled:
            spec = scaled[name]
            assert counts(replicas) == (spec["minReplicaCount"], spec["maxReplicaCount"]), name
            per = re.search(r"one replica per (\d+) jobs", how)
            assert per is not None and per[1] == spec["triggers"][0]["metadata"]["listLength"], name
        else:
            assert counts(replicas) == (of_kind(prod, "Deployment")[name]["spec"]["replicas"],) * 2, name
    for pdb in of_kind(prod, "PodDisruptionBudget").values():
        assert f"minAvailable: {pdb['spec']['minAvailable']}" in rows["atout-api"][1]


UNITS = {"ms": 0.001, "s": 1, "min": 60, "day": 86400, "days": 86400, "KiB": 1024}


def stated_value(name: str, text: str) -> Any:
    """The default ``text`` states for setting ``name``, in the setting's own unit (milliseconds for
    a ``_ms`` setting, else seconds and bytes): a number with its unit (``10 s``, ``64 KiB``,
    ``1,000,000``), a rate (``60/minute``), ``true``/``false``, a size (``512mb``) or a code span
    (```any```); None when ``text`` states no value (``RQ does not speak Cluster``)."""
    text = text.removeprefix("default ")
    if code := re.match(r"`([^`]+)`", text):
        return code[1]
    if word := re.match(r"(\d+/[a-z]+|\d+[a-z]+\b|true\b|false\b)", text):
        return {"true": True, "false": False}.get(word[1], word[1])
    number = re.match(r"(\d[\d,]*(?:\.\d+)?)(?: (ms|s|min|days?|KiB)\b)?(?![\w/])", text)
    if number is None:
        return None
    value = float(number[1].replace(",", "")) * UNITS.get(number[2] or "", 1)
    return value * 1000 if name.endswith("_ms") and number[2] else value


def settings_by_variable() -> dict[str, str]:
    return {environment_name(name): name for name in Settings.model_fields}


def test_every_default_a_guide_states_is_the_models() -> None:
    """`ATOUT_X` (value) in a guide: value is the setting's default (in its unit)."""
    by_variable, checked = settings_by_variable(), 0
    for page in GUIDES:
        for variable, text in re.findall(r"`(ATOUT_[A-Z_]+)` \(([^)]*)\)", (DOCS / page).read_text()):
            name = by_variable.get(variable)
            stated = None if name is None else stated_value(name, text)
            if name is None or stated is None:
                continue
            actual = default(name)
            same = stated == actual if isinstance(stated, (bool, str)) else stated == float(actual)
            assert same, f"{page}: `{variable}` ({text}), but its default is {actual!r}"
            checked += 1
    assert checked >= 40, f"only {checked} defaults found: has the guides' form changed?"


def test_every_atout_variable_a_guide_names_exists() -> None:
    """A name the guides give is a setting, a family of settings (`ATOUT_RATE_*`), or a variable the
    code reads (`ATOUT_PURE_ENGINE`), never a setting that was renamed or removed."""
    variables = set(settings_by_variable())
    code = "\n".join(
        path.read_text()
        for folder in ("engine", "service", "workers", "atout", "tests", "bench")
        for path in (ROOT / folder).rglob("*.py")
    )
    for page in GUIDES:
        text = (DOCS / page).read_text()
        for named in set(re.findall(r"\b(ATOUT_[A-Z_]*_\*|ATOUT_[A-Z_]*[A-Z]\*?)", text)):
            if f"{named}=" in text:
                continue  # the reader's own variable, which the page sets (the tutorial's ATOUT_URL)
            if named.endswith("*"):
                prefix = named.rstrip("*")
                assert any(v.startswith(prefix) for v in variables), f"{page}: no setting is {named}"
            else:
                assert named in variables or f'"{named}"' in code, f"{page}: {named} is read nowhere"


def test_the_configuration_page_is_what_the_generator_makes_now() -> None:
    page = (DOCS / "configuration.md").read_text()
    assert page == with_table(page), "run `python -m service.base.settings --doc docs/configuration.md`"
    for variable, name in settings_by_variable().items():
        assert f"| `{variable}` |" in page, f"{name} is not in docs/configuration.md"


CONTRACT = (ROOT / "openapi" / "openapi.json").read_text() + (ROOT / "schema" / "schema.graphql").read_text()
RULES_ONLY = "Words of the rules only"


def glossary_terms() -> dict[str, list[str]]:
    """Each glossary section's words: a table row's first cell, its code spans if it has any
    (`seatToken`), else its comma-separated words (`tournament, webhook, …`)."""
    sections: dict[str, list[str]] = {}
    heading = ""
    for line in (DOCS / "glossary.md").read_text().splitlines():
        if line.startswith("## "):
            heading = line[3:]
        elif line.startswith("| ") and not line.startswith(("| word |", "|---")):
            cell = re.split(r"(?<!\\)\|", line)[1].strip()
            words = re.findall(r"`([^`]+)`", cell) or [w.strip() for w in cell.split(",")]
            sections.setdefault(heading, []).extend(words)
    return sections


def in_contract(word: str) -> bool:
    """``word`` in the contract as it is, in snake_case or camelCase (`dead letter` → `dead_letter_id`,
    `deadLetters`), a plural allowed; `*` stands for any name (`*_at`)."""
    word = word.lower()
    spellings = {word, word.replace(" ", "_"), word.replace(" ", "").replace("_", "")}
    pattern = "|".join(re.escape(s).replace(r"\*", "[a-z0-9_]*") for s in spellings)
    return re.search(rf"(?<![a-z0-9])(?:{pattern})(?:e?s)?(?![a-z0-9])", CONTRACT.lower()) is not None


def test_every_glossary_word_is_the_contracts_and_the_rules_own_stay_out() -> None:
    """One word per concept, shared with the contract: each glossary word but the rules' own is
    spelled in openapi/openapi.json or schema/schema.graphql; the rules' own are in neither."""
    sections = glossary_terms()
    assert RULES_ONLY in sections and len(sections) >= 6
    for concept in ("seat", "trick", "bid", "kitty", "taker", "maker", "ticket", "party", "hand"):
        assert any(concept in words for heading, words in sections.items() if heading != RULES_ONLY), concept
    for heading, words in sections.items():
        for word in words:
            if heading == RULES_ONLY:
                assert not in_contract(word), f"{word!r} is in the contract now: move it to a table above"
            else:
                assert in_contract(word), f"glossary ({heading}): {word!r} is not a word of the contract"


def code_blocks(page: str, language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```", (DOCS / page).read_text(), re.S | re.M)


def test_the_engine_guide_runs_and_says_what_it_prints() -> None:
    """docs/engine.md's Python blocks, run in order in one namespace (they build on each other)."""
    blocks = code_blocks("engine.md", "python")
    assert len(blocks) >= 2
    namespace: dict[str, Any] = {}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        for block in blocks:
            exec(compile(block, "docs/engine.md", "exec"), namespace)
    assert out.getvalue().startswith("malformed_action ALL-6 'card' must be a card code")


def slug(heading: str) -> str:
    """A heading's anchor as GitHub and the docs site (mkdocs.yml: pymdownx's slugify) make it: lower
    case, punctuation dropped, each space a hyphen."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_every_link_of_these_guides_resolves() -> None:
    """Links to repository files (`../k8s/…`) name files that exist; links to a heading of one of
    these pages (`operations.md#limits`, `#configure`) name a heading it has."""
    anchors = {
        page: {slug(h) for h in re.findall(r"^#+ (.+)$", (DOCS / page).read_text(), re.M)} for page in GUIDES
    }
    for page in GUIDES:
        for target in re.findall(r"\]\(([^)\s]+)\)", (DOCS / page).read_text()):
            if target.startswith(("http://", "https://")):
                continue
            path, _, anchor = target.partition("#")
            assert (DOCS / path).exists() if path else True, f"{page}: no file {path}"
            linked = path or page
            if anchor and linked in anchors:
                assert anchor in anchors[linked], f"{page}: {linked} has no heading #{anchor}"


def make_target(name: str) -> list[str]:
    """The benchmarks a Makefile target runs, in order (``$(PY) bench/NAME.py …`` lines)."""
    makefile = (ROOT / "Makefile").read_text()
    body = makefile.split(f"\n{name}:", 1)[1].split("\n\n", 1)[0]
    return re.findall(r"bench/(\w+)\.py", body)


def test_the_benchmarks_guide_has_every_benchmark_and_says_which_make_runs() -> None:
    """Every bench/*.py is in the guide's table (or named as a helper), and the table's
    "(not in `make bench`)" marks exactly those `make bench` and `make bench-quick` leave out."""
    page = (DOCS / "benchmarks.md").read_text()
    rows = {row[0].removeprefix("bench/").removesuffix(".py"): row[1] for row in table(page, "Benchmark")}
    sentence = re.search(r"((?:`bench/\w+\.py`(?:, | and ))*`bench/\w+\.py`) are helpers", page)
    assert sentence is not None, "the guide names the helpers of bench/"
    helpers = set(re.findall(r"`bench/(\w+)\.py`", sentence.group(1)))
    assert set(rows) | helpers == {path.stem for path in (ROOT / "bench").glob("*.py")}
    run_by_make = {
        name for name, what in rows.items() if "not in make bench" not in what
    }  # backticks dropped
    assert set(make_target("bench")) == run_by_make == set(make_target("bench-quick"))
