"""`arena check-bot`: play a bot through games against random opponents, in every seat, report
every problem, and, for a bot in the sandbox, what it tried to reach, (arena running as root)
which of its files the sandbox's user cannot read and, only when asked, whether it works
without the sandbox.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Callable, Sequence
from typing import Any

import msgspec

from arena.games import GameConfigError, Ruleset
from arena.games.text import counted
from arena.referee.bot import BotProcess
from arena.referee.faults import cause, hint
from arena.referee.folders import BotSpec
from arena.referee.game import Connection, RefereeConfig, play_game
from arena.referee.local import LocalBot, random_decider
from arena.referee.records import Fault, GameRecord, Move
from arena.referee.sandbox import SYSTEM, executable, reached, within
from arena.referee.trace import Trace, TracedBotProcess


class Problem(msgspec.Struct, frozen=True):
    """One fault of the checked bot, with the game it happened in and the bot's stderr."""

    ruleset: str
    players: int
    seed: int
    fault: Fault
    stderr: str

    @property
    def seat(self) -> int:
        """The seat the checked bot played in that game."""
        return self.fault.seat

    @property
    def game(self) -> str:
        """The game, in words: "odin (2 players, seat 0, seed 2000)"."""
        players = counted(self.players, "player")
        return f"{self.ruleset} ({players}, seat {self.seat}, seed {self.seed})"

    @property
    def hint(self) -> str:
        """The hint for the bot's author, fitted to the fault's cause (`faults.hint`)."""
        return hint(self.fault.kind, self.fault.reason, self.stderr)

    @property
    def cause(self) -> str:
        """What the problems of one cause share (`faults.cause`)."""
        return cause(self.fault.kind, self.fault.reason)


class ProblemGroup(msgspec.Struct, frozen=True):
    """Problems of one cause (`Problem.cause`), in the order they happened."""

    problems: list[Problem]

    @property
    def first(self) -> Problem:
        return self.problems[0]

    @property
    def alike(self) -> bool:
        """Whether every problem of the group reads the same (the same fault sentence)."""
        sentence = self.first.fault.sentence()
        return all(p.fault.sentence() == sentence for p in self.problems)


def grouped(problems: Sequence[Problem]) -> list[ProblemGroup]:
    """The problems by cause, each cause where its first problem came."""
    causes: dict[str, list[Problem]] = {}
    for p in problems:
        causes.setdefault(p.cause, []).append(p)
    return [ProblemGroup(group) for group in causes.values()]


class CheckReport(msgspec.Struct):
    """What check-bot found: games and decisions played, the longest decision (faulted ones
    included: a timeout counts its whole wait), the problems and the sandbox's verdict."""

    games: int = 0
    decisions: int = 0  # the decisions the bot was asked, the one it faulted on included
    slowest_ms: float = 0.0
    slowest_faulted: bool = False  # whether the longest decision was one the bot faulted on
    problems: list[Problem] = msgspec.field(default_factory=list)
    sandboxed: bool = False  # whether the bot ran inside the sandbox
    # with problems in the sandbox, played again without it (only when asked): fine there?
    outside_ok: bool | None = None  # None: not played without it
    reached: list[str] = msgspec.field(default_factory=list)  # what the sandbox kept from it
    # arena as root, problems in the sandbox: its files the throwaway user cannot read
    unreadable: list[str] = msgspec.field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def asked_moves(record: GameRecord, seat: int) -> list[Move]:
    """The moves of `seat` that its bot was asked for: those it made, and the one it faulted
    on (whose `ms` is the time it had before the fault)."""
    faulted_at = {f.decision for f in record.faults if f.seat == seat}
    return [
        m
        for i, m in enumerate(record.moves)
        if m.seat == seat and (m.by == "bot" or i in faulted_at)
    ]


async def _game(
    spec: BotSpec,
    ruleset: str,
    players: int,
    seat: int,
    seed: int,
    config: RefereeConfig | None,
    trace: Trace | None = None,
) -> tuple[GameRecord, bool]:
    """One game of `spec` in `seat` against random in-process bots (the bot's lines traced
    with `trace`); and whether it ran sandboxed."""
    opponents = {
        s: BotSpec(f"random-{s}", ["(in-process random bot)"]) for s in range(players) if s != seat
    }
    specs = [opponents.get(s, spec) for s in range(players)]
    started: list[BotProcess] = []

    def connect(s: BotSpec) -> Connection:
        if s is spec:
            started.append(BotProcess(s) if trace is None else TracedBotProcess(s, trace, seat))
            return started[-1]
        return LocalBot(s, random_decider(f"{s.name}:{seed}"))

    record = await play_game(ruleset, specs, seed=seed, config=config, connect=connect, trace=trace)
    return record, any(p.sandboxed for p in started)


def games_per_count(games: int, players: int) -> int:
    """Games played per ruleset and player count: `games`, but at least one per seat."""
    return max(games, players)


def allowed_players(ruleset: Ruleset[Any]) -> str:
    """The player counts a ruleset allows, in words: "1 player only", "2 to 6 players"."""
    low, high = ruleset.min_players, ruleset.max_players
    if low == high:
        return f"{counted(low, 'player')} only"
    if high == low + 1:
        return f"{low} or {high} players"
    return f"{low} to {high} players"


def player_counts(ruleset: Ruleset[Any], players: Sequence[int] | None = None) -> list[int]:
    """The player counts check-bot tries in `ruleset`: those asked (`players`), each allowed
    by the ruleset (else GameConfigError, naming the counts it allows), or else its fewest
    and its most."""
    if not players:
        return sorted({ruleset.min_players, ruleset.max_players})
    for n in players:
        if not ruleset.min_players <= n <= ruleset.max_players:
            raise GameConfigError(f"{ruleset.id} takes {allowed_players(ruleset)}, not {n}")
    return sorted(set(players))


