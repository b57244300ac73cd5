"""Peers benchmark: a move through arena's referee and through python-chess's engine API.

Run it with `bash bench/run peers`. python-chess (the `chess` package, installed in the bench
venv only) is how Python programs usually drive a game engine in another process: it speaks
UCI to a chess engine over pipes. Its two APIs are timed, each driving a trivial UCI engine
written in Python that answers `bestmove` with the first legal move (found with python-chess's
own move generator, its board kept up to date move by move), so that it thinks as little as
arena's trivial bot:

- SimpleEngine: `chess.engine.SimpleEngine.popen_uci`, the blocking API (an asyncio loop in a
  thread of its own), `engine.play(board, limit)` then `board.push(move)` until the game is
  over;
- asyncio: `chess.engine.popen_uci` and `await engine.play(board, limit)` in an asyncio loop;
- arena: a game of `odin` through `arena.referee.game.play_game` between two seats of the
  trivial Python bot (`protocol.bot`, the first legal action), as in `bash bench/run
  referee`, timed from the first decision to the end;
- raw UCI, for information: the same games' `position` and `go` lines sent to the same engine
  over plain blocking pipes and `bestmove` read back: the engine and the pipes alone.

Both sides play the engine's move from the start position: every game is the same 23 moves
(it ends in a fivefold repetition). That is python-chess's cheapest case, since it sends the
whole game's moves with each `position`. Start-up is left out on every side. Rows are
measured in rounds, interleaved, each round at least `--moves` moves of each kind; the ratio
is the median of the per-round ratios. Everything is pinned to one core, as in `referee`,
unless `--no-pin`. Goal: arena's cost per move <= 0.2 x SimpleEngine's.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import chess
import chess.engine
import trio
from referee import cpu_ns, pin, python_bot, referee_game

GOAL_RATIO = 0.2
LIMIT = chess.engine.Limit(depth=1)  # "go depth 1": the engine answers at once anyway

#: The trivial UCI engine: the first legal move of the position it is given.
ENGINE_SOURCE = """
import sys

import chess


def main():
    board, played = chess.Board(), []
    out = sys.stdout
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        command = words[0]
        if command == "uci":
            out.write("id name first-legal\\nid author arena bench\\nuciok\\n")
        elif command == "isready":
            out.write("readyok\\n")
        elif command == "ucinewgame":
            board, played = chess.Board(), []
            continue
        elif command == "position":  # only "position startpos [moves ...]" is needed here
            moves = words[3:] if len(words) > 2 and words[2] == "moves" else []
            if moves[: len(played)] != played:
                board, played = chess.Board(), []
            for move in moves[len(played):]:
                board.push(chess.Move.from_uci(move))
            played = moves
            continue
        elif command == "go":
            move = next(iter(board.legal_moves), None)
            out.write(f"bestmove {move.uci() if move else '(none)'}\\n")
        elif command == "quit":
            return
        else:
            continue
        out.flush()


