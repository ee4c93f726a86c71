"""The bot protocol (``workers.arena.protocol``), the same in the arena and the runner: the Node
example bot (``examples/bots/node/bot.js``) plays whole matches in the arena (protocol 1 from Python,
protocol 0 from ``atout arena --b-cmd``) and through ``atout bot run --cmd`` against a live service;
what a seat is told, in order (``hello``, ``game_start``, ``your_turn``, ``hand_end``, ``game_end``),
read back from the messages the bot recorded (``BOT_TRACE``); a handshake or an answer the protocol
does not allow is a forfeit in the arena, with a sentence saying why."""

from __future__ import annotations

import json
import random
import signal
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from test_runner import SHORT, check_played_once, finished, new_game
from toolkit_live import ROOT, BotRun, Serve, stop, wait_for

import engine
from atout.client import Client
from service.runtime.cli import main
from workers import arena, bots
from workers.arena.command import ProgramSeat

NODE_BOT = "node examples/bots/node/bot.js"
LEGACY_EXAMPLE = f"{sys.executable} {ROOT / 'examples' / 'bot.py'}"
OPTIONS = {game: options for game, (options, _seats) in SHORT.items()}


def node(protocol: int, timeout_s: float = 10.0) -> arena.Command:
    return arena.Command(f"node {ROOT / 'examples' / 'bots' / 'node' / 'bot.js'}", timeout_s, protocol)


def traced(path: Path) -> list[dict[str, Any]]:
    """The messages the Node bot was sent, in order (it appends each to ``$BOT_TRACE``)."""
    return [json.loads(line) for line in path.read_text().splitlines()]


def check_one_seat_told_in_order(messages: list[dict[str, Any]], host: str, seat: int) -> None:
    """What one seat hears (protocol 1): ``hello``, ``game_start``, then turns with each hand's end
    told once, in order, before the next hand's first turn, then the last hand's end and
    ``game_end``, nothing after."""
    types = [m["type"] for m in messages]
    assert types[:2] == ["hello", "game_start"], types[:3]
    assert messages[0] == {"type": "hello", "protocol": 1, "host": host}
    start = messages[1]
    assert (start["seat"], start["players"]) == (seat, 5 if start["kind"] == "euchre5" else 4)
    assert start["options"]["target_score"] == OPTIONS[start["kind"]]["target_score"]
    assert types[-2:] == ["hand_end", "game_end"] and types.count("game_end") == 1
    hand, told = 1, 0
    for m in messages[2:-1]:
        assert m["seat"] == seat
        if m["type"] == "your_turn":
            assert m["hand"] >= hand and m["view"]["hand_number"] == m["hand"] and m["legal_actions"]
            assert m["hand"] == told + 1 or start["kind"] == "euchre5"  # a euchre seat may sit a hand out
            hand = m["hand"]
        else:
            assert m["type"] == "hand_end" and m["hand"] > told and m["result"]["hand_number"] == m["hand"]
            told = m["hand"]
    assert told >= hand


# --- the arena ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("game", list(SHORT))
def test_the_node_bot_plays_whole_matches_in_the_arena_speaking_protocol_1(game: str) -> None:
    result = arena.run(game, node(1), arena.Builtin("random"), 2, options=OPTIONS[game])
    assert [r.forfeit for r in result.matches] == [None, None]
    assert all(not r.unfinished and r.decisions > 0 for r in result.matches)


