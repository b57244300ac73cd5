"""Referee benchmark: a decision through the referee against the round trip and the rules work.

Run it with `bash bench/run referee`. Two trivial bots, each always answering the first legal
action, are measured: one in C (compiled here with `cc`, skipped when there is none) and one
in Python (through `protocol.bot`). For each bot, in pairs, the two bots' pairs interleaved:

- referee: a whole game of `odin` through `arena.referee.game.play_game`, two seats of the
  same bot, timed from the first decision to the last (start-up and shut-down excluded);
- raw: that game's own request lines, each sent over a plain blocking pipe to its seat's
  process of the same bot (one per seat, as in the game) and its answer read: the least any
  referee could spend on the round trips;
- rules: the same game played again in process, timing only the rules calls the referee
  makes at each decision (whose turn, the legal actions, the seat's events and observation,
  applying the answer): the work no referee of these rules can skip;
- raw on trio: the same lines through trio's pipe streams, for information.

Goal: referee <= 2 x (raw + rules) per decision, for both bots: what the referee adds
(encoding the request, decoding and checking the answer, the clock, the record, the event
loop) costs no more than the round trip and the rules work together. Each game is paired
with the raw and rules figures measured right after it and the figure of merit is the
median of the per-pair ratios, since timings drift with what else the machine runs.
Everything is pinned to one core by default (`--no-pin` to leave it to the scheduler): on
two cores a round trip costs 3-10 times more when the bot lands on the other core, and
where each process lands is luck.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio
from common import BOT_SOURCE, HELLO, compile_c_bot

from arena.games import GameState, new_game
from arena.referee.bot import BotProcess
from arena.referee.folders import BotSpec
from arena.referee.game import play_game
from protocol.messages import Request, encode_line

GOAL_RATIO = 2.0
RULESET = "odin"
PLAYERS = 2


def python_bot(folder: Path) -> BotSpec:
    """The trivial Python bot (first legal action, through protocol.bot), written in `folder`."""
    path = folder / "first_choice.py"
    path.write_text(BOT_SOURCE)
    return BotSpec("first-choice-py", [sys.executable, str(path)])


def c_bot(folder: Path) -> BotSpec | str:
    """The trivial C bot compiled in `folder`, or why it could not be."""
    made = compile_c_bot(folder)
    return made if isinstance(made, str) else BotSpec("first-choice-c", [str(made)])


def pin(no_pin: bool) -> str:
    """Pin this process (and so every bot it starts) to one core; say where."""
    if no_pin:
        return f"not pinned ({len(os.sched_getaffinity(0))} cores)"
    core = min(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {core})
    return f"pinned to core {core} (the bots too)"


def cpu_ns(pids: list[int]) -> int:
    """CPU time used so far, in ns, by this process (all its threads) and by the processes
    `pids` (their main thread: the trivial bots have no other)."""
    total = time.process_time_ns()
    for pid in pids:
        with open(f"/proc/{pid}/schedstat", "rb") as fh:
            total += int(fh.read().split()[0])
    return total


Lines = list[tuple[int, bytes]]  # a game's request lines, each with the seat it goes to


class RawBots:
    """One process of the bot per seat, on plain blocking pipes."""

    def __init__(self, spec: BotSpec) -> None:
        self.procs = [
            subprocess.Popen(spec.argv(), stdin=subprocess.PIPE, stdout=subprocess.PIPE)
            for _ in range(PLAYERS)
        ]
        self.time([(seat, HELLO) for seat in range(PLAYERS)])

    def time(self, lines: Lines) -> tuple[float, float]:
        """Seconds for one round trip of each line to its seat's process: wall, and CPU (this
        process and the bots)."""
        ends = []
        for proc in self.procs:
            assert proc.stdin is not None and proc.stdout is not None
            ends.append((proc.stdin.write, proc.stdin.flush, proc.stdout.readline))
        pids = [proc.pid for proc in self.procs]
        cpu, start = cpu_ns(pids), time.perf_counter()
        for seat, line in lines:
            write, flush, readline = ends[seat]
            write(line)
            flush()
            readline()
        return time.perf_counter() - start, (cpu_ns(pids) - cpu) / 1e9

    def close(self) -> None:
        for proc in self.procs:
            proc.kill()
            proc.wait()


class TrioBots:
    """One process of the bot per seat, on trio's pipe streams as trio offers them."""

    def __init__(self, procs: list[trio.Process]) -> None:
        self.procs = procs

    @classmethod
    async def start(cls, spec: BotSpec) -> TrioBots:
        procs = [
            await trio.lowlevel.open_process(
                spec.argv(), stdin=subprocess.PIPE, stdout=subprocess.PIPE
            )
            for _ in range(PLAYERS)
        ]
        bots = cls(procs)
        await bots.time([(seat, HELLO) for seat in range(PLAYERS)])
        return bots

    async def time(self, lines: Lines) -> float:
        """Seconds for one round trip of each line to its seat's process."""
        ends = []
        for proc in self.procs:
            assert proc.stdin is not None and proc.stdout is not None
            ends.append((proc.stdin, proc.stdout))
        start = time.perf_counter()
        for seat, line in lines:
            stdin, stdout = ends[seat]
            await stdin.send_all(line)
            answer = await stdout.receive_some(65536)
            assert answer.endswith(b"\n")  # one short line arrives whole
        return time.perf_counter() - start

    async def close(self) -> None:
        for proc in self.procs:
            proc.kill()
            await proc.wait()


