"""The generated sections of the guides are what their generators make now (``make openapi`` rewrites
them): docs/bots.md's tables of the view's fields come from the models the API's answers are checked
against (schema/view_fields_doc.py), so a field added to a view without `make openapi` fails here; its
table of the runner's options comes from the runner's one declaration of them (atout/runner/config.py,
``OPTIONS``), and every flag the ``atout bot`` commands take is checked to be in the guide."""

from __future__ import annotations

import argparse
from pathlib import Path

from atout.runner.command import add_bot_commands
from atout.runner.config import DOC_BEGIN, DOC_END, with_options_table
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


def bot_command(name: str) -> argparse.ArgumentParser:
    """The parser of ``atout bot NAME``, as the ``atout`` command builds it."""
    parser = argparse.ArgumentParser(prog="atout bot")
    commands = parser.add_subparsers(dest="bot_command")
    add_bot_commands(commands)
    chosen: argparse.ArgumentParser = commands.choices[name]
    return chosen


def options_section(page: str) -> str:
    return page.partition(DOC_BEGIN)[2].partition(DOC_END)[0]


def test_the_bot_guide_lists_the_runner_options_the_runner_declares_now() -> None:
    page = BOTS.read_text()
    assert with_options_table(page) == page, "docs/bots.md's runner options are stale: run `make openapi`"


def test_every_flag_of_atout_bot_run_is_in_the_guides_table_of_options() -> None:
    """A flag added to the command beside the declared options (``add_argument`` by hand) would be
    missing from the generated table: caught here, from the parser itself."""
    section = options_section(BOTS.read_text())
    run = bot_command("run")
    for action in run._actions:
        for flag in action.option_strings:
            if flag in ("-h", "--help", "--config"):
                continue
            assert f"`{flag}`" in section, f"atout bot run {flag} is not in docs/bots.md's table of options"
        if not action.option_strings:
            assert f"`{action.metavar}`" in section, f"atout bot run's {action.dest} is not in the table"
    assert "`atout bot run --config" in BOTS.read_text()


def test_every_flag_of_atout_bot_register_is_in_the_guide() -> None:
    register = next(line for line in BOTS.read_text().splitlines() if "`atout bot register NAME" in line)
    for action in bot_command("register")._actions:
        for flag in action.option_strings:
            if flag not in ("-h", "--help"):
                assert flag in register, f"atout bot register {flag} is not in docs/bots.md"


def test_a_page_without_the_options_markers_is_refused_not_overwritten() -> None:
    try:
        with_options_table("# a page\n")
    except ValueError as refused:
        assert DOC_BEGIN in str(refused) and DOC_END in str(refused)
    else:
        raise AssertionError("a page without the options markers was rewritten")
