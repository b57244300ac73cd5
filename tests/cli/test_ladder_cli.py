"""`arena ladder init` and `arena ladder author` as an organiser runs them: the folder made,
tokens printed once, alone on the last line, mistakes said in one line with exit status 2,
and the commands of results folders (`leaderboard`, `faults`, `replay`) reading a ladder's
folder as they read a tournament's."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

from arena.ladder.config import LADDER_FILE, load_ladder_config
from arena.ladder.store import ADMIN, DB_FILE, Author, LadderStore
from arena.league.results import GAMES_FILE
from tests.helpers.cli import invoke
from tests.helpers.reports import random_record


def token_of(output: str) -> str:
    """The token a command printed: its output's last line, alone."""
    last = output.rstrip("\n").splitlines()[-1]
    assert last == last.strip() and " " not in last, output
    return last


def refused(*args: str | Path) -> str:
    """The one error line of a command that must fail with exit status 2."""
    result = invoke(*args)
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.output
    return lines[0].removeprefix("error: ")


def test_init_writes_the_ladder_and_prints_the_admin_token_once(tmp_path: Path) -> None:
    folder = tmp_path / "lad"
    result = invoke("ladder", "init", folder, "--ruleset", "odin", "-o", "target=10")
    assert result.exit_code == 0, result.output
    for name in (LADDER_FILE, DB_FILE, GAMES_FILE):
        assert str(folder / name) in result.output
        assert (folder / name).is_file()
    admin = token_of(result.output)
    assert result.output.count(admin) == 1
    config = load_ladder_config(folder)
    assert (config.ruleset, config.seats, config.options) == ("odin", 2, {"target": 10})
    assert tomllib.loads((folder / LADDER_FILE).read_text())["options"] == {"target": 10}
    with LadderStore.open(folder, writer=False) as store:
        assert store.authenticate(admin) == ADMIN
    again = refused("ladder", "init", folder, "--ruleset", "odin-race")
    assert again.startswith(f"{folder} already holds a ladder")
    assert load_ladder_config(folder).ruleset == "odin"


def test_seat_counts_with_weights_and_the_ruleset_s_own_count(tmp_path: Path) -> None:
    result = invoke(
        "ladder", "init", tmp_path / "a", "-r", "odin", "--seats", "2=3", "--seats", "4"
    )
    assert result.exit_code == 0, result.output
    assert "tables of 2 or 4 seats" in result.output
    assert load_ladder_config(tmp_path / "a").seat_weights() == {2: 0.75, 4: 0.25}
    result = invoke("ladder", "init", tmp_path / "b", "-r", "bested-solo")
    assert result.exit_code == 0, result.output
    assert load_ladder_config(tmp_path / "b").seats == 1


def test_init_s_mistakes_are_one_line_and_make_nothing(tmp_path: Path) -> None:
    folder = tmp_path / "lad"
    cases = [
        (["-r", "odn"], "unknown ruleset `odn`: did you mean `odin`?"),
        (["-r", "odin", "--seats", "7"], "--seats: odin takes 2-6 players, not 7"),
        (["-r", "odin", "--seats", "two"], "--seats: 'two' is not a seat count"),
        (["-r", "odin", "--seats", "2=0"], "--seats: the weight of 2 seats must be a number"),
        (["-r", "odin", "--seats", "2", "--seats", "2=3"], "--seats: 2 seats are given twice"),
        (["-r", "odin", "-o", "tagret=10"], "odin has no option `tagret`: did you mean `target`?"),
        ([], "missing option --ruleset"),
    ]
    for args, message in cases:
        said = refused("ladder", "init", folder, *args)
        assert message in said, (args, said)
        assert not folder.exists()
    (tmp_path / "file").write_text("")
    assert "is a file, not a folder" in refused("ladder", "init", tmp_path / "file", "-r", "odin")