async def check_bot(
    spec: BotSpec,
    rulesets: Sequence[Ruleset[Any]],
    *,
    games: int = 2,
    config: RefereeConfig | None = None,
    on_game: Callable[[GameRecord, int], None] | None = None,
    try_unsandboxed: bool = False,
    on_unsandboxed: Callable[[Problem], None] | None = None,
    players: Sequence[int] | None = None,
    trace: Trace | None = None,
) -> CheckReport:
    """Play `spec` with the fewest and the most players of each ruleset (or with each of
    `players`, which every ruleset must allow: else GameConfigError before any game), in
    every seat: `games_per_count` games each, game g in seat g mod players. `on_game` hears
    of each game and the bot's seat in it; `trace` gets the bot's lines of every game.

    If it has problems inside the sandbox, its error output is searched for what it tried
    to reach that the sandbox keeps from it; when arena runs as root, its files that others
    may not read are listed too (the sandbox runs it as another user). A bot in the sandbox
    never runs outside it, unless `try_unsandboxed`: then the first game it had a problem
    in is played again without the sandbox (to tell whether the sandbox is the cause), the
    bot running as the user running arena, unconfined; `on_unsandboxed` hears of that
    problem first."""
    report = CheckReport()
    counts = {ruleset.id: player_counts(ruleset, players) for ruleset in rulesets}
    for ruleset in rulesets:
        for n in counts[ruleset.id]:
            for g in range(games_per_count(games, n)):
                seat = g % n
                seed = 1000 * n + g
                record, sandboxed = await _game(spec, ruleset.id, n, seat, seed, config, trace)
                report.sandboxed |= sandboxed
                report.games += 1
                asked = asked_moves(record, seat)
                report.decisions += len(asked)
                for move in asked:
                    if move.ms > report.slowest_ms:
                        report.slowest_ms, report.slowest_faulted = move.ms, move.by != "bot"
                for fault in record.faults:
                    if fault.seat == seat:
                        problem = Problem(ruleset.id, n, seed, fault, record.stderr[seat])
                        report.problems.append(problem)
                if on_game is not None:
                    on_game(record, seat)
    if report.sandboxed and report.problems:
        if try_unsandboxed:
            first = report.problems[0]
            if on_unsandboxed is not None:
                on_unsandboxed(first)
            plain = msgspec.structs.replace(spec, sandbox=None)
            record, _ = await _game(
                plain, first.ruleset, first.players, first.fault.seat, first.seed, config, trace
            )
            report.outside_ok = not any(f.seat == first.fault.seat for f in record.faults)
        argv = spec.argv()
        for p in report.problems:
            for item in reached(p.stderr, argv, cwd=spec.cwd, folder=spec.folder):
                if item not in report.reached:
                    report.reached.append(item)
        if os.geteuid() == 0:
            report.unreadable = unreadable_files(argv, cwd=spec.cwd, folder=spec.folder)
    return report


MAX_LISTED = 20  # unreadable files named, at most


def _mode_problem(path: str, st: os.stat_result, program: bool) -> str | None:
    """What another user (neither owner nor group) may not do with this file or folder that a
    bot needs: read a file, run its program (or any file its owner may run), list and
    enter a folder; None if nothing."""
    mode = stat.S_IMODE(st.st_mode)
    if stat.S_ISDIR(st.st_mode):
        if mode & (stat.S_IROTH | stat.S_IXOTH) != stat.S_IROTH | stat.S_IXOTH:
            return f"{path}/ (mode {mode:04o}: others cannot list or enter it)"
        return None
    if not mode & stat.S_IROTH:
        return f"{path} (mode {mode:04o}: others cannot read it)"
    if (program or mode & stat.S_IXUSR) and not mode & stat.S_IXOTH:
        return f"{path} (mode {mode:04o}: others cannot run it)"
    return None


def unreadable_files(
    argv: Sequence[str], *, cwd: str | None, folder: str | None = None
) -> list[str]:
    """The bot's files that a throwaway unprivileged user (what a sandboxed bot runs as when
    arena is root) may not use, each with why: its folder and everything in it, and the
    command's program when it lies outside the folder and the system. At most MAX_LISTED,
    then how many more."""
    cwd = os.path.abspath(cwd or os.getcwd())
    exe = executable(argv[0], cwd) if argv else None
    found = _walk_modes(folder, exe) if folder is not None else []
    if (
        exe is not None
        and not (folder and within(exe, folder))
        and not any(within(exe, d) for d in SYSTEM)
    ):
        with contextlib.suppress(OSError):
            if (why := _mode_problem(exe, os.stat(exe), True)) is not None:
                found.append(why)
    if len(found) > MAX_LISTED:
        found = [*found[:MAX_LISTED], f"... and {len(found) - MAX_LISTED} more"]
    return found


def _walk_modes(folder: str, exe: str | None) -> list[str]:
    """`_mode_problem` of `folder` and of everything in it, in name order, not looking into a
    folder others cannot enter (symbolic links are left out: their targets count)."""
    found: list[str] = []
    pending = [folder]
    while pending:
        path = pending.pop()
        try:
            st = os.lstat(path)
        except OSError:
            continue
        if stat.S_ISLNK(st.st_mode):
            continue
        if (why := _mode_problem(path, st, path == exe)) is not None:
            found.append(why)
            continue
        if stat.S_ISDIR(st.st_mode):
            with contextlib.suppress(OSError):
                pending += [os.path.join(path, e) for e in sorted(os.listdir(path), reverse=True)]
    return found
