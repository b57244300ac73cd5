"""The HTML report and replay viewer, in a real browser: headless Chromium (Debian's
`chromium` and `chromium-driver`, which .ci/run installs) driven through Selenium.

Three small real tournaments, one per ruleset family (odin with a bot that crashes, so that
faults and fallback moves show; override-classic; bested with three seats), are played with
`arena tournament` and reported with `arena report`; each report is opened from disk. The
tests check what a user relies on: the leaderboard's numbers are `arena leaderboard --json`'s,
sorting works, the viewer steps to the last move (keys, buttons) and shows the final scores,
a seat's view never shows a card another seat holds unseen, and the filters narrow the game
list. They write screenshots as they go (the docs' pictures: ARENA_SCREENSHOTS=docs/images).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.referee.frames import frames
from arena.referee.records import GameRecord, read_records
from tests.helpers.cli import invoke
from tests.helpers.paths import EXAMPLE_BOTS, RANDOM, TEST_BOTS
from tests.helpers.reports import CODE, hidden_cards
from tests.helpers.tournaments import command_bot, path_bot, write_tournament

pytestmark = pytest.mark.slow  # (three tournaments played, and a headless browser started)

# Where the screenshots go: a folder of the test run's own, or, to refresh the docs' pictures,
# ARENA_SCREENSHOTS=docs/images (so a test run never changes the files in the checkout).
IMAGES = Path(os.environ.get("ARENA_SCREENSHOTS") or tempfile.mkdtemp(prefix="arena-screens-"))
CHROMIUM = "/usr/bin/chromium"
FAMILIES = ("odin", "override", "bested")
CHROME_FLAGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--window-size=1400,900",
]

try:  # a missing package fails the tests below in words, rather than skipping them
    from selenium import webdriver
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.remote.webdriver import WebDriver
    from selenium.webdriver.support.ui import Select, WebDriverWait
except ImportError:  # pragma: no cover - reported by the `browser` fixture
    webdriver = None  # type: ignore[assignment]


def start_browser() -> WebDriver:
    """Headless Chromium under Selenium, or a failure saying what to install."""
    if webdriver is None:
        pytest.fail("selenium is not installed: pip install -e '.[test]' (the test extra)")
    chromium = shutil.which("chromium") or (CHROMIUM if Path(CHROMIUM).exists() else None)
    driver = shutil.which("chromedriver")
    if chromium is None or driver is None:
        missing = " and ".join(
            name for name, found in (("chromium", chromium), ("chromedriver", driver)) if not found
        )
        pytest.fail(
            f"{missing} not found: the report's browser tests need Debian's chromium and "
            "chromium-driver (apt-get install -y chromium chromium-driver; .ci/run installs them)"
        )
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in CHROME_FLAGS:
        options.add_argument(flag)
    try:
        return webdriver.Chrome(service=Service(driver), options=options)
    except WebDriverException as exc:
        pytest.fail(f"headless chromium did not start through {driver}: {exc.msg}")


@pytest.fixture(scope="module")
def browser() -> Iterator[WebDriver]:
    driver = start_browser()
    try:
        yield driver
    finally:
        driver.quit()


def tournament_file(here: Path, family: str) -> Path:
    """A small real tournament of `family` between example bots (and, on odin, a bot that
    crashes after 5 decisions, so that its games have faults and fallback moves)."""
    random_py = path_bot(RANDOM)
    if family == "odin":
        crashy = command_bot("crashy", "{python}", TEST_BOTS / "crash_bot.py", "5", "after-answer")
        bots = [path_bot(EXAMPLE_BOTS / "odin-heuristic"), random_py, crashy]
        return write_tournament(
            here, bots, file="odin.toml", name="odin-report", ruleset="odin",
            options={"rounds": 1}, seed=3, sandbox="off",
        )  # fmt: skip
    if family == "override":
        bots = [path_bot(EXAMPLE_BOTS / "override-heuristic"), random_py]
        return write_tournament(
            here, bots, file="override.toml", name="override-report",
            ruleset="override-classic", deals=2, seed=5, sandbox="off",
        )  # fmt: skip
    other = command_bot("random-b", "{python}", TEST_BOTS / "random_bot.py")
    bots = [path_bot(EXAMPLE_BOTS / "bested-heuristic"), random_py, other]
    return write_tournament(
        here, bots, file="bested.toml", name="bested-report", ruleset="bested", seats=3,
        seed=5, sandbox="off",
    )  # fmt: skip


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Each family's results folder, played and reported (FOLDER/report.html)."""
    here = tmp_path_factory.mktemp("reports")
    folders = {}
    for family in FAMILIES:
        file = tournament_file(here, family)
        played = invoke("tournament", file, "--results", here / "results")
        assert played.exit_code == 0, played.output
        folder = here / "results" / f"{family}-report"
        made = invoke("report", folder)
        assert made.exit_code == 0, made.output
        assert (folder / "report.html").is_file()
        folders[family] = folder
    return folders


