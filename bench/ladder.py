"""Ladder benchmark: games/s, the API under load, table choice, refits, submission to a game.

The ladder server's games per second, its API under load, its choice of a table, its refits,
and the time from a submission to its first rated game.

Run it with `bash bench/run ladder` (or `.venv/bin/python bench/ladder.py`); `--help` lists
the sizes. Five parts, each beside a baseline measured in the same run:

1. Games per second in a ladder against the same bots in a tournament, at the same games at
   once (`--jobs`). The bots are Python bots that sleep `--move-ms` before each answer (a
   random legal action), one author each. The ladder's folder is made with its versions
   stored under DIR/versions/<digest>/ as an upload stores them, inserted and activated
   through the store without validation; a `LadderServer` plays them through `InProcess`.
   The tournament is a round robin of the same bot folders through `run_tournament`. Both
   unsandboxed (the same setting on both sides). Counted: games journaled per second over
   `--window` seconds after `--warmup`, each game counted by the share of its length inside
   the window (games started together end in waves, and a plain count would jump by a wave
   with where the window falls); `--rounds` rounds in the order ladder, tournament,
   tournament, ladder, ... (a drift of the machine's load slows both sides alike). Goal:
   ladder / tournament >= 0.9. Decisions per second are printed beside it: the same ratio
   without the luck of the deals' lengths.
2. `GET /api/leaderboard` from `--clients` HTTP clients (httpx, async) while `--load-jobs`
   games run (bots sleeping `--load-move-ms`). The clients run in a process of their own, so
   that their processor time is not the server's; each sends a request every `--interval`
   seconds (at a random phase; at once when its answer came later than that). Printed: the
   p50 and p99 latency (goal p99 < 100 ms), beside the same clients against a bare Starlette
   app on the same Hypercorn trio worker serving the same bytes (no games: the floor of an
   answer here); and games per second while the clients ran against games per second without
   them, measured before and after in the same server run (goal: ratio >= 0.9).
3. `arena.ladder.matchmaking.next_table` among 1,000 active bots (500 authors, tables of 2
   and 4 seats), median of `--calls`, beside the one-pass baseline of `bench/matchmaking.py`
   (`min` by games, a sort by rating distance). Goal: < 1 ms.
4. The live table's fits at `--fit-bots` bots and `--fit-games` games (bench/live_ratings.py's
   synthetic games): the fit from scratch (a ladder's restart; goal < 10 s) and a refit after
   `--new` new games (median of `--refits`; goal < 1 s), beside that benchmark's baselines
   (one numpy pass over the results, one inversion of a bots x bots matrix).
5. Submission to first rated game of a Python bot (a random player, as examples/bots/random-py)
   on a sandboxed server where `--submit-bots` sleeper bots already play: POST /api/bots,
   then until the bot's version is active (validated in the bubblewrap sandbox) and until
   `GET /api/games?bot=NAME` counts a game. Goal: < 10 s. Baseline, in the same server run
   (the same games in flight): the version's validation (`validate`) and one game of it
   against a sleeper, played directly, one after the other: the least the path can take.

A part that crashes (the server with it, say) is printed with its traceback and counted as
a goal not met; the other parts still run. One BLAS thread unless OPENBLAS_NUM_THREADS says
otherwise (what a shared machine wants).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import math
import os
import random
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
import traceback
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar, cast

for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")  # before numpy: one BLAS thread is faster on 2 busy cores

import httpx  # noqa: E402
import msgspec  # noqa: E402
import trio  # noqa: E402
from hypercorn.config import Config as HypercornConfig  # noqa: E402
from hypercorn.trio import serve  # noqa: E402
from live_ratings import Clock, fastest, result_columns, synthetic  # noqa: E402
from matchmaking import table_times  # noqa: E402
from starlette.applications import Starlette  # noqa: E402
from starlette.requests import Request  # noqa: E402
from starlette.responses import Response  # noqa: E402
from starlette.routing import Route  # noqa: E402

from arena.ladder.archives import VERSIONS, tree_digest  # noqa: E402
from arena.ladder.config import LadderConfig  # noqa: E402
from arena.ladder.server import LadderServer  # noqa: E402
from arena.ladder.store import LadderStore, init_ladder  # noqa: E402
from arena.ladder.validation import SANDBOX, validate  # noqa: E402
from arena.league.config import Tournament, load_tournament  # noqa: E402
from arena.league.executors import InProcess  # noqa: E402
from arena.league.results import ResultsDir  # noqa: E402
from arena.league.tournament import run_tournament  # noqa: E402
from arena.referee.folders import load_bot  # noqa: E402
from arena.referee.game import RefereeConfig, play_game  # noqa: E402
from arena.referee.records import read_records  # noqa: E402

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "bots"
LEADERBOARD = "/api/leaderboard"
SEATS = 2
T = TypeVar("T")

GOAL_RATIO = 0.9  # parts 1 and 2: games/s against the baseline's
GOAL_P99_MS = 100.0
GOAL_TABLE_MS = 1.0
GOAL_FIT_S = 10.0
GOAL_REFIT_S = 1.0
GOAL_SUBMIT_S = 10.0

#: A Python bot that takes real time per decision: it sleeps argv[1] milliseconds, then
#: answers a random legal action (seeded by its seat, as examples/bots/random-py).
SLEEPER = '''"""A random legal action after sleeping argv[1] milliseconds."""

import random
import sys
import time

from protocol.bot import run

PAUSE = float(sys.argv[1]) / 1000.0
rng = random.Random()


def hello(msg: dict) -> None:
    rng.seed(f"sleeper:{msg['seat']}")


def decide(request: dict) -> int:
    time.sleep(PAUSE)
    return rng.randrange(len(request["actions"]))


run(decide, name="sleeper", on_hello=hello)
'''


class BenchError(Exception):
    """A part that cannot go on (a refused upload, a window without games): it is reported
    as crashed, and the other parts run."""


class Row(msgspec.Struct):
    """One line of the summary: a figure, its baseline, their ratio, the goal and whether
    it was met."""

    part: int
    what: str
    figure: str
    baseline: str
    ratio: float | None
    goal: str
    met: bool | None  # (None: a figure without a goal)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    add = parser.add_argument
    add("--parts", type=int, nargs="+", default=[1, 2, 3, 4, 5], help="the parts to run")
    add("--ruleset", default="odin", help="the ladder's and tournament's ruleset (2 seats)")
    add("--bots", type=int, default=16, help="bots (one author each) in parts 1 and 2")
    add("--jobs", type=int, default=8, help="part 1: games at once, on both sides")
    add("--move-ms", type=float, default=5.0, help="part 1: the bots' sleep per decision")
    add("--warmup", type=float, default=5.0, help="seconds before a window starts counting")
    add("--window", type=float, default=15.0, help="part 1: seconds counted on each side")
    add("--rounds", type=int, default=2, help="part 1: rounds of both sides (ABBA order)")
    add("--load-jobs", type=int, default=32, help="part 2: games at once")
    add("--load-move-ms", type=float, default=20.0, help="part 2: the bots' sleep per decision")
    add("--load-window", type=float, default=15.0, help="part 2: seconds of each window")
    add("--clients", type=int, default=50, help="part 2: concurrent HTTP clients")
    add("--interval", type=float, default=0.5, help="part 2: seconds between a client's requests")
    add("--bare-seconds", type=float, default=8.0, help="part 2: seconds of the bare baseline")
    add("--calls", type=int, default=3000, help="part 3: timed table choices")
    add("--fit-bots", type=int, default=1000, help="part 4: bots")
    add("--fit-games", type=int, default=1_000_000, help="part 4: games")
    add("--new", type=int, default=10, help="part 4: games added before each refit")
    add("--refits", type=int, default=5, help="part 4: refits timed (median)")
    add("--submit-bots", type=int, default=4, help="part 5: sleeper bots already playing")
    add("--submit-jobs", type=int, default=4, help="part 5: games at once")
    add("--submissions", type=int, default=3, help="part 5: bots submitted, one after another")
    add("--seed", type=int, default=1, help="the ladders' matchmaking seed (each part adds to it)")
    add("--json", type=Path, help="also write the summary rows to this file")
    add("--client", metavar="URL", help=argparse.SUPPRESS)  # (part 2's client process)
    add("--seconds", type=float, default=10.0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.client:
        trio.run(client_process, args.client, args.clients, args.interval, args.seconds)
        return
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"{os.cpu_count()} cores, load average {load}, ruleset {args.ruleset}")
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="bench-ladder-") as tmp:
        root = Path(tmp)
        parts: dict[int, Callable[[], list[Row]]] = {
            1: lambda: part_games(root / "games", args),
            2: lambda: part_load(root / "load", args),
            3: lambda: part_table(args.calls),
            4: lambda: part_refits(args.fit_bots, args.fit_games, args.new, args.refits),
            5: lambda: part_submit(root / "submit", args),
        }
        for number, part in parts.items():
            if number in args.parts:
                rows += crashed_or(number, part)
    summary(rows)
    if args.json is not None:
        args.json.write_bytes(msgspec.json.encode(rows))


def crashed_or(number: int, part: Callable[[], list[Row]]) -> list[Row]:
    """The part's rows; or, when it crashed (the server with it, say), its traceback printed
    and one row saying so, so that the other parts still run."""
    try:
        return part()
    except Exception as exc:
        traceback.print_exc()
        cause: BaseException = exc
        while isinstance(cause, BaseExceptionGroup) and len(cause.exceptions) == 1:
            cause = cause.exceptions[0]  # (trio's nurseries wrap it, once per level)
        print(f"part {number} crashed: {type(cause).__name__}: {cause}", flush=True)
        return [Row(number, "crashed", type(cause).__name__, str(cause)[:40], None, "", False)]


def summary(rows: list[Row]) -> None:
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"\nsummary (load average {load}):")
    head = ("", "figure", "baseline", "ratio", "goal", "")
    widths = [max(len(head[0]), *(len(f"{r.part} {r.what}") for r in rows))]
    widths += [max(len(head[1]), *(len(r.figure) for r in rows))]
    widths += [max(len(head[2]), *(len(r.baseline) for r in rows)), 6]
    widths += [max(len(head[4]), *(len(r.goal) for r in rows))]
    print(
        f"  {head[0]:<{widths[0]}}  {head[1]:>{widths[1]}}  {head[2]:<{widths[2]}}"
        f"  {head[3]:>6}  {head[4]:<{widths[4]}}"
    )
    for r in rows:
        ratio = "" if r.ratio is None else f"{r.ratio:.2f}"
        print(
            f"  {f'{r.part} {r.what}':<{widths[0]}}  {r.figure:>{widths[1]}}"
            f"  {r.baseline:<{widths[2]}}  {ratio:>6}  {r.goal:<{widths[4]}}"
            f"  {'' if r.met is None else 'met' if r.met else 'NOT met'}"
        )
    missed = [r for r in rows if r.met is False]
    print(
        "every goal met"
        if not missed
        else f"goals not met: {', '.join(f'{r.part} {r.what}' for r in missed)}"
    )


# -- bots and folders ---------------------------------------------------------------------


def write_bot(folder: Path, name: str, source: str, args: Sequence[str] = ()) -> Path:
    """A Python bot folder: bot.toml naming it `name`, bot.py holding `source`."""
    folder.mkdir(parents=True)
    command = ", ".join(json.dumps(word) for word in ["{python}", "bot.py", *args])
    (folder / "bot.toml").write_text(f'name = "{name}"\ncommand = [{command}]\n')
    (folder / "bot.py").write_text(source)
    return folder


def make_ladder(folder: Path, scratch: Path, ruleset: str, bots: int, move_ms: float) -> list[Path]:
    """A ladder of `bots` sleeper bots, one author each, each version stored under
    DIR/versions/<digest>/ (as `archives.store` stores an upload) and activated without
    validation; their stored folders."""
    init_ladder(folder, LadderConfig(ruleset=ruleset, seats=SEATS))
    stored = []
    with LadderStore.open(folder, writer=False) as store:
        for i in range(1, bots + 1):
            name = f"sleeper-{i:02d}"
            source = write_bot(scratch / name, name, SLEEPER, [f"{move_ms:g}"])
            digest = tree_digest(source)
            target = folder / VERSIONS / digest
            shutil.copytree(source, target)
            author, _ = store.create_author(f"author-{i:02d}")
            version, _ = store.add_version(name, author, digest)
            store.activate(version.id, "accepted: inserted by the benchmark, not validated")
            stored.append(target)
    return stored


# -- counting games -------------------------------------------------------------------------


class Mark(msgspec.Struct, frozen=True):
    """A moment of a run: the clock and this process's processor time."""

    clock: float
    cpu: float

    @classmethod
    def now(cls) -> Mark:
        return cls(time.perf_counter(), time.process_time())


