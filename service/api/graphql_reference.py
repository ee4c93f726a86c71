"""The GraphQL reference as one static page, served at ``/reference/graphql`` beside GraphiQL: written
from the committed SDL (schema/schema.graphql) by graphql-core, so it says what the contract says.

GraphiQL explores the schema one type at a time; a reader deciding whether the API fits wants it whole
and searchable with the browser's find: the operations first (queries, mutations, subscriptions, each
with its arguments and result), then every type with its fields and descriptions, each name a link to
its type. The page links only within itself (the docs site carries it too), has no script (the
service's Content-Security-Policy allows no inline script) and fetches nothing. It records the SHA-256
of the SDL it was written from, so a test tells when it is stale.

Written by ``make openapi``: ``python -m service.api.graphql_reference``.
"""

from __future__ import annotations

import hashlib
import html
import re
import sys
from collections.abc import Iterable
from pathlib import Path

from graphql import (
    GraphQLArgument,
    GraphQLEnumType,
    GraphQLField,
    GraphQLInputField,
    GraphQLInputObjectType,
    GraphQLInterfaceType,
    GraphQLList,
    GraphQLNamedType,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLScalarType,
    GraphQLSchema,
    GraphQLType,
    GraphQLUnionType,
    build_schema,
    print_ast,
)

ROOT = Path(__file__).resolve().parents[2]
SDL = ROOT / "schema" / "schema.graphql"
PAGE = ROOT / "service" / "static" / "reference" / "graphql.html"
CODE_SPAN = re.compile(r"`([^`]+)`")
SOURCE_META = "atout-source"
"""The ``<meta name>`` holding ``schema.graphql sha256:<hex>``: what the page was written from."""

KINDS: tuple[tuple[str, type[GraphQLNamedType]], ...] = (
    ("Object types", GraphQLObjectType),
    ("Interfaces", GraphQLInterfaceType),
    ("Unions", GraphQLUnionType),
    ("Input types", GraphQLInputObjectType),
    ("Enums", GraphQLEnumType),
    ("Scalars", GraphQLScalarType),
)
STYLE = """
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1b1f24}
nav{position:fixed;top:0;bottom:0;left:0;width:17rem;overflow-y:auto;padding:1rem;background:#f4f5f7;
box-sizing:border-box;font-size:13px}
nav h2{font-size:13px;margin:1rem 0 .25rem;text-transform:uppercase;color:#57606a}
nav a{display:block;color:#1b1f24;text-decoration:none;overflow:hidden;text-overflow:ellipsis}
nav a:hover{text-decoration:underline}
main{margin-left:17rem;padding:1rem 2rem 4rem;max-width:60rem}
section{border-top:1px solid #d8dee4;padding-top:.5rem;margin-top:1.5rem}
h3{margin:.25rem 0;font-family:ui-monospace,Menlo,Consolas,monospace}
h3 small{font-family:system-ui,sans-serif;font-weight:normal;color:#57606a;font-size:13px}
code,.sig{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:13px}
code{background:#eff1f3;padding:0 .2em;border-radius:3px}
dl{margin:.5rem 0 0}dt{margin-top:.6rem}dd{margin:0 0 0 1.5rem;color:#32383f}
.deprecated{color:#9a6700}
a{color:#0550ae}
@media (max-width:50rem){nav{position:static;width:auto}main{margin-left:0}}
"""


def text(description: str | None) -> str:
    """A description as HTML: escaped, its `code` spans kept as code, its blank lines as paragraphs."""
    if not description:
        return ""
    paragraphs = [p.strip() for p in description.split("\n\n") if p.strip()]
    return "".join("<p>" + CODE_SPAN.sub(r"<code>\1</code>", html.escape(p)) + "</p>" for p in paragraphs)


def type_ref(kind: GraphQLType) -> str:
    """A field's type as written in the SDL (``[Seat!]!``), the named type a link to its section."""
    if isinstance(kind, GraphQLNonNull):
        return f"{type_ref(kind.of_type)}!"
    if isinstance(kind, GraphQLList):
        return f"[{type_ref(kind.of_type)}]"
    assert isinstance(kind, GraphQLNamedType), kind  # wrappers are only lists and non-nulls
    name = html.escape(kind.name)
    return f'<a href="#{name}">{name}</a>'


def default(field: GraphQLArgument | GraphQLInputField) -> str:
    """An argument's or input field's default as the SDL writes it (`` = ""``), or nothing."""
    node = field.ast_node
    if node is None or node.default_value is None:
        return ""
    return f" = {html.escape(print_ast(node.default_value))}"


def deprecation(reason: str | None) -> str:
    return f'<p class="deprecated">Deprecated: {html.escape(reason)}</p>' if reason else ""


def arguments(args: dict[str, GraphQLArgument]) -> str:
    """The arguments of a field or an operation, inline in its signature."""
    if not args:
        return ""
    listed = (f"{html.escape(name)}: {type_ref(arg.type)}{default(arg)}" for name, arg in args.items())
    return "(" + ", ".join(listed) + ")"


def argument_list(args: dict[str, GraphQLArgument]) -> str:
    """The arguments with their descriptions, below the signature (only those that have one)."""
    described = [(name, arg) for name, arg in args.items() if arg.description]
    if not described:
        return ""
    rows = "".join(
        f"<dt><code>{html.escape(name)}</code>: <span class=sig>{type_ref(arg.type)}</span></dt>"
        f"<dd>{text(arg.description)}</dd>"
        for name, arg in described
    )
    return f"<dl>{rows}</dl>"


