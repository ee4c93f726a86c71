"""``atout bot run``: whole matches of the three games against a live ``atout serve``, a restart of
the service in the middle of one (the runner resumes, and no move is played twice), a clean stop on
SIGTERM, and the command's refusals; the same bot class in ``atout arena --a-bot``.

Short matches (Le 500 to 300, Le Rough to 200, euchre to 5) and heuristic opponents played by a
real worker keep each match to seconds."""

from __future__ import annotations

import json
import os
import signal
import threading
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cutting_proxy import CuttingProxy
from toolkit_live import BotRun, Serve, stop, wait_for

from atout.client import Client, RetryPolicy
from service.runtime.cli import main
from service.runtime.embedded_redis import free_port

HIGH_CARD = "examples/bot_class.py:HighCard"
SHORT = {
    "five_hundred": ({"target_score": 300}, ["open", "bot:heuristic", "open", "bot:heuristic"]),
    "rough": ({"target_score": 200}, ["open", "bot:heuristic", "open", "bot:heuristic"]),
    "euchre5": ({"target_score": 5}, ["open", "bot:heuristic", "open", "bot:heuristic", "bot:heuristic"]),
}


def new_game(atout: Client, game: str, key: str) -> tuple[str, list[str]]:
    """A short match of ``game`` with two open seats for the bot, and the runner's --join options."""
    options, seats = SHORT[game]
    gid = atout.create_game({"kind": game, "options": options, "seats": seats}, token=key).game.game_id
    return gid, [arg for _ in range(seats.count("open")) for arg in ("--join", gid)]


def finished(atout: Client, gid: str) -> bool:
    return atout.game(gid).status == "finished"


def check_played_once(atout: Client, gid: str, decisions: list[dict[str, Any]]) -> dict[str, int]:
    """Every move of the bot's seats in the replay log is one decision of the runner, with the same
    action, and each (seat, version) was decided once: no move was played twice. Returns the counts."""
    log = atout.replay_log(gid)
    versions = [entry.version for entry in log.actions]
    assert versions == list(range(1, len(versions) + 1)), "each version of the match is one move"
    mine = {d["seat"] for d in decisions}
    played = {
        (e.seat, e.version - 1): e.action.model_dump(exclude_none=True) for e in log.actions if e.seat in mine
    }
    decided = Counter((d["seat"], d["version"]) for d in decisions)
    assert max(decided.values()) == 1, [k for k, n in decided.items() if n > 1]
    sent = {(d["seat"], d["version"]): d["action"] for d in decisions}
    assert sent == played
    return {
        "moves": len(versions),
        "bot_moves": len(played),
        "replayed": sum(1 for d in decisions if d["replayed"]),
    }


def test_the_runner_plays_whole_matches_of_the_three_games_then_stops_on_sigterm(
    served: Serve, bot_runs: Callable[..., BotRun]
) -> None:
    with Client(served.base) as atout:
        bot = atout.register_bot("three-games")
        games, joins = {}, []
        for game in SHORT:
            games[game], options = new_game(atout, game, bot.api_key)
            joins += options
        run = bot_runs(HIGH_CARD, "--url", served.base, "--token", bot.api_key, *joins, "--ndjson")
        wait_for(lambda: all(finished(atout, gid) for gid in games.values()), 150, "the three matches", run)
        ends = lambda: len(run.events("game_finished")) == 3  # noqa: E731
        wait_for(ends, 20, "the runner to hear of the three ends", run)
        assert stop(run.proc, signal.SIGTERM) == 0, run.text()
        decisions = run.events("decision")
        for game, gid in games.items():
            mine = [d for d in decisions if d["game"] == gid]
            counts = check_played_once(atout, gid, mine)
            assert counts["bot_moves"] > 10 and counts["replayed"] == 0, (game, counts)
            assert atout.game(gid).winners
    assert all(d["level"] == "info" and "fallback" not in d for d in decisions)
    assert all(isinstance(d["decide_ms"], float) and isinstance(d["move_ms"], float) for d in decisions)
    assert [e["event"] for e in run.lines()][-2:] == ["stopping", "stopped"]
    assert "Traceback" not in run.text()


