"""The runner's configuration (``atout bot run --config bot.toml``: every option in a TOML file, the
flags over it, the key from an environment variable) and what it runs against a live service: three
games at once to their ends (``concurrency = 3``), a bot that raises or answers an illegal move,
logged loudly and handled as ``on_failure`` says (``fallback``, ``leave``), a typed bot with its
callbacks, and Play now (four bot accounts seeking a table together)."""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import random
import signal
import subprocess
import sys
import textwrap
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest
from test_runner import HIGH_CARD, check_played_once, finished, new_game
from toolkit_live import ROOT, BotRun, Serve, stop, wait_for

from atout.client import Client
from atout.runner import GameEnd, GameStart, HandEnd, Join, Journal, Runner, RunnerConfig, Seek
from atout.runner.command import add_bot_commands
from atout.runner.config import OPTIONS, ConfigError, from_flags, key_file_exposed, options_table, read_file
from atout.runner.seek import queue_ticket
from schema.actions import DiscardAction, PassAction, PlayAction
from schema.views import LegalAction, RoughView, View
from service.runtime.cli import main
from workers import arena, bots

KEY_VARIABLE = "TEST_RUNNER_KEY"

# --- the configuration --------------------------------------------------------------------------------

FULL = """\
[service]
url = "http://127.0.0.1:9"
key_env = "MY_BOT_KEY"
state = "state.json"
max_outage = 60
ndjson = true

[bot]
command = "node examples/bots/node/bot.js"
protocol = 1
move_seconds = 2.5
on_failure = "leave"

[games]
join = ["g1", "g2:3"]
concurrency = 3
exit_when_done = true

[[games.seek]]
kind = "rough"
rated = true
count = 2
options = { target_score = 200 }

[log]
level = "warning"
format = "text"
"""


def parsed(argv: list[str], environ: dict[str, str] | None = None) -> RunnerConfig:
    """``atout bot run <argv>``'s configuration, as the command reads it."""
    parser = argparse.ArgumentParser()
    add_bot_commands(parser.add_subparsers(dest="bot_command", required=True))
    return from_flags(parser.parse_args(["run", *argv]), environ or {})


def test_a_file_sets_every_option_and_the_key_comes_from_the_variable_it_names(tmp_path: Path) -> None:
    path = tmp_path / "bot.toml"
    path.write_text(FULL)
    config = parsed(["--config", str(path)], {"MY_BOT_KEY": "atb_secret"})
    assert (
        config.url == "http://127.0.0.1:9" and config.key == "atb_secret" and config.key_from == "$MY_BOT_KEY"
    )
    assert (config.state, config.max_outage, config.ndjson) == (Path("state.json"), 60.0, True)
    assert (config.command, config.bot, config.protocol) == ("node examples/bots/node/bot.js", None, 1)
    assert (config.move_seconds, config.on_failure) == (2.5, "leave")
    assert [(j.game_id, j.seat) for j in config.join] == [("g1", None), ("g2", 3)]
    assert config.seek == (Seek("rough", True, 2, {"target_score": 200}),)
    assert (config.concurrency, config.exit_when_done, config.log_level, config.log_format) == (
        3,
        True,
        "warning",
        "text",
    )
    assert "atb_secret" not in repr(config)
    # every option of the table is in FULL: a new option is documented in the example or this fails
    assert {o.dest for o in OPTIONS} - {"key", "bot"} <= set(read_file(path))


def test_flags_override_the_file(tmp_path: Path) -> None:
    path = tmp_path / "bot.toml"
    path.write_text(FULL)
    argv = ["--config", str(path), HIGH_CARD, "--concurrency", "1", "--join", "g9", "--seek", "euchre5:4"]
    argv += ["--no-ndjson", "--on-failure", "fallback", "--token", "atb_flag", "--log-format", "json"]
    config = parsed(argv, {})
    assert (config.bot, config.command) == (HIGH_CARD, None)  # the flag's bot replaces the file's
    assert (config.concurrency, config.ndjson, config.on_failure, config.log_format) == (
        1,
        False,
        "fallback",
        "json",
    )
    assert [j.game_id for j in config.join] == ["g9"] and config.seek == (Seek("euchre5", False, 4),)
    assert (config.key, config.key_from, config.move_seconds) == ("atb_flag", "--token", 2.5)
    with pytest.raises(ConfigError, match="give one bot"):
        parsed([*argv, "--cmd", "python -c pass"], {})


