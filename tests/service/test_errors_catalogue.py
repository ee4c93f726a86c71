"""The error catalogue (service/base/catalogue.py) is the truth about problem codes, and every sentence
said to a client has its French: read from the source (tests/service/error_sources.py), so a new
code or sentence without its catalogue entry or translation fails here."""

from __future__ import annotations

import json
import re
from urllib.parse import urljoin

import pytest
from error_sources import ROOT, scan_engine, scan_service
from starlette.testclient import TestClient

from service.api.graphql import sdl
from service.api.rest import openapi_document
from service.base import languages
from service.base.catalogue import CATALOGUE, REASONS
from service.base.catalogue_doc import markdown
from service.base.french import FRENCH, VALIDATION_KEY
from service.base.texts import Text, template_fields

SERVICE = scan_service()
ENGINE = scan_engine()


def produced_codes() -> set[str]:
    """Every code an answer can carry: raised, sent in a stream notice, or an engine reason's code."""
    return set(SERVICE.codes) | {reason.code for reason in REASONS.values()}


# --- codes -----------------------------------------------------------------------------------------


def test_every_code_the_service_produces_is_in_the_catalogue() -> None:
    unknown = {code: SERVICE.codes.get(code, ["engine reason"]) for code in produced_codes() - set(CATALOGUE)}
    assert not unknown, f"codes missing from service/base/catalogue.py: {unknown}"
    assert not SERVICE.dynamic_codes, (
        f"a code that is not a literal (add its place to PASS_THROUGH): {SERVICE.dynamic_codes}"
    )


def test_every_catalogue_code_is_produced_or_reserved_with_a_reason() -> None:
    produced = produced_codes()
    for entry in CATALOGUE.values():
        if entry.reserved:
            assert entry.code not in produced, (
                f"{entry.code} is reserved but produced at {SERVICE.codes[entry.code]}"
            )
            assert len(entry.reserved) > 20, f"{entry.code}: say why it is kept"
        else:
            assert entry.code in produced, (
                f"{entry.code} is produced nowhere: mark it reserved, with the reason"
            )
    assert {e.code for e in CATALOGUE.values() if e.reserved} == {"client_closed", "unavailable"}


def test_the_engine_reasons_are_exactly_the_catalogue_reasons() -> None:
    assert set(ENGINE.codes) == set(REASONS), (
        "an engine IllegalAction code without its REASONS entry (or the reverse)"
    )
    assert all(reason.code in CATALOGUE for reason in REASONS.values())


def test_every_catalogue_entry_is_complete() -> None:
    statuses = {400, 401, 403, 404, 405, 408, 409, 410, 413, 415, 422, 429, 431, 499, 500, 503}
    for entry in CATALOGUE.values():
        assert re.fullmatch(r"[a-z]+(_[a-z]+)*", entry.code)
        assert entry.status in statuses
        assert entry.title and entry.meaning.endswith(".") and entry.action.endswith(".")
        if (
            entry.status in {429, 503}
            and not entry.reserved
            and entry.code not in {"stream_lagged", "server_closing"}
        ):
            assert "Retry-After" in entry.action, f"{entry.code}: a 429/503 says to wait for Retry-After"


def test_every_code_has_a_french_title_of_its_own() -> None:
    for entry in CATALOGUE.values():
        assert entry.title_fr.strip(), entry.code
        assert entry.title_fr != entry.title, f"{entry.code}: the French title is the English one"
        assert entry.title_in(languages.FRENCH) == entry.title_fr
        assert entry.title_in(languages.ENGLISH) == entry.title


# --- the contracts and the docs list exactly the catalogue --------------------------------------------


def test_the_openapi_problem_code_lists_the_catalogue_as_its_known_values() -> None:
    """Open to additions (docs/apps.md, "Versioning"): a string whose known values are the
    catalogue, as ``x-extensible-enum``, not a closed ``enum`` a generated decoder would fail on."""
    committed = json.loads((ROOT / "openapi" / "openapi.json").read_text())
    for document in (committed, openapi_document()):
        code = document["components"]["schemas"]["Problem"]["properties"]["code"]
        assert code["x-extensible-enum"] == list(CATALOGUE) and "enum" not in code


def test_the_graphql_error_code_enum_is_the_catalogue() -> None:
    from graphql import GraphQLEnumType, build_schema

    for text in ((ROOT / "schema" / "schema.graphql").read_text(), sdl()):
        enum = build_schema(text).type_map["ErrorCode"]
        assert isinstance(enum, GraphQLEnumType)
        assert list(enum.values) == [code.upper() for code in CATALOGUE]  # UPPER_CASE, as GraphQL's enums


