"""The bot authors' harness (``workers.arena``, ``atout arena``): duplicate deals, forfeits, intervals.

Matches are short (the lowest target scores) and few, and every external bot is a real
subprocess: the example bot of the README, and broken ones that answer garbage, illegal
actions, crash or keep silent.
"""

from __future__ import annotations

import json
import os
import random
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from service.runtime.cli import main
from workers import arena, bots

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = f"{sys.executable} {ROOT / 'examples' / 'bot.py'}"
SHORT = {
    "five_hundred": {"target_score": 300},
    "rough": {"target_score": 200},
    "euchre5": {"target_score": 5},
}
GAMES = tuple(SHORT)
JSON = dict[str, Any]


def without_timing(result: arena.ArenaResult) -> JSON:
    data = result.to_json()
    del data["timing"]
    return data


@pytest.mark.parametrize("game", GAMES)
def test_heuristic_and_random_play_whole_matches(game: str) -> None:
    result = arena.run(
        game, arena.Builtin("heuristic"), arena.Builtin("random"), 4, seed=3, options=SHORT[game]
    )
    assert result.seeds == [3, 4]
    assert len(result.matches) == 4
    assert result.count("A") + result.count("B") + result.count("tie") == 4
    assert all(r.forfeit is None and not r.unfinished for r in result.matches)
    assert result.mean_score_diff is not None
    assert "A's win rate" in result.summary()


def test_side_a_holds_a_partnership_or_the_lone_euchre_seat() -> None:
    assert arena.seat_plan("rough") == ((0, 2), (1, 3))
    assert arena.seat_plan("five_hundred") == ((0, 2), (1, 3))
    assert arena.seat_plan("euchre5") == ((0,), (1, 2, 3, 4))


def test_an_odd_number_of_matches_is_rounded_up_to_whole_duplicate_deals() -> None:
    assert arena.duplicate_seeds(5, seed=10) == [10, 11, 12]
    assert arena.duplicate_seeds(2, seed=1) == [1]


@pytest.mark.parametrize("game", GAMES)
def test_a_bot_against_itself_mirrors_each_duplicate_pair(game: str) -> None:
    """The heuristic is deterministic: the same deal played from both sides gives the same match."""
    result = arena.run(game, arena.Builtin("heuristic"), arena.Builtin("heuristic"), 6, options=SHORT[game])
    for first, second in zip(result.matches[::2], result.matches[1::2], strict=True):
        assert first.seed == second.seed
        assert set(first.a_seats).isdisjoint(second.a_seats)
        assert first.scores == second.scores
        assert first.score_diff == -second.score_diff  # type: ignore[operator]
        assert {first.outcome, second.outcome} in ({"A", "B"}, {"tie"})
    assert result.win_rate == 0.5
    assert result.mean_score_diff == 0


def test_duplicate_deals_give_each_side_the_other_sides_cards() -> None:
    """Each side's bot is shown, at every seat, the cards the other side held there on the same seed."""
    seen: dict[str, dict[int, list[str]]] = {"A": {}, "B": {}}

    def recorder(label: str) -> arena.Function:
        def fn(view: JSON, legal: list[JSON], rng: random.Random) -> JSON:
            if view["hand_number"] == 1 and view["phase"] == "bidding":  # RG-6: each seat bids once
                seen[label][view["seat"]] = sorted(view["hand"])
            return bots.choose("heuristic", view, legal, rng)

        return arena.Function(fn, label)

    result = arena.run("rough", recorder("A"), recorder("B"), 2, seed=5, options=SHORT["rough"])
    assert [r.a_seats for r in result.matches] == [(0, 2), (1, 3)]
    assert set(seen["A"]) == set(seen["B"]) == {0, 1, 2, 3}
    assert seen["A"] == seen["B"]
    assert len({tuple(hand) for hand in seen["A"].values()}) == 4


@pytest.mark.parametrize("game", GAMES)
def test_results_are_fixed_by_the_seed(game: str) -> None:
    def once(seed: int) -> JSON:
        sides = arena.Builtin("heuristic"), arena.Builtin("random")
        return without_timing(arena.run(game, *sides, 4, seed=seed, options=SHORT[game]))

    assert once(7) == once(7)
    assert once(7)["results"] != once(8)["results"]


def test_expert_with_fixed_playouts_is_deterministic() -> None:
    def once() -> JSON:
        expert = arena.Builtin("expert", playouts=4)
        return without_timing(
            arena.run("euchre5", expert, arena.Builtin("random"), 2, options=SHORT["euchre5"])
        )

    assert once() == once()


@pytest.mark.parametrize("game", GAMES)
def test_the_example_bot_plays_whole_matches_as_a_subprocess(game: str) -> None:
    result = arena.run(game, arena.Command(EXAMPLE), arena.Builtin("random"), 2, options=SHORT[game])
    assert [r.forfeit for r in result.matches] == [None, None]
    assert all(not r.unfinished and r.decisions > 0 for r in result.matches)
    assert result.timing()["A"]["decisions"] > 0


