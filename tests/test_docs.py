"""The README and the docs stay true to the code: the README fits on a screen, its links
and their anchors resolve (the docs site's own links are checked by `mkdocs build
--strict`, which does not read the README), every command is documented, and output shown
from a test's file is that file's text."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import markdown
import typer.main

from arena.cli.app import app
from tests.helpers.paths import GOLDEN, ROOT

README = ROOT / "README.md"
DOCS = ROOT / "docs"
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


def commands(group: Any, prefix: str = "") -> list[str]:
    """Every command of the click group `group`, subcommands as `protocol schema` (typed
    `Any`: typer ships click's classes under a name of its own)."""
    ctx = group.context_class(group)
    found = []
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        assert command is not None, name
        if command.hidden:
            continue
        if hasattr(command, "list_commands"):
            found += commands(command, f"{prefix}{name} ")
        else:
            found.append(prefix + name)
    return found


def table_commands(path: Path) -> set[str]:
    """The commands named by the rows of `path`'s command tables: `| `arena NAME ...` |`."""
    names = set()
    for row in re.findall(r"^\| `arena ([^`]+)`", path.read_text(), re.M):
        words = [w for w in row.split() if re.fullmatch(r"[a-z][a-z-]*", w)]
        if words:  # not `arena --version`
            names.add(" ".join(words[:2]) if words[0] in ("protocol", "ladder") else words[0])
    return names


def anchors(path: Path) -> set[str]:
    """The ids MkDocs gives the headings of `path` (its `toc` extension, as mkdocs.yml)."""
    md = markdown.Markdown(extensions=["toc", "tables", "attr_list"])
    md.convert(path.read_text())

    def walk(tokens: list[dict[str, object]]) -> set[str]:
        ids: set[str] = set()
        for token in tokens:
            ids.add(str(token["id"]))
            children = token["children"]
            assert isinstance(children, list)
            ids |= walk(children)
        return ids

    return walk(md.toc_tokens)  # type: ignore[attr-defined]


def test_the_readme_fits_on_a_screen() -> None:
    lines = README.read_text().count("\n")
    assert lines <= 300, f"README.md has {lines} lines: move the detail to a page under docs/"


def test_every_command_has_a_line_in_the_readme_and_in_the_command_line_page() -> None:
    every = commands(typer.main.get_command(app))
    assert "tournament" in every and "protocol schema" in every
    for path in (README, DOCS / "cli.md"):
        missing = sorted(set(every) - table_commands(path))
        assert not missing, f"{path.name} has no row for: {', '.join(missing)}"


def test_the_readme_links_and_anchors_resolve() -> None:
    text = README.read_text()
    targets = [t for t in LINK.findall(text) if not re.match(r"[a-z]+:", t)]
    assert any(t.startswith("docs/") for t in targets)
    for target in targets:
        file, _, anchor = target.partition("#")
        path = (ROOT / file) if file else README
        assert path.exists(), f"README.md links to {target}: there is no {file}"
        if anchor:
            assert path.suffix == ".md", target
            assert anchor in anchors(path), f"README.md links to {target}: no such heading"


def test_anchors_are_found_as_mkdocs_makes_them() -> None:
    """The check above is only as good as its anchors: a numbered heading with code in it."""
    assert "11-a-bot-folder-bottoml" in anchors(DOCS / "PROTOCOL.md")
    assert "exit-status" in anchors(DOCS / "sprt.md")


def test_the_export_shown_in_the_docs_is_the_golden_export() -> None:
    text = (DOCS / "reports.md").read_text()
    block = text.split('[Ruleset "override-classic"]', 1)[1].split("```", 1)[0]
    golden = (GOLDEN / "export-override-classic-2p-seed7.txt").read_text().splitlines()
    shown = ['[Ruleset "override-classic"]', *block.splitlines()[1:]]
    lines = [line for line in shown if line.strip() != "..."]
    assert len(lines) > 30
    missing = [line for line in lines if line not in golden]
    assert not missing, f"docs/reports.md shows lines the golden export lacks: {missing}"
