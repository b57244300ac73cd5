"""Reports and replays in the browser: one self-contained HTML file per results folder (the
leaderboard, rating charts, crosstable, faults and every game's replay) or records file.

`build_report` gathers a results folder's page in one read of its journal (`build.py`),
`records_page` a records file's; `replays.py` makes and packs each game's viewer frames (from
`arena.referee.frames`); `page.py` writes the HTML around the packaged script, styles and
chart library (`assets/`).
"""

from arena.league.report.build import Page, build_report, records_page
from arena.league.report.page import render, size_text, write

__all__ = ["Page", "build_report", "records_page", "render", "size_text", "write"]
