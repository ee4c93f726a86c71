"""The generated sections of the guides are what their generators make now (``make openapi`` rewrites
them): docs/bots.md's tables of the view's fields come from the models the API's answers are checked
against (schema/view_fields_doc.py), so a field added to a view without `make openapi` fails here."""

from __future__ import annotations

from pathlib import Path

from schema.view_fields_doc import BEGIN, END, markdown, rewrite
from schema.views import EuchreView, FiveHundredView, RoughView, ViewCommon

ROOT = Path(__file__).resolve().parent.parent
BOTS = ROOT / "docs" / "bots.md"


def test_the_bot_guide_lists_the_view_fields_the_models_hold_now() -> None:
    page = BOTS.read_text()
    assert rewrite(page) == page, "docs/bots.md's view fields are stale: run `make openapi`"


def test_every_field_of_every_view_is_in_the_guide_with_words() -> None:
    section = markdown()
    for model in (ViewCommon, FiveHundredView, RoughView, EuchreView):
        for name in model.model_fields:
            row = next((line for line in section.splitlines() if line.startswith(f"| `{name}` |")), None)
            assert row is not None, f"{model.__name__}.{name} is not in the guide"
            assert not row.rstrip().endswith("|  |"), f"{model.__name__}.{name} has no words: {row}"


def test_a_page_without_the_markers_is_refused_not_overwritten() -> None:
    try:
        rewrite("# a page\n")
    except ValueError as refused:
        assert BEGIN in str(refused) and END in str(refused)
    else:
        raise AssertionError("a page without the markers was rewritten")
