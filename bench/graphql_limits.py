"""GraphQL document limits: the CPU a refused document costs, and what an accepted one costs.

Each document goes through the service's schema (``service.api.graphql.build_schema`` with the default
``ATOUT_GRAPHQL_*`` limits) as the HTTP and WebSocket transports run it: parse, limits, validation,
execution. The refused ones are the expansion bombs of issue 9 (fragments that each spread the
previous one twice: 22 of them stood for 11.6 s of blocked server, 40 for minutes), and a document
over each other limit; the accepted ones are a small query with fragments, GraphiQL's full
introspection query and a field repeated 100 times.
Timings are CPU time of this process (``time.process_time``) per document, so other work on a shared
machine does not count; the wall time is printed too.

    python bench/graphql_limits.py [--quick]

The last line is ``bench graphql_limits: refuse_ms_p50=… refuse_ms_p99=… ok_query_ms_p50=…``.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from graphql import get_introspection_query

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from service.api.app import _freeze_once  # noqa: E402
from service.api.graphql import build_schema  # noqa: E402
from service.api.graphql.limits import QueryLimits  # noqa: E402


def doubling(count: int) -> str:
    fragments = ["fragment F0 on Game { gameId status }"]
    fragments += [f"fragment F{i} on Game {{ ...F{i - 1} ...F{i - 1} }}" for i in range(1, count)]
    return f"query {{ games {{ nodes {{ ...F{count - 1} }} }} }}\n" + "\n".join(fragments)


REFUSED = {
    "bomb_22_fragments": doubling(22),
    "bomb_40_fragments": doubling(40),
    "bomb_100_fragments": doubling(100),
    "tokens": "{ " + "rules " * (QueryLimits().max_tokens + 1) + "}",
    "bytes": "{ rules { kind } }" + " " * 33_000,
    "selections": "{ " + "__typename " * (QueryLimits().max_selections + 1) + "}",
    # the most repeated field the selection limit allows: graphql-core's validation budget stops it
    "repeated_fields": "{ " + "__typename " * QueryLimits().max_selections + "}",
    "unknown_fields": "{ " + " ".join(f"f{i}" for i in range(QueryLimits().max_selections)) + " }",
    "aliases": "{ " + " ".join(f"a{i}: rules" for i in range(31)) + " }",
    "depth": "{ " + "games { nodes { seats { " * 8 + "seat" + " }" * 24 + " }",
    "nesting": "{ games(first: " + "[" * 2_400 + "]" * 2_400 + ") { nodes { gameId } } }",
    "cycle": "fragment A on Game { gameId ...B } fragment B on Game { ...A } { games { nodes { ...A } } }",
}
ACCEPTED = {
    "fragments": "fragment R on Query { rules { kind } } fragment T on Query { __typename ...R } "
    "{ ...T ... on Query { rules { kind } } }",
    "introspection": get_introspection_query(
        descriptions=True, directive_is_repeatable=True, schema_description=True, input_value_deprecation=True
    ),
    "repeated_fields": "{ " + "__typename " * 100 + "}",
}


async def run_one(schema: Any, query: str) -> tuple[float, float, bool]:
    """(CPU ms, wall ms, refused) of one document."""
    cpu, wall = time.process_time(), time.perf_counter()
    result = await schema.execute(query, context_value={})
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    codes = {(e.extensions or {}).get("code") for e in result.errors or ()}
    return cpu * 1000, wall * 1000, bool(codes & {"query_too_complex", "invalid_query"})


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def measure(repeats: int) -> None:
    schema = build_schema()
    _freeze_once()  # the garbage-collector settings of the service
    refused_all: list[float] = []
    ok_all: list[float] = []
    for group, documents, want_refused in (("refused", REFUSED, True), ("accepted", ACCEPTED, False)):
        for name, query in documents.items():
            cpu_ms, wall_ms = [], []
            for _ in range(repeats):
                cpu, wall, refused = await run_one(schema, query)
                if refused != want_refused:
                    raise SystemExit(f"{name}: expected {'a refusal' if want_refused else 'an answer'}")
                cpu_ms.append(cpu)
                wall_ms.append(wall)
            (refused_all if want_refused else ok_all).extend(cpu_ms)
            print(
                f"{group:8} {name:20} {len(query):6} chars: CPU p50 {statistics.median(cpu_ms):7.2f} ms, "
                f"p99 {pct(cpu_ms, 0.99):7.2f} ms; wall p50 {statistics.median(wall_ms):7.2f} ms",
                flush=True,
            )
    print(
        f"bench graphql_limits: refuse_ms_p50={statistics.median(refused_all):.2f} "
        f"refuse_ms_p99={pct(refused_all, 0.99):.2f} ok_query_ms_p50={statistics.median(ok_all):.2f} "
        f"refuse_ms_max={max(refused_all):.2f} ok_query_ms_max={max(ok_all):.2f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="20 runs of each document (else 200)")
    parser.add_argument("--repeats", type=int, default=None)
    args = parser.parse_args()
    asyncio.run(measure(args.repeats or (20 if args.quick else 200)))


if __name__ == "__main__":
    main()
