"""The two builds of the engine: mypyc extensions compiled from the source (setup.py), and the
plain modules. Which one runs is never a guess: ``engine.BUILD`` says it, ``ATOUT_PURE_ENGINE=1``
forces the plain one, and an extension older than its source is never run."""

from __future__ import annotations

import ast
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import engine
import engine.base

ROOT = Path(__file__).resolve().parents[2]
ENGINE = ROOT / "engine"


def _extensions(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.so"))


def test_build_is_what_this_process_runs() -> None:
    """``BUILD`` names what was imported: an extension module has no ``.py`` file."""
    loaded_from_source = str(engine.base.__file__).endswith(".py")
    assert ("pure" if loaded_from_source else "compiled") == engine.BUILD
    if os.environ.get("ATOUT_PURE_ENGINE") == "1":
        assert engine.BUILD == "pure"
    elif _extensions(ENGINE) and not engine._build.stale_extensions(ENGINE):
        assert engine.BUILD == "compiled", "the engine is compiled and up to date, yet not loaded"


def test_the_bots_build_is_chosen_the_same_way() -> None:
    """The bots are compiled with the engine (setup.py) and follow the same switch."""
    import workers.bots
    import workers.bots.expert

    loaded_from_source = str(workers.bots.expert.__file__).endswith(".py")
    assert ("pure" if loaded_from_source else "compiled") == workers.bots.BUILD
    if os.environ.get("ATOUT_PURE_ENGINE") == "1":
        assert workers.bots.BUILD == "pure"
    elif engine.BUILD == "compiled":
        assert workers.bots.BUILD == "compiled", "the engine is compiled and the bots are not"


def _import_in_subprocess(path: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    code = "import engine, engine.base; print(engine.BUILD, engine.base.__file__)"
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=path,
        env={**os.environ, "PYTHONPATH": f"{path}{os.pathsep}{ROOT}", **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )


def test_atout_pure_engine_loads_the_plain_modules() -> None:
    done = _import_in_subprocess(ROOT, {"ATOUT_PURE_ENGINE": "1"})
    build, base_file = done.stdout.split()
    assert build == "pure" and base_file.endswith("engine/base.py")


def test_an_extension_older_than_its_source_is_not_run(tmp_path: Path) -> None:
    """After an edit and before the next build, the edit runs (plain modules), with a warning."""
    copy = tmp_path / "engine"
    shutil.copytree(ENGINE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    fresh = _import_in_subprocess(tmp_path, {"ATOUT_PURE_ENGINE": ""})
    expected = "compiled" if _extensions(copy) else "pure"
    assert fresh.stdout.split()[0] == expected and "changed since" not in fresh.stderr
    edited = copy / "tricks.py"
    (copy / "tricks.py").write_text(edited.read_text() + "\n# an edit\n")
    os.utime(edited, (edited.stat().st_atime, max(p.stat().st_mtime for p in copy.iterdir()) + 10))
    after = _import_in_subprocess(tmp_path, {"ATOUT_PURE_ENGINE": ""})
    assert after.stdout.split()[0] == "pure"
    if _extensions(copy):
        assert "tricks.py changed since it was compiled" in after.stderr


def _match_fields() -> list[str]:
    """``Match.__slots__`` as written in the source (a compiled class has no ``__slots__``)."""
    tree = ast.parse((ENGINE / "match.py").read_text())
    match = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Match")
    slots = next(
        n.value
        for n in match.body
        if isinstance(n, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id == "__slots__" for t in n.targets)
    )
    return [ast.literal_eval(e) for e in slots.elts]  # type: ignore[attr-defined]


def test_match_copy_copies_every_field_and_shares_no_list_a_step_edits() -> None:
    """``Match.copy`` lists its fields one by one (fast when compiled): none may be forgotten, and
    ``apply`` must leave the match it was given unchanged (the engine's purity)."""
    for game in ("five_hundred", "rough", "euchre5"):
        m, rng = engine.new_match(game, seed=3), random.Random(3)
        for _ in range(25):  # into the play of the first hand: bids, a trick, the table set
            engine.push(m, m.to_act, engine.random_move(m, rng))
        other = m.copy()
        for name in _match_fields():
            mine, theirs = getattr(m, name), getattr(other, name)
            if name == "log":
                assert theirs == []
                continue
            assert theirs == mine, name
            if isinstance(mine, list):
                assert theirs is not mine, f"{name} is shared: a step on the copy would change the original"