class Played(msgspec.Struct):
    """What a window reads of a journaled game: its length and its decisions."""

    seconds: float
    moves: list[msgspec.Raw]


class Timed(msgspec.Struct, frozen=True):
    """A journaled game on the run's clock: from `start` (its end less its length) to `end`
    (when its line appeared), with its decisions."""

    start: float
    end: float
    decisions: int


class Window(msgspec.Struct, frozen=True):
    """The games played during a window: `games` counts each game by the share of its length
    inside the window (a game half in it counts half), so games started together, which end
    together in waves, do not make the count jump with where the window falls; `ended`
    counts the games journaled within it. Their mean length and decisions (weighted alike),
    and this process's share of a core meanwhile."""

    games: float
    ended: int
    seconds: float
    game_seconds: float
    decisions: float
    cpu: float

    @property
    def rate(self) -> float:
        """Games per second."""
        return self.games / self.seconds

    @property
    def decision_rate(self) -> float:
        """Decisions per second: games per second without the luck of the deals' lengths."""
        return self.games * self.decisions / self.seconds

    def __str__(self) -> str:
        return (
            f"{self.rate:.2f} games/s, {self.decision_rate:.0f} decisions/s over {self.seconds:.1f}"
            f" s ({self.games:.1f} games' worth, {self.ended} ended; a game {self.game_seconds:.2f}"
            f" s, {self.decisions:.0f} decisions; this process {self.cpu:.0%} of a core,"
            f" {self.cpu / self.rate * 1000:.0f} ms a game)"
        )