def test_docs_errors_md_is_committed_and_current() -> None:
    committed = (ROOT / "docs" / "errors.md").read_text()
    assert committed == markdown(), (
        "docs/errors.md drifted: run `python -m service.base.catalogue_doc > docs/errors.md`"
    )
    for entry in CATALOGUE.values():
        assert f"\n### {entry.code}\n" in committed
        assert entry.meaning in committed and entry.action in committed and entry.title_fr in committed
    for reason in REASONS:
        assert f"| `{reason}` |" in committed


# --- every sentence has its French ----------------------------------------------------------------------


def test_every_detail_is_a_template_the_scan_can_read() -> None:
    """No f-string, concatenation or str(...) as a detail: it could not be translated."""
    assert not SERVICE.untranslatable, (
        f"details or Text templates that are not literals: {SERVICE.untranslatable}"
    )
    assert not ENGINE.untranslatable, (
        f"IllegalAction templates that are not literals: {ENGINE.untranslatable}"
    )
    assert len(SERVICE.templates) > 100 and len(ENGINE.templates) > 50  # the scan sees the raise sites


@pytest.mark.parametrize("found", [SERVICE, ENGINE], ids=["service", "engine"])
def test_every_sentence_raised_has_a_french_version(found: object) -> None:
    templates = found.templates  # type: ignore[attr-defined]
    missing = {template: where for template, where in templates.items() if template not in FRENCH}
    assert not missing, f"no French in service/base/french/ for: {json.dumps(missing, indent=1)}"


def test_no_french_is_left_without_its_english() -> None:
    said = set(SERVICE.templates) | set(ENGINE.templates)
    stale = [key for key in FRENCH if not key.startswith(VALIDATION_KEY) and key not in said]
    assert not stale, f"French of sentences nobody says any more: {stale}"


def test_every_translation_fills_from_its_english_fields() -> None:
    """A French template names only fields of its English one, and both format; a sentence with
    literal braces (a JSON example) has no fields and is never formatted, in either language."""
    for english, french in FRENCH.items():
        assert french.strip(), english
        if english.startswith(VALIDATION_KEY):
            continue
        try:
            fields = template_fields(english)
        except ValueError:
            fields = {"not a field"}
        if not all(name.isidentifier() for name in fields):  # literal braces: plain text
            assert english.count("{") == french.count("{"), english
            continue
        assert template_fields(french) <= fields, f"{english!r}: the French names other fields"
        sample = dict.fromkeys(fields, 7)
        assert english.format(**sample) and french.format(**sample)


def test_a_text_renders_each_language_and_nested_phrases() -> None:
    text = Text("{what}'s depth is {depth}", what=Text("The query"), depth=16)
    assert text.render(languages.ENGLISH) == str(text) == "The query's depth is 16"
    assert text.render(languages.FRENCH) == "La requête : profondeur 16"
    token = languages.language.set(languages.FRENCH)
    try:
        assert text.render() == "La requête : profondeur 16"
    finally:
        languages.language.reset(token)
    quoted = Text.verbatim('Expecting value: {"a"}')
    assert quoted.render(languages.FRENCH) == quoted.render(languages.ENGLISH) == 'Expecting value: {"a"}'


def test_a_problem_type_resolves_to_its_catalogue_entry_on_the_server_that_answered(
    client: TestClient,
) -> None:
    """A problem's ``type`` is a reference relative to the answer's URL: followed, it reaches that code's
    entry of the catalogue (docs/errors.md's section of the same name) on the same server."""
    problem = client.get("/v1/games/nosuchgame")
    assert problem.status_code == 404
    kind = problem.json()["type"]
    assert kind == "/problems/game_not_found"
    entry = client.get(urljoin(str(problem.url), kind))
    assert entry.status_code == 200 and entry.headers["content-type"].startswith("application/json")
    want = CATALOGUE["game_not_found"]
    assert entry.json() == {
        "type": kind,
        "code": "game_not_found",
        "status": 404,
        "retry": str(want.retry),
        "title": want.title,
        "title_fr": want.title_fr,
        "meaning": want.meaning,
        "action": want.action,
    }
    for unknown in ("no_such_code", "x" * 5000):
        missing = client.get(f"/problems/{unknown}")
        assert missing.status_code == 404 and missing.json()["code"] == "not_found"
        assert len(missing.text) < 1000