def load(driver: WebDriver, page: Path) -> None:
    """Open a page from disk and wait for its ready flag."""
    driver.get(page.resolve().as_uri())
    WebDriverWait(driver, 20).until(
        lambda d: d.execute_script("return document.documentElement.dataset.ready") == "true"
    )


def open_game(driver: WebDriver, number: int) -> None:
    """Open game `number` from the games list with its "replay" button."""
    driver.execute_script("window.arena.close()")
    row = driver.find_element(By.CSS_SELECTOR, f"#games-table tr[data-number='{number}']")
    button = row.find_element(By.CSS_SELECTOR, "button.open-replay")
    driver.execute_script("arguments[0].click()", button)
    WebDriverWait(driver, 20).until(
        lambda d: d.execute_script(
            "var v = document.getElementById('viewer');"
            f"return v.dataset.ready === 'true' && v.dataset.game === '{number}'"
        )
    )


def viewer_step(driver: WebDriver) -> tuple[int, int]:
    viewer = driver.find_element(By.ID, "viewer")
    return int(viewer.get_attribute("data-step") or -1), int(
        viewer.get_attribute("data-steps") or 0
    )


def showcase_step(record: GameRecord) -> int:
    """A step worth a picture: the first from move 10 on with cards in the middle of the table
    (a meld or two on a Bested trick, a set on an Odin middle), else move 14."""
    replay = frames(record)
    table: dict[str, Any] = {}
    for k, shared in enumerate(replay.shared):
        table.update(shared)
        if k >= 10 and (len(table.get("plays") or []) >= 2 or len(table.get("middle") or []) >= 2):
            return k
    return min(len(record.moves), 14)


def records(folder: Path) -> list[GameRecord]:
    return list(read_records(folder / "games.jsonl"))


@pytest.mark.parametrize("family", FAMILIES)
def test_the_leaderboard_shows_the_numbers_of_arena_leaderboard_json(
    browser: WebDriver, reports: dict[str, Path], family: str
) -> None:
    folder = reports[family]
    result = invoke("leaderboard", folder, "--json")
    assert result.exit_code == 0, result.output
    board = json.loads(result.output)
    load(browser, folder / "report.html")
    rows = browser.find_elements(By.CSS_SELECTOR, "#leaderboard-table tbody tr")
    assert [r.get_attribute("data-bot") for r in rows] == [row["bot"] for row in board["rows"]]
    for tr, row in zip(rows, board["rows"], strict=True):
        cells = {
            td.get_attribute("data-key"): (td.get_attribute("data-value"), td.text)
            for td in tr.find_elements(By.TAG_NAME, "td")
        }
        for key in ("rank", "elo", "error", "games", "score", "mean_place", "los_next"):
            value, text = cells[key]
            if row[key] is None:
                assert value == "" and text == "", key
                continue
            assert float(value) == pytest.approx(row[key]), key
            shown = float(text.replace("±", "").rstrip("%")) / (100 if text.endswith("%") else 1)
            assert shown == pytest.approx(row[key], abs=1e-4), (key, text)
        if row["wins"] is not None:
            for key in ("wins", "draws", "losses"):
                assert int(cells[key][1]) == row[key]
        assert int(cells["faults"][1]) == sum(row["faults"].values())
    pairs = {(p["bot"], p["opponent"]): p for p in board["pairs"]}
    for td in browser.find_elements(By.CSS_SELECTOR, "#crosstable-table td[data-score]"):
        pair = pairs[(td.get_attribute("data-bot"), td.get_attribute("data-opponent"))]
        assert float(td.get_attribute("data-score") or "nan") == pytest.approx(pair["score"])
        assert int(td.get_attribute("data-games") or -1) == pair["games"]
    assert len(browser.find_elements(By.CSS_SELECTOR, "#elo-chart canvas")) == 1
    assert len(browser.find_elements(By.CSS_SELECTOR, "#history-chart canvas")) == 1


def test_a_heading_sorts_the_leaderboard(browser: WebDriver, reports: dict[str, Path]) -> None:
    load(browser, reports["odin"] / "report.html")

    def column(key: str) -> list[float]:
        cells = browser.find_elements(By.CSS_SELECTOR, f"#leaderboard-table tbody td.{key}")
        return [float(td.get_attribute("data-value") or "nan") for td in cells]

    heading = browser.find_element(By.CSS_SELECTOR, "#leaderboard-table th[data-key='elo']")
    heading.click()
    assert column("elo") == sorted(column("elo"))
    heading.click()
    assert column("elo") == sorted(column("elo"), reverse=True)