class Journal:
    """A games.jsonl being written, watched every POLL seconds (`watch`) so that each game's
    end is known to within that; windows are read from it afterwards, once the games in
    flight at their ends have ended (`tail`)."""

    POLL = 0.05

    def __init__(self, path: Path) -> None:
        self.path = path
        self.polls: list[tuple[float, int]] = []  # (clock, size)

    async def watch(self) -> None:
        while True:
            size = self.path.stat().st_size if self.path.exists() else 0
            self.polls.append((time.perf_counter(), size))
            await trio.sleep(self.POLL)

    def played(self) -> list[Timed]:
        """Every game journaled by the last poll, on the run's clock."""
        if not self.polls:
            return []
        data = self.path.read_bytes()[: self.polls[-1][1]]
        games = []
        at, poll = 0, 0
        while (end := data.find(b"\n", at)) >= 0:
            while self.polls[poll][1] <= end:
                poll += 1
            seen = self.polls[poll][0]
            if poll > 0:
                seen = (seen + self.polls[poll - 1][0]) / 2  # (it came between two polls)
            game = msgspec.json.decode(data[at:end], type=Played)
            games.append(Timed(seen - game.seconds, seen, len(game.moves)))
            at = end + 1
        return games

    async def tail(self) -> None:
        """Wait until the games in flight now have most likely ended: 1.2 times the longest
        game so far."""
        longest = max((g.end - g.start for g in self.played()), default=10.0)
        await trio.sleep(1.2 * longest + 2 * self.POLL)

    def window(self, start: Mark, end: Mark) -> Window:
        a, b = start.clock, end.clock
        shares = []
        for game in self.played():
            inside = min(game.end, b) - max(game.start, a)
            if inside > 0:
                shares.append((inside / (game.end - game.start), game))
        total = sum(share for share, _ in shares)
        if not total:
            raise BenchError(f"no game was played in a window of {b - a:.1f} s")
        return Window(
            games=total,
            ended=sum(a < game.end <= b for _, game in shares),
            seconds=b - a,
            game_seconds=sum(share * (g.end - g.start) for share, g in shares) / total,
            decisions=sum(share * g.decisions for share, g in shares) / total,
            cpu=(end.cpu - start.cpu) / (b - a),
        )