def fields(items: dict[str, GraphQLField] | dict[str, GraphQLInputField]) -> str:
    rows: list[str] = []
    for name, field in items.items():
        args = field.args if isinstance(field, GraphQLField) else {}
        signature = f"{html.escape(name)}{arguments(args)}: {type_ref(field.type)}"
        if isinstance(field, GraphQLInputField):
            signature += default(field)
        rows.append(
            f"<dt class=sig>{signature}</dt><dd>{text(field.description)}"
            f"{deprecation(field.deprecation_reason)}{argument_list(args)}</dd>"
        )
    return f"<dl>{''.join(rows)}</dl>"


def operation(root: str, name: str, field: GraphQLField) -> str:
    """One query, mutation or subscription: its signature, description and arguments."""
    anchor = f"{root.lower()}-{html.escape(name)}"
    return (
        f'<section id="{anchor}"><h3>{html.escape(name)}{arguments(field.args)}: '
        f"{type_ref(field.type)} <small>{root}</small></h3>{text(field.description)}"
        f"{deprecation(field.deprecation_reason)}{argument_list(field.args)}</section>"
    )


def type_body(kind: GraphQLNamedType) -> str:
    """What a type holds: its fields, its members (a union) or its values (an enum)."""
    if isinstance(kind, GraphQLObjectType | GraphQLInterfaceType | GraphQLInputObjectType):
        implements = ""
        if isinstance(kind, GraphQLObjectType | GraphQLInterfaceType) and kind.interfaces:
            implements = "<p>Implements " + ", ".join(type_ref(i) for i in kind.interfaces) + ".</p>"
        return implements + fields(kind.fields)
    if isinstance(kind, GraphQLUnionType):
        return "<p>One of " + ", ".join(type_ref(member) for member in kind.types) + ".</p>"
    if isinstance(kind, GraphQLEnumType):
        rows = "".join(
            f"<dt><code>{html.escape(name)}</code></dt><dd>{text(value.description)}"
            f"{deprecation(value.deprecation_reason)}</dd>"
            for name, value in kind.values.items()
        )
        return f"<dl>{rows}</dl>"
    return ""


def named_type(kind: GraphQLNamedType, label: str) -> str:
    name = html.escape(kind.name)
    return (
        f'<section id="{name}"><h3>{name} <small>{label}</small></h3>'
        f"{text(kind.description)}{type_body(kind)}</section>"
    )


def roots(schema: GraphQLSchema) -> list[tuple[str, GraphQLObjectType]]:
    named = [("Query", schema.query_type), ("Mutation", schema.mutation_type)]
    named.append(("Subscription", schema.subscription_type))
    return [(label, root) for label, root in named if root is not None]


def user_types(schema: GraphQLSchema) -> list[GraphQLNamedType]:
    """The schema's own types, by name: not the introspection types nor the root types."""
    root_names = {root.name for _, root in roots(schema)}
    return [
        kind
        for name, kind in sorted(schema.type_map.items())
        if not name.startswith("__") and name not in root_names
    ]


def index(title: str, links: Iterable[tuple[str, str]]) -> str:
    return f"<h2>{title}</h2>" + "".join(f'<a href="#{a}">{html.escape(label)}</a>' for a, label in links)


def render(sdl: str) -> str:
    """The whole page for ``sdl``; the same SDL gives the same bytes."""
    schema = build_schema(sdl)
    digest = hashlib.sha256(sdl.encode("utf-8")).hexdigest()
    nav: list[str] = []
    body: list[str] = []
    for label, root in roots(schema):
        nav.append(index(f"{label.lower()} fields", ((f"{label.lower()}-{n}", n) for n in root.fields)))
        body.append(f"<h2>{label}</h2>")
        body.extend(operation(label, name, field) for name, field in root.fields.items())
    for title, cls in KINDS:
        members = [kind for kind in user_types(schema) if isinstance(kind, cls)]
        nav.append(index(title, ((kind.name, kind.name) for kind in members)))
        body.append(f"<h2>{title}</h2>")
        body.extend(named_type(kind, title.lower().rstrip("s")) for kind in members)
    return (
        '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f'<meta name="{SOURCE_META}" content="schema.graphql sha256:{digest}">\n'
        f"<title>Atout GraphQL reference</title>\n<style>{STYLE}</style>\n</head>\n<body>\n"
        f"<nav>{''.join(nav)}</nav>\n<main>\n<h1>Atout GraphQL reference</h1>\n"
        "<p>Every operation and type of the schema at <code>/graphql</code>, from "
        "<code>schema/schema.graphql</code>; the service's GraphiQL (<code>/graphql</code>) runs them.</p>\n"
        + "\n".join(body)
        + "\n</main>\n</body>\n</html>\n"
    )


def main(argv: list[str]) -> None:
    """``[SDL [PAGE]]``: write the page for the committed SDL (or those paths)."""
    source = Path(argv[0]) if argv else SDL
    target = Path(argv[1]) if len(argv) > 1 else PAGE
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(render(source.read_text(encoding="utf-8")), encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1:])
