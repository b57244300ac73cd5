"""`bash bench/run report`: the HTML report of a 1,000-game tournament, its size and how long
it takes to write and to open.

A results folder of GAMES real games (odin between random players, 2 seats, 2% of them with
a timeout: `tests/helpers/reports.py`, every record replays exactly) is written to a temporary
folder; `arena report` is timed on it (with --jobs 1 and with every core), then the page is
opened in headless Chromium (Debian's chromium and chromium-driver, through Selenium) from
disk, ROUNDS times, and the time from the start of navigation to the page's ready flag
(`data-ready-ms`, set once the page is drawn) is read, as is the time to open a replay in
the middle of the list and step to its last move.

Goals: under 10 MB and under 3 s to open, for 1,000 games. bench/run installs Selenium
into the benchmark's venv (bench/requirements.txt); Chromium comes from Debian, as .ci/run
installs it.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SIZE_GOAL = 10_000_000
OPEN_GOAL = 3.0


def arena_report(folder: Path, out: Path, jobs: int) -> tuple[float, float]:
    """Wall and CPU seconds of `arena report FOLDER -o OUT -j JOBS` (children included)."""
    before = os.times()
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "arena", "report", str(folder), "-o", str(out), "-j", str(jobs)],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    wall = time.perf_counter() - start
    after = os.times()
    cpu = (after.children_user - before.children_user) + (
        after.children_system - before.children_system
    )
    return wall, cpu


def open_times(page: Path, rounds: int) -> tuple[list[float], list[float]]:
    """Seconds from navigation to the ready flag, and to a replay opened at its last move."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.support.ui import WebDriverWait

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        "--window-size=1400,900",
    ):
        options.add_argument(flag)
    driver = webdriver.Chrome(
        service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"), options=options
    )
    ready: list[float] = []
    replay: list[float] = []
    try:
        for _ in range(rounds):
            driver.get("about:blank")
            driver.get(page.resolve().as_uri())
            WebDriverWait(driver, 60).until(
                lambda d: d.execute_script("return document.documentElement.dataset.readyMs")
            )
            ms = driver.execute_script("return document.documentElement.dataset.readyMs")
            ready.append(int(ms) / 1000)
            start = time.perf_counter()
            driver.execute_script(
                "return window.arena.open(500).then(function () { window.arena.go(1e9); })"
            )
            replay.append(time.perf_counter() - start)
    finally:
        driver.quit()
    return ready, replay


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="bash bench/run report", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--games", type=int, default=1000, help="games in the tournament")
    parser.add_argument("--rounds", type=int, default=5, help="times the page is opened")
    parser.add_argument("--keep", type=Path, help="write the folder and report here, and keep them")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from tests.helpers.reports import write_random_results

    with tempfile.TemporaryDirectory(prefix="arena-report-bench-") as temp:
        here = args.keep or Path(temp)
        folder = here / "report-bench"
        start = time.perf_counter()
        write_random_results(folder, args.games, players=2, bots=6, seed=11)
        journal = (folder / "games.jsonl").stat().st_size
        print(
            f"tournament: {args.games} odin games (random players, 2 seats), journal "
            f"{journal / 1e6:.1f} MB, made in {time.perf_counter() - start:.1f} s"
        )
        page = here / "report.html"
        for jobs in (1, os.cpu_count() or 1):
            wall, cpu = arena_report(folder, page, jobs)
            print(f"arena report --jobs {jobs}: {wall:.1f} s wall, {cpu:.1f} s CPU")
        size = page.stat().st_size
        print(f"report size: {size / 1e6:.2f} MB (goal < {SIZE_GOAL / 1e6:.0f} MB)")
        ready, replay = open_times(page, args.rounds)
        print(
            f"open to ready flag: median {statistics.median(ready):.2f} s, "
            f"max {max(ready):.2f} s over {len(ready)} opens (goal < {OPEN_GOAL:.0f} s)"
        )
        print(f"a replay opened at its last move: median {statistics.median(replay):.2f} s")
        ok = size < SIZE_GOAL and max(ready) < OPEN_GOAL
        print("goals met" if ok else "goals NOT met")
        return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