async def counted(journal: Journal, warmup: float, window: float) -> Window:
    """The window of `window` seconds after `warmup` seconds, read once the games in flight
    at its end have ended."""
    await trio.sleep(warmup)
    start = Mark.now()
    await trio.sleep(window)
    end = Mark.now()
    await journal.tail()
    return journal.window(start, end)


class Ladder:
    """A ladder server on its folder, running in this trio loop until the block ends."""

    def __init__(self, folder: Path, jobs: int, sandboxed: bool, seed: int) -> None:
        self.folder, self.jobs, self.sandboxed, self.seed = folder, jobs, sandboxed, seed
        self.notes: list[str] = []
        self.journal = Journal(folder / "games.jsonl")
        self.address = ""

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[Ladder]:
        """The server serving and playing (its address in `address`, its journal watched);
        stopped, with the games in flight, when the block ends."""
        with LadderStore.open(self.folder) as store:
            server = LadderServer(
                store,
                InProcess(self.jobs, SEATS, self.notes.append),
                sandbox=SANDBOX if self.sandboxed else None,
                on_note=self.notes.append,
                seed=self.seed,
            )
            async with trio.open_nursery() as nursery:
                self.address = await nursery.start(server.run, "127.0.0.1", 0)
                nursery.start_soon(self.journal.watch)
                yield self
                nursery.cancel_scope.cancel()  # (the games in flight are stopped)


def print_notes(notes: list[str]) -> None:
    """What the runs said that is not a version starting to play (a fault, fewer games at
    once than asked)."""
    for note in notes:
        if " is playing (" not in note:
            print(f"  note: {note}")


# -- part 1: ladder against tournament --------------------------------------------------------


def part_games(root: Path, args: argparse.Namespace) -> list[Row]:
    print(
        f"\n1. games/s: a ladder against a tournament of the same {args.bots} bots (one author "
        f"each, Python, {args.move_ms:g} ms a decision), {args.jobs} games at once, "
        f"unsandboxed on both sides; {args.window:g} s counted after {args.warmup:g} s"
    )
    folders = make_ladder(root / "ladder-0", root / "bots", args.ruleset, args.bots, args.move_ms)
    # enough deals that the round robin outlasts its window at 5 games a second a job
    pairs = args.bots * (args.bots - 1) // 2
    deals = math.ceil(5 * args.jobs * (args.warmup + args.window) / (pairs * SEATS))
    toml = root / "tournament.toml"
    entries = "".join(f'\n[[bots]]\npath = "{f.as_posix()}"\n' for f in folders)
    toml.write_text(
        f'name = "baseline"\nruleset = "{args.ruleset}"\nseats = {SEATS}\ndeals = {deals}\n'
        f'seed = 7\njobs = {args.jobs}\nsandbox = "off"\n{entries}'
    )
    tournament = load_tournament(toml)
    ladders: list[Window] = []
    tournaments: list[Window] = []
    notes: list[str] = []
    for round_ in range(args.rounds):
        folder = root / f"ladder-{round_}"  # (a new ladder each round, of the same bots)
        if round_:
            make_ladder(folder, root / f"bots-{round_}", args.ruleset, args.bots, args.move_ms)
        ladder = Ladder(folder, args.jobs, sandboxed=False, seed=args.seed + round_)

        async def on_ladder(ladder: Ladder = ladder) -> Window:
            async with ladder.running():
                return await counted(ladder.journal, args.warmup, args.window)

        results = root / f"results-{round_}"
        for side in ("ladder", "tournament") if round_ % 2 == 0 else ("tournament", "ladder"):
            if side == "ladder":
                ladders.append(trio.run(on_ladder))
                notes += ladder.notes
                print(f"  ladder:     {ladders[-1]}; load {os.getloadavg()[0]:.1f}")
            else:
                tournaments.append(
                    trio.run(tournament_window, tournament, results, args, notes.append)
                )
                print(f"  tournament: {tournaments[-1]}; load {os.getloadavg()[0]:.1f}")
    print_notes(notes)
    ours = statistics.fmean(w.rate for w in ladders)
    base = statistics.fmean(w.rate for w in tournaments)
    ours_d = statistics.fmean(w.decision_rate for w in ladders)
    base_d = statistics.fmean(w.decision_rate for w in tournaments)
    return [
        Row(
            1,
            f"games/s, ladder vs tournament ({args.jobs} at once)",
            f"{ours:.2f} games/s",
            f"tournament {base:.2f}",
            ours / base,
            f"ratio >= {GOAL_RATIO:g}",
            ours / base >= GOAL_RATIO,
        ),
        Row(
            1,
            "decisions/s, the same (no luck of game lengths)",
            f"{ours_d:.0f} /s",
            f"tournament {base_d:.0f}",
            ours_d / base_d,
            "",
            None,
        ),
    ]