main()
"""


def simple_game(engine: chess.engine.SimpleEngine) -> int:
    """One game through SimpleEngine; the moves played."""
    board = chess.Board()
    while not board.is_game_over():
        move = engine.play(board, LIMIT).move
        assert move is not None
        board.push(move)
    return len(board.move_stack)


async def asyncio_game(engine: chess.engine.UciProtocol) -> int:
    """One game through the asyncio API; the moves played."""
    board = chess.Board()
    while not board.is_game_over():
        move = (await engine.play(board, LIMIT)).move
        assert move is not None
        board.push(move)
    return len(board.move_stack)


class RawEngine:
    """The engine on plain blocking pipes, spoken to without python-chess."""

    def __init__(self, argv: list[str]) -> None:
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.stdin, self.stdout = self.proc.stdin, self.proc.stdout
        self.ask(b"uci\n", b"uciok")
        self.ask(b"isready\n", b"readyok")

    def ask(self, lines: bytes, until: bytes) -> bytes:
        """Write `lines`, read until a line starting with `until`; that line."""
        self.stdin.write(lines)
        self.stdin.flush()
        while not (line := self.stdout.readline()).startswith(until):
            assert line, "the engine ended"
        return line

    def game(self, moves: list[str]) -> int:
        """The requests python-chess makes in a game of `moves`, one round trip each."""
        for n in range(len(moves)):
            position = " ".join(["position startpos moves", *moves[:n]]).rstrip()
            self.ask(f"{position}\ngo depth 1\n".encode(), b"bestmove")
        return len(moves)

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()


def timed(
    pids: Callable[[], list[int]], play: Callable[[], int], moves: int
) -> tuple[float, float]:
    """Play games with `play` until `moves` moves; microseconds per move, wall and CPU (this
    process and the processes `pids`)."""
    done, cpu, start = 0, cpu_ns(pids()), time.perf_counter()
    while done < moves:
        done += play()
    wall = time.perf_counter() - start
    return wall / done * 1e6, (cpu_ns(pids()) - cpu) / done / 1e3


def measure(folder: Path, seconds: float, moves: int) -> dict[str, list[tuple[float, float]]]:
    """Rounds of every kind, interleaved, until `seconds` pass (at least 3)."""
    engine_path = folder / "first_legal_engine.py"
    engine_path.write_text(ENGINE_SOURCE)
    argv = [sys.executable, str(engine_path)]
    bot = python_bot(folder)
    simple = chess.engine.SimpleEngine.popen_uci(argv)
    simple_pid = simple.protocol.transport.get_pid()
    raw = RawEngine(argv)
    simple_game(simple)  # warm-up
    board = chess.Board()  # the game every round plays: the first legal move, always
    while not board.is_game_over():
        board.push(next(iter(board.legal_moves)))
    game_moves = [m.uci() for m in board.move_stack]

    async def asyncio_round() -> tuple[float, float]:
        transport, engine = await chess.engine.popen_uci(argv)
        try:
            await asyncio_game(engine)  # warm-up
            pid = transport.get_pid()
            done, cpu, start = 0, cpu_ns([pid]), time.perf_counter()
            while done < moves:
                done += await asyncio_game(engine)
            wall = time.perf_counter() - start
            return wall / done * 1e6, (cpu_ns([pid]) - cpu) / done / 1e3
        finally:
            await engine.quit()

    def arena_round() -> tuple[float, float]:
        done, wall, cpu, seed = 0, 0.0, 0.0, 0
        while done < moves:
            n, w, c = trio.run(referee_game, bot, seed)
            done, wall, cpu, seed = done + n, wall + w, cpu + c, seed + 1
        return wall / done * 1e6, cpu / done * 1e6

    out: dict[str, list[tuple[float, float]]] = {
        "raw": [],
        "simple": [],
        "asyncio": [],
        "arena": [],
    }
    try:
        arena_round()  # warm-up
        started = time.perf_counter()
        while time.perf_counter() - started < seconds or len(out["arena"]) < 3:
            out["raw"].append(timed(lambda: [raw.proc.pid], lambda: raw.game(game_moves), moves))
            out["simple"].append(timed(lambda: [simple_pid], lambda: simple_game(simple), moves))
            out["asyncio"].append(asyncio.run(asyncio_round()))
            out["arena"].append(arena_round())
    finally:
        simple.quit()
        raw.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=30.0, help="how long to measure")
    parser.add_argument("--moves", type=int, default=300, help="moves of each kind per round")
    parser.add_argument("--no-pin", action="store_true", help="do not pin to one core")
    args = parser.parse_args()
    where = pin(args.no_pin)
    with tempfile.TemporaryDirectory() as tmp:
        out = measure(Path(tmp), args.seconds, args.moves)
    print(
        f"python-chess {chess.__version__} against arena's referee; trivial engine and bot in "
        f"Python; {where}; {len(out['arena'])} rounds of at least {args.moves} moves each"
    )
    print(f"  {'us per move (median)':44}{'wall':>8}{'CPU':>8}  {'moves/s':>9}")
    rows = (
        ("raw UCI round trip (information)", "raw"),
        ("python-chess SimpleEngine", "simple"),
        ("python-chess asyncio API", "asyncio"),
        ("arena referee (odin, the trivial bot)", "arena"),
    )
    for label, key in rows:
        wall = statistics.median(w for w, _ in out[key])
        cpu = statistics.median(c for _, c in out[key])
        print(f"  {label:44}{wall:8.1f}{cpu:8.1f}  {1e6 / wall:9,.0f}")
    for peer, label in (("simple", "SimpleEngine"), ("asyncio", "asyncio API")):
        for i, clock in enumerate(("wall", "CPU")):
            ratios = [a[i] / p[i] for a, p in zip(out["arena"], out[peer], strict=True)]
            q = statistics.quantiles(ratios, n=4)
            line = (
                f"  arena / {label}, {clock} time: median {statistics.median(ratios):.2f} "
                f"(quartiles {q[0]:.2f}-{q[2]:.2f})"
            )
            if peer == "simple" and clock == "wall":
                met = statistics.median(ratios) <= GOAL_RATIO
                line += f"   goal <= {GOAL_RATIO:g}: {'met' if met else 'NOT met'}"
            print(line)


if __name__ == "__main__":
    main()