def test_author_prints_a_token_alone_on_the_last_line_and_revoke_refuses_it(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "lad"
    assert invoke("ladder", "init", folder, "-r", "odin").exit_code == 0
    result = invoke("ladder", "author", folder, "alice")
    assert result.exit_code == 0, result.output
    token = token_of(result.output)
    assert "alice" in result.output.splitlines()[0]
    with LadderStore.open(folder, writer=False) as store:
        found = store.authenticate(token)
        assert found is not None and found.name == "alice"
    assert "already exists" in refused("ladder", "author", folder, "alice")
    assert "did you mean `alice`" in refused("ladder", "author", folder, "alicf", "--revoke")
    assert "cannot be used" in refused("ladder", "author", folder, "al ice")
    revoked = invoke("ladder", "author", folder, "alice", "--revoke")
    assert revoked.exit_code == 0, revoked.output
    assert "no longer works" in revoked.output
    with LadderStore.open(folder, writer=False) as store:
        assert store.authenticate(token) is None
    assert "not a ladder folder" in refused("ladder", "author", tmp_path / "none", "bob")


def test_authors_are_made_while_the_server_holds_the_ladder(tmp_path: Path) -> None:
    folder = tmp_path / "lad"
    assert invoke("ladder", "init", folder, "-r", "odin").exit_code == 0
    with LadderStore.open(folder) as server:  # the writer, as `arena ladder serve` holds it
        result = invoke("ladder", "author", folder, "bob")
        assert result.exit_code == 0, result.output
        assert server.authenticate(token_of(result.output)) == server.author("bob")


def test_leaderboard_faults_and_replay_read_a_ladder_s_folder(tmp_path: Path) -> None:
    folder = tmp_path / "lad"
    assert invoke("ladder", "init", folder, "-r", "odin").exit_code == 0
    empty = invoke("leaderboard", folder)
    assert empty.exit_code == 0 and "0 games" in empty.output, empty.output
    alice = token_of(invoke("ladder", "author", folder, "alice").output)
    bob = token_of(invoke("ladder", "author", folder, "bob").output)
    with LadderStore.open(folder) as store:
        versions = []
        for name, token, digest in (("racer", alice, "a" * 64), ("plodder", bob, "b" * 64)):
            author = store.authenticate(token)
            assert isinstance(author, Author)
            version, _ = store.add_version(name, author, digest)
            versions.append(store.activate(version.id)[0].label)
        for n in range(6):
            seated = versions if n % 2 == 0 else versions[::-1]
            fault = (0, 3) if n == 4 else None
            record = random_record(
                "odin", seated, 500 + n, game=f"d{n // 2}-r{n % 2}", fault_at=fault
            )
            assert store.record_game(record).new
    board = invoke("leaderboard", folder, "--json")
    assert board.exit_code == 0, board.output
    data = json.loads(board.output)
    assert data["games"] == 6
    assert sorted((r["bot"], r["games"]) for r in data["rows"]) == [
        ("plodder@1", 6),
        ("racer@1", 6),
    ]
    shown = invoke("leaderboard", folder)
    assert "lad: 6 games" in shown.output and "racer@1" in shown.output, shown.output
    faults = invoke("faults", folder)
    assert faults.exit_code == 0, faults.output
    assert "d2-r0" in faults.output and "racer@1 did not answer within 1000 ms" in faults.output
    replay = invoke("replay", folder)
    assert replay.exit_code == 0 and "6 of 6 games reproduce exactly" in replay.output


def test_serve_takes_workers_or_a_cluster_not_both(tmp_path: Path) -> None:
    folder = tmp_path / "lad"
    assert invoke("ladder", "init", folder, "-r", "odin").exit_code == 0
    both = ("ladder", "serve", folder, "--workers", "1", "--cluster", "tcp://127.0.0.1:1")
    assert refused(*both) == "give --workers (processes on this machine) or --cluster, not both"
    waiting = refused("ladder", "serve", folder, "--wait-workers", "2")
    assert waiting.startswith("--wait-workers is for a run on a Dask cluster (--cluster)")