async def referee_game(spec: BotSpec, seed: int) -> tuple[int, float, float]:
    """One game through the referee: decisions, and seconds from the first decision to the
    end, wall and CPU (the referee's process and the bots)."""
    marks: list[tuple[float, int]] = []
    bots: list[BotProcess] = []

    def connect(spec: BotSpec) -> BotProcess:
        bots.append(BotProcess(spec))
        return bots[-1]

    def observe(state: GameState[Any, Any], events: object) -> None:
        # The first call comes before the first decision, the last once the game is over.
        if not marks or state.is_terminal:
            pids = [b.process.pid for b in bots if b.process is not None]
            marks.append((time.perf_counter(), cpu_ns(pids)))

    record = await play_game(
        RULESET, [spec] * PLAYERS, seed=seed, observer=observe, connect=connect
    )
    assert not record.faults, record.faults
    (wall0, cpu0), (wall1, cpu1) = marks[0], marks[-1]
    return len(record.moves), wall1 - wall0, (cpu1 - cpu0) / 1e9


def request_lines(seed: int) -> Lines:
    """Every request line of the game `referee_game` plays (the first action at every
    decision), byte for byte as the referee builds them with its default clock, each with
    the seat it is sent to."""
    state, cursor, lines = new_game(RULESET, PLAYERS, None, seed), [0] * PLAYERS, []
    while not state.is_terminal:
        seat = state.current_player
        assert seat is not None
        legal = state.legal_actions()
        events = state.events_for(seat, cursor[seat])
        cursor[seat] = state.event_count
        request = Request(
            decision=len(lines),
            observation=state.observation(seat),
            actions=legal,
            events=events,
            time_ms=1000,
            bank_ms=0,
        )
        lines.append((seat, encode_line(request)))
        state.apply(legal[0])
    return lines


def rules_work(seed: int) -> tuple[float, float]:
    """Seconds the rules calls of that game take in process: those the referee makes at each
    decision, and nothing else (the game is dealt before the clock starts, as the referee
    deals it before its first decision)."""
    state, cursor = new_game(RULESET, PLAYERS, None, seed), [0] * PLAYERS
    cpu, start = time.process_time_ns(), time.perf_counter()
    while not state.is_terminal:
        seat = state.current_player
        assert seat is not None
        legal = state.legal_actions()
        state.events_for(seat, cursor[seat])
        cursor[seat] = state.event_count
        state.observation(seat)
        state.apply(legal[0])
    return time.perf_counter() - start, (time.process_time_ns() - cpu) / 1e9


KINDS = ("referee", "raw", "rules")  # measured in wall and CPU time; "trio" in wall time only


@dataclass
class Bench:
    """One bot's measurements: per pair, microseconds per decision of each kind, wall time
    (`wall`) and CPU time of every process taking part (`cpu`)."""

    spec: BotSpec
    raw: RawBots
    trio_bots: TrioBots
    decisions: list[int] = field(default_factory=list)
    wall: dict[str, list[float]] = field(default_factory=lambda: {k: [] for k in (*KINDS, "trio")})
    cpu: dict[str, list[float]] = field(default_factory=lambda: {k: [] for k in KINDS})

    async def pair(self, seed: int) -> None:
        """A game through the referee, then its lines' raw round trips and its rules work."""
        n, *referee = await referee_game(self.spec, seed)
        lines = request_lines(seed)
        assert len(lines) == n, (len(lines), n)
        self.decisions.append(n)
        for kind, (wall, cpu) in zip(
            KINDS, (referee, self.raw.time(lines), rules_work(seed)), strict=True
        ):
            self.wall[kind].append(wall / n * 1e6)
            self.cpu[kind].append(cpu / n * 1e6)
        self.wall["trio"].append(await self.trio_bots.time(lines) / n * 1e6)