async def tournament_window(
    tournament: Tournament, results: Path, args: argparse.Namespace, note: Callable[[str], None]
) -> Window:
    """The tournament's window: its round robin played through `run_tournament` from
    scratch, counted as the ladder is, then stopped."""
    with ResultsDir.open(results, tournament) as folder:
        journal = Journal(folder.games_file)
        ended = trio.Event()

        async def play() -> None:
            await run_tournament(tournament, folder, on_note=note)
            ended.set()

        async with trio.open_nursery() as nursery:
            nursery.start_soon(play)
            nursery.start_soon(journal.watch)
            window = await counted(journal, args.warmup, args.window)
            if ended.is_set():
                raise BenchError("the tournament ended before its window did: more deals needed")
            nursery.cancel_scope.cancel()
    return window


# -- part 2: leaderboard requests while games run -------------------------------------------


class Latencies(msgspec.Struct, frozen=True):
    """What the client process measured: each answer's latency (ms), the requests that
    failed, the seconds it sent for, and its processor time meanwhile."""

    ms: list[float]
    failed: int
    seconds: float
    cpu: float

    def percentile(self, p: float) -> float:
        ordered = sorted(self.ms)
        if not ordered:
            raise BenchError(f"no request was answered ({self.failed} failed)")
        return ordered[min(len(ordered) - 1, math.ceil(p / 100 * len(ordered)) - 1)]

    def __str__(self) -> str:
        return (
            f"{len(self.ms)} answers in {self.seconds:.1f} s ({len(self.ms) / self.seconds:.0f}/s"
            f"{f', {self.failed} failed' if self.failed else ''}): p50 {self.percentile(50):.1f}"
            f" ms, p90 {self.percentile(90):.1f} ms, p99 {self.percentile(99):.1f} ms, max"
            f" {max(self.ms):.1f} ms; the clients' process {self.cpu / self.seconds:.0%} of a core"
        )


async def client_process(url: str, clients: int, interval: float, seconds: float) -> None:
    """The client process of part 2: `clients` httpx clients, each with its own connection,
    each sending GET /api/leaderboard every `interval` seconds for `seconds`; prints `ready`
    once every client has connected, then the latencies as JSON."""
    ms: list[float] = []
    failed = 0
    async with contextlib.AsyncExitStack() as stack:
        pool = [
            await stack.enter_async_context(httpx.AsyncClient(base_url=url, timeout=60.0))
            for _ in range(clients)
        ]
        async with trio.open_nursery() as nursery:
            for client in pool:
                nursery.start_soon(client.get, LEADERBOARD)  # (connected, not timed)
        print("ready", flush=True)
        cpu = time.process_time()
        start = trio.current_time()
        deadline = start + seconds
        rng = random.Random(1)

        async def one(client: httpx.AsyncClient) -> None:
            nonlocal failed
            at = start + rng.uniform(0.0, interval)
            await trio.sleep_until(at)
            while at < deadline:
                sent = time.perf_counter()
                try:
                    answer = await client.get(LEADERBOARD)
                except httpx.HTTPError:
                    failed += 1
                else:
                    took = (time.perf_counter() - sent) * 1000.0
                    if answer.status_code == 200:
                        ms.append(took)
                    else:
                        failed += 1
                at = max(at + interval, trio.current_time())
                await trio.sleep_until(at)

        async with trio.open_nursery() as nursery:
            for client in pool:
                nursery.start_soon(one, client)
        took = trio.current_time() - start
        cpu = time.process_time() - cpu
    sys.stdout.buffer.write(msgspec.json.encode(Latencies(ms, failed, took, cpu)) + b"\n")