def test_the_runner_plays_the_games_a_tournament_pairs_it_in(
    served: Serve, bot_runs: Callable[..., BotRun]
) -> None:
    """No join: the seats and their tokens come in ``tournament_game`` notices on the bot's stream."""
    with Client(served.base) as atout:
        bot = atout.register_bot("entrant")
        run = bot_runs(HIGH_CARD, "--url", served.base, "--token", bot.api_key)
        wait_for(lambda: run.events("connected"), 30, "the runner to connect", run)
        entrants = ["bot:random", f"account:{bot.bot_id}"]
        made = atout.create_tournament(
            {"kind": "rough", "entrants": entrants, "target_score": 200, "move_seconds": 5}, token=bot.api_key
        )
        wait_for(
            lambda: atout.tournament(made.tournament_id).status == "finished",
            120,
            "the tournament's end",
            run,
        )
        tour = atout.tournament(made.tournament_id)
        told = run.events("tournament_game")
        assert {t["game"] for t in told} == {g.game_id for g in tour.games} and len(told) == 2
        assert all(t["tournament"] == made.tournament_id and len(t["seats"]) == 2 for t in told)
        for game in tour.games:
            check_played_once(
                atout, game.game_id, [d for d in run.events("decision") if d["game"] == game.game_id]
            )
        assert all(s.flagged_games == 0 for s in tour.standings)  # every move in time, none by the clock
    assert stop(run.proc, signal.SIGTERM) == 0


def test_a_restart_of_the_service_mid_match_the_runner_resumes_and_no_move_is_played_twice(
    served: Serve, bot_runs: Callable[..., BotRun], tmp_path: Path
) -> None:
    with Client(served.base) as atout:
        bot = atout.register_bot("restarted")
        gid, joins = new_game(atout, "rough", bot.api_key)
        state = tmp_path / "runner-state.json"
        # the runner reaches the service through a relay that can lose a move's answer (cutting_proxy)
        proxy = CuttingProxy(served.port).start()
        run = bot_runs(HIGH_CARD, "--url", proxy.base, "--token", bot.api_key, *joins, "--state", str(state))
        # a spectator's event stream, followed across both restarts
        seen: list[str] = []
        patient = Client(served.base, retry=RetryPolicy(max_attempts=100, max_wait=60))
        follower = threading.Thread(
            target=lambda: seen.extend(e.id for e in patient.game_events(gid)), daemon=True
        )
        follower.start()

        wait_for(lambda: len(run.events("decision")) >= 4, 60, "the first moves", run)
        assert served.stop(signal.SIGTERM) == 0  # a deploy: streams told server_closing
        served.start()
        before = len(run.events("decision"))
        wait_for(lambda: len(run.events("decision")) >= before + 4, 60, "moves after the first restart", run)
        proxy.arm()  # a move played whose answer is lost: sent again with its key, answered replayed
        wait_for(lambda: any(d["replayed"] for d in run.events("decision")), 60, "a replayed move", run)
        served.stop(signal.SIGKILL)  # a crash: connections cut, a move may be in flight
        served.start()
        wait_for(lambda: finished(atout, gid), 120, "the end of the match", run)
        wait_for(lambda: run.events("game_finished"), 20, "the runner to hear of the end", run)
        follower.join(30)
        assert not follower.is_alive()
        patient.close()

        proxy.close()
        counts = check_played_once(atout, gid, run.events("decision"))
        resumed = run.events("client_retry") + run.events("reconnecting") + run.events("move_retry")
        print("restart test:", counts, "resumptions:", Counter(e["event"] for e in resumed))
        assert counts["replayed"] >= proxy.cuts == 1  # the lost answer: its move sent again, replayed
        # the stream ended by server_closing, then cut: resumed by the client (client_retry), or by
        # the runner once the client's own retries were spent (reconnecting, move_retry)
        assert any("server_closing" in e.get("reason", "") for e in resumed), resumed
        assert all(json.loads(line) for line in run.text().splitlines()), "one JSON object a line"
        full = [e.id for e in atout.game_events(gid, follow=False)]
        assert seen == full, "the spectator's stream resumed with no gap and no duplicate"
        assert json.loads(state.read_text())["tokens"] == {}  # the game's tokens let go at its end
    assert stop(run.proc, signal.SIGTERM) == 0