@pytest.mark.parametrize("family", FAMILIES)
def test_the_viewer_steps_to_the_last_move_and_shows_the_final_scores(
    browser: WebDriver, reports: dict[str, Path], family: str
) -> None:
    folder = reports[family]
    record = records(folder)[0]
    load(browser, folder / "report.html")
    open_game(browser, 1)
    assert viewer_step(browser) == (0, len(record.moves) + 1)
    body = browser.find_element(By.TAG_NAME, "body")
    body.send_keys(Keys.ARROW_RIGHT)
    body.send_keys(Keys.ARROW_RIGHT)
    assert viewer_step(browser)[0] == 2
    browser.find_element(By.ID, "v-prev").click()
    assert viewer_step(browser)[0] == 1
    assert not browser.find_elements(By.ID, "v-result")  # the result waits for the end
    body.send_keys(Keys.END)
    step, steps = viewer_step(browser)
    assert step == steps - 1 == len(record.moves)
    finals = browser.find_elements(By.CSS_SELECTOR, "#v-result tr.final")
    shown = {
        int(tr.get_attribute("data-seat") or -1): (
            float(tr.get_attribute("data-score") or "nan"),
            int(tr.get_attribute("data-rank") or -1),
        )
        for tr in finals
    }
    assert shown == {s: (record.scores[s], record.ranks[s]) for s in range(record.players)}
    for tr in finals:
        assert f"score {record.scores[int(tr.get_attribute('data-seat') or 0)]:g}" in tr.text
    browser.find_element(By.ID, "v-first").click()
    assert viewer_step(browser)[0] == 0
    slider = browser.find_element(By.ID, "v-slider")
    assert int(slider.get_attribute("max") or 0) == len(record.moves)
    # the docs' picture of this family's replay: mid-game, every seat shown
    browser.execute_script(f"window.arena.go({showcase_step(record)})")
    IMAGES.mkdir(parents=True, exist_ok=True)
    assert browser.save_screenshot(str(IMAGES / f"replay-{family}.png"))


def test_the_fallbacks_moves_are_marked_with_the_fault(
    browser: WebDriver, reports: dict[str, Path]
) -> None:
    folder = reports["odin"]
    games = records(folder)
    number, record = next((n, r) for n, r in enumerate(games, 1) if r.faults)
    fallback = next(k for k, move in enumerate(record.moves) if move.by == "fallback")
    fault = record.faults[0]
    load(browser, folder / "report.html")
    open_game(browser, number)
    marks = browser.find_elements(By.CSS_SELECTOR, "#v-marks span")
    assert len(marks) == sum(move.by == "fallback" for move in record.moves)
    browser.execute_script(f"window.arena.go({fallback + 1})")
    line = browser.find_element(By.ID, "v-move").text
    assert "(by the fallback)" in line and f"after its fault ({fault.kind}" in line
    assert fault.reason in line  # the view of all seats gives the reason


def seat_views(driver: WebDriver, seat: int) -> list[dict[str, Any]]:
    """What the viewer shows at every step in `seat`'s view: the card codes drawn in the
    table area, its text apart from the move line, the move line, the events of the step, and
    each hand's card codes by seat."""
    return driver.execute_script(  # type: ignore[no-any-return]
        """
        var seat = arguments[0], out = [];
        window.arena.view(seat);
        var steps = window.arena.state().steps;
        for (var k = 0; k < steps; k++) {
          window.arena.go(k);
          var table = document.getElementById('v-table');
          var move = document.getElementById('v-move');
          var hands = {};
          table.querySelectorAll('.hand[data-seat]').forEach(function (h) {
            hands[h.dataset.seat] = Array.from(h.querySelectorAll('.card[data-code]'))
              .map(function (c) { return c.dataset.code; });
          });
          out.push({
            codes: Array.from(table.querySelectorAll('.card[data-code]'))
              .map(function (c) { return c.dataset.code; }),
            text: table.innerText.replace(move.innerText, ''),
            move: move.innerText,
            events: Array.from(document.querySelectorAll('#v-log li'))
              .filter(function (li) { return Number(li.dataset.step) === k; })
              .map(function (li) { return li.textContent; }),
            backs: Array.from(table.querySelectorAll('.hand[data-seat]')).map(function (h) {
              return h.querySelectorAll('.card.back').length; }),
            hands: hands
          });
        }
        return out;
        """,
        seat,
    )