async def clients_around(
    url: str,
    args: argparse.Namespace,
    seconds: float,
    during: Callable[[], Awaitable[T]] | None = None,
) -> tuple[Latencies, T | None]:
    """The client process against `url` for `seconds` from its `ready`, and what `during`
    (if given) returned: it runs from the clients' `ready` on."""
    command = [
        sys.executable,
        __file__,
        "--client",
        url,
        "--clients",
        str(args.clients),
        "--interval",
        str(args.interval),
        "--seconds",
        str(seconds),
    ]
    process = await trio.lowlevel.open_process(command, stdout=subprocess.PIPE)
    assert process.stdout is not None
    received = b""
    window = None
    try:
        while b"ready\n" not in received:
            chunk = await process.stdout.receive_some()
            if not chunk:
                raise BenchError(f"the client process ended before it was ready: {received!r}")
            received += chunk
        received = received.split(b"ready\n", 1)[1]
        if during is not None:
            window = await during()
        while chunk := await process.stdout.receive_some():
            received += chunk
        await process.wait()
    finally:
        if process.returncode is None:
            process.kill()
            with trio.CancelScope(shield=True):
                await process.wait()
    if process.returncode != 0:
        raise BenchError(f"the client process failed (exit {process.returncode})")
    return msgspec.json.decode(received, type=Latencies), window


def part_load(root: Path, args: argparse.Namespace) -> list[Row]:
    window = args.load_window
    print(
        f"\n2. {args.clients} clients (their own process) each sending GET {LEADERBOARD} every"
        f" {args.interval:g} s, while {args.load_jobs} games run ({args.bots} bots, Python,"
        f" {args.load_move_ms:g} ms a decision, unsandboxed): {window:g} s windows without the"
        f" clients, with them, without, after {args.warmup:g} s"
    )
    folder = root / "ladder"
    make_ladder(folder, root / "bots", args.ruleset, args.bots, args.load_move_ms)
    ladder = Ladder(folder, args.load_jobs, sandboxed=False, seed=args.seed + 100)

    async def run() -> tuple[Window, Latencies, Window, Window, bytes]:
        async with ladder.running():
            await trio.sleep(args.warmup)
            quiet = Mark.now()
            await trio.sleep(window)
            marks = [quiet, Mark.now()]

            async def sending() -> tuple[Mark, Mark]:  # (from the clients' ready on)
                start = Mark.now()
                await trio.sleep(window)
                return start, Mark.now()

            latencies, loaded = await clients_around(ladder.address, args, window, sending)
            assert loaded is not None
            quiet = Mark.now()
            await trio.sleep(window)
            marks += [*loaded, quiet, Mark.now()]
            async with httpx.AsyncClient(base_url=ladder.address) as client:
                body = (await client.get(LEADERBOARD)).content
            await ladder.journal.tail()
            before, during, after = (
                ladder.journal.window(marks[i], marks[i + 1]) for i in (0, 2, 4)
            )
            print(f"  without clients: {before}")
            print(f"  with clients:    {during}")
            print(f"  without clients: {after}; load {os.getloadavg()[0]:.1f}")
            print(f"  the clients: {latencies}")
            return before, latencies, during, after, body

    before, latencies, during, after, body = trio.run(run)
    print_notes(ladder.notes)
    bare = trio.run(bare_latencies, body, args)
    print(f"  bare Starlette app, the same {len(body):,}-byte answer, no games: {bare}")
    quiet = (before.rate + after.rate) / 2
    quiet_d = (before.decision_rate + after.decision_rate) / 2
    p50, p99 = latencies.percentile(50), latencies.percentile(99)
    return [
        Row(
            2,
            f"leaderboard p50, {args.clients} clients, {args.load_jobs} games",
            f"{p50:.1f} ms",
            f"bare app {bare.percentile(50):.1f} ms",
            p50 / bare.percentile(50),
            "",
            None,
        ),
        Row(
            2,
            f"leaderboard p99, {args.clients} clients, {args.load_jobs} games",
            f"{p99:.1f} ms",
            f"bare app {bare.percentile(99):.1f} ms",
            p99 / bare.percentile(99),
            f"< {GOAL_P99_MS:g} ms",
            p99 < GOAL_P99_MS,
        ),
        Row(
            2,
            f"games/s with the clients vs without ({args.load_jobs} at once)",
            f"{during.rate:.2f} games/s",
            f"without {quiet:.2f}",
            during.rate / quiet,
            f"ratio >= {GOAL_RATIO:g}",
            during.rate / quiet >= GOAL_RATIO,
        ),
        Row(
            2,
            "decisions/s, the same (no luck of game lengths)",
            f"{during.decision_rate:.0f} /s",
            f"without {quiet_d:.0f}",
            during.decision_rate / quiet_d,
            "",
            None,
        ),
    ]