def test_sigterm_while_the_bot_thinks_finishes_that_move_then_exits_0_and_a_new_runner_takes_over(
    served: Serve, bot_runs: Callable[..., BotRun], tmp_path: Path
) -> None:
    """The runner's own restart: its --state file keeps the seat tokens and the stream's cursor, so
    the next runner (no --join) plays on where the first stopped."""
    state = str(tmp_path / "state.json")
    with Client(served.base) as atout:
        bot = atout.register_bot("slow")
        gid, joins = new_game(atout, "euchre5", bot.api_key)
        slow = "tests/atout/toolkit_bots.py:Slow"
        run = bot_runs(slow, "--url", served.base, "--token", bot.api_key, *joins, "--state", state)
        wait_for(lambda: run.events("thinking"), 60, "the bot to think", run)
        run.proc.send_signal(signal.SIGTERM)
        assert run.proc.wait(30) == 0, run.text()
        after = [e["event"] for e in run.lines()]
        stopping = after.index("stopping")
        assert "decision" in after[stopping:] and after[-1] == "stopped", after
        move = run.events("decision")[-1]
        assert atout.game(gid).version >= move["version"] + 1  # the move made after the signal was played

        # the runner without the service's code: python -m atout.runner
        again = bot_runs(
            HIGH_CARD, "--url", served.base, "--token", bot.api_key, "--state", state, entry=("atout.runner",)
        )
        wait_for(lambda: finished(atout, gid), 120, "the end of the match", again)
        wait_for(lambda: again.events("game_finished"), 20, "the new runner to hear of the end", again)
        check_played_once(atout, gid, run.events("decision") + again.events("decision"))
        assert not again.events("no_seat_token")
    assert stop(again.proc, signal.SIGTERM) == 0


def test_a_runner_killed_mid_match_and_restarted_without_any_state_finishes_its_games_with_its_key(
    served: Serve, bot_runs: Callable[..., BotRun]
) -> None:
    """The bot's API key acts in every seat its bot holds: a runner killed (by its PID, SIGKILL: no
    clean stop) and started again with no state file and no --join plays its games to the end, and
    no move of theirs is played twice."""
    with Client(served.base) as atout:
        bot = atout.register_bot("phoenix")
        games = [new_game(atout, kind, bot.api_key) for kind in ("rough", "euchre5")]
        joins = [arg for _gid, args in games for arg in args]
        run = bot_runs(HIGH_CARD, "--url", served.base, "--token", bot.api_key, *joins)
        wait_for(lambda: len(run.events("decision")) >= 2, 60, "the first moves", run)
        os.kill(run.proc.pid, signal.SIGKILL)
        assert run.proc.wait(30) == -signal.SIGKILL
        again = bot_runs(HIGH_CARD, "--url", served.base, "--token", bot.api_key)  # no --state, no --join
        for gid, _args in games:
            wait_for(lambda gid=gid: finished(atout, gid), 120, "the end of the match", again)
            decided = Counter(
                (d["seat"], d["version"])
                for d in run.events("decision") + again.events("decision")
                if d["game"] == gid
            )
            assert decided and max(decided.values()) == 1, decided  # no turn decided (so played) twice
        assert again.events("decision"), "the new runner played on"
    assert stop(again.proc, signal.SIGTERM) == 0