@pytest.mark.parametrize("protocol", ["0", "1"])
def test_the_node_bot_plays_in_atout_arena_speaking_either_protocol(
    protocol: str, capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``atout arena --b-cmd`` speaks the first protocol (the turn alone) unless ``--protocol 1``: the
    programs written for it keep working; the Node bot answers both."""
    trace = tmp_path / "trace.jsonl"
    monkeypatch.setenv("BOT_TRACE", str(trace))
    argv = ["arena", "--game", "rough", "--b-cmd", NODE_BOT, "--matches", "2", "--target", "200", "--json"]
    assert main([*argv, "--protocol", protocol, "--no-progress"]) == 0
    said = {message.get("type") for message in traced(trace)}
    assert ({"hello", "game_start", "your_turn", "game_end"} <= said) == (protocol == "1"), said
    result = json.loads(capsys.readouterr().out)
    assert result["b"] == NODE_BOT and result["forfeits_b"] == 0 and result["matches"] == 2


@pytest.mark.parametrize("game", list(SHORT))
def test_a_seat_is_told_its_game_start_each_hand_end_and_the_game_end_in_order(
    game: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The arena's ``ProgramSeat`` (the class the runner plays programs with too) at seat 0 of a
    whole match against built-in bots; its ``finish`` tells the end from the final view."""
    trace = tmp_path / "trace.jsonl"
    monkeypatch.setenv("BOT_TRACE", str(trace))
    m = engine.new_match(game, seed=7, options=OPTIONS[game])
    program, rng = ProgramSeat(node(1), "arena", None, 0), random.Random(7)
    try:
        while m.to_act is not None:
            seat = m.to_act
            view, legal = engine.view(m, seat), engine.legal_actions(m, seat)
            action = program.decide(view, legal) if seat == 0 else bots.choose("random", view, legal, rng)
            engine.push(m, seat, action)
        program.finish(engine.view(m, 0))
    finally:
        program.close()
    messages = traced(trace)
    check_one_seat_told_in_order(messages, "arena", 0)
    assert program.name == "lowest-legal (node)"
    end = messages[-1]
    assert end == {
        "type": "game_end",
        "game_id": None,
        "seat": 0,
        "winners": m.winners,
        "scores": m.scores,
        "reason": "finished",
    }
    assert messages[-2]["hand"] == m.hand_number and messages[-2]["scores"] == m.scores


def a_program(tmp_path: Path, name: str, body: str) -> str:
    """A Python program (any language would do) that answers each line with ``answer(message)``."""
    path = tmp_path / f"{name}.py"
    path.write_text(
        "import json, sys\n" + textwrap.dedent(body) + "\nfor line in sys.stdin:\n"
        "    reply = answer(json.loads(line))\n"
        "    if reply is not None:\n"
        "        print(json.dumps(reply), flush=True)\n"
    )
    return f"{sys.executable} {path}"


HELLO = '{"type": "hello", "protocol": 1}'
BROKEN_PROTOCOL = {
    "answers hello with protocol 2": (
        """def answer(m):
            return {"type": "hello", "protocol": 2} if m["type"] == "hello" else None""",
        "the bot speaks protocol 2; this harness speaks 1",
    ),
    # its answer to game_start is read as unasked, or (when it comes late) as the turn's answer
    "answers game_start": (
        f"""def answer(m):
            return {HELLO} if m["type"] == "hello" else ["ok"]""",
        '["ok"]',
    ),
    "answers a turn with a hello": (
        f"""def answer(m):
            return {HELLO} if m["type"] in ("hello", "your_turn") else None""",
        "the answer is not an action",
    ),
}


@pytest.mark.parametrize("kind", list(BROKEN_PROTOCOL))
def test_a_program_that_breaks_protocol_1_forfeits_with_a_sentence(kind: str, tmp_path: Path) -> None:
    body, says = BROKEN_PROTOCOL[kind]
    broken = arena.Command(a_program(tmp_path, "broken", body), protocol=1)
    result = arena.run("rough", broken, arena.Builtin("random"), 2, options=OPTIONS["rough"])
    for r in result.matches:
        assert r.forfeit is not None and (r.forfeit.side, r.forfeit.reason) == ("A", "garbage")
        assert says in r.forfeit.detail, r.forfeit.detail


def test_a_protocol_0_program_run_as_protocol_1_is_told_what_to_change() -> None:
    """The README's example bot reads every line as a turn: it crashes on the hello (a KeyError), and
    the forfeit quotes its stderr."""
    result = arena.run("rough", arena.Command(LEGACY_EXAMPLE, protocol=1), arena.Builtin("random"), 2)
    forfeit = result.matches[0].forfeit
    assert forfeit is not None and forfeit.reason == "crash" and "legal_actions" in forfeit.detail
    assert "at the hello" in forfeit.detail and "is run with protocol 0" in forfeit.detail
    again = arena.run("rough", arena.Command(LEGACY_EXAMPLE, protocol=0), arena.Builtin("random"), 2)
    assert [r.forfeit for r in again.matches] == [None, None]


def test_a_command_is_refused_an_unknown_protocol() -> None:
    with pytest.raises(arena.ArenaError, match="unknown bot protocol 2"):
        arena.Command(NODE_BOT, protocol=2)


# --- the runner, on a live service ----------------------------------------------------------------------


def test_the_node_bot_plays_a_whole_match_through_the_runner(
    served: Serve, bot_runs: Callable[..., BotRun], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``atout bot run --cmd "node …"``: one process per seat (two here, partners), each told its game
    in order; every move played once; the runner exits by itself once the game is over."""
    trace = tmp_path / "trace.jsonl"
    monkeypatch.setenv("BOT_TRACE", str(trace))
    with Client(served.base) as atout:
        bot = atout.register_bot("node-runner")
        gid, joins = new_game(atout, "rough", bot.api_key)
        run = bot_runs(
            "--cmd", NODE_BOT, "--url", served.base, "--token", bot.api_key, *joins, "--exit-when-done"
        )
        wait_for(lambda: finished(atout, gid), 120, "the end of the match", run)
        assert run.proc.wait(60) == 0, run.text()
        counts = check_played_once(atout, gid, run.events("decision"))
        assert counts["bot_moves"] > 10, counts
        winners = atout.game(gid).winners
    assert not run.events("bot_failed")
    assert [e["event"] for e in run.lines()][-2:] == ["done", "stopped"]
    messages = traced(trace)
    assert [m["host"] for m in messages if m["type"] == "hello"] == ["runner", "runner"]
    seats = sorted({m["seat"] for m in messages if m["type"] == "game_start"})
    assert seats == [0, 2]
    for seat in seats:
        mine = [m for m in messages if m.get("seat") == seat]
        hello = {"type": "hello", "protocol": 1, "host": "runner"}
        check_one_seat_told_in_order([hello, *mine], "runner", seat)
        assert all(m["game_id"] == gid for m in mine)
        assert mine[-1]["reason"] == "finished" and mine[-1]["winners"] == winners
        versions = [m["version"] for m in mine if m["type"] == "your_turn"]
        assert versions == sorted(versions) and len(set(versions)) == len(versions)


def test_sigterm_stops_the_runner_and_its_programs_are_told_stopped(
    served: Serve, bot_runs: Callable[..., BotRun], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    trace = tmp_path / "trace.jsonl"
    monkeypatch.setenv("BOT_TRACE", str(trace))
    with Client(served.base) as atout:
        bot = atout.register_bot("node-stopped")
        gid, joins = new_game(atout, "euchre5", bot.api_key)
        run = bot_runs("--cmd", NODE_BOT, "--url", served.base, "--token", bot.api_key, *joins)
        wait_for(lambda: len(run.events("decision")) >= 3, 60, "the first moves", run)
        assert stop(run.proc, signal.SIGTERM) == 0, run.text()
        assert not finished(atout, gid)
    ends = [m for m in traced(trace) if m["type"] == "game_end"]
    assert ends and all(m["reason"] == "stopped" and m["winners"] is None for m in ends)