def test_the_key_is_taken_from_the_flag_the_file_or_the_default_variable(tmp_path: Path) -> None:
    assert parsed([HIGH_CARD, "--url", "http://h"], {"ATOUT_BOT_KEY": "atb_env"}).key == "atb_env"
    path = tmp_path / "bot.toml"
    path.write_text('[service]\nurl = "http://h"\nkey = "atb_file"\n')
    assert parsed(["--config", str(path), HIGH_CARD], {"ATOUT_BOT_KEY": "atb_env"}).key == "atb_file"
    with pytest.raises(ConfigError, match=r"give the bot account's API key: .*\$OTHER"):
        parsed([HIGH_CARD, "--url", "http://h", "--key-env", "OTHER"], {"ATOUT_BOT_KEY": "atb_env"})


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("[bot]\ncomand = 'x'\n", "unknown option bot.comand"),
        ("[robot]\nclass = 'x'\n", "unknown section [robot]"),
        ("[bot]\nmove_seconds = 'fast'\n", "bot.move_seconds in"),
        ("[bot]\non_failure = 'ignore'\n", "'fallback' or 'leave'"),
        ("[games]\nconcurrency = 2.5\n", "a whole number"),
        ("[games]\njoin = 'g1'\n", "a list of GAME or GAME:SEAT"),
        ("[[games.seek]]\nkind = 'bridge'\n", "a seek is of a game kind"),
        ("[[games.seek]]\nkind = 'rough'\nwhen = 'now'\n", "unknown key 'when'"),
        ("[games]\nconcurrency = 0\n", "games.concurrency is 1 or more"),
        ("[games]\nexit_when_done = true\n", "exit_when_done needs games to join or seek"),
        ("[log]\nlevel = 'loud'\n", "'debug' or 'info' or 'warning' or 'error'"),
        ("[service\n", "is not TOML"),
    ],
)
def test_a_file_the_runner_cannot_run_is_refused_with_a_sentence(
    tmp_path: Path, text: str, says: str
) -> None:
    path = tmp_path / "bot.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as refused:
        parsed(["--config", str(path), "--url", "http://h", "--token", "atb_x", HIGH_CARD])
    assert says in str(refused.value)