def test_the_readme_shows_the_example_bot_as_it_is() -> None:
    code = (ROOT / "examples" / "bot.py").read_text().split('"""\n\n', 1)[1]
    assert f"```python\n{code}```" in (ROOT / "README.md").read_text()


def test_bots_that_never_bid_stop_as_a_tie_instead_of_dealing_forever() -> None:
    """Le Rough deals again when nobody bids (RG-8); the example bot never bids."""
    result = arena.run("rough", arena.Command(EXAMPLE), arena.Command(EXAMPLE), 2, max_hands=3)
    assert [(r.outcome, r.unfinished, r.hands) for r in result.matches] == [("tie", True, 3)] * 2
    assert "stopped unfinished after 3 hands" in result.summary()


BROKEN = {
    "illegal": 'print(json.dumps({"type": "play", "card": "XX"}), flush=True)',
    "garbage": 'print("I think I will pass", flush=True)',
    "not_an_object": 'print(json.dumps(["pass"]), flush=True)',
    "crash": 'sys.stderr.write("boom: the bot fell over\\n"); sys.exit(3)',
    "silent": "time.sleep(60)",
    "deaf": "time.sleep(60)",  # never reads its stdin (see broken_bot)
    "two_answers": 'print(json.dumps({"type": "pass"}) + "\\n" + json.dumps({"type": "pass"}), flush=True)',
}
REASONS = {
    "illegal": "illegal",
    "garbage": "garbage",
    "not_an_object": "garbage",
    "crash": "crash",
    "silent": "timeout",
    "deaf": "timeout",
    "two_answers": "garbage",  # or "illegal" when the extra line comes late and answers the next decision
}


def broken_bot(tmp_path: Path, kind: str) -> str:
    """A bot that answers its first decision badly, and records its pid."""
    path = tmp_path / f"{kind}.py"
    path.write_text(
        textwrap.dedent(
            f"""\
            import json, os, sys, time
            with open({str(tmp_path / "pids")!r}, "a") as out:
                out.write(f"{{os.getpid()}}\\n")
            for line in {"[None]" if kind == "deaf" else "sys.stdin"}:
                {BROKEN[kind]}
            """
        )
    )
    return f"{sys.executable} {path}"