async def measure(specs: list[BotSpec], seconds: float) -> list[Bench]:
    """Pairs for every bot, interleaved, until `seconds` pass (at least 3 each)."""
    benches = [Bench(s, RawBots(s), await TrioBots.start(s)) for s in specs]
    try:
        warm = request_lines(10_000)
        for b in benches:  # warm-up
            b.raw.time(warm)
            await b.trio_bots.time(warm)
            await referee_game(b.spec, 10_000)
        started, seed = time.perf_counter(), 0
        while time.perf_counter() - started < seconds or seed < 3:
            for b in benches:
                await b.pair(seed)
            seed += 1
    finally:
        for b in benches:
            b.raw.close()
            await b.trio_bots.close()
    return benches


def ratios(us: dict[str, list[float]]) -> list[float]:
    """Per pair: referee / (raw + rules)."""
    return [r / (a + b) for r, a, b in zip(us["referee"], us["raw"], us["rules"], strict=True)]


def report(b: Bench) -> bool:
    """Print one bot's figures; whether it meets the goal (in wall time)."""
    med = {k: statistics.median(v) for k, v in b.wall.items()}
    cpu = {k: statistics.median(v) for k, v in b.cpu.items()}
    for us, per_pair in ((med, b.wall), (cpu, b.cpu)):
        sums = (x + y for x, y in zip(per_pair["raw"], per_pair["rules"], strict=True))
        us["sum"] = statistics.median(sums)
    games, per_game = len(b.decisions), statistics.mean(b.decisions)
    print(f"\n{b.spec.name}: {games} paired games, {per_game:.0f} decisions a game")
    print(f"  {'us per decision (median)':36}{'wall':>8}{'CPU':>8}  {'decisions/s':>11}")
    rows = (
        ("raw pipe round trip (blocking)", "raw"),
        ("rules work, in process", "rules"),
        ("raw + rules", "sum"),
        ("raw, on trio's pipes (information)", "trio"),
        ("through the referee", "referee"),
    )
    for label, key in rows:
        used = f"{cpu[key]:8.1f}" if key in cpu else f"{'':8}"
        print(f"  {label:36}{med[key]:8.1f}{used}  {1e6 / med[key]:11,.0f}")
    wall_ratios, cpu_ratios = ratios(b.wall), ratios(b.cpu)
    ratio, q = statistics.median(wall_ratios), statistics.quantiles(wall_ratios, n=4)
    met = ratio <= GOAL_RATIO
    print(
        f"  referee / (raw + rules): median {ratio:.2f} (quartiles {q[0]:.2f}-{q[2]:.2f})"
        f"   goal <= {GOAL_RATIO:g}: {'met' if met else 'NOT met'}"
    )
    q = statistics.quantiles(cpu_ratios, n=4)
    print(
        f"  the same in CPU time: median {statistics.median(cpu_ratios):.2f} "
        f"(quartiles {q[0]:.2f}-{q[2]:.2f})"
    )
    raw_ratio = statistics.median(
        r / w for r, w in zip(b.wall["referee"], b.wall["raw"], strict=True)
    )
    print(f"  referee / raw: median {raw_ratio:.2f} (information)")
    return met


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--seconds", type=float, default=30.0, help="how long to measure, all bots together"
    )
    parser.add_argument("--no-pin", action="store_true", help="do not pin to one core")
    parser.add_argument(
        "--bots", default="c,python", help="which trivial bots, comma-separated: c, python"
    )
    args = parser.parse_args()
    where = pin(args.no_pin)
    wanted = {w.strip() for w in args.bots.split(",") if w.strip()}
    if not wanted or wanted - {"c", "python"}:
        parser.error("--bots: a comma-separated list of c and python")

    with tempfile.TemporaryDirectory() as tmp:
        specs: list[BotSpec] = []
        if "c" in wanted:
            made = c_bot(Path(tmp))
            if isinstance(made, str):
                print(f"the C bot is left out: {made}")
            else:
                specs.append(made)
        if "python" in wanted:
            specs.append(python_bot(Path(tmp)))
        if not specs:
            sys.exit("no bot to measure")
        benches = trio.run(measure, specs, args.seconds)
    sample = request_lines(0)
    print(
        f"{RULESET}, {PLAYERS} seats of the same bot; {where}; request lines of "
        f"{min(len(line) for _, line in sample)}-{max(len(line) for _, line in sample)} bytes"
    )
    verdicts = [report(b) for b in benches]
    print(f"\ngoal referee <= {GOAL_RATIO:g} x (raw + rules): ", end="")
    print("met for every bot" if all(verdicts) else "NOT met for every bot")


if __name__ == "__main__":
    main()