async def bare_latencies(body: bytes, args: argparse.Namespace) -> Latencies:
    """The clients against a bare Starlette app on Hypercorn's trio worker answering `body`
    at GET /api/leaderboard: the floor of an answer on this machine."""

    async def leaderboard(request: Request) -> Response:
        return Response(body, media_type="application/json")

    app = Starlette(routes=[Route(LEADERBOARD, leaderboard)])
    config = HypercornConfig()
    config.bind = ["127.0.0.1:0"]
    config.accesslog = None
    config.errorlog = None
    stop = trio.Event()
    async with trio.open_nursery() as nursery:
        binds = await nursery.start(
            lambda task_status: serve(
                cast(Any, app), config, shutdown_trigger=stop.wait, task_status=task_status
            )
        )
        latencies, _ = await clients_around(binds[0], args, args.bare_seconds)
        stop.set()
    return latencies


# -- part 3: a table among 1,000 bots -----------------------------------------------------------


def part_table(calls: int) -> list[Row]:
    """The median time of `next_table` among 1,000 bots, beside the one-pass baseline (the
    field and the baseline of bench/matchmaking.py)."""
    (ours, ours_cpu), (base, base_cpu) = table_times(calls)
    print(f"\n3. a table among 1,000 active bots (500 authors, 2 and 4 seats), median of {calls}:")
    print(f"  next_table {ours:.3f} ms (cpu {ours_cpu:.3f}); baseline {base:.3f} ms (cpu ", end="")
    print(f"{base_cpu:.3f}): min by games, a sort by rating distance")
    return [
        Row(
            3,
            "next_table among 1,000 active bots",
            f"{ours:.3f} ms",
            f"one pass {base:.3f} ms",
            ours / base,
            f"< {GOAL_TABLE_MS:g} ms",
            ours < GOAL_TABLE_MS,
        )
    ]


# -- part 4: the live table's fits ------------------------------------------------------------


def part_refits(bots: int, count: int, new: int, refits: int) -> list[Row]:
    """The live fit from scratch and a refit after `new` games, on bench/live_ratings.py's
    synthetic games, beside its baselines."""
    import numpy as np

    from arena.league.live_ratings import LiveRatings

    rng = np.random.default_rng(1)
    names = [f"bot{i}" for i in range(bots)]
    seats, seat_bots, ranks, seeds = synthetic(rng, rng.normal(0.0, 1.0, bots), count)
    passing = one_pass(seats, seat_bots, ranks, seeds, bots)
    spd = rng.random((bots, bots))
    spd = spd @ spd.T + bots * np.eye(bots)
    inverting = fastest(3, lambda: np.linalg.inv(spd))
    live = LiveRatings(names)
    with Clock() as scratch:
        live.extend(seats, seat_bots, ranks, seeds)
        live.table()
    clocks = []
    next_seed = 2**40
    for _ in range(refits):
        for _ in range(new):
            k = int(rng.integers(2, 7))
            table = rng.choice(bots, k, replace=False)
            live.add([names[b] for b in table], list(rng.permutation(k) + 1), next_seed)
            next_seed += 1
        with Clock() as refit:
            live.table()
        clocks.append(refit)
    wall = statistics.median(c.wall for c in clocks)
    cpu = statistics.median(c.cpu for c in clocks)
    print(
        f"\n4. the live table, {bots:,} bots, {seats.size:,} games of 2-6 seats "
        f"(bench/live_ratings.py's), one BLAS thread unless OPENBLAS_NUM_THREADS says otherwise:"
    )
    print(f"  fit from scratch {scratch.wall:.2f} s (cpu {scratch.cpu:.2f})")
    print(f"  refit after {new} new games, median of {refits}: {wall:.2f} s (cpu {cpu:.2f})")
    print(
        f"  baselines: one pass over the results {passing.wall:.3f} s, one inversion of "
        f"{bots} x {bots} {inverting.wall:.3f} s"
    )
    size = f"{bots:,} bots, {count / 1e6:g}M games"
    return [
        Row(
            4,
            f"live fit from scratch ({size})",
            f"{scratch.wall:.2f} s",
            f"one pass {passing.wall:.3f} s",
            scratch.wall / passing.wall,
            f"< {GOAL_FIT_S:g} s",
            scratch.wall < GOAL_FIT_S,
        ),
        Row(
            4,
            f"refit after {new} new games ({size})",
            f"{wall:.2f} s",
            f"one inversion {inverting.wall:.3f} s",
            wall / inverting.wall,
            f"< {GOAL_REFIT_S:g} s",
            wall < GOAL_REFIT_S,
        ),
    ]


def one_pass(seats: Any, seat_bots: Any, ranks: Any, seeds: Any, bots: Any) -> Clock:
    """bench/live_ratings.py's baseline for a fit: one numpy pass over the games' pairwise
    results (their weights summed per pair of bots), the fastest of 3."""
    import numpy as np

    columns = result_columns(seats, seat_bots, ranks, seeds)
    return fastest(
        3, lambda: np.bincount(columns.a * bots + columns.b, columns.weight, minlength=bots**2)
    )


# -- part 5: submission to first rated game --------------------------------------------------


