"""One self-contained HTML file: the page's data, its script and styles, and the chart
library, all inlined, so that it opens from disk with no network.

The assets are package data (`arena/league/report/assets/`): the page's own scripts
(`SCRIPTS`) and styles (`STYLES`), and uPlot (vendored, MIT, with its licence kept beside it and
named in the page). The data goes in two `application/json` script elements: the page's data (`Page`
without its replays) and the replays' compressed chunks, which the page decodes only when a
game is opened. Nothing from the data is ever written into the HTML as markup: the script
builds the page from it with text nodes, so a bot named `<script>` shows as that name.
"""

from __future__ import annotations

import contextlib
import html
from importlib import resources
from pathlib import Path

import msgspec

from arena.league.report.build import Page
from arena.referee.records import storage_error

ASSETS = "assets"
UPLOT_VERSION = "1.6.32"
# The page's own scripts, in the order they load: the shared parts (`dom.js`'s helpers, the
# card drawing, the rating charts, the replay viewer, which the ladder's pages serve too)
# and the report's page itself.
SCRIPTS = ("dom.js", "cards.js", "charts.js", "viewer.js", "report.js")
STYLES = ("base.css", "viewer.css", "report.css")  # likewise: shared, then the report's


def asset(name: str) -> str:
    """The text of one packaged asset (`vendor/uPlot.iife.min.js`, `report.js`, ...)."""
    return (
        resources.files("arena.league.report")
        .joinpath(ASSETS, *name.split("/"))
        .read_text(encoding="utf-8")
    )


def _script_json(value: object) -> str:
    """JSON safe inside a <script> element: no `</` (which could end it) and no `<!--`."""
    text = msgspec.json.encode(value).decode("utf-8")
    return text.replace("</", "<\\/").replace("<!--", "<\\!--")


def _inline_script(code: str) -> str:
    return code.replace("</script", "<\\/script")


def render(page: Page) -> str:
    """The whole HTML document of `page`."""
    data = msgspec.structs.replace(page, replays=msgspec.structs.replace(page.replays, chunks=[]))
    title = f"arena: {page.title}" + (" report" if page.kind == "report" else " replays")
    return "".join(
        [
            "<!DOCTYPE html>\n<html lang='en'>\n<head>\n<meta charset='utf-8'>\n",
            "<meta name='viewport' content='width=device-width, initial-scale=1'>\n",
            f"<title>{html.escape(title)}</title>\n",
            f"<!-- charts: uPlot {UPLOT_VERSION}, MIT licence, (c) Leon Sorokin:\n",
            asset("vendor/uPlot.LICENSE").replace("--", "- -"),
            "-->\n<style>\n",
            asset("vendor/uPlot.min.css"),
            "\n",
            *(asset(name) for name in STYLES),
            "</style>\n</head>\n<body>\n",
            "<noscript>This report needs JavaScript to show its tables and replays.</noscript>\n",
            "<script type='application/json' id='arena-data'>",
            _script_json(data),
            "</script>\n<script type='application/json' id='arena-replays'>",
            _script_json(page.replays.chunks),
            "</script>\n<script>\n",
            _inline_script(asset("vendor/uPlot.iife.min.js")),
            *(f"\n</script>\n<script>\n{_inline_script(asset(name))}" for name in SCRIPTS),
            "\n</script>\n</body>\n</html>\n",
        ]
    )


def size_text(size: int) -> str:
    """A file size for people: 812 KB, 7.4 MB."""
    return f"{size / 1e6:.1f} MB" if size >= 1e6 else f"{max(1, round(size / 1e3))} KB"


def write(page: Page, out: Path) -> int:
    """Write the page's HTML to `out` (whole or not at all); return its size in bytes."""
    data = render(page).encode("utf-8")
    new = out.with_name(f".{out.name}.new")
    try:
        new.write_bytes(data)
        new.replace(out)
    except OSError as exc:
        with contextlib.suppress(OSError):
            new.unlink()
        raise storage_error("write", out, exc) from None
    return len(data)
