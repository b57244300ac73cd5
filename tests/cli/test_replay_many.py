"""Many games at once: `arena replay -q` says nothing per game unless one does not reproduce,
then one closing line; `arena export` of a results folder (or a file) writes every game into
one log, in the journal's order, one game at a time, and says how many."""

from __future__ import annotations

import functools
from pathlib import Path

import msgspec
import pytest
import trio
from typer.testing import CliRunner

import arena.cli.replay as replay_cli
from arena.cli.app import app
from arena.referee.export import export_game
from arena.referee.local import play_local, random_decider
from arena.referee.records import GameRecord, append_record
from tests.helpers.cli import invoke

IDS = ["r0-t1-d0-s1", "r0-t0-d0-s0", "r0-t1-d0-s0", "r0-t0-d0-s1"]  # not in sorted order


@pytest.fixture(scope="module")
def records() -> list[GameRecord]:
    """Four games of odin-race with tournament ids, each on its own seed."""
    out = []
    for seed, game in enumerate(IDS):
        deciders = [random_decider(f"{game}-a"), random_decider(f"{game}-b")]
        record, _ = trio.run(
            functools.partial(play_local, "odin-race", deciders, seed=seed, names=["a", "b"])
        )
        out.append(msgspec.structs.replace(record, game=game))
    return out


def folder_of(tmp_path: Path, records: list[GameRecord]) -> Path:
    """A results folder whose journal holds `records`, in that order."""
    folder = tmp_path / "results" / "league"
    folder.mkdir(parents=True)
    for record in records:
        append_record(folder / "games.jsonl", record)
    return folder


def broken(record: GameRecord) -> GameRecord:
    """`record` with a result the rules do not reach: it does not reproduce."""
    return msgspec.structs.replace(record, scores=[9.0, 9.0])


def test_quiet_replay_of_many_games_is_one_line(tmp_path: Path, records: list[GameRecord]) -> None:
    folder = folder_of(tmp_path, records)
    for path in (folder, folder / "games.jsonl"):
        result = invoke("replay", path, "-q")
        assert result.exit_code == 0, result.output
        assert result.output == "4 of 4 games reproduce exactly\n"


def test_quiet_replay_names_the_games_that_do_not_reproduce(
    tmp_path: Path, records: list[GameRecord]
) -> None:
    folder = folder_of(tmp_path, [records[0], broken(records[1]), *records[2:]])
    result = invoke("replay", folder, "-q")
    assert result.exit_code == 1
    first, closing = result.output.splitlines()
    assert first.startswith("does not reproduce: game 2 (r0-t0-d0-s0): the replay ends with")
    assert closing == "3 of 4 games reproduce exactly; 1 does not: game 2 (r0-t0-d0-s0)"


def test_replay_shown_ends_with_the_count_of_games(
    tmp_path: Path, records: list[GameRecord]
) -> None:
    folder = folder_of(tmp_path, [broken(r) for r in records[:3]] + records[3:])
    result = invoke("replay", folder)
    assert result.exit_code == 1
    assert result.output.count("reproduced exactly") == 1  # each game shown, as before
    assert result.output.splitlines()[-1] == (
        "1 of 4 games reproduces exactly; 3 do not: game 1 (r0-t1-d0-s1), "
        "game 2 (r0-t0-d0-s0), game 3 (r0-t1-d0-s0)"
    )


def test_quiet_replay_of_one_game_that_does_not_reproduce(
    tmp_path: Path, records: list[GameRecord]
) -> None:
    folder = folder_of(tmp_path, [broken(records[0])])
    result = invoke("replay", folder, "-q")
    assert result.exit_code == 1
    (line,) = result.output.splitlines()
    assert line.startswith("does not reproduce: game 1 (r0-t1-d0-s1): ")


def test_export_of_a_folder_is_every_game_in_the_journals_order(
    tmp_path: Path, records: list[GameRecord]
) -> None:
    folder = folder_of(tmp_path, records)
    append_record(folder / "games.jsonl", records[1])  # a second record of a game: left out
    result = CliRunner().invoke(app, ["export", str(folder)], env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    assert result.stdout == "\n".join(export_game(r) for r in records)
    logs = result.stdout.split("\n\n[Ruleset ")
    assert [log.split('[Game "')[1].split('"')[0] for log in logs] == IDS
    said = result.stderr.splitlines()
    assert said[-1] == f"exported 4 games of {folder}"
    assert "a second record of game r0-t0-d0-s0 (the first is line 2)" in said[0]

    out = tmp_path / "league.txt"
    result = invoke("export", folder, "-o", out)
    assert result.exit_code == 0, result.output
    assert out.read_text() == "\n".join(export_game(r) for r in records)
    assert f"wrote 4 games of {folder} to {out}" in result.output


def test_export_of_a_folder_leaves_out_a_game_that_does_not_reproduce(
    tmp_path: Path, records: list[GameRecord]
) -> None:
    folder = folder_of(tmp_path, [records[0], broken(records[1]), *records[2:]])
    out = tmp_path / "league.txt"
    result = invoke("export", folder, "-o", out)
    assert result.exit_code == 1
    kept = [records[0], *records[2:]]
    assert out.read_text() == "\n".join(export_game(r) for r in kept)
    assert f"warning: game 2 (r0-t0-d0-s0) of {folder} does not reproduce, left out: " in (
        result.output
    )
    assert f"wrote 3 games of {folder} to {out}" in result.output
    assert "warning: 1 game left out: it does not reproduce" in result.output


def test_export_reads_and_writes_one_game_at_a_time(
    tmp_path: Path, records: list[GameRecord], monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = folder_of(tmp_path, records)
    events: list[str] = []

    def decode(data: bytes) -> GameRecord:
        record = msgspec.json.decode(data, type=GameRecord)
        events.append(f"read {record.game}")
        return record

    def export(record: GameRecord) -> str:
        events.append(f"write {record.game}")
        return export_game(record)

    monkeypatch.setattr(replay_cli, "decode_record", decode)
    monkeypatch.setattr(replay_cli, "export_game", export)
    result = invoke("export", folder, "-o", tmp_path / "out.txt")
    assert result.exit_code == 0, result.output
    assert events == [f"{what} {game}" for game in IDS for what in ("read", "write")]


def test_export_of_a_folder_chooses_one_game_by_id_or_position(
    tmp_path: Path, records: list[GameRecord]
) -> None:
    folder = folder_of(tmp_path, records)
    result = CliRunner().invoke(app, ["export", str(folder), "--game", "r0-t1-d0-s0"])
    assert result.exit_code == 0, result.output
    assert result.stdout == export_game(records[2])
    result = CliRunner().invoke(app, ["export", str(folder), "--line", "4"])
    assert result.stdout == export_game(records[3])
    result = invoke("export", folder, "--line", "5")
    assert result.exit_code == 2
    assert f"error: {folder} holds 4 games; --line takes 1..4" in result.output


def test_counts_of_one_are_singular(tmp_path: Path, records: list[GameRecord]) -> None:
    file = tmp_path / "one.jsonl"
    append_record(file, records[0])
    result = invoke("export", file, "-o", tmp_path / "one.txt")
    assert result.output == f"wrote 1 game of {file} to {tmp_path / 'one.txt'}\n"
    result = invoke("replay", file, "--html")
    assert result.exit_code == 0, result.output
    assert "the replay viewer of 1 game\n" in result.output
    result = invoke("replay", file, "--line", "2")
    assert f"error: {file} holds 1 game; --line takes 1..1" in result.output