def gone(pid: int) -> bool:
    """The process has exited (a zombie left to init counts as gone)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    stat = Path(f"/proc/{pid}/stat")
    return stat.exists() and stat.read_text().rsplit(")", 1)[1].split()[0] == "Z"


def eventually_gone(pids: list[int]) -> bool:
    """SIGKILL is delivered asynchronously to a process that is not our child."""
    deadline = time.monotonic() + 10
    while not all(gone(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.01)
    return all(gone(pid) for pid in pids)


def test_a_silent_bot_is_stopped_with_its_children(tmp_path: Path) -> None:
    path = tmp_path / "parent.py"
    path.write_text(
        textwrap.dedent(
            f"""\
            import subprocess, sys, time
            child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
            with open({str(tmp_path / "pids")!r}, "w") as out:
                out.write(f"{{child.pid}}\\n")
            time.sleep(60)
            """
        )
    )
    bot = arena.Command(f"{sys.executable} {path}", timeout_s=2.0)
    result = arena.play_match("rough", 1, (0, 2), bot, arena.Builtin("random"), SHORT["rough"])
    assert result.forfeit is not None and result.forfeit.reason == "timeout"
    assert eventually_gone([int((tmp_path / "pids").read_text())])


@pytest.mark.parametrize("kind", list(BROKEN))
@pytest.mark.parametrize("side", ["A", "B"])
def test_a_broken_bot_forfeits_the_match_and_is_stopped(tmp_path: Path, kind: str, side: str) -> None:
    broken = arena.Command(broken_bot(tmp_path, kind), timeout_s=0.5 if REASONS[kind] == "timeout" else 10)
    a, b = (broken, arena.Builtin("random")) if side == "A" else (arena.Builtin("random"), broken)
    result = arena.run("rough", a, b, 2, options=SHORT["rough"])
    winner = "B" if side == "A" else "A"
    for r in result.matches:
        assert r.forfeit is not None
        assert (r.outcome, r.forfeit.side) == (winner, side)
        assert r.forfeit.reason == REASONS[kind] or (kind, r.forfeit.reason) == ("two_answers", "illegal")
        assert r.score_diff is None
        assert r.forfeit.seat not in r.a_seats if side == "B" else r.forfeit.seat in r.a_seats
    assert len(result.forfeits(side)) == 2  # type: ignore[arg-type]
    assert "forfeited 2 match(es)" in result.summary()
    pids = [int(pid) for pid in (tmp_path / "pids").read_text().split()]
    assert pids and all(gone(pid) for pid in pids)  # our own children: reaped before run() returns


def test_a_forfeit_says_what_went_wrong(tmp_path: Path) -> None:
    illegal = arena.run("rough", arena.Command(broken_bot(tmp_path, "illegal")), arena.Builtin("random"), 2)
    crash = arena.run("rough", arena.Command(broken_bot(tmp_path, "crash")), arena.Builtin("random"), 2)
    garbage = arena.run("rough", arena.Command(broken_bot(tmp_path, "garbage")), arena.Builtin("random"), 2)
    assert illegal.matches[0].forfeit is not None and "malformed_action" in illegal.matches[0].forfeit.detail
    assert crash.matches[0].forfeit is not None
    assert "exited with code 3" in crash.matches[0].forfeit.detail
    assert "boom: the bot fell over" in crash.matches[0].forfeit.detail
    assert (
        garbage.matches[0].forfeit is not None and "I think I will pass" in garbage.matches[0].forfeit.detail
    )


def test_a_command_that_cannot_start_is_an_error_not_a_forfeit(tmp_path: Path) -> None:
    with pytest.raises(arena.ArenaError, match="cannot start"):
        arena.run("rough", arena.Command(str(tmp_path / "no-such-bot")), arena.Builtin("random"), 2)


def test_unknown_games_levels_options_and_counts_are_refused() -> None:
    with pytest.raises(arena.ArenaError, match="unknown game"):
        arena.run("bridge", arena.Builtin("random"), arena.Builtin("random"), 2)
    with pytest.raises(arena.ArenaError, match="at least one match"):
        arena.run("rough", arena.Builtin("random"), arena.Builtin("random"), 0)
    with pytest.raises(arena.ArenaError, match="unknown bot level"):
        arena.Builtin("grandmaster")
    with pytest.raises(arena.ArenaError, match="target_score"):
        arena.run("rough", arena.Builtin("random"), arena.Builtin("random"), 2, options={"target_score": 7})


def test_wilson_interval_on_known_values() -> None:
    assert arena.wilson(0, 0) == (0.0, 1.0)
    assert arena.wilson(8, 10) == pytest.approx((0.4902, 0.9433), abs=1e-4)
    assert arena.wilson(81, 263) == pytest.approx((0.2553, 0.3662), abs=1e-4)  # Newcombe (1998)
    assert arena.wilson(0, 10) == pytest.approx((0.0, 0.2775), abs=1e-4)
    assert arena.wilson(10, 10) == pytest.approx((0.7225, 1.0), abs=1e-4)
    assert arena.wilson(50, 100) == pytest.approx((0.4038, 0.5962), abs=1e-4)


def test_a_tie_counts_half_in_a_win_rate() -> None:
    result = arena.ArenaResult("euchre5", "x", "y", {}, [1, 2])
    for outcome in ("A", "B", "tie", "tie"):
        result.matches.append(arena.MatchResult(1, (0,), outcome, [0] * 5, 0.0, 1, 1))
    assert result.win_rate == 0.5
    assert result.interval == arena.wilson(2, 4)
    assert result.to_json()["ties"] == 2


def test_progress_bar_on_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    arena.run(
        "rough", arena.Builtin("heuristic"), arena.Builtin("random"), 2, options=SHORT["rough"], progress=True
    )
    assert "rough A=heuristic B=random" in capsys.readouterr().err


def test_cli_prints_the_result_as_json(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["arena", "--game", "rough", "--a", "heuristic", "--b", "random", "--matches", "4", "--seed", "1"]
    assert main([*argv, "--target", "200", "--json", "--no-progress"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["game"], data["a"], data["b"], data["matches"], data["seeds"]) == (
        "rough",
        "heuristic",
        "random",
        4,
        [1, 2],
    )
    assert data["wins_a"] + data["wins_b"] + data["ties"] == 4
    assert 0 <= data["ci95_a"][0] <= data["win_rate_a"] <= data["ci95_a"][1] <= 1
    assert data["options"] == {"target_score": 200}


def test_cli_plays_the_example_bot(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["arena", "--game", "euchre5", "--b-cmd", EXAMPLE, "--matches", "2", "--target", "5"]
    assert main([*argv, "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"euchre5: A = heuristic  vs  B = {EXAMPLE}\n  2 matches: seeds 1..1")
    assert "A's win rate" in out


def test_cli_exits_1_when_a_bot_forfeits(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["arena", "--game", "rough", "--a-cmd", broken_bot(tmp_path, "garbage"), "--matches", "2"]
    assert main([*argv, "--target", "200", "--no-progress"]) == 1
    assert "side A (" in capsys.readouterr().out


def test_cli_refuses_a_target_the_game_does_not_allow(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["arena", "--game", "rough", "--target", "7", "--no-progress"]) == 2
    assert "atout arena:" in capsys.readouterr().err
