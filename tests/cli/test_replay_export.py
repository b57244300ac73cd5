"""`arena replay` and `arena export` from the command line: choosing a game by id or position,
a file with nothing to replay as an error, the export written to a file or printed; and
`arena --version`."""

from __future__ import annotations

import functools
import importlib.metadata
import tomllib
from pathlib import Path

import msgspec
import pytest
import trio

from arena.referee.export import export_game
from arena.referee.local import play_local, random_decider
from arena.referee.records import GameRecord, append_record
from tests.helpers.cli import invoke
from tests.helpers.paths import ROOT

IDS = ["r0-t0-d0-s0", "r0-t0-d0-s1", "r0-t1-d0-s0", "r0-t1-d0-s1"]


@pytest.fixture
def journal(tmp_path: Path) -> tuple[Path, list[GameRecord]]:
    """A journal of four games with tournament ids, each on its own seed."""
    path = tmp_path / "games.jsonl"
    records = []
    for seed, game in enumerate(IDS):
        deciders = [random_decider(f"{game}-a"), random_decider(f"{game}-b")]
        record, _ = trio.run(
            functools.partial(play_local, "odin-race", deciders, seed=seed, names=["a", "b"])
        )
        record = msgspec.structs.replace(record, game=game)
        append_record(path, record)
        records.append(record)
    return path, records


@pytest.mark.parametrize(
    ("content", "why"),
    [(b"", "it is empty"), (b"\n  \n", "it is empty"), (b'{"x": 1}\n', "none of its lines")],
)
def test_replaying_a_file_without_game_records_is_an_error(
    tmp_path: Path, content: bytes, why: str
) -> None:
    file = tmp_path / "games.jsonl"
    file.write_bytes(content)
    for command in ("replay", "export"):
        result = invoke(command, file)
        assert result.exit_code == 2, result.output
        assert f"error: {file} holds no game records ({why}" in result.output


def test_replaying_a_missing_file_or_a_folder_without_games_is_an_error(tmp_path: Path) -> None:
    missing = tmp_path / "nothing.jsonl"
    result = invoke("replay", missing)
    assert result.exit_code == 2 and f"error: no such file or folder: {missing}" in result.output
    result = invoke("export", tmp_path)
    assert result.exit_code == 2
    assert f"error: {tmp_path} is not a tournament results folder (no games.jsonl)" in (
        result.output
    )
    (tmp_path / "games.jsonl").write_text("")
    for command in ("replay", "export"):
        result = invoke(command, tmp_path)
        assert result.exit_code == 2
        assert f"error: {tmp_path} holds no game records (its games.jsonl is empty)" in (
            result.output
        )


def test_replay_chooses_a_game_by_id_or_by_position(
    journal: tuple[Path, list[GameRecord]],
) -> None:
    path, _ = journal
    result = invoke("replay", path, "--game", "r0-t1-d0-s0")
    assert result.exit_code == 0, result.output
    assert "game 3 (r0-t1-d0-s0): odin-race, seed 2" in result.output
    assert result.output.count("reproduced exactly") == 1

    for args in (["--line", "2"], ["--game", "2"]):  # a number no game has as id: a position
        result = invoke("replay", path, *args, "-q")
        assert result.exit_code == 0, result.output
        assert result.output == "game 2 (r0-t0-d0-s1): reproduced exactly\n"


def test_a_missing_id_lists_ids_that_exist(journal: tuple[Path, list[GameRecord]]) -> None:
    path, _ = journal
    result = invoke("replay", path, "--game", "r0-t1-d0-s9")
    assert result.exit_code == 2, result.output
    said = f"error: no game with id 'r0-t1-d0-s9' in {path}; its ids include: r0-t1-d0-s"
    assert said in result.output  # the closest first
    assert all(game in result.output for game in IDS)
    result = invoke("replay", path, "--line", "5")
    assert result.exit_code == 2 and "holds 4 games; --line takes 1..4" in result.output


def test_a_missing_id_lists_only_a_few_ids(
    journal: tuple[Path, list[GameRecord]], tmp_path: Path
) -> None:
    _, records = journal
    path = tmp_path / "many.jsonl"
    for n in range(12):
        append_record(path, msgspec.structs.replace(records[0], game=f"d{n}-a"))
    result = invoke("replay", path, "--game", "zzz")
    assert result.exit_code == 2, result.output
    assert "its ids include: d0-a, d1-a, d2-a, d3-a, d4-a, ... (12 in all)" in result.output


def test_export_writes_the_log_of_one_game(
    journal: tuple[Path, list[GameRecord]], tmp_path: Path
) -> None:
    path, records = journal
    out = tmp_path / "game.txt"
    result = invoke("export", path, "--game", "r0-t0-d0-s1", "-o", out)
    assert result.exit_code == 0, result.output
    assert f"wrote game 2 of {path} to {out}" in result.output
    assert out.read_text() == export_game(records[1])
    assert '[Game "r0-t0-d0-s1"]' in out.read_text()

    result = invoke("export", path, "--line", "4")
    assert result.exit_code == 0, result.output
    assert result.output == export_game(records[3])


def test_export_without_a_choice_writes_every_game_of_the_file(
    journal: tuple[Path, list[GameRecord]], tmp_path: Path
) -> None:
    path, records = journal
    out = tmp_path / "all.txt"
    result = invoke("export", path, "-o", out)
    assert result.exit_code == 0, result.output
    assert result.output == f"wrote 4 games of {path} to {out}\n"
    assert out.read_text() == "\n".join(export_game(r) for r in records)
    assert not list(tmp_path.glob(".all.txt*"))  # nothing left beside it


def test_version_names_the_distribution_and_its_version() -> None:
    name = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["name"]
    result = invoke("--version")
    assert result.exit_code == 0, result.output
    assert result.output == f"{name} {importlib.metadata.version(name)}\n"