def archive_of(folder: Path) -> bytes:
    """The bot folder as a .tar.gz of its files (as `tar czf A -C folder .` packs it)."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as tar:
        for path in sorted(folder.iterdir()):
            tar.add(path, arcname=path.name)
    return out.getvalue()


class Submission(msgspec.Struct, frozen=True):
    """One submission's moments, in seconds from the POST: answered, active, first game."""

    answered: float
    active: float
    first_game: float


def part_submit(root: Path, args: argparse.Namespace) -> list[Row]:
    print(
        f"\n5. submission to first rated game of a Python bot (a random player), the server "
        f"sandboxed (bubblewrap), {args.submit_bots} sleeper bots ({args.move_ms:g} ms a "
        f"decision) playing, {args.submit_jobs} games at once:"
    )
    folder = root / "ladder"
    sleepers = make_ladder(folder, root / "bots", args.ruleset, args.submit_bots, args.move_ms)
    random_py = (EXAMPLES / "random-py" / "bot.py").read_text()
    submitted = [
        write_bot(root / "new" / f"newcomer-{k}", f"newcomer-{k}", f"# {k}\n{random_py}")
        for k in range(1, args.submissions + 1)
    ]
    with LadderStore.open(folder, writer=False) as store:
        tokens = [store.create_author(f"submitter-{k}")[1] for k in range(1, len(submitted) + 1)]
    ladder = Ladder(folder, args.submit_jobs, sandboxed=True, seed=args.seed + 200)
    config = LadderConfig(ruleset=args.ruleset, seats=SEATS)

    async def run() -> tuple[float, float, list[Submission]]:
        async with ladder.running(), httpx.AsyncClient(base_url=ladder.address) as client:
            while (await client.get("/api/games")).json()["total"] < 1:
                await trio.sleep(0.1)
            # the baseline: validation and one game, directly, beside the same games
            probe = root / "probe"
            shutil.copytree(submitted[0], probe)
            start = time.perf_counter()
            verdict = await validate(probe, config, SANDBOX)
            validated = time.perf_counter() - start
            if not verdict.accepted:
                raise BenchError(f"the submitted bot was not accepted: {verdict.reason}")
            spec = msgspec.structs.replace(load_bot(str(probe)), sandbox=SANDBOX)
            opponent = msgspec.structs.replace(load_bot(str(sleepers[0])), sandbox=SANDBOX)
            referee = RefereeConfig(limits=config.time.limits(), margin_ms=config.time.margin_ms())
            start = time.perf_counter()
            await play_game(args.ruleset, [spec, opponent], seed=99, config=referee)
            game = time.perf_counter() - start
            print(
                f"  baseline: validate() {validated:.2f} s ({verdict.reason}), then one game"
                f" {game:.2f} s"
            )
            times = []
            for bot, token in zip(submitted, tokens, strict=True):
                times.append(await submit(client, bot, token))
                print(
                    f"  {bot.name}: answered {times[-1].answered:.2f} s, active "
                    f"{times[-1].active:.2f} s, first rated game {times[-1].first_game:.2f} s"
                )
            return validated, game, times

    validated, game, times = trio.run(run)
    print_notes(ladder.notes)
    seats = [seat for record in read_records(folder / "games.jsonl") for seat in record.seats]
    if not all(seat.sandboxed for seat in seats):
        raise BenchError("a bot of the sandboxed ladder played unsandboxed")
    print(f"  the ladder's games: every one of their {len(seats)} seats sandboxed")
    worst = max(t.first_game for t in times)
    middle = statistics.median(t.first_game for t in times)
    base = validated + game
    return [
        Row(
            5,
            f"submit to first rated game (median, worst of {len(times)})",
            f"{middle:.2f}, {worst:.2f} s",
            f"validate + a game {base:.2f} s",
            worst / base,
            f"< {GOAL_SUBMIT_S:g} s",
            worst < GOAL_SUBMIT_S,
        )
    ]


async def submit(client: httpx.AsyncClient, bot: Path, token: str) -> Submission:
    """POST the bot's archive, then poll its version's status and its games every 50 ms:
    the seconds until the answer, until it is active and until a game of it is journaled."""
    data = archive_of(bot)
    start = time.perf_counter()
    answer = await client.post(
        "/api/bots",
        files={"archive": ("bot.tar.gz", data)},
        headers={"Authorization": f"Bearer {token}"},
    )
    answered = time.perf_counter() - start
    if answer.status_code != 201:
        raise BenchError(f"the upload of {bot.name} was refused: {answer.text}")
    active = math.nan
    while True:
        if math.isnan(active):
            version = (await client.get(f"/api/bots/{bot.name}")).json()["versions"][0]
            if version["status"] == "active":
                active = time.perf_counter() - start
            elif version["status"] != "validating":
                raise BenchError(f"{bot.name} is {version['status']}: {version['reason']}")
        games = (await client.get("/api/games", params={"bot": bot.name})).json()["total"]
        if games >= 1:
            return Submission(answered, active, time.perf_counter() - start)
        if time.perf_counter() - start > 120:
            raise BenchError(f"{bot.name} played no game within 120 s of its upload")
        await trio.sleep(0.05)


if __name__ == "__main__":
    main()