def test_the_command_exits_2_naming_the_option(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bot.toml"
    path.write_text("[bot]\ncomand = 'x'\n")
    assert main(["bot", "run", "--config", str(path)]) == 2
    assert "unknown option bot.comand" in capsys.readouterr().err
    assert main(["bot", "run", "--cmd", "no-such-program-xyz", "--url", "http://h", "--token", "atb_x"]) == 2
    assert "cannot find the bot program 'no-such-program-xyz'" in capsys.readouterr().err
    assert main(["bot", "run", HIGH_CARD, "--token", "atb_x"]) == 2
    assert "give the service's URL: --url, or url in the config file's [service]" in capsys.readouterr().err


def test_every_option_is_in_the_help_and_the_table() -> None:
    shown = subprocess.run(
        [sys.executable, "-m", "atout.runner", "run", "--help"], cwd=ROOT, capture_output=True, text=True
    )
    assert shown.returncode == 0
    table = options_table()
    for option in OPTIONS:
        assert f"[{option.path}]" in shown.stdout
        assert f"`{option.path}`" in table
        if option.flag != "BOT":
            assert option.flag in shown.stdout
    assert table.count("\n") == len(OPTIONS) + 1


def test_the_text_log_is_key_value_lines_above_its_level() -> None:
    out = io.StringIO()
    journal = Journal(out, level="warning", fmt="text")
    journal("decision", game="g1", seat=0)  # info: below the level
    journal(
        "bot_failed",
        level="error",
        game="g1",
        detail="the bot raised ValueError: no",
        action={"type": "pass"},
    )
    (line,) = out.getvalue().splitlines()
    assert line.split()[1:3] == ["ERROR", "bot_failed"]
    assert line.endswith('game=g1 detail="the bot raised ValueError: no" action={"type": "pass"}')


def test_a_key_in_a_file_others_may_read_is_flagged(tmp_path: Path) -> None:
    path = tmp_path / "bot.toml"
    path.write_text('[service]\nurl = "http://h"\nkey = "atb_file"\n')
    path.chmod(0o644)
    assert key_file_exposed(path)
    path.chmod(0o600)
    assert not key_file_exposed(path)


# --- bots for the live tests ------------------------------------------------------------------------------


class Heuristic:
    """The built-in heuristic strategy as a bot class: it bids, so four of them end a match."""

    def __init__(self) -> None:
        self.rng = random.Random(1)

    def decide(self, view: dict[str, Any], legal_actions: list[dict[str, Any]]) -> dict[str, Any]:
        return bots.choose("heuristic", view, legal_actions, self.rng, budget_s=0.01)


class Raises:
    def decide(self, view: dict[str, Any], legal_actions: list[dict[str, Any]]) -> dict[str, Any]:
        raise RuntimeError("this bot always fails")


class Illegal:
    """A well-formed move the rules refuse: a card while bidding or discarding, a pass while playing."""

    def decide(self, view: dict[str, Any], legal_actions: list[dict[str, Any]]) -> dict[str, Any]:
        if any(action["type"] == "play" for action in legal_actions):
            return {"type": "pass"}
        return {"type": "play", "card": view["hand"][0]}


class Typed:
    """Asks for models (its view annotated ``View``), answers with models, and records its callbacks."""

    heard: ClassVar[list[tuple[int, str, Any]]] = []

    def __init__(self) -> None:
        self.seat: int | None = None

    def decide(self, view: View, legal_actions: list[LegalAction]) -> PassAction | DiscardAction | PlayAction:
        assert isinstance(view, RoughView) and all(not isinstance(a, dict) for a in legal_actions)
        self.heard.append((view.seat or 0, "decide", view.hand_number))
        for action in legal_actions:
            if action.type == "pass":
                return PassAction(type="pass")
            if action.type == "discard":
                return DiscardAction(type="discard", cards=action.choices[: action.count])
        play = next(a for a in legal_actions if a.type == "play")
        return PlayAction(type="play", card=play.card)

    def on_game_start(self, start: GameStart) -> None:
        self.heard.append((start.seat, "game_start", start.kind))

    def on_hand_end(self, end: HandEnd) -> None:
        self.heard.append((end.seat, "hand_end", end.hand))

    def on_game_end(self, end: GameEnd) -> None:
        self.heard.append((end.seat, "game_end", (end.reason, end.winners)))


def run_to_end(config: RunnerConfig, seconds: float = 240) -> list[dict[str, Any]]:
    """A runner (the Python API) run until it stops by itself; its journal's lines."""
    out = io.StringIO()
    runner = Runner(config, Journal(out))
    asyncio.run(asyncio.wait_for(runner.main(), seconds))
    return [json.loads(line) for line in out.getvalue().splitlines()]


def events(lines: list[dict[str, Any]], name: str) -> list[dict[str, Any]]:
    return [line for line in lines if line["event"] == name]


# --- live: three games at once ----------------------------------------------------------------------------

STEADY = """\
import json, sys, threading, time

from examples.bot_class import HighCard

LOCK = threading.Lock()
IN_FLIGHT = [0]


class Steady(HighCard):
    \"\"\"HighCard after a short pause, saying how many decisions are in flight as it starts.\"\"\"

    def decide(self, view, legal_actions):
        with LOCK:
            IN_FLIGHT[0] += 1
            now = IN_FLIGHT[0]
        sys.stderr.write(json.dumps({"event": "in_flight", "n": now}) + "\\n")  # one write: one whole line
        time.sleep(0.1)
        with LOCK:
            IN_FLIGHT[0] -= 1
        return super().decide(view, legal_actions)
"""


def test_a_runner_with_a_config_file_plays_three_games_at_once_to_their_ends(
    served: Serve, bot_runs: Callable[..., BotRun], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "steady.py").write_text(STEADY)
    with Client(served.base) as atout:
        bot = atout.register_bot("three-at-once")
        games = [new_game(atout, kind, bot.api_key)[0] for kind in ("rough", "five_hundred", "rough")]
        joins = [gid for gid in games for _seat in (0, 2)]
        config = tmp_path / "bot.toml"
        config.write_text(
            textwrap.dedent(
                f"""\
                [service]
                url = "{served.base}"
                key_env = "{KEY_VARIABLE}"

                [bot]
                class = "{tmp_path / "steady.py"}:Steady"
                move_seconds = 10

                [games]
                join = {json.dumps(joins)}
                concurrency = 3
                exit_when_done = true
                """
            )
        )
        monkeypatch.setenv(KEY_VARIABLE, bot.api_key)
        run = bot_runs("--config", str(config))
        over = lambda: all(finished(atout, gid) for gid in games)  # noqa: E731
        wait_for(lambda: over() or run.proc.poll() is not None, 180, "the three matches", run)
        assert run.proc.wait(60) == 0 and over(), run.text()
        for gid in games:
            counts = check_played_once(atout, gid, [d for d in run.events("decision") if d["game"] == gid])
            assert counts["bot_moves"] > 5, counts
    assert {e["game"] for e in run.events("game_finished")} == set(games)
    flights = [e["n"] for e in run.events("in_flight")]
    print("decisions in flight:", Counter(flights))
    assert max(flights) <= 3, "never more decisions in flight than games.concurrency"
    assert max(flights) >= 2, "the three games were played side by side"
    assert run.events("key")[0]["source"] == f"${KEY_VARIABLE}" and bot.api_key not in run.text()
    assert [e["event"] for e in run.lines()][-2:] == ["done", "stopped"]


# --- live: a failing bot, as on_failure says -------------------------------------------------------------


def config_for(served: Serve, key: str, gid: str, bot: type, **more: Any) -> RunnerConfig:
    """Join both open seats of ``gid`` (0 and 2) and stop once it is over."""
    return RunnerConfig(served.base, key, bot=bot, join=(Join(gid), Join(gid)), exit_when_done=True, **more)


@pytest.mark.parametrize("policy", ["fallback", "leave"])
@pytest.mark.parametrize("bot", [Raises, Illegal], ids=["raises", "illegal"])
def test_a_failing_bot_is_logged_loudly_and_handled_as_configured(
    served: Serve, bot: type, policy: str
) -> None:
    with Client(served.base) as atout:
        account = atout.register_bot(f"{bot.__name__}-{policy}")
        gid, _joins = new_game(atout, "rough", account.api_key)
        lines = run_to_end(config_for(served, account.api_key, gid, bot, on_failure=policy))
        over = atout.game(gid)
        assert over.status == "finished"
        failed, decisions = events(lines, "bot_failed"), events(lines, "decision")
        assert failed and all(
            f["level"] == "error" and f["game"] == gid and f["policy"] == policy for f in failed
        )
        assert {f["seat"] for f in failed} == {0, 2} and all(isinstance(f["version"], int) for f in failed)
        if bot is Raises:
            assert all(f["reason"] == "crash" for f in failed)
            assert all("RuntimeError: this bot always fails" in f["detail"] for f in failed)
            assert all(
                "in decide" in f["traceback"] and "raise RuntimeError" in f["traceback"] for f in failed
            )
        else:
            assert all(f["reason"] == "illegal" and "illegal_action" in f["detail"] for f in failed)
            assert all(f["action"]["type"] in ("play", "pass") for f in failed)
        if policy == "fallback":
            assert [(f["seat"], f["version"]) for f in failed] == [
                (d["seat"], d["version"]) for d in decisions
            ]
            assert all(
                d["level"] == "error" and d["fallback"].startswith(failed[0]["reason"]) for d in decisions
            )
            check_played_once(atout, gid, decisions)
            assert not events(lines, "seat_left")
        else:
            assert len(failed) == 2 and not decisions  # each seat failed once, then was given up
            assert sorted(e["seat"] for e in events(lines, "seat_left")) == [0, 2]
            assert [(over.seats[s].seat_kind, over.seats[s].bot_level) for s in (0, 2)] == [
                ("bot", "random")
            ] * 2
    assert events(lines, "done")


def test_a_program_that_crashes_is_restarted_for_its_next_turn(served: Serve, tmp_path: Path) -> None:
    """A program that exits on its third turn: each crash logged with the end of its stderr, a fallback
    played, and the seat's next turn asked of a new process (a new hello)."""
    hellos = tmp_path / "hellos"
    program = tmp_path / "fragile.py"
    program.write_text(
        textwrap.dedent(
            f"""\
            import json, sys
            turns = 0
            for line in sys.stdin:
                message = json.loads(line)
                if message["type"] == "hello":
                    open({str(hellos)!r}, "a").write("hello\\n")
                    print(json.dumps({{"type": "hello", "protocol": 1, "name": "fragile"}}), flush=True)
                elif message["type"] == "your_turn":
                    turns += 1
                    if turns == 3:
                        sys.exit("fragile: my third turn")
                    print(json.dumps(message["legal_actions"][0]), flush=True)
            """
        )
    )
    with Client(served.base) as atout:
        account = atout.register_bot("fragile")
        gid, _joins = new_game(atout, "euchre5", account.api_key)
        config = RunnerConfig(
            served.base,
            account.api_key,
            command=f"{sys.executable} {program}",
            join=(Join(gid), Join(gid)),
            exit_when_done=True,
        )
        lines = run_to_end(config)
        assert finished(atout, gid)
        check_played_once(atout, gid, events(lines, "decision"))
    failed = events(lines, "bot_failed")
    assert failed and all(f["reason"] == "crash" and "fragile: my third turn" in f["detail"] for f in failed)
    alive_at_the_end = 0
    for seat in (0, 2):
        played = ["fallback" in d for d in events(lines, "decision") if d["seat"] == seat]
        # each process answers two turns and dies on its third (a fallback): the next one is a new process's
        assert played == [False, False, True] * (len(played) // 3) + [False] * (len(played) % 3), played
        alive_at_the_end += not played[-1]
    # a process a seat, one more after each crash but a crash on the seat's last turn
    assert hellos.read_text().count("hello") == len(failed) + alive_at_the_end


# --- live: typed views and callbacks ---------------------------------------------------------------------


def test_a_typed_bot_gets_models_and_its_callbacks(served: Serve) -> None:
    Typed.heard.clear()
    with Client(served.base) as atout:
        account = atout.register_bot("typed")
        gid, _joins = new_game(atout, "rough", account.api_key)
        lines = run_to_end(config_for(served, account.api_key, gid, Typed))
        winners = atout.game(gid).winners
    assert not events(lines, "bot_failed") and events(lines, "decision")
    for seat in (0, 2):
        heard = [(what, detail) for s, what, detail in Typed.heard if s == seat]
        assert heard[0] == ("game_start", "rough") and heard[-1] == ("game_end", ("finished", winners))
        hands = [detail for what, detail in heard if what == "hand_end"]
        assert hands and hands == sorted(set(hands))
        decided = [detail for what, detail in heard if what == "decide"]
        assert decided and max(decided) <= max(hands)


# --- live: Play now --------------------------------------------------------------------------------------


@pytest.fixture
def matchmaker(served: Serve, tmp_path: Path) -> Iterator[subprocess.Popen[bytes]]:
    """``atout matchmaker`` on the served Redis (``atout serve`` runs one only with its own Redis)."""
    env = {**served.env, "ATOUT_MATCHMAKING_INTERVAL": "0.2"}
    with open(tmp_path / "matchmaker.log", "wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "service.runtime.cli", "matchmaker", "--metrics-port", "0"],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=log,
        )
    try:
        yield proc
    finally:
        stop(proc, signal.SIGTERM)


def test_four_runners_seeking_a_table_play_it_to_its_end(
    served: Serve, matchmaker: subprocess.Popen[bytes]
) -> None:
    """Bot accounts meet bot accounts only: four runners (in one program, the Python API) each queue
    a ticket for a Le Rough game, are seated at one table, play it, and stop by themselves."""
    seek = (Seek("rough", count=1, options={"target_score": 200}),)
    with Client(served.base) as atout:
        keys = [atout.register_bot(f"seeker-{i}").api_key for i in range(4)]
        # the first account holds a ticket already (an earlier run's): its runner waits for that one
        atout.send(queue_ticket(seek[0]), token=keys[0])
    outs = [io.StringIO() for _ in keys]
    runners = [
        Runner(RunnerConfig(served.base, key, bot=Heuristic, seek=seek, exit_when_done=True), Journal(out))
        for key, out in zip(keys, outs, strict=True)
    ]

    async def all_of_them() -> None:
        await asyncio.wait_for(asyncio.gather(*(runner.main() for runner in runners)), 240)

    asyncio.run(all_of_them())
    logs = [[json.loads(line) for line in out.getvalue().splitlines()] for out in outs]
    found = [events(log, "match_found") for log in logs]
    assert all(len(f) == 1 and f[0]["sought"] for f in found), found
    games = {f[0]["game"] for f in found}
    assert len(games) == 1 and sorted(f[0]["seat"] for f in found) == [0, 1, 2, 3]
    (gid,) = games
    with Client(served.base) as atout:
        assert finished(atout, gid)
        for log in logs:
            check_played_once(atout, gid, events(log, "decision"))
    assert all(events(log, "done") for log in logs)
    assert events(logs[0], "ticket_held") and not events(logs[0], "ticket")
    assert all(len(events(log, "ticket")) == 1 for log in logs[1:])


# --- the arena: the same class, the same views and callbacks ----------------------------------------------


def test_the_arena_gives_a_typed_bot_models_and_its_callbacks_as_the_runner_does() -> None:
    Typed.heard.clear()
    result = arena.run(
        "rough",
        arena.BotClass("test_runner_config:Typed"),
        arena.Builtin("random"),
        2,
        options={"target_score": 200},
    )
    assert [r.forfeit for r in result.matches] == [None, None]
    for seat in (0, 2, 1, 3):  # side A's seats in the first match, then in the second (swapped)
        heard = [(what, detail) for s, what, detail in Typed.heard if s == seat]
        assert heard[0] == ("game_start", "rough") and heard[-1][0] == "game_end", heard
        hands = [detail for what, detail in heard if what == "hand_end"]
        assert hands and hands == sorted(set(hands))


class EndRaises(Typed):
    def on_game_end(self, end: GameEnd) -> None:
        raise RuntimeError("on_game_end is broken")


def test_the_arena_forfeits_a_bot_whose_callback_raises_naming_it() -> None:
    result = arena.run(
        "rough",
        arena.BotClass("test_runner_config:EndRaises"),
        arena.Builtin("random"),
        1,
        options={"target_score": 200},
    )
    forfeit = result.matches[0].forfeit
    assert forfeit is not None and forfeit.side == "A" and forfeit.reason == "crash"
    assert "on_game_end" in forfeit.detail and "is broken" in forfeit.detail
