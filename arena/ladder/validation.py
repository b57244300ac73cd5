"""A submitted version's validation, as a ladder's validation episode: built in its sandbox,
then played in every seat of every table size the ladder uses, against random players (with
check-bot's checks: `arena.referee.check.check_bot`) and against copies of itself. A version
with no fault is accepted; one whose build fails or that faults is rejected, with one
sentence saying why and a report its author can read (every problem, grouped by cause, with
a hint and the end of the bot's error output).
"""

from __future__ import annotations

from pathlib import Path

import msgspec
import trio

from arena.games import get_ruleset
from arena.games.text import counted
from arena.ladder.config import LadderConfig
from arena.referee.check import CheckReport, Problem, check_bot, grouped
from arena.referee.folders import BotSpec, BuildError, build_bot, load_bot
from arena.referee.game import RefereeConfig, play_game
from arena.referee.sandbox import SandboxConfig

STDERR_LINES = 10  # lines of a bot's error output in the report, per cause
SELF_SEED = 7_000  # seeds of the games against copies of itself: 7000 + seat count
SANDBOX = SandboxConfig(mode="on")  # submitted bots always run in the sandbox


class Verdict(msgspec.Struct, frozen=True):
    """A version accepted or not, the sentence that says why, and the report (plain text)."""

    accepted: bool
    reason: str
    report: str


def sandboxed(spec: BotSpec, sandbox: SandboxConfig | None) -> BotSpec:
    """The bot as the ladder runs it: in `sandbox` (None: unsandboxed, for a trusted local
    ladder whose organiser said so)."""
    return msgspec.structs.replace(spec, sandbox=sandbox)


async def validate(
    folder: Path, config: LadderConfig, sandbox: SandboxConfig | None = SANDBOX
) -> Verdict:
    """Build the version in `folder` and play its validation games (see the module). The
    verdict names the version's files relative to its folder: an author is never shown
    where the server keeps them."""
    verdict = await _validate(folder, config, sandbox)
    return Verdict(verdict.accepted, _local(verdict.reason, folder), _local(verdict.report, folder))


def _local(text: str, folder: Path) -> str:
    """`text` with `folder`'s path taken out: its files by their relative paths, the folder
    itself as "its folder"."""
    where = str(folder)
    return text.replace(where + "/", "").replace(where, "its folder")


async def _validate(folder: Path, config: LadderConfig, sandbox: SandboxConfig | None) -> Verdict:
    spec = sandboxed(load_bot(str(folder)), sandbox)
    try:
        spec = await trio.to_thread.run_sync(build_bot, spec)
    except BuildError as exc:
        output = f"\n\nits output ends:\n{exc.output}" if exc.output else ""
        return Verdict(False, f"its build failed: {exc}", f"{exc}{output}\n")
    ruleset = get_ruleset(config.ruleset)
    counts = sorted(config.seat_weights())
    referee = RefereeConfig(limits=config.time.limits(), margin_ms=config.time.margin_ms())
    report = await check_bot(
        spec,
        [ruleset],
        games=config.validation.games_per_seat,
        config=referee,
        players=counts,
    )
    for players in counts:  # and one game a table size against copies of itself
        record = await play_game(
            ruleset.id,
            [spec] * players,
            options=config.options,
            seed=SELF_SEED + players,
            config=referee,
        )
        report.games += 1
        for fault in record.faults:
            report.problems.append(
                Problem(ruleset.id, players, record.seed, fault, record.stderr[fault.seat])
            )
    return _verdict(spec, report)


def _verdict(spec: BotSpec, report: CheckReport) -> Verdict:
    games = counted(report.games, "validation game")
    if report.ok:
        return Verdict(
            True,
            f"accepted: {games}, every seat, no fault",
            f"{spec.name}: {games}, {counted(report.decisions, 'decision')}, no fault.\n",
        )
    first = report.problems[0]
    reason = (
        f"rejected: {counted(len(report.problems), 'fault')} in {games}; the first, in "
        f"{first.game}: {first.fault.sentence()}"
    )
    lines = [f"{spec.name}: {reason}", ""]
    for group in grouped(report.problems):
        head = group.first
        lines.append(f"- {head.game}: {head.fault.sentence()}")
        if len(group.problems) > 1:
            lines.append(f"  (and {counted(len(group.problems) - 1, 'more fault')} like it)")
        lines.append(f"  hint: {head.hint}")
        tail = head.stderr.strip().splitlines()[-STDERR_LINES:]
        if tail:
            lines.append("  its stderr, last lines:")
            lines.extend(f"    {line}" for line in tail)
    if report.reached:
        lines += ["", "what the sandbox kept from it: " + ", ".join(report.reached)]
    return Verdict(False, reason, "\n".join(lines) + "\n")