@pytest.mark.parametrize("family", FAMILIES)
def test_a_seats_view_never_shows_another_seats_hidden_cards(
    browser: WebDriver, reports: dict[str, Path], family: str
) -> None:
    """Golden: in seat s's view, at every step, no card another seat holds unseen by s (not
    told to s since its last deal) is drawn or written anywhere; s's own hand is drawn as its
    observation holds it, and the other hands only as card backs (odin, bested)."""
    folder = reports[family]
    record = records(folder)[0]
    hidden = hidden_cards(record)
    replay = frames(record)
    load(browser, folder / "report.html")
    open_game(browser, 1)
    n = record.players
    checked = 0
    for seat in range(n):
        views = seat_views(browser, seat)
        assert len(views) == len(record.moves) + 1
        own: dict[str, Any] = {}
        for k, shown in enumerate(views):
            own.update(replay.shared[k])
            own.update((replay.own[k] or [{}] * n)[seat])
            events = shown["events"]
            dealt = [i for i, text in enumerate(events) if text.startswith(f"seat {seat} is dealt")]
            move = shown["move"]
            if dealt:  # a new deal: the move and what went before it are the last round's
                events, move = events[dealt[-1] :], ""
            words = set(CODE.findall(" ".join([shown["text"], move, *events])))
            drawn = set(shown["codes"]) | words
            for other in range(n):
                secret = hidden[k][other * n + seat]
                checked += len(secret)
                assert not drawn & secret, f"step {k}: seat {seat} is shown {drawn & secret}"
            if family != "override":
                assert shown["hands"][str(seat)] == own["hand"] + own.get("wilds", [])
                for other in range(n):
                    if other != seat:
                        assert shown["hands"][str(other)] == []
                        assert shown["backs"][other] == own["hand_sizes"][other]
    assert checked  # there were hidden cards to look for


def shown_games(driver: WebDriver) -> list[int]:
    rows = driver.find_elements(By.CSS_SELECTOR, "#games-table tbody tr")
    return [int(r.get_attribute("data-number") or 0) for r in rows]


def test_the_filters_narrow_the_game_list(browser: WebDriver, reports: dict[str, Path]) -> None:
    folder = reports["odin"]
    games = records(folder)
    load(browser, folder / "report.html")
    assert shown_games(browser) == list(range(1, len(games) + 1))
    Select(browser.find_element(By.ID, "filter-bot")).select_by_value("crashy")
    with_crashy = [n for n, r in enumerate(games, 1) if "crashy" in [s.bot for s in r.seats]]
    assert shown_games(browser) == with_crashy
    Select(browser.find_element(By.ID, "filter-result")).select_by_value("win")
    won = [
        n
        for n in with_crashy
        if any(s.bot == "crashy" and games[n - 1].ranks[s.seat] == 1 for s in games[n - 1].seats)
        and games[n - 1].ranks.count(1) == 1
    ]
    assert shown_games(browser) == won
    Select(browser.find_element(By.ID, "filter-result")).select_by_value("")
    Select(browser.find_element(By.ID, "filter-fault")).select_by_value("none")
    clean = [n for n in with_crashy if not games[n - 1].faults]
    assert shown_games(browser) == clean
    assert len(clean) < len(games)
    count = browser.find_element(By.ID, "games-count")
    assert count.get_attribute("data-shown") == str(len(clean))
    # a fault count opens the games it happened in
    link = browser.find_element(By.CSS_SELECTOR, "#faults-table button.count[data-bot='crashy']")
    kind = link.get_attribute("data-kind")
    browser.execute_script("arguments[0].click()", link)
    faulted = [
        n
        for n, r in enumerate(games, 1)
        if any(f.bot == "crashy" and f.kind == kind for f in r.faults)
    ]
    assert faulted and shown_games(browser) == faulted
    assert int(link.text) == sum(
        1 for r in games for f in r.faults if f.bot == "crashy" and f.kind == kind
    )


def test_the_leaderboard_screenshot(browser: WebDriver, reports: dict[str, Path]) -> None:
    """The docs' picture of a report: its top, the leaderboard and the Elo chart."""
    load(browser, reports["odin"] / "report.html")
    browser.execute_script("window.scrollTo(0, 0)")
    IMAGES.mkdir(parents=True, exist_ok=True)
    assert browser.save_screenshot(str(IMAGES / "report-leaderboard.png"))
    assert (IMAGES / "report-leaderboard.png").stat().st_size > 10_000


def test_arena_replay_html_writes_a_viewer_of_a_records_file(
    browser: WebDriver, reports: dict[str, Path], tmp_path: Path
) -> None:
    games = reports["bested"] / "games.jsonl"
    out = tmp_path / "viewer.html"
    result = invoke("replay", games, "--line", "2", "--html", "-o", out)
    assert result.exit_code == 0, result.output
    assert re.search(r"wrote .*viewer\.html .*the replay viewer of 1 game\n", result.output)
    record = records(reports["bested"])[1]
    load(browser, out)
    assert not browser.find_elements(By.ID, "leaderboard")  # a records file has no standings
    open_game(browser, 2)  # numbered as in the file
    browser.find_element(By.ID, "v-last").click()
    step, steps = viewer_step(browser)
    assert step == steps - 1 == len(record.moves)
    assert browser.find_elements(By.CSS_SELECTOR, "#v-result tr.final")