@pytest.mark.parametrize(
    ("args", "code", "says"),
    [
        (["no_such_module_xyz:Bot"], 2, "cannot import 'no_such_module_xyz'"),
        (["examples/bot_class.py"], 2, "a bot is named module:Class"),
        (["examples/bot_class.py:ORDER"], 2, "is not a class"),
        (["examples/bot_class.py:Missing"], 2, "has no 'Missing'"),
        (["tests/atout/toolkit_bots.py:NoDecide"], 2, "has no decide(self, view, legal_actions) method"),
        (["tests/atout/toolkit_bots.py:NeedsArgument"], 2, "must be built with no argument"),
        ([HIGH_CARD, "--url", "ftp://example.org"], 2, "not an http(s) URL"),
        ([HIGH_CARD, "--join", "a:b"], 2, "--join takes GAME or GAME:SEAT"),
        ([HIGH_CARD, "--token", ""], 2, "give the bot account's API key"),
    ],
)
def test_the_command_refuses_what_it_cannot_run_with_a_sentence(
    args: list[str], code: int, says: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ATOUT_BOT_KEY", raising=False)
    if "--url" not in args:
        args = [*args, "--url", f"http://127.0.0.1:{free_port()}"]
    if "--token" not in args:
        args = [*args, "--token", "atb_x_y"]
    assert main(["bot", "run", *args]) == code
    assert says in capsys.readouterr().err


def test_the_command_names_the_problem_of_a_refused_key_or_join_and_an_unreachable_service(
    served: Serve, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["bot", "run", HIGH_CARD, "--url", served.base, "--token", "atb_nobody_secret"]) == 2
    assert "invalid_token" in capsys.readouterr().err
    with Client(served.base) as atout:
        key = atout.register_bot("joins-nothing").api_key
    assert main(["bot", "run", HIGH_CARD, "--url", served.base, "--token", key, "--join", "nope"]) == 2
    assert "game_not_found" in capsys.readouterr().err
    assert main(["bot", "run", HIGH_CARD, "--url", f"http://127.0.0.1:{free_port()}", "--token", key]) == 3
    assert "cannot reach" in capsys.readouterr().err


def test_atout_bot_register_prints_the_key_once(served: Serve, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bot", "register", "printed", "--url", served.base]) == 0
    made = json.loads(capsys.readouterr().out)
    assert made["name"] == "printed" and made["api_key"].startswith("atb_")
    with Client(served.base, made["api_key"]) as atout:
        assert atout.bot_me().bot_id == made["bot_id"]


def test_the_same_class_plays_in_the_arena(capsys: pytest.CaptureFixture[str]) -> None:
    arena = ["arena", "--game", "rough", "--matches", "2", "--target", "200", "--no-progress", "--json"]
    assert main([*arena, "--a-bot", HIGH_CARD, "--b", "random"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["a"] == HIGH_CARD and result["matches"] == 2 and result["forfeits_a"] == 0
    assert main([*arena, "--a-bot", "tests/atout/toolkit_bots.py:Raises"]) == 1  # a forfeit
    forfeits = [m["forfeit"] for m in json.loads(capsys.readouterr().out)["results"]]
    assert forfeits[0]["reason"] == "crash" and "this bot always fails" in forfeits[0]["detail"]
    assert main([*arena, "--a-bot", "tests/atout/toolkit_bots.py:NoDecide"]) == 2
    assert "has no decide" in capsys.readouterr().err
    tournament = ["arena", "--game", "rough", "--tournament", "round_robin", "--target", "200", "--json"]
    assert main([*tournament, "--entrants", "random", "--entrant-bot", HIGH_CARD]) == 0
    assert {s["entrant"] for s in json.loads(capsys.readouterr().out)["standings"]} == {"random", HIGH_CARD}
