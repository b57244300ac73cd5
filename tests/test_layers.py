"""The architecture, enforced: each layer imports only the layers below it.

cli -> ladder -> league -> referee -> games; `protocol` imports nothing from `arena`; the
games are pure rules code (no process, terminal or event-loop library). A small walk over
every module's imports (with `ast`), so the layout cannot rot silently.

At the top of tests/, not in a layer's folder: it pins how the five layers (and `protocol`)
relate, which belongs to none of them.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.helpers.paths import ROOT

LAYERS = ["games", "referee", "league", "ladder", "cli"]  # lowest first
NOT_IN_GAMES = {"trio", "rich", "typer", "subprocess", "socket", "select", "threading"}


def modules(folder: Path) -> list[Path]:
    return sorted(folder.rglob("*.py"))


def imported(path: Path, root: Path = ROOT) -> set[str]:
    """Every module `path` imports, absolute (relative imports resolved), at any depth."""
    tree = ast.parse(path.read_text(), str(path))
    package = ".".join(path.relative_to(root).with_suffix("").parts[:-1])
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            out |= {f"{base}.{alias.name}" for alias in node.names} | {base}
    return out


def layer_of(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] != "arena" or len(parts) < 2:
        return None
    return parts[1] if parts[1] in LAYERS else None


def violations(layer: str, root: Path = ROOT) -> list[str]:
    """Imports from `layer`'s modules into a layer above it."""
    allowed = set(LAYERS[: LAYERS.index(layer) + 1])
    return [
        f"{path.relative_to(root)} imports {module}"
        for path in modules(root / "arena" / layer)
        for module in imported(path, root)
        if (target := layer_of(module)) is not None and target not in allowed
    ]


@pytest.mark.parametrize("layer", LAYERS)
def test_a_layer_imports_only_the_layers_below_it(layer: str) -> None:
    wrong = violations(layer)
    assert not wrong, "\n".join(wrong)


def test_the_top_level_holds_only_the_layers() -> None:
    loose = {p.name for p in (ROOT / "arena").glob("*.py")} - {"__init__.py", "__main__.py"}
    assert not loose, f"modules outside the layers: {sorted(loose)}"


def test_protocol_imports_nothing_from_arena() -> None:
    wrong = [
        f"{path.relative_to(ROOT)} imports {module}"
        for path in modules(ROOT / "protocol")
        for module in imported(path)
        if module.split(".")[0] == "arena"
    ]
    assert not wrong, "\n".join(wrong)


def test_the_games_are_pure_rules_code() -> None:
    wrong = [
        f"{path.relative_to(ROOT)} imports {module}"
        for path in modules(ROOT / "arena" / "games")
        for module in imported(path)
        if module.split(".")[0] in NOT_IN_GAMES
    ]
    assert not wrong, "\n".join(wrong)


def test_the_walk_sees_a_wrong_import(tmp_path: Path) -> None:
    """The check itself can fail: a games module importing the referee (absolutely or
    relatively) and a referee module importing the CLI are caught."""
    (tmp_path / "arena" / "games").mkdir(parents=True)
    (tmp_path / "arena" / "referee").mkdir(parents=True)
    (tmp_path / "arena" / "games" / "a.py").write_text("from arena.referee.game import x\n")
    (tmp_path / "arena" / "games" / "b.py").write_text("from ..referee import bot\n")
    (tmp_path / "arena" / "referee" / "c.py").write_text("import arena.cli.app\n")
    assert {v.split(" imports ")[0] for v in violations("games", tmp_path)} == {
        "arena/games/a.py",
        "arena/games/b.py",
    }
    assert violations("referee", tmp_path) == ["arena/referee/c.py imports arena.cli.app"]
